package agentsvc

import (
	"context"
	"encoding/json"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/byomcp/byomcp/agentsvc/chat"
	"github.com/byomcp/byomcp/agentsvc/llm"
	"github.com/byomcp/byomcp/agentsvc/store"
	"github.com/byomcp/byomcp/agentsvc/wire"
)

// heldClaims is a store whose next Claim, once armed, waits until let go (a replica whose
// store answers late), telling claiming when it starts.
type heldClaims struct {
	store.Store
	armed    atomic.Bool
	claiming chan struct{}
	letGo    chan struct{}
}

func newHeldClaims(st store.Store) *heldClaims {
	return &heldClaims{Store: st, claiming: make(chan struct{}), letGo: make(chan struct{})}
}

func (s *heldClaims) Unwrap() store.Store { return s.Store }

func (s *heldClaims) Claim(ctx context.Context, id, owner string, ttl time.Duration) (bool, string, error) {
	if s.armed.CompareAndSwap(true, false) {
		close(s.claiming)
		<-s.letGo
	}
	return s.Store.Claim(ctx, id, owner, ttl)
}

// onlyProxy returns the one proxy of srv's relay.
func onlyProxy(t *testing.T, srv *Server) *proxy {
	t.Helper()
	r := srv.relay
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.proxies) != 1 {
		t.Fatalf("%d proxies, want 1", len(r.proxies))
	}
	for _, px := range r.proxies {
		return px
	}
	return nil
}

// TestTakeOverFollowsANewerHolder: the tab's turn ran on a while its page was on b; the turn
// ends, a lets the session go and tells b, but b's take-over reaches the store late (its Claim
// held). Meanwhile another page of the session lands on a, resumes it, and runs a turn whose
// tool says that page navigates away. b's take-over then finds a holding the session again.
// It must not ask a for the running turn's page: a would hand it the turn (the navigating page
// no longer counts as alive), and the take-over would then drop it, leaving the turn with no
// page and the page on a, still open, attached to nothing: it got no more events
// (TestLBTabMovesBackAndForth hung on this, b's socket having closed before its take-over).
// The page on a keeps the session; b's socket follows the session's events instead of being
// sent back; the next page, on b, gets the turn, which ends there.
func TestTakeOverFollowsANewerHolder(t *testing.T) {
	leave := pageTestTool{tool: wire.PageTool{Name: "leave", InputSchema: json.RawMessage(`{"type":"object"}`)},
		fn: func(context.Context, map[string]any) (any, error) {
			return navigatingResult("off to the next page"), nil
		}}
	firstDone := make(chan struct{})
	const want = "Answered on the next page."
	model := &scriptModel{reply: func(n int, req llm.Request) (*llm.Response, error) {
		switch n {
		case 0:
			<-firstDone
			return &llm.Response{Text: "First answer."}, nil
		case 1:
			return &llm.Response{ToolCalls: []chat.ToolCall{call("l1", "leave", `{}`)}}, nil
		}
		return &llm.Response{Text: want}, nil
	}}
	var held *heldClaims
	_, a, b := twoReplicasVia(t, model, func(c *Config) {
		c.ClaimTTL = time.Minute // no claim renewal or proxy watch runs during the test
	}, func(replica string, shared store.Store) store.Store {
		if replica != "replica-b" {
			return nil
		}
		held = newHeldClaims(shared)
		return held
	})
	var once [2]sync.Once
	letFirstEnd := func() { once[0].Do(func() { close(firstDone) }) }
	letClaim := func() { once[1].Do(func() { close(held.letGo) }) }
	t.Cleanup(letFirstEnd) // a failed test lets everything go before the replicas shut down
	t.Cleanup(letClaim)

	first := openPage(t, a, testOrigin, leave)
	sess := first.session(wire.SessionParams{})
	go func() { _, _ = first.chat("one") }()
	seen := first.eventsUntil(wire.EventTurnStart)
	dropSocket(first, false)
	onB := openPage(t, b, testOrigin, leave)
	last := lastSeqOf(seen)
	if res := onB.session(wire.SessionParams{SessionID: sess.SessionID, LastSeq: &last}); !res.Resumed || res.Running == nil {
		t.Fatalf("got %+v, want the session resumed on b with its turn running on a", res)
	}
	px := onlyProxy(t, b.Server)

	held.armed.Store(true)
	letFirstEnd()
	bSeen := onB.eventsUntil(wire.EventTurnEnd) // then a lets the session go and tells b
	select {
	case <-held.claiming:
	case <-time.After(waitLimit):
		t.Fatal("b did not start taking the session over")
	}

	onA := openPage(t, a, testOrigin, leave)
	last = lastSeqOf(bSeen)
	if res := onA.session(wire.SessionParams{SessionID: sess.SessionID, LastSeq: &last}); !res.Resumed || res.Forked {
		t.Fatalf("the page on a: got %+v, want the session resumed", res)
	}
	go func() { _, _ = onA.chat("two") }()
	resultOf(onA, "l1") // the page on a answered leave: it navigates away
	letClaim()
	select {
	case <-px.taken:
	case <-time.After(waitLimit):
		t.Fatal("b's take-over did not end")
	}

	h := hubOf(a.Server)
	h.mu.Lock()
	ls := h.live[sess.SessionID]
	h.mu.Unlock()
	if ls == nil {
		t.Fatal("the session is not live on a")
	}
	conns := serverConns(a.Server)
	ls.mu.Lock()
	conn, remote, running := ls.conn, ls.remote, ls.turn != nil
	ls.mu.Unlock()
	if len(conns) != 1 || conn != conns[0] || remote != nil || !running {
		t.Fatalf("after b's take-over, a's session: attached to the page on a %v (of %d sockets), a remote page %v, a turn running %v; want the running turn still on the page on a",
			len(conns) == 1 && conn == conns[0], len(conns), remote != nil, running)
	}
	select {
	case <-onB.peer.Done():
		t.Fatalf("the socket on b was closed (%v), want it to follow the session", onB.peer.Wait())
	default:
	}

	next := openPage(t, b, testOrigin, leave) // the navigating page's next one
	last = lastSeqOf(bSeen)
	if res := next.session(wire.SessionParams{SessionID: sess.SessionID, LastSeq: &last}); !res.Resumed || res.Forked || res.Running == nil {
		t.Fatalf("the next page: got %+v, want the session resumed with its turn running on a", res)
	}
	evs := next.eventsUntil(wire.EventTurnEnd)
	end := evs[len(evs)-1]
	if end.StopReason != wire.StopEnd || end.Text != want {
		t.Fatalf("the next page got turn_end %+v, want the turn answered", end)
	}
	followed := onB.eventsUntil(wire.EventTurnEnd)
	if got := followed[len(followed)-1]; got.TurnID != end.TurnID || got.Seq != end.Seq {
		t.Fatalf("the socket on b got turn_end %+v, want the second turn's (%+v)", got, end)
	}
	seq := lastSeqOf(bSeen) + 1
	for _, e := range followed {
		if e.Seq != seq {
			t.Fatalf("the socket on b got seq %d (%s), want %d: each event once, in order", e.Seq, e.Type, seq)
		}
		seq++
	}
	if calls := onB.callsMade(); len(calls) != 0 {
		t.Errorf("the page on b ran %+v, want no call: the second turn's pages are on a, then the next one", calls)
	}
}
