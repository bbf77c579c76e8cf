package agentsvc

import (
	"errors"
	"fmt"
	"time"

	"go.uber.org/zap"

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

// speaks tells whether message m is read here; when not, it has done what the version rule
// says (warned, answered a request, released a reply's waiter). It runs on the bus's delivery
// goroutine: the answer is sent from another.
func (r *relay) speaks(m relayMsg) bool {
	if m.V >= 0 && m.V <= wire.RelayVersion && knownRelayKind(m.Kind) {
		return true
	}
	r.warnVersion(m)
	switch {
	case m.Kind == relayReply:
		r.mu.Lock()
		ch := r.waits[m.ID]
		delete(r.waits, m.ID)
		r.mu.Unlock()
		if ch != nil {
			ch <- relayMsg{V: m.V, Kind: relayReply, From: m.From, ID: m.ID, Status: stVersion} // buffered
		}
	case m.ID != 0 && m.Kind != relayUncall && m.From != "" && m.From != r.me:
		// A message with an id is a request (uncall, a notice, names the call it cancels).
		go r.srv.guard("relay_version", func() {
			r.reply(m, relayMsg{Status: stVersion, Message: fmt.Sprintf("this replica speaks relay version %d; it does not read %.40q of version %d", wire.RelayVersion, m.Kind, m.V)})
		})
	}
	return false
}

// warnVersion logs that m is not read, once per sending replica within relayVersionWarnEvery.
func (r *relay) warnVersion(m relayMsg) {
	v := &r.versions
	now := time.Now()
	r.mu.Lock()
	last, seen := v.warned[m.From]
	if seen && now.Sub(last) < relayVersionWarnEvery {
		r.mu.Unlock()
		return
	}
	if v.warned == nil || len(v.warned) >= relayVersionWarnMax {
		v.warned = map[string]time.Time{}
	}
	v.warned[m.From] = now
	r.mu.Unlock()
	r.srv.log.Warn("relay: ignoring messages of a version or kind this replica does not speak (replicas of two versions share the bus: they do not answer each other until all run one version)",
		zap.String("replica", clipRunes(m.From, 64)), zap.Int("version", m.V), zap.String("kind", clipRunes(m.Kind, 40)), zap.Int("speaks", wire.RelayVersion))
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
