package agentsvc

// The relay's golden transcripts: two replicas on one store with a bus run a scenario, every
// message published on the relay's channels ("r:*" and store.ForgetChannel) is recorded,
// validated against docs/protocol.schema.json ($defs/Relay; a reply against the reply schema of
// the request it answers), normalised, and compared with the scenario's file (`go test
// ./agentsvc -run TestRelayTranscript -update` records them again): testdata/relay.golden
// (relayGoldenHeader), and testdata/relay-handover.golden (relayHandoverHeader, in
// relayhandover_test.go). The two together use every kind of $defs/Relay.
//
// Normalised: a session, link, turn or clientTurnId value becomes <s1>, <l1>, <turn1>, <ct1>…
// in order of first use; a request's id becomes its rank among its sender's requests (an
// uncall names the call's, a reply its request's). Replicas run concurrently, so the lines are
// compared as a multiset; the file keeps the order of the recording (the recorder hears a
// message when the bus hands it to its subscribers, so a reply may come before its request).
// hello requests (the holder's probe of a routed call, every relayProbe) depend on the clock:
// in relay.golden they and their replies are validated but left out of the comparison; the
// handover scenario holds a routed call until one is answered, and compares them with id 0,
// each distinct line once.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/byomcp/byomcp/agentsvc/chat"
	"github.com/byomcp/byomcp/agentsvc/llm"
	"github.com/byomcp/byomcp/agentsvc/store"
	"github.com/byomcp/byomcp/agentsvc/store/storetest"
	"github.com/byomcp/byomcp/agentsvc/wire"
)

const relayGolden = "testdata/relay.golden"

// busLine is one message on the bus: its channel and its bytes.
type busLine struct {
	channel string
	raw     string
}

// busRecorder records every message published on the relay's channels.
type busRecorder struct {
	lock  sync.Mutex
	lines []busLine
}

func recordRelay(t *testing.T, shared store.Store) *busRecorder {
	t.Helper()
	rec := &busRecorder{}
	bus := store.BusOf(shared)
	for _, ch := range []string{"r:*", store.ForgetChannel} {
		unsub, err := bus.Subscribe(context.Background(), ch, func(channel string, msg []byte) {
			rec.lock.Lock()
			rec.lines = append(rec.lines, busLine{channel, string(msg)})
			rec.lock.Unlock()
		})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(unsub)
	}
	return rec
}

func (rec *busRecorder) all() []busLine {
	rec.lock.Lock()
	defer rec.lock.Unlock()
	return slices.Clone(rec.lines)
}

// reqKey names a request: its sender and id.
type reqKey struct {
	from string
	id   int64
}

// settled tells whether every request recorded has its reply and a forget was recorded.
func (rec *busRecorder) settled() bool {
	open, forgot := rec.open()
	return forgot && len(open) == 0
}

// open lists the requests recorded without their reply, and tells whether a forget was.
func (rec *busRecorder) open() (open map[reqKey]bool, forgot bool) {
	open = map[reqKey]bool{}
	answered := map[reqKey]bool{}
	for _, l := range rec.all() {
		var m wire.RelayMsg
		if json.Unmarshal([]byte(l.raw), &m) != nil {
			continue // validateRelay says so
		}
		switch {
		case m.Kind == wire.RelayForget:
			forgot = true
		case m.Kind == wire.RelayReply:
			answered[reqKey{strings.TrimPrefix(l.channel, "r:"), m.ID}] = true
		case m.ID != 0 && m.Kind != wire.RelayUncall:
			open[reqKey{m.From, m.ID}] = true
		}
	}
	for k := range answered {
		delete(open, k)
	}
	return open, forgot
}

// relaySchemas compiles $defs/Relay and the reply schema of each request kind.
func relaySchemas(t *testing.T) (relay *jsonschema.Schema, replies map[string]*jsonschema.Schema) {
	t.Helper()
	c, id := protocolSchema(t)
	var err error
	if relay, err = c.Compile(id + "#/$defs/Relay"); err != nil {
		t.Fatal(err)
	}
	replies = map[string]*jsonschema.Schema{}
	for _, k := range []string{relayAttach, relayCancel, relayYield, relayTools, relayCall, relayPing, relayHello} {
		if replies[k], err = c.Compile(id + "#/$defs/Relay/$defs/" + strings.ToUpper(k[:1]) + k[1:] + "Reply"); err != nil {
			t.Fatal(err)
		}
	}
	return relay, replies
}

