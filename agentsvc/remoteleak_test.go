package agentsvc

import (
	"testing"

	"github.com/byomcp/byomcp/agentsvc/wire"
)

// TestParkedSessionEndsItsRemotePage: a session that was never stored, whose page was last on
// another replica, is parked when it goes idle, and the link to that page ends with it. It
// stayed in the relay's links for good (the page fuzzer's seed 9564460939796253933 left "1
// remote pages" under CI load): only a session that released its claim closed the link.
func TestParkedSessionEndsItsRemotePage(t *testing.T) {
	_, a, _, _ := watchedReplicas(t, "answer")
	p := openPage(t, a, testOrigin, echoTool())
	sess := p.session(wire.SessionParams{})
	ls := liveOf(a.Server, sess.SessionID)
	if ls == nil {
		t.Fatal("the new session is not live")
	}
	pageOnReplica(a.Server, ls, "replica-b", "link-1")
	if _, n := relayLinks(a.Server); n != 1 {
		t.Fatalf("%d remote pages, want the one made", n)
	}
	p.peer.Close(nil)
	waitFor(t, "the unused session to be parked", func() bool { return isParked(a.Server, sess.SessionID) })
	waitFor(t, "its remote page's link to end", func() bool { _, n := relayLinks(a.Server); return n == 0 })
}

// TestDeletedSessionEndsItsRemotePage: deleting a conversation whose page is on another
// replica ends that page's link here; the other replica closes the socket on the same forget.
func TestDeletedSessionEndsItsRemotePage(t *testing.T) {
	_, a, _, _ := watchedReplicas(t, "answer")
	p := openPage(t, a, testOrigin, echoTool())
	sess := p.session(wire.SessionParams{})
	ls := liveOf(a.Server, sess.SessionID)
	if ls == nil {
		t.Fatal("the new session is not live")
	}
	pageOnReplica(a.Server, ls, "replica-b", "link-1")
	a.Server.Forget(sess.SessionID)
	waitFor(t, "its remote page's link to end", func() bool { _, n := relayLinks(a.Server); return n == 0 })
}
