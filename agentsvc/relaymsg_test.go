package agentsvc

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/byomcp/byomcp/agentsvc/store"
	"github.com/byomcp/byomcp/agentsvc/wire"
)

// busReplica is a replica written against the relay's messages only (wire.RelayMsg on the
// bus): it records what reaches its channel "r:"+name, and answers requests with answer (nil:
// it does not answer).
type busReplica struct {
	name    string
	bus     store.Bus
	got     chan wire.RelayMsg
	answer  func(req wire.RelayMsg) []byte
	answers sync.WaitGroup // the answers being published
}

func newBusReplica(t *testing.T, shared store.Store, name string, answer func(wire.RelayMsg) []byte) *busReplica {
	t.Helper()
	br := &busReplica{name: name, bus: store.BusOf(shared), got: make(chan wire.RelayMsg, 256), answer: answer}
	unsub, err := br.bus.Subscribe(context.Background(), "r:"+name, func(_ string, raw []byte) {
		var m wire.RelayMsg
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Errorf("%s got an unreadable message %s: %v", name, raw, err)
			return
		}
		br.got <- m
		if br.answer != nil && m.Kind != wire.RelayReply {
			if b := br.answer(m); b != nil {
				br.answers.Go(func() { br.publish(t, m.From, string(b)) })
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		unsub()
		br.answers.Wait() // before the store closes (an earlier cleanup)
	})
	return br
}

// publish sends a raw message to replica to.
func (br *busReplica) publish(t *testing.T, to, raw string) {
	if err := br.bus.Publish(context.Background(), "r:"+to, []byte(raw)); err != nil {
		t.Errorf("publishing to %s %s: %v", to, raw, err)
	}
}

// reply waits for the reply to request id.
func (br *busReplica) reply(t *testing.T, id int64) wire.RelayMsg {
	t.Helper()
	deadline := time.After(waitLimit)
	for {
		select {
		case m := <-br.got:
			if m.Kind == wire.RelayReply && m.ID == id {
				return m
			}
		case <-deadline:
			t.Fatalf("%s got no reply to request %d", br.name, id)
		}
	}
}

// TestRelayVersionRule: a message of a higher relay version, or of a kind this build does not
// know, is not read: a request gets the status "version" at once (the sender fails it instead
// of waiting relayWait), and the receiver warns once per sending replica, not per message. A
// message without "v" (a replica of before the field) is read as version 1.
func TestRelayVersionRule(t *testing.T) {
	for _, bus := range relayBuses {
		t.Run(bus.name, func(t *testing.T) { relayVersionRule(t, bus.opener(t)) })
	}
}

func relayVersionRule(t *testing.T, open func() store.Store) {
	core, logs := observer.New(zapcore.WarnLevel)
	a := newQuietServer(t, echoUserText(), func(c *Config) {
		c.Store, c.OwnerID, c.Logger = open(), "replica-a", zap.New(core)
	})
	future := newBusReplica(t, open(), "replica-future", nil)
	other := newBusReplica(t, open(), "replica-other", nil)

	// Requests of version 2 (each kind a request of version 1, and one of a new kind): all
	// answered "version", by a replica of version 1, echoing the id.
	for i, kind := range []string{"ping", "hello", "tools", "call", "attach", "yield", "cancel", "transfer"} {
		id := int64(100 + i)
		future.publish(t, "replica-a", `{"v":2,"k":"`+kind+`","f":"replica-future","id":`+itoa64(id)+`,"s":"s1","l":"l1","new":{"x":1}}`)
		rep := future.reply(t, id)
		if rep.Status != wire.RelayStatusVersion || rep.V != wire.RelayVersion || rep.From != "replica-a" || rep.Message == "" {
			t.Errorf("%s of version 2: got reply %+v, want status %q from replica-a at version %d, with a message", kind, rep, wire.RelayStatusVersion, wire.RelayVersion)
		}
	}
	// Notices of version 2, and a forget of version 2 on the channel every replica hears: not
	// read (a's live sessions and proxies are untouched: it has none to lose, so what shows
	// is that nothing is answered and nothing crashes).
	future.publish(t, "replica-a", `{"v":2,"k":"released","f":"replica-future","s":"s1","l":"l1"}`)
	future.publish(t, "replica-a", `{"v":2,"k":"uncall","f":"replica-future","id":3}`)
	if err := future.bus.Publish(context.Background(), store.ForgetChannel, []byte(`{"v":2,"k":"forget","f":"replica-future","s":"s1"}`)); err != nil {
		t.Fatal(err)
	}
	// A request of the current kind with no "v" (version 0) is read: hello of a link a does
	// not serve is answered gone, not version.
	future.publish(t, "replica-a", `{"k":"hello","f":"replica-future","id":200,"l":"no-such-link"}`)
	if rep := future.reply(t, 200); rep.Status != wire.RelayStatusGone {
		t.Errorf("hello without v: got status %q, want %q (version 0 is read)", rep.Status, wire.RelayStatusGone)
	}
	// A second sender is warned about once too.
	other.publish(t, "replica-a", `{"v":3,"k":"ping","f":"replica-other","id":1}`)
	other.reply(t, 1)
	other.publish(t, "replica-a", `{"v":3,"k":"ping","f":"replica-other","id":2}`)
	other.reply(t, 2)

	warned := map[string]int{}
	for _, e := range logs.All() {
		warned[e.ContextMap()["replica"].(string)]++
	}
	if len(warned) != 2 || warned["replica-future"] != 1 || warned["replica-other"] != 1 {
		t.Errorf("got warnings per replica %v (%d log lines), want one for replica-future and one for replica-other", warned, logs.Len())
	}
	for len(future.got) > 0 {
		if m := <-future.got; m.Kind == wire.RelayReply && m.ID < 100 {
			t.Errorf("a notice was answered: %+v", m)
		}
	}
	if a.ConnCount() != 0 {
		t.Errorf("a serves %d sockets, want 0", a.ConnCount())
	}
}

// TestRelayVersionFailsTheRequestAtOnce: the sender's side of the rule. A request answered
// "version" (the other replica is older), or answered with a reply of a higher version (the
// other replica is newer), fails at once with errRelayVersion, not at its deadline; a reply
// without "v" (an older replica of version 0) is read.
func TestRelayVersionFailsTheRequestAtOnce(t *testing.T) {
	for _, bus := range relayBuses {
		t.Run(bus.name, func(t *testing.T) { relayVersionFailsAtOnce(t, bus.opener(t)) })
	}
}

func relayVersionFailsAtOnce(t *testing.T, open func() store.Store) {
	_, a, _ := twoReplicasVia(t, echoUserText(), nil, func(string, store.Store) store.Store { return open() })
	newBusReplica(t, open(), "replica-newer", func(req wire.RelayMsg) []byte {
		return []byte(`{"v":2,"k":"re","f":"replica-newer","id":` + itoa64(req.ID) + `,"st":"ok","new":true}`)
	})
	newBusReplica(t, open(), "replica-older", func(req wire.RelayMsg) []byte {
		return []byte(`{"k":"re","f":"replica-older","id":` + itoa64(req.ID) + `,"st":"ok"}`)
	})
	// The deadline is far beyond relayWait: only the reply can end these requests.
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	for _, c := range []struct {
		to, kind string
		want     error
	}{
		{"replica-b", "transfer", errRelayVersion}, // b (version 1) knows no such kind
		{"replica-newer", relayHello, errRelayVersion},
		{"replica-older", relayHello, nil},
	} {
		rep, err := a.relay.askWithin(ctx, c.to, relayMsg{Kind: c.kind, Link: "l1", Session: "s1"}, waitLimit)
		if !errors.Is(err, c.want) {
			t.Errorf("%s to %s: got %v, want %v", c.kind, c.to, err, c.want)
		}
		if c.want == nil && rep.Status != stOK {
			t.Errorf("%s to %s: got status %q, want %q", c.kind, c.to, rep.Status, stOK)
		}
	}
	if ctx.Err() != nil {
		t.Error("a request waited for its deadline")
	}
	if n := relayWaiting(a.Server); n != 0 {
		t.Errorf("%d requests still wait for a reply, want 0", n)
	}
}

// TestRelaySendsItsVersion: every message a replica publishes carries "v".
func TestRelaySendsItsVersion(t *testing.T) {
	shared, a, _ := twoReplicas(t, echoUserText(), nil)
	x := newBusReplica(t, shared, "replica-x", nil)
	if err := a.relay.send(context.Background(), "replica-x", relayMsg{Kind: relayDetach, Session: "s1", Link: "l1"}); err != nil {
		t.Fatal(err)
	}
	select {
	case m := <-x.got:
		if m.V != wire.RelayVersion || m.From != "replica-a" {
			t.Errorf("got %+v, want v %d from replica-a", m, wire.RelayVersion)
		}
	case <-time.After(waitLimit):
		t.Fatal("nothing reached replica-x")
	}
}

func itoa64(n int64) string { b, _ := json.Marshal(n); return string(b) }

// TestRelayBadMessages: what another replica (or anything with access to the bus) publishes
// on a replica's channel cannot take it down: an unreadable message is logged and dropped, a
// request is answered (a version it does not speak, "version"; an unknown session or link,
// absent, gone or no turn), a notice about nothing changes nothing, and the replica goes on
// answering.
func TestRelayBadMessages(t *testing.T) {
	shared, a, _ := twoReplicas(t, echoUserText(), nil)
	fz := newBusReplica(t, shared, "replica-fz", nil)
	for _, c := range []struct {
		msg, status string // status: of the reply to id (the message's id), "" none
		code        int
		id          int64
	}{
		{msg: `not json`},
		{msg: `null`},
		{msg: `[]`},
		{msg: `{}`},
		{msg: `{"v":"1","k":"hello","f":"replica-fz","id":1}`},
		{msg: `{"v":99999999999999999999,"k":"hello","f":"replica-fz","id":1}`},
		{msg: `{"v":-1,"k":"ping","f":"replica-fz","id":2}`, id: 2, status: stVersion},
		{msg: `{"v":1,"k":"","f":"replica-fz","id":3}`, id: 3, status: stVersion},
		{msg: `{"v":1,"k":"call","f":"replica-fz","id":4,"l":"nope","n":"x","a":[1,2]}`, id: 4, status: stGone},
		{msg: `{"v":1,"k":"tools","f":"replica-fz","id":5}`, id: 5, status: stGone},
		{msg: `{"v":1,"k":"attach","f":"replica-fz","id":6}`, id: 6, status: stAbsent},
		{msg: `{"v":1,"k":"yield","f":"replica-fz","id":7,"s":"nope"}`, id: 7, status: stAbsent},
		{msg: `{"v":1,"k":"cancel","f":"replica-fz","id":8}`, id: 8, code: wire.CodeNoTurn},
		{msg: `{"v":1,"k":"re","f":"replica-fz","id":999,"st":"ok"}`},
		{msg: `{"v":1,"k":"released","f":"replica-fz","l":"nope"}`},
		{msg: `{"v":1,"k":"superseded","f":"replica-fz","l":"nope"}`},
		{msg: `{"v":1,"k":"detach","f":"replica-fz","l":"nope"}`},
		{msg: `{"v":1,"k":"uncall","f":"replica-fz","id":77}`},
		{msg: `{"v":1,"k":"forget","f":"replica-fz","s":"nope"}`},
		{msg: `{"v":1,"k":"hello","f":"replica-fz","id":9,"l":"nope"}`, id: 9, status: stGone},
	} {
		fz.publish(t, "replica-a", c.msg)
		if c.id == 0 {
			continue
		}
		rep := fz.reply(t, c.id)
		if rep.Status != c.status || rep.Code != c.code {
			t.Errorf("%s: got status %q code %d, want %q %d", c.msg, rep.Status, rep.Code, c.status, c.code)
		}
	}
	for len(fz.got) > 0 {
		if m := <-fz.got; m.ID == 1 || m.ID == 77 || m.ID == 0 {
			t.Errorf("an unreadable message or a notice was answered: %+v", m)
		}
	}
	if a.ConnCount() != 0 {
		t.Errorf("a serves %d sockets, want 0", a.ConnCount())
	}
}
