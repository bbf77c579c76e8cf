package pagemcp

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/byomcp/byomcp/agentsvc/wire"
	"github.com/byomcp/byomcp/wsrpc"
)

// The re-list's one owner (issue 11, defect #1), tested on fake time over an in-memory pipe.

// failOnPanic makes a recovered panic fail the test: it is still a bug.
func failOnPanic(t testing.TB) func(string, any) {
	return func(where string, v any) { t.Errorf("recovered a panic in %s: %v", where, v) }
}

// relistPage is a page over an in-memory pipe (usable inside a synctest bubble): it answers
// tools/list with the current tools after listDelay.
type relistPage struct {
	peer      *wsrpc.Peer
	mu        sync.Mutex
	tools     []wire.PageTool
	lists     int
	listDelay time.Duration
}

func (p *relistPage) setTools(names ...string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.tools = nil
	for _, n := range names {
		p.tools = append(p.tools, wire.PageTool{Name: n, InputSchema: json.RawMessage(`{"type":"object"}`)})
	}
}

func (p *relistPage) listCount() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.lists
}

// serveRelistPage connects a relistPage to a new Client over wsrpc.Pipe and starts the
// client's handshake; the client's socket ends with the page's.
func serveRelistPage(t *testing.T, o Options, listDelay time.Duration, tools ...string) (*relistPage, *Client) {
	t.Helper()
	a, b := wsrpc.Pipe()
	p := &relistPage{listDelay: listDelay}
	p.setTools(tools...)
	p.peer = wsrpc.NewPeer(b, wsrpc.Options{PingInterval: -1, OnPanic: failOnPanic(t)})
	p.peer.Handle(wire.MethodInitialize, func(context.Context, *wsrpc.Request) (any, error) {
		return wire.InitializeResult{ProtocolVersion: wire.ProtocolVersion, Capabilities: json.RawMessage(`{"tools":{"listChanged":true}}`), ServerInfo: wire.Implementation{Name: "pipe-page", Version: "1"}}, nil
	})
	p.peer.Handle(wire.MethodToolsList, func(ctx context.Context, _ *wsrpc.Request) (any, error) {
		p.mu.Lock()
		p.lists++
		delay := p.listDelay
		p.mu.Unlock()
		select {
		case <-time.After(delay):
		case <-ctx.Done():
		}
		p.mu.Lock() // the tools as they are when the answer leaves (a page that changed meanwhile)
		defer p.mu.Unlock()
		return wire.ToolsListResult{Tools: slices.Clone(p.tools)}, nil
	})
	p.peer.Handle(wire.MethodPing, func(context.Context, *wsrpc.Request) (any, error) { return struct{}{}, nil })
	p.peer.Start()
	agent := wsrpc.NewPeer(a, wsrpc.Options{PingInterval: -1, OnPanic: failOnPanic(t)})
	c := New(agent, o)
	agent.Start()
	go func() {
		if err := c.Handshake(context.Background()); err != nil {
			t.Errorf("handshake: %v", err)
		}
	}()
	return p, c
}

func (p *relistPage) listChanged(t *testing.T) {
	t.Helper()
	if err := p.peer.Notify(context.Background(), wire.MethodToolsListChanged, map[string]any{}); err != nil {
		t.Fatalf("list_changed: %v", err)
	}
}

func registeredNames(c *Client) []string {
	var names []string
	for _, pt := range c.Tools() {
		names = append(names, pt.Name)
	}
	return names
}

