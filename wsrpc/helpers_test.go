package wsrpc

import (
	"errors"
	"sync"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
)

// rawConn is the test's end of a Pipe: it writes and reads JSON text by hand.
type rawConn struct {
	t *testing.T
	c MessageConn
}

func (r *rawConn) send(s string) {
	r.t.Helper()
	if err := r.c.WriteMessage([]byte(s)); err != nil {
		r.t.Fatalf("send %s: %v", s, err)
	}
}

func (r *rawConn) recv() string {
	r.t.Helper()
	b, err := r.c.ReadMessage()
	if err != nil {
		r.t.Fatalf("recv: %v", err)
	}
	return string(b)
}

// expect reads one message and compares it with want.
func (r *rawConn) expect(want string) {
	r.t.Helper()
	if got := r.recv(); got != want {
		r.t.Errorf("got %s, want %s", got, want)
	}
}

// startRaw starts a peer over conn (nil: one end of a new Pipe) and returns it with the
// other end for the test to drive. The peer is closed and waited for at cleanup.
func startRaw(t *testing.T, o Options, wrap func(MessageConn) MessageConn, setup func(*Peer)) (*Peer, *rawConn) {
	t.Helper()
	a, b := Pipe()
	var conn MessageConn = a
	if wrap != nil {
		conn = wrap(a)
	}
	p := NewPeer(conn, o)
	if setup != nil {
		setup(p)
	}
	p.Start()
	t.Cleanup(func() {
		b.Close()
		p.Close(nil)
		p.Wait()
	})
	return p, &rawConn{t: t, c: b}
}

// startPair starts two peers connected by a Pipe; setupB registers B's handlers.
func startPair(t *testing.T, oa, ob Options, setupB func(*Peer)) (a, b *Peer) {
	t.Helper()
	ca, cb := Pipe()
	a, b = NewPeer(ca, oa), NewPeer(cb, ob)
	if setupB != nil {
		setupB(b)
	}
	a.Start()
	b.Start()
	t.Cleanup(func() {
		a.Close(nil)
		b.Close(nil)
		a.Wait()
		b.Wait()
	})
	return a, b
}

// observed returns a logger that records every entry.
func observed() (*zap.Logger, *observer.ObservedLogs) {
	core, logs := observer.New(zap.DebugLevel)
	return zap.New(core), logs
}

// statusConn records CloseWithStatus.
type statusConn struct {
	MessageConn
	mu     sync.Mutex
	code   int
	reason string
}

func (s *statusConn) CloseWithStatus(code int, reason string) error {
	s.mu.Lock()
	s.code, s.reason = code, reason
	s.mu.Unlock()
	return s.Close()
}

func (s *statusConn) status() (int, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.code, s.reason
}

// pingConn counts pings and fails the one numbered failAt (0: never).
type pingConn struct {
	MessageConn
	mu     sync.Mutex
	pings  int
	failAt int
}

var errPingFailed = errors.New("ping failed")

func (p *pingConn) Ping() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.pings++
	if p.pings == p.failAt {
		return errPingFailed
	}
	return nil
}

func (p *pingConn) count() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.pings
}

// failConn fails every write.
type failConn struct {
	MessageConn
	err error
}

func (f *failConn) WriteMessage([]byte) error { return f.err }