// validateRelay checks every line against $defs/Relay, and each reply against the reply
// schema of the request it answers.
func validateRelay(t *testing.T, lines []busLine) {
	t.Helper()
	relay, replies := relaySchemas(t)
	kinds := map[reqKey]string{}
	for _, l := range lines {
		var m wire.RelayMsg
		if json.Unmarshal([]byte(l.raw), &m) == nil && m.Kind != relayReply && m.Kind != relayUncall { // an uncall's id is the call's
			kinds[reqKey{m.From, m.ID}] = m.Kind
		}
	}
	for i, l := range lines {
		inst, err := jsonschema.UnmarshalJSON(strings.NewReader(l.raw))
		if err != nil {
			t.Fatalf("line %d is not JSON: %v", i+1, err)
		}
		if err := relay.Validate(inst); err != nil {
			t.Errorf("line %d does not fit $defs/Relay: %v\n%s %s", i+1, err, l.channel, l.raw)
			continue
		}
		var m wire.RelayMsg
		_ = json.Unmarshal([]byte(l.raw), &m)
		if m.Kind != relayReply {
			continue
		}
		k := kinds[reqKey{strings.TrimPrefix(l.channel, "r:"), m.ID}]
		if s := replies[k]; s == nil {
			t.Errorf("line %d answers no request recorded: %s", i+1, l.raw)
		} else if err := s.Validate(inst); err != nil {
			t.Errorf("line %d does not fit the reply to %s: %v\n%s", i+1, k, err, l.raw)
		}
	}
}

var (
	relayVolatileRE = regexp.MustCompile(`"(s|l|turn|ct)":"([^"]*)"`)
	relayIDRE       = regexp.MustCompile(`"id":\d+`)
)

// normaliseRelay names the values a run draws (see the top of the file). The clock's hello
// probes and their replies are dropped, or with keepHello written with id 0 and each
// distinct line kept once (how many there are depends on the clock, not what they say).
func normaliseRelay(lines []busLine, keepHello bool) []string {
	hellos := map[reqKey]bool{}
	for _, l := range lines {
		var m wire.RelayMsg
		if json.Unmarshal([]byte(l.raw), &m) == nil && m.Kind == relayHello {
			hellos[reqKey{m.From, m.ID}] = true
		}
	}
	names, counts := map[string]string{}, map[string]int{}
	short := map[string]string{"s": "s", "l": "l", "turn": "turn", "ct": "ct"}
	rank, ranks := map[reqKey]int64{}, map[string]int64{}
	var out []string
	for _, l := range lines {
		var m wire.RelayMsg
		_ = json.Unmarshal([]byte(l.raw), &m)
		key := reqKey{m.From, m.ID}
		if m.Kind == relayReply {
			key.from = strings.TrimPrefix(l.channel, "r:")
		}
		raw := l.raw
		if hellos[key] && !keepHello {
			continue
		}
		if hellos[key] {
			raw = relayIDRE.ReplaceAllString(raw, `"id":0`)
		} else if m.ID != 0 {
			n, ok := rank[key]
			if !ok {
				ranks[key.from]++
				n = ranks[key.from]
				rank[key] = n
			}
			raw = relayIDRE.ReplaceAllString(raw, fmt.Sprintf(`"id":%d`, n))
		}
		raw = relayVolatileRE.ReplaceAllStringFunc(raw, func(s string) string {
			sub := relayVolatileRE.FindStringSubmatch(s)
			name, ok := names[sub[1]+"\x00"+sub[2]]
			if !ok {
				counts[sub[1]]++
				name = fmt.Sprintf("<%s%d>", short[sub[1]], counts[sub[1]])
				names[sub[1]+"\x00"+sub[2]] = name
			}
			return fmt.Sprintf("%q:%q", sub[1], name)
		})
		line := l.channel + " " + raw
		if hellos[key] && slices.Contains(out, line) {
			continue
		}
		out = append(out, line)
	}
	return out
}

