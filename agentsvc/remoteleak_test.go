package agentsvc

import (
	"testing"

	"github.com/byomcp/byomcp/agentsvc/wire"
)

// sessionOnTwoReplicas opens a new session on replica a of two whose page is, as far as a
// knows, on replica b (one remote page in a's relay); it returns a, the page and the session id.
func sessionOnTwoReplicas(t *testing.T) (*testServer, *fakePage, string) {
	t.Helper()
	_, a, _, _ := watchedReplicas(t, "answer")
	p := openPage(t, a, testOrigin, echoTool())
	id := p.session(wire.SessionParams{}).SessionID
	ls := liveOf(a.Server, id)
	if ls == nil {
		t.Fatal("the new session is not live")
	}
	pageOnReplica(a.Server, ls, "replica-b", "link-1")
	if _, n := relayLinks(a.Server); n != 1 {
		t.Fatalf("%d remote pages, want the one made", n)
	}
	return a, p, id
}

// linkEnds waits until a holds no remote page.
func linkEnds(t *testing.T, a *testServer) {
	t.Helper()
	waitFor(t, "the remote page's link to end", func() bool { _, n := relayLinks(a.Server); return n == 0 })
}

// TestParkedSessionEndsItsRemotePage: a session that was never stored, whose page was last on
// another replica, is parked when it goes idle, and the link to that page ends with it. It
// stayed in the relay's links for good (the page fuzzer's seed 9564460939796253933 left "1
// remote pages" under CI load): only a session that released its claim closed the link.
func TestParkedSessionEndsItsRemotePage(t *testing.T) {
	a, p, id := sessionOnTwoReplicas(t)
	p.peer.Close(nil)
	waitFor(t, "the unused session to be parked", func() bool { return isParked(a.Server, id) })
	linkEnds(t, a)
}

// TestDeletedSessionEndsItsRemotePage: deleting a conversation whose page is on another
// replica ends that page's link here; the other replica closes the socket on the same forget.
func TestDeletedSessionEndsItsRemotePage(t *testing.T) {
	a, _, id := sessionOnTwoReplicas(t)
	a.Server.Forget(id)
	linkEnds(t, a)
}
