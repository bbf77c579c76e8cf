package wire

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	invopop "github.com/invopop/jsonschema"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// relayKind is one kind of the relay table: who sends it, the members it carries (required,
// then optional), and, for a request, the statuses and members of its reply
// (RelayStatusVersion is added to every request's statuses).
type relayKind struct {
	kind, def, from, about string
	required, optional     []string
	request                bool
	statuses               []string
	// statusOptional: the reply may come without a status (a cancel answered with a code).
	statusOptional bool
	replyMembers   []string
}

const (
	proxyToHolder = "proxy → holder"
	holderToProxy = "holder → proxy"
	toEveryone    = "any replica → every replica, on store.ForgetChannel"
)

var relayKinds = []relayKind{
	{kind: RelayAttach, def: "Attach", from: proxyToHolder, request: true, about: "the session's tab is on my socket now",
		required: []string{"s", "l", "o"},
		statuses: []string{RelayStatusAttached, RelayStatusFork, RelayStatusReleased, RelayStatusAbsent}, replyMembers: []string{"turn", "ct", "ss"}},
	{kind: RelayDetach, def: "Detach", from: proxyToHolder, about: "that socket is gone", required: []string{"s", "l"}},
	{kind: RelayCancel, def: "Cancel", from: proxyToHolder, request: true, about: "the page sent agent/cancel",
		required: []string{"s"}, optional: []string{"turn"},
		statuses: []string{RelayStatusOK}, statusOptional: true, replyMembers: []string{"turn", "code"}},
	{kind: RelayYield, def: "Yield", from: proxyToHolder, request: true, about: "the page sent agent/chat: let the session go unless a turn runs",
		required: []string{"s", "l"}, statuses: []string{RelayStatusReleased, RelayStatusBusy, RelayStatusFork, RelayStatusAbsent}},
	{kind: RelayTools, def: "Tools", from: holderToProxy, request: true, about: "the page's tools/list",
		required: []string{"s", "l"}, optional: []string{"late"}, statuses: []string{RelayStatusOK, RelayStatusGone}, replyMembers: []string{"tools"}},
	{kind: RelayCall, def: "Call", from: holderToProxy, request: true, about: "a tools/call, an agent/confirm (cf, with the card's tool) or an agent/elicit (el, answered with eld), in the page",
		required: []string{"s", "l", "n"}, optional: []string{"a", "cf", "tool", "el"}, statuses: []string{RelayStatusOK, RelayStatusGone}, replyMembers: []string{"out", "a", "eld", "leaving"}},
	{kind: RelayUncall, def: "Uncall", from: holderToProxy, about: "the call with this id is cancelled", required: []string{"id"}},
	{kind: RelayPing, def: "Ping", from: holderToProxy, request: true, about: "is the page's socket alive?",
		required: []string{"s", "l"}, statuses: []string{RelayStatusAlive, RelayStatusDead, RelayStatusGone}},
	{kind: RelayHello, def: "Hello", from: holderToProxy, request: true, about: "do you still serve this link?",
		required: []string{"s", "l"}, statuses: []string{RelayStatusOK, RelayStatusGone}},
	{kind: RelayReleased, def: "Released", from: holderToProxy, about: "the session is free: take it over", required: []string{"s", "l"}},
	{kind: RelaySuperseded, def: "Superseded", from: holderToProxy, about: "another socket has the session now", required: []string{"s", "l"}},
	{kind: RelayForget, def: "Forget", from: toEveryone, about: "an operator deleted the session", required: []string{"s"}},
}

// relayDefsPath is where the relay's own $defs are in the schema.
const relayDefsPath = "#/$defs/Relay/$defs/"

