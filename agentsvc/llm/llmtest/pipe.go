package llmtest

import (
	"context"
	"net"
	"net/http"
	"sync"
)

// memNet serves a Server over in-memory pipes: the client's transport dials a net.Pipe
// and hands the other end to an http.Server through a channel listener. Everything blocks
// on channels, so inside a testing/synctest bubble the fake clock can advance.
type memNet struct {
	conns     chan net.Conn
	done      chan struct{}
	closeOnce sync.Once
	srv       *http.Server
	served    chan struct{}
	transport *http.Transport
	client    *http.Client
}

func newMemNet(h http.Handler) *memNet {
	m := &memNet{
		conns:  make(chan net.Conn),
		done:   make(chan struct{}),
		served: make(chan struct{}),
		srv:    &http.Server{Handler: h},
	}
	m.transport = &http.Transport{
		DialContext: m.dial,
		// One request per connection: no idle connection outlives a request, so nothing
		// is left reading a pipe when a synctest bubble ends.
		DisableKeepAlives: true,
	}
	m.client = &http.Client{Transport: m.transport}
	go func() {
		defer close(m.served)
		_ = m.srv.Serve(memListener{m})
	}()
	return m
}

func (m *memNet) dial(ctx context.Context, _, _ string) (net.Conn, error) {
	client, server := net.Pipe()
	select {
	case m.conns <- server:
		return client, nil
	case <-m.done:
	case <-ctx.Done():
	}
	_ = client.Close()
	_ = server.Close()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return nil, net.ErrClosed
}

func (m *memNet) close() {
	m.closeOnce.Do(func() { close(m.done) })
	_ = m.srv.Close()
	m.transport.CloseIdleConnections()
	<-m.served
}

// memListener is the net.Listener side of memNet.
type memListener struct{ m *memNet }

func (l memListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.m.conns:
		return c, nil
	case <-l.m.done:
		return nil, net.ErrClosed
	}
}

func (l memListener) Close() error {
	l.m.closeOnce.Do(func() { close(l.m.done) })
	return nil
}

func (l memListener) Addr() net.Addr { return memAddr{} }

type memAddr struct{}

func (memAddr) Network() string { return "pipe" }
func (memAddr) String() string  { return "llmtest.invalid:80" }
