package agentsvc

import (
	"fmt"
	"os"
	"testing"

	"github.com/byomcp/byomcp/agentsvc/session"
	"github.com/byomcp/byomcp/agentsvc/store"
)

// TestMain turns the lock check on (lockcheck.go) for every test of the package: a store
// call made while a lock of the package is held, or a lock of the package taken while
// another is held, fails the run, with the first one's stack.
func TestMain(m *testing.M) {
	lockCheck.Store(true)
	code := m.Run()
	if n := lockViolations.Load(); n > 0 {
		fmt.Fprintf(os.Stderr, "lock check: %d breaches (a store call with a lock held, or a lock taken inside another); the first:\n%s\n", n, *firstViolation.Load())
		code = 1
	}
	os.Exit(code)
}

// TestLockCheckCatchesAStoreCall: the check sees a store call made under a session's lock,
// and none made without it, and a lock taken inside the session's.
func TestLockCheckCatchesAStoreCall(t *testing.T) {
	model, _ := openAIModel(t)
	srv := newTestServer(t, model, nil).Server
	ls := srv.hub.newLive("lockcheck", testOrigin, store.Page{}, session.State{})
	before := lockViolations.Load()
	if _, err := srv.store.Load(t.Context(), ls.id); err == nil {
		t.Fatal("loaded a session that was never stored")
	}
	if lockViolations.Load() != before {
		t.Fatal("a store call without a lock counted as one with a lock")
	}
	ls.mu.Lock()
	_, _ = srv.store.Load(t.Context(), ls.id)
	ls.mu.Unlock()
	if lockViolations.Load() != before+1 {
		t.Fatal("a store call under the session's lock was not seen")
	}
	ls.mu.Lock()
	srv.hub.mu.Lock()
	live := len(srv.hub.live)
	srv.hub.mu.Unlock()
	ls.mu.Unlock()
	if live != 0 {
		t.Fatalf("%d sessions live, want none", live)
	}
	if lockViolations.Load() != before+2 {
		t.Fatal("the hub's lock taken inside the session's was not seen")
	}
	lockViolations.Add(-2) // these were on purpose
	firstViolation.Store(nil)
}