// relaySchema is $defs/Relay: its own $defs hold, per kind, the message (<Def>Request or
// <Def>Notice) and a request's reply (<Def>Reply); it accepts any one of them. msgType is the
// reflected wire.RelayMsg, defs the reflector's definitions (RelayOutcome is moved into the
// relay's $defs; PageTool is the page protocol's).
func relaySchema(msgType *invopop.Schema, defs invopop.Definitions) (*invopop.Schema, error) {
	own := invopop.Definitions{"RelayOutcome": defs["RelayOutcome"]}
	if own["RelayOutcome"] == nil {
		return nil, fmt.Errorf("no RelayOutcome")
	}
	delete(defs, "RelayOutcome")
	delete(defs, "RelayMsg")
	member := func(name string) (*invopop.Schema, error) {
		p, ok := msgType.Properties.Get(name)
		if !ok {
			return nil, fmt.Errorf("RelayMsg has no member %q", name)
		}
		cp := *p
		switch name {
		case "v":
			cp.Type, cp.Const = "", RelayVersion
		case "id":
			cp.Minimum = "1"
		case "a":
			cp.Type = "" // any JSON: the tool's arguments
		case "out":
			cp.Ref = relayDefsPath + "RelayOutcome"
		}
		return &cp, nil
	}
	object := func(about string, kind string, names []string, required []string, set map[string]*invopop.Schema) (*invopop.Schema, error) {
		p := invopop.NewProperties()
		for _, n := range names {
			s, err := member(n)
			if err != nil {
				return nil, err
			}
			if o, ok := set[n]; ok {
				o.Description = s.Description
				s = o
			}
			p.Set(n, s)
		}
		k, _ := p.Get("k")
		k.Type, k.Const = "", kind
		return &invopop.Schema{Description: about, Type: "object", Properties: p, Required: required, AdditionalProperties: invopop.FalseSchema}, nil
	}
	var all []*invopop.Schema
	for _, k := range relayKinds {
		envelope := []string{"v", "k", "f"}
		required := append([]string{}, envelope...)
		what := "Notice"
		if k.request {
			what = "Request"
			envelope = append(envelope, "id")
			required = append(required, "id")
		}
		names := append(append(envelope, k.required...), k.optional...)
		required = append(required, k.required...)
		msg, err := object(fmt.Sprintf("%s %s (%s): %s.", k.kind, strings.ToLower(what), k.from, k.about), k.kind, dedupe(names), dedupe(required), nil)
		if err != nil {
			return nil, err
		}
		own[k.def+what] = msg
		all = append(all, &invopop.Schema{Ref: relayDefsPath + k.def + what})
		if !k.request {
			continue
		}
		statuses := []any{}
		for _, s := range append(k.statuses, RelayStatusVersion) {
			statuses = append(statuses, s)
		}
		required = []string{"v", "k", "f", "id"}
		if !k.statusOptional {
			required = append(required, "st")
		}
		rep, err := object(fmt.Sprintf("The reply to a %s request (%s).", k.kind, reverse(k.from)), RelayReply,
			append([]string{"v", "k", "f", "id", "st"}, append(k.replyMembers, "msg")...), required,
			map[string]*invopop.Schema{"st": {Type: "string", Enum: statuses}})
		if err != nil {
			return nil, err
		}
		own[k.def+"Reply"] = rep
		all = append(all, &invopop.Schema{Ref: relayDefsPath + k.def + "Reply"})
	}
	return &invopop.Schema{
		Title: fmt.Sprintf("byomcp relay between replicas, version %d", RelayVersion),
		Description: "Every message replicas that share a store send one another on its bus: one JSON object per message, " +
			`on the channel "r:" + the receiving replica's owner id (forget: on store.ForgetChannel). ` +
			"A message of a higher version \"v\" is not read (a request is answered with status version); a message without \"v\" is version 0, read as version 1. See docs/relay.md.",
		AnyOf:       all,
		Definitions: own,
	}, nil
}