const relayGoldenHeader = `# The relay's golden transcript: every message on the relay's channels while two replicas
# (replica-a holds the session and runs its turn; the tab's socket is on replica-b) run this
# scenario: the tab resumes its running turn on b (attach), a calls a page tool through b (call),
# lists the page's tools for its next model call (tools) and calls another, slow one (call); the
# page's agent/chat meanwhile is refused (yield: busy), the page
# stops the turn (cancel, then uncall of the running call), the turn ends and a lets the session
# go (released), b takes it over, and an operator deletes it on b (forget).
# One line per message: the channel, then the message. Recorded by
# go test ./agentsvc -run TestRelayTranscript -update; the rules are at the top of
# agentsvc/relaytranscript_test.go.
`

// relayBuses are the buses the relay's tests run on: the memory store's, and a real
// redis-server's (each caller of open gets its own connection, as a replica does); skipped
// without redis-server unless BYOMCP_REQUIRE_REDIS=1.
var relayBuses = []struct {
	name   string
	opener func(t *testing.T) (open func() store.Store)
}{
	{"memory", func(*testing.T) func() store.Store {
		mem := store.NewMemoryWithBus()
		return func() store.Store { return mem }
	}},
	{"redis", func(t *testing.T) func() store.Store {
		url := storetest.RedisServer(t)
		return func() store.Store {
			st, err := store.OpenRedis(t.Context(), url)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			return st
		}
	}},
}

