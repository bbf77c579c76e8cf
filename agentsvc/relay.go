package agentsvc

// The relay: replicas that share a store with a bus (Redis) act as one system. A turn runs on
// the replica that holds its session's claim (the holder); the tab's socket may be on any
// replica. The replica with the socket keeps a proxy of the session: it follows the session's
// event log as it is appended (the store publishes every Append on the bus) and sends the
// events to the page; the holder sees the page as a remotePage whose tools/list and
// tools/call go over the bus to the proxy's replica, which runs them on the page's MCP client
// (confirmations, progress and time-outs included) and sends the outcome back. agent/chat and
// agent/cancel on a proxied socket are passed to the holder. When the holder's turn ends it
// lets the session go and tells the proxy, which takes it over: the next turn runs where the
// tab is. A holder that dies keeps its claim until it lapses; the proxy then takes the
// session over and closes the cut turn as interrupted (resume does, as after a restart).
//
// Messages are JSON (wire.RelayMsg) on the channel "r:" + the replica's owner id; a request
// carries an id that its reply ("re") echoes, and every message the version it is written in
// (wire.RelayVersion; docs/relay.md has the rule). The bus may lose a message: every wait is
// bounded, and the claim is the authority on who runs the session.

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/byomcp/byomcp/agentsvc/store"
	"github.com/byomcp/byomcp/agentsvc/tools"
	"github.com/byomcp/byomcp/agentsvc/wire"
)

// relay is a Server's side of the bus. nil when the store has no bus (one process).
//
// Lock order: mu is a leaf.
type relay struct {
	*guardian
	cfg   *Config // read only
	srv   *Server
	bus   store.Bus
	me    string
	unsub func()

	// served counts the sockets served for a turn of another replica, routed the tool calls
	// run for one (the fuzzer reports them).
	served, routed atomic.Int64
	// dead (tests): this replica was killed; what it would publish is lost.
	dead atomic.Bool

	mu      mutex
	nextID  int64
	waits   map[int64]chan relayMsg
	links   map[string]*remotePage        // holder side: link id → the remote page
	proxies map[string]*proxy             // socket side: link id → the proxy
	calls   map[string]context.CancelFunc // socket side: caller + request id → cancel

	versions relayVersions // who was warned of messages of a version not spoken here
}

func newRelay(ctx context.Context, s *Server) (*relay, error) {
	bus := store.BusOf(s.cfg.Store)
	if bus == nil {
		return nil, nil
	}
	r := &relay{guardian: s.guardian, srv: s, cfg: &s.cfg, bus: bus, me: s.owner, waits: map[int64]chan relayMsg{},
		links: map[string]*remotePage{}, proxies: map[string]*proxy{}, calls: map[string]context.CancelFunc{}}
	unsub, err := bus.Subscribe(ctx, "r:"+r.me, r.deliver)
	if err != nil {
		return nil, err
	}
	unsubForget, err := bus.Subscribe(ctx, store.ForgetChannel, r.deliver)
	if err != nil {
		unsub()
		return nil, err
	}
	r.unsub = func() { unsub(); unsubForget() }
	return r, nil
}

// broadcastForget tells the other replicas that an operator deleted session id.
func (r *relay) broadcastForget(ctx context.Context, id string) error {
	b, err := json.Marshal(relayMsg{V: wire.RelayVersion, Kind: relayForget, From: r.me, Session: id})
	if err != nil {
		return err
	}
	return r.bus.Publish(ctx, store.ForgetChannel, b)
}

func (r *relay) close() {
	if r != nil && r.unsub != nil {
		r.unsub()
	}
}

// deliver is the bus's callback: replies go to their waiter, requests run in goroutines.
func (r *relay) deliver(_ string, raw []byte) {
	if raw == nil {
		return // the bus broke and is back: waits are bounded; nothing to read again here
	}
	var m relayMsg
	if err := json.Unmarshal(raw, &m); err != nil {
		r.log.Warn("relay: unreadable message", zap.Error(err))
		return
	}
	if !r.speaks(m) {
		return
	}
	if m.Kind == relayReply {
		r.mu.Lock()
		ch := r.waits[m.ID]
		delete(r.waits, m.ID)
		r.mu.Unlock()
		if ch != nil {
			ch <- m // buffered
		}
		return
	}
	go r.guard("relay_"+m.Kind, func() { r.handle(m) })
}

func (r *relay) send(ctx context.Context, to string, m relayMsg) error {
	if r.dead.Load() {
		return nil
	}
	m.V, m.From = wire.RelayVersion, r.me
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	return r.bus.Publish(ctx, "r:"+to, b)
}

// request sends m to replica to and returns its id, the channel its reply comes on, and a
// function that forgets the request (call it when done waiting).
func (r *relay) request(ctx context.Context, to string, m relayMsg) (int64, <-chan relayMsg, func(), error) {
	ch := make(chan relayMsg, 1)
	r.mu.Lock()
	r.nextID++
	m.ID = r.nextID
	r.waits[m.ID] = ch
	r.mu.Unlock()
	forget := func() {
		r.mu.Lock()
		delete(r.waits, m.ID)
		r.mu.Unlock()
	}
	if err := r.send(ctx, to, m); err != nil {
		forget()
		return 0, nil, nil, err
	}
	return m.ID, ch, forget, nil
}