// dedupe is names without repeats, in order (an uncall's "id" is in its envelope too).
func dedupe(names []string) []string {
	var out []string
	for _, n := range names {
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// reverse is the direction of a reply.
func reverse(from string) string {
	a, b, ok := strings.Cut(from, " → ")
	if !ok {
		return from
	}
	return b + " → " + a
}

// reflectRelay reflects wire.RelayMsg with r; its definitions are added to defs.
func reflectRelay(r *invopop.Reflector, defs invopop.Definitions) (*invopop.Schema, error) {
	s := r.ReflectFromType(reflect.TypeOf(RelayMsg{}))
	for name, d := range s.Definitions {
		if _, ok := defs[name]; !ok {
			defs[name] = d
		}
	}
	msg := defs["RelayMsg"]
	if msg == nil {
		return nil, fmt.Errorf("no RelayMsg")
	}
	return msg, nil
}

// TestRelaySchemaAcceptsAndRefuses: $defs/Relay tells the relay's messages from near misses,
// and a reply from a reply to another kind of request.
func TestRelaySchemaAcceptsAndRefuses(t *testing.T) {
	doc, err := protocolSchema()
	if err != nil {
		t.Fatal(err)
	}
	compiled, err := compileSchema(doc, "Relay", "Relay/$defs/AttachReply")
	if err != nil {
		t.Fatal(err)
	}
	page, relay, attachReply := compiled[0], compiled[1], compiled[2]
	for _, c := range []struct {
		msg  string
		s    *jsonschema.Schema
		good bool
	}{
		{`{"v":1,"k":"attach","f":"r1","id":1,"s":"s","l":"x","o":"http://localhost:1"}`, relay, true},
		{`{"v":1,"k":"attach","f":"r1","id":1,"s":"s","l":"x","o":"http://localhost:1"}`, page, false},
		{`{"v":1,"k":"attach","f":"r1","id":1,"s":"s","l":"x"}`, relay, false},
		{`{"v":2,"k":"attach","f":"r1","id":1,"s":"s","l":"x","o":"http://localhost:1"}`, relay, false},
		{`{"k":"attach","f":"r1","id":1,"s":"s","l":"x","o":"http://localhost:1"}`, relay, false},
		{`{"v":1,"k":"attach","f":"r1","id":0,"s":"s","l":"x","o":"http://localhost:1"}`, relay, false},
		{`{"v":1,"k":"transfer","f":"r1","id":1,"s":"s"}`, relay, false},
		{`{"v":1,"k":"detach","f":"r1","s":"s","l":"x"}`, relay, true},
		{`{"v":1,"k":"detach","f":"r1","s":"s","l":"x","n":"tool"}`, relay, false},
		{`{"v":1,"k":"uncall","f":"r1","id":4}`, relay, true},
		{`{"v":1,"k":"uncall","f":"r1"}`, relay, false},
		{`{"v":1,"k":"call","f":"r1","id":3,"s":"s","l":"x","n":"get_weather","a":{"city":"Oslo"}}`, relay, true},
		{`{"v":1,"k":"re","f":"r2","id":3,"st":"ok","out":{"kind":0,"name":"get_weather","text":"Sunny"}}`, relay, true},
		{`{"v":1,"k":"re","f":"r2","id":3,"st":"ok","out":{"kind":0,"name":"get_weather"}}`, relay, false},
		{`{"v":1,"k":"re","f":"r2","id":1,"st":"attached","turn":"t","ct":"c","ss":4}`, attachReply, true},
		{`{"v":1,"k":"re","f":"r2","id":1,"st":"version","msg":"this replica speaks relay version 1"}`, attachReply, true},
		{`{"v":1,"k":"re","f":"r2","id":1,"st":"alive"}`, attachReply, false},
		{`{"v":1,"k":"re","f":"r2","id":1}`, attachReply, false},
		{`{"v":1,"k":"re","f":"r2","id":5,"code":-32007}`, relay, true},
	} {
		v, err := jsonschema.UnmarshalJSON(strings.NewReader(c.msg))
		if err != nil {
			t.Fatal(err)
		}
		err = c.s.Validate(v)
		if (err == nil) != c.good {
			t.Errorf("%s: valid = %v, want %v (%v)", c.msg, err == nil, c.good, err)
		}
	}
}