// Defect #1 (critical): a page that answers tools/list slower than the re-list debounce and
// sends list_changed again and again while the re-list runs made two timers close one
// channel, and the process exited. Now one goroutine owns the re-list: no panic, every
// waiter is released, and the tools end as the page's latest.
func TestRelistStormDuringSlowListing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		page, c := serveRelistPage(t, Options{Logger: zaptest.NewLogger(t), OnPanic: failOnPanic(t), RelistDebounce: 100 * time.Millisecond}, 300*time.Millisecond, "v0")
		synctest.Wait()
		time.Sleep(time.Second) // the handshake's slow listing
		if got := registeredNames(c); !slices.Equal(got, []string{"v0"}) {
			t.Fatalf("after the handshake: got tools %v, want [v0]", got)
		}

		// list_changed every 150 ms for 4.5 s, the tools changing each time: each debounce
		// (100 ms) ends before the next notification, and each listing (300 ms) is still
		// running when the next notifications come (the old code's two timers then closed
		// one channel).
		ready := make(chan struct{})
		go func() { // a model call waiting for the tools meanwhile
			defer close(ready)
			time.Sleep(150 * time.Millisecond)
			c.Ready(context.Background())
		}()
		for i := 1; i <= 30; i++ {
			page.setTools(fmt.Sprintf("v%d", i))
			page.listChanged(t)
			time.Sleep(150 * time.Millisecond)
		}
		synctest.Wait()
		<-ready // released (the loop closed the channel it was waiting on)

		// After the storm: one waiter more, released once the page's latest tools are in.
		c.Ready(context.Background())
		if got := registeredNames(c); !slices.Equal(got, []string{"v30"}) {
			t.Errorf("after the storm: got tools %v, want [v30] (the page's latest)", got)
		}
		if n := page.listCount(); n < 3 || n > 31 {
			t.Errorf("got %d listings, want between 3 and 31 (one per debounce at most, plus the handshake)", n)
		}
		c.mu.Lock()
		running, due := c.relistRunning, c.relistDone != nil
		c.mu.Unlock()
		if running || due {
			t.Errorf("after the storm: re-list loop running %v, waiters pending %v; want neither", running, due)
		}

		page.peer.Close(nil)
		page.peer.Wait()
		c.peer.Wait()
	})
}

// The re-list's waiters are released when the socket ends in the middle of a re-list.
func TestRelistWaitersReleasedWhenSocketEnds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// The handshake's listing answers at once (a delay set after the handshake started
		// raced with it: the handshake could wait on the hour-long listing and fail after
		// the test ended).
		page, c := serveRelistPage(t, Options{Logger: zaptest.NewLogger(t), OnPanic: failOnPanic(t)}, 0, "a")
		synctest.Wait()
		if got := registeredNames(c); !slices.Equal(got, []string{"a"}) {
			t.Fatalf("after the handshake: got tools %v, want [a]", got)
		}
		page.mu.Lock()
		page.listDelay = time.Hour // the re-list never answers
		page.mu.Unlock()
		page.listChanged(t)
		synctest.Wait()
		time.Sleep(200 * time.Millisecond)
		c.mu.Lock()
		done := c.relistDone
		c.mu.Unlock()
		if done == nil {
			t.Fatal("no re-list due after list_changed")
		}
		page.peer.Close(nil)
		<-done // closed by the loop as the socket ended
		page.peer.Wait()
		c.peer.Wait()
	})
}

// AwaitTools (a page that registers its tools once its data has loaded): it waits through
// announcements that still list nothing, returns once a listing has tools, returns at once
// when the page has some, and is bounded by its context and by the socket.
func TestAwaitToolsWaitsForALatePage(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		page, c := serveRelistPage(t, Options{Logger: zaptest.NewLogger(t), OnPanic: failOnPanic(t), RelistDebounce: 100 * time.Millisecond}, 0)
		synctest.Wait()

		// Never registers: the context ends the wait.
		start := time.Now()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		c.AwaitTools(ctx)
		cancel()
		if waited := time.Since(start); waited != 2*time.Second {
			t.Errorf("waited %v for a page without tools, want its context's 2s", waited)
		}

		got := make(chan time.Duration)
		start = time.Now()
		go func() {
			c.AwaitTools(context.Background())
			got <- time.Since(start)
		}()
		time.Sleep(300 * time.Millisecond)
		page.listChanged(t) // still nothing (a page that reorganizes before its data is in)
		time.Sleep(300 * time.Millisecond)
		synctest.Wait()
		select {
		case d := <-got:
			t.Fatalf("returned after %v with tools %v, before the page had any", d, registeredNames(c))
		default:
		}
		page.setTools("book_test_drive")
		page.listChanged(t)
		if d := <-got; d != 700*time.Millisecond { // 600 ms, then the re-list's 100 ms debounce
			t.Errorf("returned after %v, want 700ms", d)
		}
		if names := registeredNames(c); !slices.Equal(names, []string{"book_test_drive"}) {
			t.Errorf("got tools %v, want [book_test_drive]", names)
		}

		start = time.Now()
		c.AwaitTools(context.Background()) // has tools: at once
		if d := time.Since(start); d != 0 {
			t.Errorf("waited %v for a page that has tools", d)
		}

		page.setTools()
		page.listChanged(t)
		synctest.Wait()
		c.Ready(context.Background())
		go func() { time.Sleep(time.Second); page.peer.Close(nil) }()
		start = time.Now()
		c.AwaitTools(context.Background()) // the socket ends the wait
		if d := time.Since(start); d != time.Second {
			t.Errorf("waited %v, want until the socket ended (1s)", d)
		}
		page.peer.Wait()
		c.peer.Wait()
	})
}
