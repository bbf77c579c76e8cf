package agentsvc

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/byomcp/byomcp/agentsvc/chat"
	"github.com/byomcp/byomcp/agentsvc/llm"
	"github.com/byomcp/byomcp/agentsvc/store"
	"github.com/byomcp/byomcp/agentsvc/store/storetest"
	"github.com/byomcp/byomcp/agentsvc/wire"
	"github.com/byomcp/byomcp/wsrpc"
)

// How long a resume takes, end to end over a loopback WebSocket: the page sends
// agent/session {sessionId, lastSeq} and waits for the result and the replay of the events it
// missed. One page socket resumes two stored sessions in turn, so each resume loads its session
// from the store (and lets go of the other one), as after a reload or a reconnect to another
// replica. Each session has 5 turns (20 messages, 170 events); the page missed the last turn.
//
//	go test -run '^$' -bench BenchmarkResume -benchtime 1000x ./agentsvc/
//	BYOMCP_RESUME_REPORT=1 go test -run TestResumeLatencyReport -v ./agentsvc/

// resumeTurns and resumeWords shape the benchmark's sessions.
const (
	resumeTurns = 5
	resumeWords = 30 // streamed words of each answer
)

// resumeModel calls echo once per user message, then answers in resumeWords words.
func resumeModel() llm.Model {
	answer := strings.TrimSpace(strings.Repeat("word ", resumeWords))
	return &scriptModel{reply: func(n int, req llm.Request) (*llm.Response, error) {
		if req.Messages[len(req.Messages)-1].Role == chat.RoleUser {
			return &llm.Response{ToolCalls: []chat.ToolCall{call(fmt.Sprintf("c%d", n), "echo", `{"text":"red cars"}`)}}, nil
		}
		return &llm.Response{Text: answer}, nil
	}}
}

// benchPage is a page for benchmarks (fakePage needs a *testing.T): it offers echo and
// signals when the event it waits for has arrived.
type benchPage struct {
	peer *wsrpc.Peer
	lock sync.Mutex
	wait struct {
		session string
		seq     int64
		reached chan struct{}
	}
}

func dialBenchPage(tb testing.TB, wsURL string) *benchPage {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	h := http.Header{}
	h.Set("Origin", testOrigin)
	mc, _, err := wsrpc.Dial(ctx, wsURL, h, wsrpc.WSOptions{})
	if err != nil {
		tb.Fatalf("dial: %v", err)
	}
	bp := &benchPage{}
	peer := wsrpc.NewPeer(mc, wsrpc.Options{PingInterval: -1})
	peer.Handle(wire.MethodInitialize, func(context.Context, *wsrpc.Request) (any, error) {
		return wire.InitializeResult{ProtocolVersion: wire.ProtocolVersion, Capabilities: json.RawMessage(`{"tools":{"listChanged":true}}`), ServerInfo: wire.Implementation{Name: "bench-page", Version: "1"}}, nil
	})
	peer.Handle(wire.MethodPing, func(context.Context, *wsrpc.Request) (any, error) { return struct{}{}, nil })
	peer.Handle(wire.MethodToolsList, func(context.Context, *wsrpc.Request) (any, error) {
		return wire.ToolsListResult{Tools: []wire.PageTool{echoTool().tool}}, nil
	})
	peer.Handle(wire.MethodToolsCall, func(context.Context, *wsrpc.Request) (any, error) {
		return map[string]any{"content": []any{map[string]any{"type": "text", "text": "3 red cars"}}}, nil
	})
	peer.HandleNotification(wire.MethodAgentEvent, func(_ context.Context, req *wsrpc.Request) {
		var e struct {
			SessionID string `json:"sessionId"`
			Seq       int64  `json:"seq"`
		}
		_ = json.Unmarshal(req.Params, &e)
		bp.lock.Lock()
		defer bp.lock.Unlock()
		if w := &bp.wait; w.reached != nil && e.SessionID == w.session && e.Seq >= w.seq {
			close(w.reached)
			w.reached = nil
		}
	})
	bp.peer = peer
	peer.Start()
	tb.Cleanup(func() {
		peer.Close(nil)
		_ = peer.Wait()
	})
	return bp
}

// expect arms the wait for event seq of session id.
func (bp *benchPage) expect(id string, seq int64) <-chan struct{} {
	ch := make(chan struct{})
	bp.lock.Lock()
	bp.wait.session, bp.wait.seq, bp.wait.reached = id, seq, ch
	bp.lock.Unlock()
	return ch
}

// resume sends agent/session and waits until the last event has arrived.
func (bp *benchPage) resume(id string, lastSeq, seq int64) error {
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	reached := bp.expect(id, seq)
	var res wire.SessionResult
	if err := bp.peer.Call(ctx, wire.MethodAgentSession, wire.SessionParams{SessionID: id, LastSeq: &lastSeq}, &res); err != nil {
		return err
	}
	if !res.Resumed || res.Seq != seq || len(res.Messages) != 4*resumeTurns {
		return fmt.Errorf("got resumed=%v seq %d with %d messages, want seq %d and %d messages", res.Resumed, res.Seq, len(res.Messages), seq, 4*resumeTurns)
	}
	select {
	case <-reached:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("the replay did not reach seq %d", seq)
	}
}

