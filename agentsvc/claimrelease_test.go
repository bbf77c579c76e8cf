package agentsvc

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/byomcp/byomcp/agentsvc/store"
	"github.com/byomcp/byomcp/agentsvc/wire"
)

// heldReleases is a store whose next Release, once armed, waits until let go (a store that
// answers late), telling releasing when it starts and claimedMeanwhile when a Claim of the
// same session is answered while it waits.
type heldReleases struct {
	store.Store
	armed            atomic.Bool
	held             atomic.Pointer[string]
	releasing        chan struct{}
	claimedMeanwhile chan struct{}
	claimedOnce      sync.Once
	letGo            chan struct{}
}

func newHeldReleases() *heldReleases {
	return &heldReleases{releasing: make(chan struct{}), claimedMeanwhile: make(chan struct{}), letGo: make(chan struct{})}
}

func (s *heldReleases) Unwrap() store.Store { return s.Store }

func (s *heldReleases) Release(ctx context.Context, id, owner string) error {
	if s.armed.CompareAndSwap(true, false) {
		s.held.Store(&id)
		close(s.releasing)
		<-s.letGo
	}
	return s.Store.Release(ctx, id, owner)
}

func (s *heldReleases) Claim(ctx context.Context, id, owner string, ttl time.Duration) (bool, string, error) {
	ok, holder, err := s.Store.Claim(ctx, id, owner, ttl)
	if held := s.held.Load(); held != nil && *held == id {
		s.claimedOnce.Do(func() { close(s.claimedMeanwhile) })
	}
	return ok, holder, err
}

// TestAReleaseOnItsWayKeepsANewCopysClaim: the tab's page goes and evict lets its session go,
// but the store answers the claim's release late. Meanwhile the tab's next page lands on the
// same replica and loads the session again. The late release must not delete the claim the
// new copy holds: another replica would then take the session while a turn of this one runs
// in it, and close that turn as interrupted (TestLBTabMovesBackAndForth failed so in CI).
func TestAReleaseOnItsWayKeepsANewCopysClaim(t *testing.T) {
	_, model := modelAfterFirst("second answer")
	held := newHeldReleases()
	shared, a, _ := twoReplicasVia(t, model, noPageWait, func(replica string, shared store.Store) store.Store {
		if replica != "replica-a" {
			return nil
		}
		held.Store = shared
		return held
	})
	waiting := make(chan struct{})
	var waitOnce sync.Once
	a.claimWaitHook = func(string) { waitOnce.Do(func() { close(waiting) }) }

	first := openPage(t, a, testOrigin, echoTool())
	sess := first.session(wire.SessionParams{})
	if _, err := first.chat("first"); err != nil {
		t.Fatal(err)
	}
	held.armed.Store(true)
	first.peer.Close(nil)
	select {
	case <-held.releasing:
	case <-time.After(waitLimit):
		t.Fatal("evict did not release the claim")
	}

	next := openPage(t, a, testOrigin, echoTool())
	resumed := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
		defer cancel()
		var res wire.SessionResult
		err := next.peer.Call(ctx, wire.MethodAgentSession, wire.SessionParams{SessionID: sess.SessionID}, &res)
		if err == nil && (!res.Resumed || res.Forked) {
			t.Errorf("the next page got %+v, want the session resumed", res)
		}
		resumed <- err
	}()
	select {
	case <-held.claimedMeanwhile: // it claimed with the release on its way
	case <-waiting: // it waits for the release
	case <-time.After(waitLimit):
		t.Fatal("the next page neither claimed the session nor waited for the release")
	}
	close(held.letGo)
	if err := <-resumed; err != nil {
		t.Fatalf("agent/session: %v", err)
	}
	ok, holder, err := shared.Claim(context.Background(), sess.SessionID, "replica-b", a.cfg.ClaimTTL)
	if err != nil || ok || holder != "replica-a" {
		t.Fatalf("another replica's claim of the session the next page holds on a: ok=%v holder=%q err=%v; want it held by replica-a", ok, holder, err)
	}
}

// heldRenewalsOf is a store whose claim renewals of session id (once set) each wait until let
// go, sending on renewing the channel that lets it go.
type heldRenewalsOf struct {
	store.Store
	id       atomic.Pointer[string]
	renewing chan chan struct{} // each held renewal sends the channel that lets it go
}

func (s *heldRenewalsOf) Unwrap() store.Store { return s.Store }

func (s *heldRenewalsOf) RenewClaims(ctx context.Context, ids []string, owner string, ttl time.Duration) error {
	if id := s.id.Load(); id != nil && slices.Contains(ids, *id) {
		letGo := make(chan struct{})
		s.renewing <- letGo
		<-letGo
	}
	return s.Store.(store.ClaimRenewer).RenewClaims(ctx, ids, owner, ttl)
}

// TestALateRenewalKeepsANewCopysClaim: a claim renewal takes its list of live sessions just
// before the tab's page goes and evict lets the session go; the renewal takes the claim again,
// and releases it after (releaseLetGo). Meanwhile the tab's next page landed on the same
// replica and loaded the session again, with the same owner's claim: that release must not
// delete it.
func TestALateRenewalKeepsANewCopysClaim(t *testing.T) {
	_, model := modelAfterFirst("second answer")
	held := &heldRenewalsOf{renewing: make(chan chan struct{})}
	shared, a, _ := twoReplicasVia(t, model, func(c *Config) {
		noPageWait(c)
		c.ClaimTTL = time.Second
	}, func(replica string, shared store.Store) store.Store {
		if replica != "replica-a" {
			return nil
		}
		held.Store = shared
		return held
	})
	evicted := make(chan struct{}, 1)
	a.evictHook = func(*liveSession) {
		select {
		case evicted <- struct{}{}:
		default:
		}
	}
	first := openPage(t, a, testOrigin, echoTool())
	sess := first.session(wire.SessionParams{})
	if _, err := first.chat("first"); err != nil {
		t.Fatal(err)
	}
	held.id.Store(&sess.SessionID)
	nextRenewal := func() chan struct{} {
		t.Helper()
		select {
		case letGo := <-held.renewing:
			return letGo
		case <-time.After(waitLimit):
			t.Fatal("no claim renewal")
			return nil
		}
	}
	renewal := nextRenewal() // its list holds the first page's copy
	first.peer.Close(nil)
	select {
	case <-evicted:
	case <-time.After(waitLimit):
		t.Fatal("evict did not let the session go")
	}
	next := openPage(t, a, testOrigin, echoTool())
	if res := next.session(wire.SessionParams{SessionID: sess.SessionID}); !res.Resumed || res.Forked {
		t.Fatalf("the next page got %+v, want the session resumed", res)
	}
	close(renewal) // the late renewal ends, then releases what it took again
	after := nextRenewal()
	defer close(after)
	ok, holder, err := shared.Claim(context.Background(), sess.SessionID, "replica-b", a.cfg.ClaimTTL)
	if err != nil || ok || holder != "replica-a" {
		t.Fatalf("another replica's claim of the session the next page holds on a: ok=%v holder=%q err=%v; want it held by replica-a", ok, holder, err)
	}
}