// ask sends a request and waits for its reply up to relayWait.
func (r *relay) ask(ctx context.Context, to string, m relayMsg) (relayMsg, error) {
	return r.askWithin(ctx, to, m, relayWait)
}

// askWithin is ask waiting up to wait: for a request whose handler itself asks another
// replica (an attach, whose holder pings the old page through that page's replica).
func (r *relay) askWithin(ctx context.Context, to string, m relayMsg, wait time.Duration) (relayMsg, error) {
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	_, ch, forget, err := r.request(ctx, to, m)
	if err != nil {
		return relayMsg{}, err
	}
	defer forget()
	select {
	case rep := <-ch:
		if rep.Status == stVersion {
			return rep, errRelayVersion
		}
		return rep, nil
	case <-ctx.Done():
		return relayMsg{}, ctx.Err()
	}
}

func (r *relay) reply(req relayMsg, rep relayMsg) {
	rep.Kind, rep.ID = relayReply, req.ID
	ctx, cancel := context.WithTimeout(context.Background(), relayWait)
	defer cancel()
	if err := r.send(ctx, req.From, rep); err != nil {
		r.log.Debug("relay: replying", zap.Error(err))
	}
}

// handle runs one request or notice from another replica.
func (r *relay) handle(m relayMsg) {
	h := r.srv.hub
	switch m.Kind {
	case relayAttach:
		r.reply(m, h.attachRemote(m))
	case relayDetach:
		r.mu.Lock()
		rp := r.links[m.Link]
		r.mu.Unlock()
		if rp != nil && rp.replica == m.From {
			h.dropRemote(rp)
		}
	case relayForget:
		if m.From != r.me && m.Session != "" {
			r.srv.forgetHere(m.Session)
		}
	case relayCancel:
		r.reply(m, h.cancelFromRemote(m))
	case relayYield:
		r.reply(m, h.yieldTo(m))
	case relayTools, relayCall, relayPing, relayHello:
		r.mu.Lock()
		px := r.proxies[m.Link]
		r.mu.Unlock()
		if px == nil || px.ended() {
			r.reply(m, relayMsg{Status: stGone})
			return
		}
		switch m.Kind {
		case relayHello:
			r.reply(m, relayMsg{Status: stOK})
		case relayTools:
			r.reply(m, px.pageTools(m.Late))
		case relayCall:
			r.reply(m, r.runCall(px, m))
		case relayPing:
			st := stDead
			if px.c.alive(context.Background(), min(probeWait, h.cfg.HandshakeTimeout)) {
				st = stAlive
			}
			r.reply(m, relayMsg{Status: st})
		}
	case relayUncall:
		r.mu.Lock()
		cancel := r.calls[callKey(m.From, m.ID)]
		r.mu.Unlock()
		if cancel != nil {
			cancel()
		}
	case relayReleased, relaySuperseded:
		r.mu.Lock()
		px := r.proxies[m.Link]
		r.mu.Unlock()
		if px == nil {
			return
		}
		if m.Kind == relayReleased {
			px.takeOver()
		} else {
			px.end("another socket of its session took it over")
			px.c.sendBack("replaced by a new socket of its session")
		}
	}
}

func callKey(from string, id int64) string { return from + "/" + strconv.FormatInt(id, 10) }

// runCall runs a tools/call of a remote turn on the proxy's page: the page's MCP client does
// the validation, confirmation, progress and time-outs, as for a turn of this replica.
func (r *relay) runCall(px *proxy, m relayMsg) relayMsg {
	ctx, cancel := context.WithCancel(context.Background())
	key := callKey(m.From, m.ID)
	r.mu.Lock()
	r.calls[key] = cancel
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		delete(r.calls, key)
		r.mu.Unlock()
		cancel()
	}()
	r.routed.Add(1)
	var out tools.Outcome
	var edited json.RawMessage
	if m.Elicit != nil {
		res, missed, again := px.c.elicit(ctx, *m.Elicit)
		out = tools.Answered(m.Name, "", false)
		return relayMsg{Status: stOK, Outcome: &wire.RelayOutcome{Kind: uint8(out.Kind), Name: out.Name}, Elicited: &wire.RelayElicited{Result: res, Missed: missed, Again: again}, Leaving: px.c.mcp.Leaving()}
	}
	if m.Confirm {
		asked, args, ok := px.c.confirmCall(ctx, m.Name, m.Args, m.Tool)
		if ok {
			out, edited = tools.Answered(m.Name, "", false), args
			out.Confirmation = asked.Confirmation
		} else {
			out = asked
		}
	} else {
		out = px.c.callTool(ctx, m.Name, m.Args)
	}
	return relayMsg{Status: stOK, Outcome: &wire.RelayOutcome{Kind: uint8(out.Kind), Name: out.Name, Text: out.Text, AskAgain: out.AskAgain, Confirmation: out.Confirmation}, Args: edited, Leaving: px.c.mcp.Leaving()}
}

func zapReplica(id string) zap.Field { return zap.String("replica", id) }

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
		go r.guard("relay_version", func() {
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
	r.log.Warn("relay: ignoring messages of a version or kind this replica does not speak (replicas of two versions share the bus: they do not answer each other until all run one version)",
		zap.String("replica", clipRunes(m.From, 64)), zap.Int("version", m.V), zap.String("kind", clipRunes(m.Kind, 40)), zap.Int("speaks", wire.RelayVersion))
}
