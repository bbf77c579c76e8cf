// The relay's messages between replicas: their kinds and statuses under short names, how
// long each kind of request is waited for, and the version rule.

package agentsvc

import (
	"errors"
	"time"

	"github.com/byomcp/byomcp/agentsvc/wire"
)

// The relay's version rule (docs/relay.md): every message carries the version of the relay
// protocol its sender speaks ("v"; absent is version 0, which version 1 reads as its own: it
// only added "v" and the status "version"). A message of a higher version, or of a kind this
// build does not know, is not read: a rolling deploy of two versions degrades to replicas
// that do not answer each other, which every relay wait already survives. So that the sender
// does not wait out relayWait, a request is answered at once with the status "version", and
// a reply of a higher version releases its waiter with that status. The receiver warns once
// per sending replica (then at most every relayVersionWarnEvery), not once per message.

// errRelayVersion is a request answered "version": the other replica does not speak this
// build's relay version; the request is failed as one that was not answered.
var errRelayVersion = errors.New("relay: the other replica does not speak this relay version")

// relayVersionWarnEvery is how often a replica that keeps sending messages of a version this
// build does not speak is warned about again; relayVersionWarnMax bounds the replicas
// remembered (past it, the memory is cleared and each is warned about once more).
const (
	relayVersionWarnEvery = 10 * time.Minute
	relayVersionWarnMax   = 1024
)

// relayVersions remembers when each replica was last warned about, under the relay's mu.
type relayVersions struct {
	warned map[string]time.Time
}

// knownRelayKind tells whether kind is one of this version's kinds.
func knownRelayKind(kind string) bool {
	switch kind {
	case relayReply, relayAttach, relayDetach, relayCancel, relayYield, relayTools, relayCall,
		relayUncall, relayPing, relayHello, relayReleased, relaySuperseded, relayForget:
		return true
	}
	return false
}

// clipRunes is s cut to at most n runes (a value read from the bus, for a log line).
func clipRunes(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i] + "…"
		}
		n--
	}
	return s
}

// relayMsg is one message between replicas (wire.RelayMsg, with the kinds and statuses
// below under their short names here).
type relayMsg = wire.RelayMsg

// Message kinds (wire: who sends each, and what answers it).
const (
	relayReply      = wire.RelayReply
	relayAttach     = wire.RelayAttach     // proxy → holder: the session's page is on my socket now
	relayDetach     = wire.RelayDetach     // proxy → holder: that socket is gone
	relayCancel     = wire.RelayCancel     // proxy → holder: agent/cancel
	relayYield      = wire.RelayYield      // proxy → holder: agent/chat; let the session go unless a turn runs
	relayTools      = wire.RelayTools      // holder → proxy: the page's tools
	relayCall       = wire.RelayCall       // holder → proxy: tools/call
	relayUncall     = wire.RelayUncall     // holder → proxy: that call is cancelled
	relayPing       = wire.RelayPing       // holder → proxy: is the page's socket alive?
	relayHello      = wire.RelayHello      // holder → proxy: do you still serve this link?
	relayReleased   = wire.RelayReleased   // holder → proxy: the session is free; take it over
	relaySuperseded = wire.RelaySuperseded // holder → proxy: another socket has the session now
	relayForget     = wire.RelayForget     // to every replica, on store.ForgetChannel: an operator deleted the session
)

// Statuses of replies.
const (
	stAttached = wire.RelayStatusAttached
	stFork     = wire.RelayStatusFork
	stReleased = wire.RelayStatusReleased
	stAbsent   = wire.RelayStatusAbsent
	stBusy     = wire.RelayStatusBusy
	stOK       = wire.RelayStatusOK
	stGone     = wire.RelayStatusGone
	stAlive    = wire.RelayStatusAlive
	stDead     = wire.RelayStatusDead
	stVersion  = wire.RelayStatusVersion
)

// relayWait bounds a request whose answer is quick (not a tool call): a replica that does
// not answer within it is taken as gone.
const relayWait = 3 * time.Second

// An attach is answered by a holder that may first ping the tab's previous socket through
// that socket's replica, which may be dead (a kill -9). The holder decides within
// attachDecide (a page that does not answer its replica's probe within probeWait is dead; a
// replica that does not pass the answer on by then is taken as dead with it), and the asking
// replica waits attachWait for the answer, more than that: both waiting relayWait, the asker
// gave up at the moment the holder attached it, and the tab was forked away from its turn.
// A holder that is itself dead costs the asker attachWait before it waits out the claim.
const (
	attachDecide = probeWait + probeWait/4
	attachWait   = attachDecide + relayWait/2
)

// relayProbe is how often a holder waiting for a routed tool call asks whether the page's
// replica still serves the page.
const relayProbe = 2 * time.Second

// probeWait bounds the ping that tells a live tab from a dead socket (see pageConn.alive).
const probeWait = 2 * time.Second