// resumeFixture is a server on st with two sessions ready to be resumed.
type resumeFixture struct {
	srv     *Server
	wsURL   string
	ids     [2]string
	lastSeq [2]int64 // the end of each session's 4th turn
	seq     [2]int64
}

func newResumeFixture(tb testing.TB, st store.Store) *resumeFixture {
	tb.Helper()
	srv, err := NewServer(Config{Store: st, Model: resumeModel(), RateLimit: 1e9, RateBurst: 1 << 20}) // one socket resumes back to back
	if err != nil {
		tb.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
		defer cancel()
		_ = srv.Shutdown(ctx)
		hs.Close()
	})
	f := &resumeFixture{srv: srv, wsURL: "ws" + strings.TrimPrefix(hs.URL, "http")}
	for i := range f.ids {
		bp := dialBenchPage(tb, f.wsURL)
		var res wire.SessionResult
		if err := bp.peer.Call(context.Background(), wire.MethodAgentSession, wire.SessionParams{}, &res); err != nil {
			tb.Fatal(err)
		}
		f.ids[i] = res.SessionID
		for turn := range resumeTurns {
			var cr wire.ChatResult
			if err := bp.peer.Call(context.Background(), wire.MethodAgentChat, wire.ChatParams{Text: fmt.Sprintf("question %d", turn)}, &cr); err != nil || cr.StopReason != wire.StopEnd {
				tb.Fatalf("turn %d: %+v %v", turn, cr, err)
			}
			s, err := st.Load(context.Background(), res.SessionID)
			if err != nil {
				tb.Fatal(err)
			}
			if turn == resumeTurns-2 {
				f.lastSeq[i] = s.Seq
			}
			f.seq[i] = s.Seq
		}
		bp.peer.Close(nil)
	}
	if !pollUntil(time.Now().Add(waitLimit), func() bool { return srv.ConnCount() == 0 }) {
		tb.Fatal("the setup sockets did not close")
	}
	return f
}

// openBenchStore opens the named store for a benchmark, or skips without redis-server.
func openBenchStore(tb testing.TB, kind string) store.Store {
	tb.Helper()
	ctx := context.Background()
	var st store.Store
	var err error
	switch kind {
	case "sqlite":
		st, err = store.OpenSQLite(ctx, filepath.Join(tb.TempDir(), "resume.db"))
	case "redis":
		st, err = store.OpenRedis(ctx, storetest.RedisServer(tb))
	default:
		st = store.NewMemory()
	}
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { st.Close() })
	return st
}

func benchmarkResume(b *testing.B, kind string) {
	f := newResumeFixture(b, openBenchStore(b, kind))
	bp := dialBenchPage(b, f.wsURL)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		k := i % 2
		if err := bp.resume(f.ids[k], f.lastSeq[k], f.seq[k]); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

func BenchmarkResumeSQLite(b *testing.B) { benchmarkResume(b, "sqlite") }
func BenchmarkResumeRedis(b *testing.B)  { benchmarkResume(b, "redis") }
func BenchmarkResumeMemory(b *testing.B) { benchmarkResume(b, "memory") }

// TestResumeLatencyReport measures 1,000 resumes per store and logs p50/p99: on an open
// socket (reload of a session that is not in memory) and with a new socket each time
// (dial, then resume: a reconnect). Set BYOMCP_RESUME_REPORT=1 to run it.
func TestResumeLatencyReport(t *testing.T) {
	if os.Getenv("BYOMCP_RESUME_REPORT") != "1" {
		t.Skip("a measurement, not a check: set BYOMCP_RESUME_REPORT=1 to run it")
	}
	const n = 1000
	for _, kind := range []string{"memory", "sqlite", "redis"} {
		t.Run(kind, func(t *testing.T) {
			f := newResumeFixture(t, openBenchStore(t, kind))
			bp := dialBenchPage(t, f.wsURL)
			open := make([]time.Duration, 0, n)
			for i := range n {
				k := i % 2
				start := time.Now()
				if err := bp.resume(f.ids[k], f.lastSeq[k], f.seq[k]); err != nil {
					t.Fatal(err)
				}
				open = append(open, time.Since(start))
			}
			bp.peer.Close(nil)
			_ = bp.peer.Wait()

			fresh := make([]time.Duration, 0, n)
			for i := range n {
				k := i % 2
				waitFor(t, "the previous socket to be gone", func() bool { return f.srv.ConnCount() == 0 })
				start := time.Now()
				p := dialBenchPage(t, f.wsURL)
				if err := p.resume(f.ids[k], f.lastSeq[k], f.seq[k]); err != nil {
					t.Fatal(err)
				}
				fresh = append(fresh, time.Since(start))
				p.peer.Close(nil)
				_ = p.peer.Wait()
			}
			t.Logf("%s: resume on an open socket: p50 %v p99 %v; reconnect (dial + resume): p50 %v p99 %v (%d each)",
				kind, percentile(open, 50), percentile(open, 99), percentile(fresh, 50), percentile(fresh, 99), n)
		})
	}
}

// percentile returns the p-th percentile (nearest rank) of ds.
func percentile(ds []time.Duration, p int) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	i := (len(s)*p+99)/100 - 1
	return s[max(i, 0)].Round(time.Microsecond)
}