// TestRelayTranscript runs the relay's golden scenarios on each bus and compares what went
// over the bus with their files (-update writes the memory bus's): relayGoldenHeader's in
// testdata/relay.golden, relayHandoverHeader's in testdata/relay-handover.golden. The two files
// together must use every kind of $defs/Relay.
func TestRelayTranscript(t *testing.T) {
	for _, bus := range relayBuses {
		update := bus.name == "memory" && *updateTranscripts
		t.Run(bus.name, func(t *testing.T) {
			t.Run("released", func(t *testing.T) { relayTranscript(t, bus.opener(t), update) })
			t.Run("handover", func(t *testing.T) { relayHandoverTranscript(t, bus.opener(t), update) })
		})
	}
	kinds := map[string]bool{}
	for _, file := range []string{relayGolden, relayHandoverGolden} {
		for k := range relayKinds(t, readRelayGolden(t, file)) {
			kinds[k] = true
		}
	}
	var missing []string
	for _, k := range schemaRelayKinds(t) {
		if !kinds[k] {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 {
		t.Errorf("the relay's golden transcripts never use the kinds %v of $defs/Relay (they use %v)", missing, slices.Sorted(maps.Keys(kinds)))
	}
}

func relayTranscript(t *testing.T, open func() store.Store, update bool) {
	started, slow := slowTool()
	gate := make(chan struct{})
	model := &scriptModel{reply: func(n int, req llm.Request) (*llm.Response, error) {
		switch n {
		case 0:
			<-gate
			return &llm.Response{ToolCalls: []chat.ToolCall{call("e1", "echo", `{"text":"hi"}`)}}, nil
		case 1:
			return &llm.Response{ToolCalls: []chat.ToolCall{call("s1", "slow", `{}`)}}, nil
		}
		return &llm.Response{Text: "unreachable"}, nil
	}}
	_, a, b := twoReplicasVia(t, model, nil, func(string, store.Store) store.Store { return open() })
	rec := recordRelay(t, open())

	first := openPage(t, a, testOrigin, echoTool(), slow)
	sess := first.session(wire.SessionParams{})
	go func() { _, _ = first.chat("echo, then the slow thing") }()
	seen := first.eventsUntil(wire.EventTurnStart)
	// The turn's first model call is offered the tools of the page on a (not listed through b).
	waitFor(t, "the first model call", func() bool { return len(model.requests()) > 0 })
	dropSocket(first, false)
	onB := openPage(t, b, testOrigin, echoTool(), slow)
	resumeRunningOn(t, onB, sess.SessionID, seen, gate, started)
	if _, err := onB.chat("and another thing"); !errors.Is(err, wire.ErrTurnInProgress) {
		t.Fatalf("agent/chat on b while a's turn runs: got %v, want %v", err, wire.ErrTurnInProgress)
	}
	var cr wire.CancelResult
	if err := onB.peer.Call(context.Background(), wire.MethodAgentCancel, wire.CancelParams{}, &cr); err != nil {
		t.Fatalf("agent/cancel on b: %v", err)
	}
	if end := onB.eventsUntil(wire.EventTurnEnd); end[len(end)-1].StopReason != wire.StopCancelled {
		t.Fatalf("got turn_end %+v, want cancelled", end[len(end)-1])
	}
	waitFor(t, "b to take the session over", func() bool { return liveOf(b.Server, sess.SessionID) != nil })
	b.Forget(sess.SessionID)
	if !pollUntil(time.Now().Add(waitLimit), rec.settled) {
		open, forgot := rec.open()
		t.Fatalf("timed out waiting for every request answered (open: %v) and the forget heard (%v); recorded:\n%s", open, forgot, strings.Join(normaliseRelay(rec.all(), false), "\n"))
	}
	checkRelayGolden(t, rec.all(), relayGolden, relayGoldenHeader, update, false)
}

// checkRelayGolden validates the lines recorded, normalises them (keepHello: normaliseRelay)
// and compares them as a multiset with the golden file (update: writes it first, with header).
func checkRelayGolden(t *testing.T, lines []busLine, file, header string, update, keepHello bool) {
	t.Helper()
	validateRelay(t, lines)
	got := normaliseRelay(lines, keepHello)
	if update {
		if err := os.WriteFile(file, []byte(header+strings.Join(got, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want := readRelayGolden(t, file)
	if missing, extra := multisetDiff(want, got); len(missing)+len(extra) > 0 {
		t.Errorf("the relay's messages differ from %s (-update records them again)\nmissing:\n%s\nunexpected:\n%s",
			file, strings.Join(missing, "\n"), strings.Join(extra, "\n"))
	}
}

// readRelayGolden is the lines of a golden file, without its header.
func readRelayGolden(t *testing.T, file string) []string {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (run the test with -update)", err)
	}
	var lines []string
	for line := range strings.SplitSeq(string(data), "\n") {
		if line != "" && !strings.HasPrefix(line, "#") {
			lines = append(lines, line)
		}
	}
	return lines
}

// relayKinds is the set of kinds of normalised lines ("channel message").
func relayKinds(t *testing.T, lines []string) map[string]bool {
	t.Helper()
	kinds := map[string]bool{}
	for _, l := range lines {
		var m wire.RelayMsg
		_, js, _ := strings.Cut(l, " ")
		if err := json.Unmarshal([]byte(js), &m); err != nil {
			t.Errorf("a golden line is not a relay message (%v): %s", err, l)
			continue
		}
		kinds[m.Kind] = true
	}
	return kinds
}

// schemaRelayKinds is every kind $defs/Relay of docs/protocol.schema.json defines (the const of
// "k" in each of its message schemas), each one this build knows (knownRelayKind).
func schemaRelayKinds(t *testing.T) []string {
	t.Helper()
	doc, err := os.ReadFile("../docs/protocol.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	var schema struct {
		Defs map[string]struct {
			Defs map[string]struct {
				Properties struct {
					K struct {
						Const string `json:"const"`
					} `json:"k"`
				} `json:"properties"`
			} `json:"$defs"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(doc, &schema); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, def := range schema.Defs["Relay"].Defs {
		if k := def.Properties.K.Const; k != "" {
			seen[k] = true
		}
	}
	kinds := slices.Sorted(maps.Keys(seen))
	for _, k := range kinds {
		if !knownRelayKind(k) {
			t.Errorf("$defs/Relay has the kind %q, which this build does not know", k)
		}
	}
	if len(kinds) < 13 {
		t.Fatalf("$defs/Relay defines only the kinds %v; want the 13 of wire.RelayMsg", kinds)
	}
	return kinds
}

// multisetDiff is what want has more than got (missing) and got more than want (extra).
func multisetDiff(want, got []string) (missing, extra []string) {
	count := map[string]int{}
	for _, w := range want {
		count[w]++
	}
	for _, g := range got {
		if count[g] > 0 {
			count[g]--
		} else {
			extra = append(extra, g)
		}
	}
	for _, w := range want {
		if count[w] > 0 {
			count[w]--
			missing = append(missing, w)
		}
	}
	return missing, extra
}
