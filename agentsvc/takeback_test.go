package agentsvc

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/byomcp/byomcp/agentsvc/session"
	"github.com/byomcp/byomcp/agentsvc/store"
)

// panickyClaims is a store whose Claim and Release panic while told to.
type panickyClaims struct {
	store.Store
	claim, release atomic.Bool
}

func (p *panickyClaims) Claim(ctx context.Context, id, owner string, ttl time.Duration) (bool, string, error) {
	if p.claim.Load() {
		panic("claim")
	}
	return p.Store.Claim(ctx, id, owner, ttl)
}

func (p *panickyClaims) Release(ctx context.Context, id, owner string) error {
	if p.release.Load() {
		panic("release")
	}
	return p.Store.Release(ctx, id, owner)
}

// TestReleaseAndClaimThatPanicEndTheirState: a release or a claim of the store that panics
// still ends the state that waits for it (session.Releasing, session.Claiming), so a later
// take-back or evict never waits for ever; the session can be taken back once the store
// behaves.
func TestReleaseAndClaimThatPanicEndTheirState(t *testing.T) {
	st := &panickyClaims{Store: store.NewMemory()}
	model, _ := openAIModel(t)
	rec := &panicRecord{}
	ts := newTestServer(t, model, func(c *Config) { c.Store = st; c.OnPanic = rec.add })
	h := hubOf(ts.Server)
	if err := st.Create(t.Context(), &store.Session{ID: "s1", Origin: testOrigin}); err != nil {
		t.Fatal(err)
	}
	ls := h.newLive("s1", testOrigin, store.Page{}, session.Loaded())
	if !h.rejoin(ls) {
		t.Fatal("not in the hub")
	}

	st.release.Store(true)
	func() {
		defer func() { _ = recover() }()
		h.evict(ls)
	}()
	if got := phaseOf(ls); got != "let-go" {
		t.Fatalf("after a release that panicked: phase %q, want let-go", got)
	}

	st.release.Store(false)
	st.claim.Store(true)
	if why := revive(ls); why == "" {
		t.Fatal("taken back though its claim panicked")
	}
	if got := phaseOf(ls); got != "let-go" {
		t.Fatalf("after a claim that panicked: phase %q, want let-go", got)
	}

	st.claim.Store(false)
	done := make(chan string, 1)
	go func() { done <- revive(ls) }()
	select {
	case why := <-done:
		if why != "" {
			t.Fatalf("not taken back once the store behaves: %s", why)
		}
	case <-time.After(waitLimit):
		t.Fatal("the take-back waited for ever")
	}
	if got := phaseOf(ls); got != "stale" { // taken back: the store is read before it writes
		t.Fatalf("after the take-back: phase %q, want stale", got)
	}
	if got := rec.got(); len(got) != 1 || got[0] != "take_back" {
		t.Fatalf("panics reported: %v, want the claim's (the release's went to its caller)", got)
	}
}
