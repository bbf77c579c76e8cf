package agentsvc

// The stateful fuzzer of the page socket (issue 11).
//
// A run starts a real Server behind httptest, with the real openai-go client pointed at a
// fake OpenAI-compatible model (llmtest) whose answers are drawn at random, and drives it
// through real WebSockets (gorilla, written frame by frame) with a seeded, randomized model
// of a page. The page answers the agent's initialize, tools/list and tools/call in every way
// the protocol allows and several it does not (slow, paginated, failing, twice, never, with
// progress floods, with responses to unknown ids), while a driver program interleaves, over
// up to three sockets at a time: sessions and resumes with odd lastSeq, chats, cancels of
// both kinds (notifications/cancelled of an agent/chat, agent/cancel, also racing the turn's
// end), tools/list_changed storms during slow lists, tools that change between list and
// call, progress floods and progress for unknown tokens, malformed frames (bad JSON,
// batches, wrong types, huge ids, binary and oversized frames, unfinished fragments),
// sockets dropped mid-call and reconnecting with the same session (also from two sockets
// at once). The model streams text, parallel tool calls, 429s and 5xx, streams cut in the
// middle of tool-call arguments, errors in the middle of a stream, and hangs (bounded by
// the client's idle timeout). An operator deletes conversations through a random replica's
// console (as it does: Forget, the store's Delete, Forget) while the pages go on.
//
// After every run it checks:
//   - no panic was recovered and nothing was logged at error level (a recovered panic is
//     still a bug), and the process is alive (a panic that escapes kills the test binary:
//     the seed is printed on standard error before each run);
//   - every request the page sent got exactly one answer (a response to an id it never
//     sent, or a second one, fails at once), unless its socket was dropped, and an
//     agent/chat is answered after its turn_end, with the same text and stop reason (but
//     for a deleted session's: what ends after the deletion is not stored, so not sent);
//   - a deleted session is not in the store after the run, and a socket the agent closed
//     was closed for a reason it may have (1000 "conversation deleted" for a deleted one);
//   - every tool_call_id the model produced is answered by exactly one tool message, in
//     every request the fake model received and in the stored history;
//   - per session, the store's event log is numbered 1…Seq with no gap and no duplicate,
//     turns do not overlap and all ended; every event a page saw is the stored one (replays
//     may merge runs of text_delta), in strictly increasing order, starting where the
//     agent/session answer said; a socket still open has seen the log up to its end;
//   - once every socket is closed: no socket, no live session (and the live-session gauge
//     back to 0), and no goroutine of this module left, within a bounded wait.
//
// How to run it:
//
//	go test -race -count=1 -run TestPageFuzz ./agentsvc/                 # fixed seeds + one random seed (./test.sh)
//	go test -race -count=1 -run TestPageFuzz ./agentsvc/ -fuzzseed=N     # replay seed N (or BYOMCP_FUZZ_SEED=N)
//	BYOMCP_FUZZ_RUNS=50 go test -race -count=1 -run TestPageFuzz ./agentsvc/   # 50 more random seeds
//	go test -run '^$' -fuzz FuzzPageSocket -fuzztime 10m ./agentsvc/      # coverage-guided, on demand
//	BYOMCP_FUZZ_TRACE=1 go test -count=1 -run TestPageFuzz ./agentsvc/ -fuzzseed=N -v   # every op, frame and agent log
//	BYOMCP_FUZZ_STORE=redis BYOMCP_FUZZ_RUNS=50 go test -race -count=1 -run TestPageFuzz ./agentsvc/   # two replicas on redis-server
//	BYOMCP_FUZZ_STORE=sqlite BYOMCP_FUZZ_RUNS=50 go test -race -count=1 -run TestPageFuzz ./agentsvc/  # one replica on SQLite
//
// A failing run prints its seed and the replay command. The native fuzz target takes the
// seed and the driver program (one op per pair of bytes) as its input, so the fuzzing
// engine mutates the sequence of operations itself.
//
// Requests of a socket take effect in the order sent (the README's protocol section), so
// the driver also sends an agent/chat right behind an agent/session, without waiting for
// its answer (sessionChat): the chat must run in the session that answer names.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	dto "github.com/prometheus/client_model/go"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest"
	"go.uber.org/zap/zaptest/observer"

	"github.com/byomcp/byomcp/agentsvc/chat"
	"github.com/byomcp/byomcp/agentsvc/llm"
	"github.com/byomcp/byomcp/agentsvc/llm/llmtest"
	"github.com/byomcp/byomcp/agentsvc/loop"
	"github.com/byomcp/byomcp/agentsvc/store"
	"github.com/byomcp/byomcp/agentsvc/store/storetest"
	"github.com/byomcp/byomcp/agentsvc/wire"
	"github.com/byomcp/byomcp/wsrpc"
)

var fuzzSeedFlag = flag.Uint64("fuzzseed", 0, "TestPageFuzz: run only this seed (also BYOMCP_FUZZ_SEED)")

// pageFuzzSeeds run every time, besides one random seed.
var pageFuzzSeeds = []uint64{1, 2, 3, 4, 5, 6, 7}

func TestPageFuzz(t *testing.T) {
	if seed, ok := replaySeed(t); ok {
		runPageFuzz(t, seed, nil)
		return
	}
	seeds := slices.Clone(pageFuzzSeeds)
	if testing.Short() {
		seeds = seeds[:2]
	}
	extra := 1
	if v := os.Getenv("BYOMCP_FUZZ_RUNS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			t.Fatalf("BYOMCP_FUZZ_RUNS=%q: want a number of random seeds", v)
		}
		extra = n
	}
	for range extra {
		seeds = append(seeds, rand.Uint64())
	}
	for _, seed := range seeds {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) { runPageFuzz(t, seed, nil) })
	}
}

func replaySeed(t *testing.T) (uint64, bool) {
	if *fuzzSeedFlag != 0 {
		return *fuzzSeedFlag, true
	}
	if v := os.Getenv("BYOMCP_FUZZ_SEED"); v != "" {
		seed, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			t.Fatalf("BYOMCP_FUZZ_SEED=%q: %v", v, err)
		}
		return seed, true
	}
	return 0, false
}

// FuzzPageSocket is the same run with the driver program taken from the fuzzing engine.
func FuzzPageSocket(f *testing.F) {
	f.Add(uint64(11), genProgram(11))
	f.Fuzz(func(t *testing.T, seed uint64, prog []byte) {
		if len(prog) > 2*maxOps {
			prog = prog[:2*maxOps]
		}
		runPageFuzz(t, seed, prog)
	})
}

// Bounds of a run.
const (
	maxOps    = 160
	fzSlots   = 3                // sockets the driver holds at once
	fzWait    = 10 * time.Second // bound of every single wait of the driver
	fzSettle  = 40 * time.Second // bound of the wait for every answer and every event
	fzOrigin  = testOrigin
	fzReadCap = 256 << 10 // the server's frame limit in these runs
)

// Driver operations. Each op is two bytes of the program: which op, and an argument.
const (
	opOpen = iota
	opSession
	opResume
	opChat
	opChatWait
	opCancelChat
	opAgentCancel
	opListStorm
	opChangeTools
	opProgressFlood
	opBogusResponses
	opMalformed
	opBadParams
	opDrop
	opDropReconnect
	opTwinResume
	opSleep
	opPing
	opCloseGraceful
	opFragment
	opSessionChat
	opDelete
	numOps
)

var opNames = [numOps]string{"open", "session", "resume", "chat", "chatWait", "cancelChat", "agentCancel",
	"listStorm", "changeTools", "progressFlood", "bogusResponses", "malformed", "badParams", "drop",
	"dropReconnect", "twinResume", "sleep", "ping", "closeGraceful", "fragment", "sessionChat", "delete"}

// opTable maps a program byte to an op; frequent ops appear more often.
var opTable = func() []int {
	weights := [numOps]int{
		opOpen: 4, opSession: 5, opResume: 5, opChat: 12, opChatWait: 5, opCancelChat: 5, opAgentCancel: 4,
		opListStorm: 4, opChangeTools: 4, opProgressFlood: 3, opBogusResponses: 3, opMalformed: 4,
		opBadParams: 2, opDrop: 2, opDropReconnect: 3, opTwinResume: 2, opSleep: 8, opPing: 1,
		opCloseGraceful: 1, opFragment: 1, opSessionChat: 3, opDelete: 3,
	}
	var tab []int
	for op, w := range weights {
		for range w {
			tab = append(tab, op)
		}
	}
	return tab
}()

// genProgram is the driver program of a seed.
func genProgram(seed uint64) []byte {
	rng := rand.New(rand.NewPCG(seed, 0x70726f67))
	n := 50 + rng.IntN(70)
	prog := make([]byte, 2*n)
	for i := range prog {
		prog[i] = byte(rng.Uint32())
	}
	return prog
}

// fzCatalog is every tool a fuzzed page may list; a page lists a random subset. The last
// three are unusable and must be rejected one by one, never the session.
var fzCatalog = []wire.PageTool{
	{Name: "echo", Description: "Echo the text.", InputSchema: echoSchema},
	{Name: "add", Description: "Add two numbers.", InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}},"required":["a","b"]}`)},
	{Name: "wait_user", Description: "Ask the user to confirm.", InputSchema: json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}}}`),
		Annotations: &wire.ToolAnnotations{DestructiveHint: ptr(true)}},
	{Name: "go_page", Description: "Open another page.", InputSchema: json.RawMessage(`{"type":"object","properties":{"to":{"enum":["home","cart"]}},"required":["to"]}`)},
	{Name: "cars.filter-v2", Description: "Filter cars.", InputSchema: json.RawMessage(`{"type":"object","properties":{"max":{"type":"integer","minimum":0}}}`)},
	{Name: "no_schema", Description: "Takes nothing."},
	{Name: "bad name!", Description: "Unusable name."},
	{Name: "broken", Description: "Unusable schema.", InputSchema: json.RawMessage(`{"type":5}`)},
	{Name: "remote_ref", Description: "Remote $ref.", InputSchema: json.RawMessage(`{"$ref":"https://example.com/schema.json"}`)},
}

func ptr[T any](v T) *T { return &v }

// fzRun is one run: a server, a fake model, the sockets the driver opened and what they saw.
type fzRun struct {
	t    *testing.T
	seed uint64
	rng  *rand.Rand // the driver's; only the driver goroutine uses it
	ts   *testServer
	// replicas are the servers sockets open on: ts alone, or ts and a second replica on the
	// same store with a bus (odd seeds), so that sessions move between replicas mid-turn.
	replicas []*testServer
	fake     *llmtest.Server
	tr       *http.Transport
	logs     *observer.ObservedLogs
	debounce time.Duration
	baseline map[string]bool // goroutines that existed before the first socket
	stop     chan struct{}   // closed when the run is over: page goroutines return
	pageWG   sync.WaitGroup  // page goroutines (readers, delayed answers)

	mmu      sync.Mutex // guards mrng and callSeq (the fake model's responder)
	mrng     *rand.Rand
	callSeq  int
	slots    [fzSlots]*fzSock
	deletes  sync.WaitGroup // opDelete's, which run beside the driver
	lock     sync.Mutex     // guards the fields below
	socks    []*fzSock      // every socket ever opened, in order
	sessions map[string]int64
	deleted  map[string]bool // sessions an operator deleted (opDelete)
	failures []string
}

func runPageFuzz(t *testing.T, seed uint64, prog []byte) {
	env := ""
	if v := os.Getenv("BYOMCP_FUZZ_STORE"); v != "" {
		env = "BYOMCP_FUZZ_STORE=" + v + " "
	}
	fmt.Fprintf(os.Stderr, "pagefuzz: seed %d (replay: %sgo test -race -run TestPageFuzz ./agentsvc/ -fuzzseed=%d)\n", seed, env, seed)
	if prog == nil {
		prog = genProgram(seed)
	}
	r := newFzRun(t, seed)
	defer func() {
		if t.Failed() {
			t.Logf("pagefuzz: seed %d failed; replay with: go test -race -count=1 -run TestPageFuzz ./agentsvc/ -fuzzseed=%d", seed, seed)
		}
	}()
	defer r.finish()
	for i := 0; i+1 < len(prog); i += 2 {
		op := opTable[int(prog[i])%len(opTable)]
		r.do(op, prog[i+1])
	}
	r.settle()
	if len(r.replicas) > 1 {
		var served, routed int64
		for _, ts := range r.replicas {
			served += ts.relay.served.Load()
			routed += ts.relay.routed.Load()
		}
		t.Logf("two replicas: %d sockets served a turn of the other replica, %d tool calls routed", served, routed)
	}
	if n := len(r.deleted); n > 0 {
		t.Logf("%d conversations deleted", n)
	}
	r.closeAll()
	r.checkNothingLeft()
	r.checkStore()
	r.checkModelRequests()
	r.checkLogs()
}

func newFzRun(t *testing.T, seed uint64) *fzRun {
	rng := rand.New(rand.NewPCG(seed, 0x647276))
	r := &fzRun{
		t:        t,
		seed:     seed,
		rng:      rng,
		mrng:     rand.New(rand.NewPCG(seed, 0x6d6f64656c)),
		stop:     make(chan struct{}),
		sessions: map[string]int64{},
		deleted:  map[string]bool{},
		debounce: time.Duration(2+rng.IntN(25)) * time.Millisecond,
	}
	core, logs := observer.New(zapcore.WarnLevel)
	r.logs = logs
	r.fake = llmtest.New(llmtest.WithResponder(r.respond))
	t.Cleanup(r.fake.Close)
	r.tr = &http.Transport{}
	model := llm.NewOpenAI(llm.Options{
		BaseURL: r.fake.URL, APIKey: "test", Model: "fake-model", Provider: "custom",
		HTTPClient: &http.Client{Transport: r.tr}, MaxRetries: 2,
		IdleTimeout: 300 * time.Millisecond, RequestTimeout: 5 * time.Second,
		Sleep: func(ctx context.Context, _ time.Duration) error { return ctx.Err() },
	})
	rateLimit, rateBurst := 2000.0, 4000
	if rng.IntN(4) == 0 { // the defaults: floods may close a socket with 1008
		rateLimit, rateBurst = 0, 0
	}
	// Odd seeds run two replicas on one store with a bus: the memory store, or with
	// BYOMCP_FUZZ_STORE=redis a real redis-server that each replica opens on its own. With
	// BYOMCP_FUZZ_STORE=sqlite every seed runs one replica on a SQLite file: the default
	// store, which one process owns (it has no bus, so no second replica).
	var shared func() store.Store
	var own store.Store // the one replica's store; nil: newTestServer's memory store
	switch fzStore := os.Getenv("BYOMCP_FUZZ_STORE"); {
	case fzStore == "sqlite":
		st, err := store.OpenSQLite(t.Context(), filepath.Join(t.TempDir(), "fuzz.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		own = st
	case seed%2 == 1 && fzStore == "redis":
		url := storetest.RedisServer(t)
		shared = func() store.Store {
			st, err := store.OpenRedis(t.Context(), url)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			return st
		}
	case seed%2 == 1:
		mem := store.NewMemoryWithBus()
		shared = func() store.Store { return mem }
	}
	newReplica := func(owner string) *testServer {
		return newTestServer(t, model, func(c *Config) {
			switch {
			case shared != nil:
				c.Store, c.OwnerID = shared(), owner
			case own != nil:
				c.Store = own
			}
			r.configure(c, core, rateLimit, rateBurst)
		})
	}
	r.ts = newReplica("replica-a")
	r.replicas = []*testServer{r.ts}
	if shared != nil {
		r.replicas = append(r.replicas, newReplica("replica-b"))
	}
	r.baseline = goroutineIDs()
	return r
}

// configure is the Config of a run's servers.
func (r *fzRun) configure(c *Config, core zapcore.Core, rateLimit float64, rateBurst int) {
	{
		c.Logger = zap.New(core)
		if fzTrace { // the agent's own account too, interleaved with the frames
			c.Logger = zap.New(zapcore.NewTee(core, zaptest.NewLogger(r.t, zaptest.Level(zap.DebugLevel)).Core())).
				With(zap.String("replica", c.OwnerID))
		}
		c.OnPanic = func(where string, v any) { r.failf("recovered a panic in %s: %v", where, v) }
		c.RelistDebounce = r.debounce
		c.ToolTimeout = 400 * time.Millisecond
		c.ToolMaxTimeout = 1500 * time.Millisecond
		c.HandshakeTimeout = 2 * time.Second
		c.ReconnectWait = 300 * time.Millisecond
		c.ShutdownGrace = 2 * time.Second
		c.ReadLimit = fzReadCap
		c.SendQueue = 1 << 14
		c.RateLimit, c.RateBurst = rateLimit, rateBurst
		c.Limits = loop.Limits{MaxModelCalls: 5, MaxToolCalls: 8}
	}
}

// finish stops the page goroutines; it runs even when the run stopped early.
func (r *fzRun) finish() {
	close(r.stop)
	r.lock.Lock()
	socks := slices.Clone(r.socks)
	r.lock.Unlock()
	for _, s := range socks {
		_ = s.c.Close()
	}
	r.pageWG.Wait()
	r.tr.CloseIdleConnections()
}

// fzTrace logs every op and every message of a run (BYOMCP_FUZZ_TRACE=1), to follow a
// replayed seed.
var fzTrace = os.Getenv("BYOMCP_FUZZ_TRACE") != ""

func (r *fzRun) tracef(format string, args ...any) {
	if fzTrace {
		r.t.Logf("%s "+format, append([]any{time.Now().Format("05.000")}, args...)...)
	}
}

func (r *fzRun) failf(format string, args ...any) {
	r.t.Helper()
	msg := fmt.Sprintf(format, args...)
	r.lock.Lock()
	r.failures = append(r.failures, msg)
	n := len(r.failures)
	r.lock.Unlock()
	if n <= 30 { // the first ones say it all
		r.t.Errorf("seed %d: %s", r.seed, msg)
	}
}

// ---- the driver ----

func (r *fzRun) do(op int, arg byte) {
	slot := int(arg) % fzSlots
	r.tracef("op %s slot %d", opNames[op], slot)
	switch op {
	case opOpen:
		if s := r.slots[slot]; s == nil || s.ended() {
			r.slots[slot] = r.open()
		}
	case opSession:
		s := r.sock(slot)
		page := &wire.Page{URL: fmt.Sprintf("http://localhost:3000/p%d", r.rng.IntN(5)), Title: "Page"}
		s.session(wire.SessionParams{Page: page})
	case opResume:
		id, lastSeq := r.pickResume(slot)
		r.sock(slot).session(wire.SessionParams{SessionID: id, LastSeq: lastSeq})
	case opChat, opChatWait:
		s := r.sock(slot)
		req := s.chat(r.chatText())
		if op == opChatWait && req != nil {
			s.await(req, time.Duration(r.rng.IntN(400))*time.Millisecond)
		}
	case opCancelChat:
		s := r.sock(slot)
		r.sleepRand(30)
		s.cancelChat()
	case opAgentCancel:
		s := r.sock(slot)
		r.sleepRand(30)
		s.agentCancel(r.rng.IntN(3))
	case opListStorm:
		s := r.sock(slot)
		if r.rng.IntN(3) > 0 { // slow lists: longer than the debounce
			s.setListDelay(r.debounce + time.Duration(r.rng.IntN(int(4*r.debounce/time.Millisecond)+40))*time.Millisecond)
		}
		for i, n := 0, 2+r.rng.IntN(6); i < n; i++ {
			if r.rng.IntN(4) == 0 {
				s.setTools(r.randomTools())
			}
			s.notify(wire.MethodToolsListChanged, nil)
			r.sleepRand(int(2 * r.debounce / time.Millisecond))
		}
		if r.rng.IntN(2) == 0 {
			s.setListDelay(time.Duration(r.rng.IntN(3)) * time.Millisecond)
		}
	case opChangeTools:
		s := r.sock(slot)
		s.setTools(r.randomTools())
		if r.rng.IntN(2) == 0 {
			s.notify(wire.MethodToolsListChanged, nil)
		}
	case opProgressFlood:
		r.sock(slot).progressFlood(r.rng)
	case opBogusResponses:
		r.sock(slot).bogusResponses(r.rng)
	case opMalformed:
		s := r.sock(slot)
		for i, n := 0, 1+r.rng.IntN(4); i < n; i++ {
			s.malformed(r.rng)
		}
	case opBadParams:
		r.sock(slot).badParams(r.rng)
	case opDrop:
		if s := r.slots[slot]; s != nil {
			s.drop()
			r.slots[slot] = nil
		}
	case opDropReconnect:
		s := r.slots[slot]
		if s == nil {
			return
		}
		id, last := s.currentView()
		s.drop()
		r.slots[slot] = nil
		if id == "" {
			return
		}
		r.sleepRand(20)
		var lastSeq *int64
		if r.rng.IntN(4) > 0 {
			lastSeq = &last
		}
		r.sock(slot).session(wire.SessionParams{SessionID: id, LastSeq: lastSeq})
	case opTwinResume:
		r.twinResume(slot)
	case opSleep:
		r.sleepRand(60)
	case opPing:
		s := r.sock(slot)
		if req := s.request(wire.MethodPing, map[string]any{}); req != nil {
			s.await(req, fzWait)
		}
	case opCloseGraceful:
		if s := r.slots[slot]; s != nil {
			s.closeGraceful()
			r.slots[slot] = nil
		}
	case opFragment:
		if s := r.slots[slot]; s != nil {
			s.unfinishedFragment(r.rng.IntN(2) == 0)
			r.slots[slot] = nil
		}
	case opSessionChat:
		s := r.sock(slot)
		p := wire.SessionParams{Page: &wire.Page{URL: fmt.Sprintf("http://localhost:3000/p%d", r.rng.IntN(5)), Title: "Page"}}
		if r.rng.IntN(2) == 0 {
			id, lastSeq := r.pickResume(slot)
			p = wire.SessionParams{SessionID: id, LastSeq: lastSeq}
		}
		req := s.request(wire.MethodAgentSession, p)
		chat := s.chat(r.chatText())
		s.awaitSession(req, p)
		s.await(chat, time.Duration(r.rng.IntN(400))*time.Millisecond)
	case opDelete:
		r.deleteSession(slot)
	}
}

// deleteSession deletes a conversation as the console of a random replica does (Forget, the
// store's Delete, Forget again), beside the driver's next ops: the slot's current session,
// or any one the pages opened.
func (r *fzRun) deleteSession(slot int) {
	var id string
	if s := r.slots[slot]; s != nil && r.rng.IntN(3) > 0 {
		id, _ = s.currentView()
	}
	if id == "" {
		r.lock.Lock()
		ids := make([]string, 0, len(r.sessions))
		for id := range r.sessions {
			ids = append(ids, id)
		}
		r.lock.Unlock()
		if len(ids) == 0 {
			return
		}
		slices.Sort(ids)
		id = ids[r.rng.IntN(len(ids))]
	}
	rep := r.replicas[r.rng.IntN(len(r.replicas))]
	r.deletes.Add(1)
	go func() {
		defer r.deletes.Done()
		ctx, cancel := context.WithTimeout(context.Background(), fzWait)
		defer cancel()
		if _, err := rep.store.Load(ctx, id); errors.Is(err, store.ErrNotFound) {
			return // not stored (never used): the console answers 404
		} else if err != nil {
			r.failf("delete: loading session %s: %v", shortID(id), err)
			return
		}
		r.lock.Lock()
		r.deleted[id] = true
		r.lock.Unlock()
		r.tracef("deleting session %s through %s", shortID(id), rep.owner)
		rep.Forget(id)
		if err := rep.store.Delete(ctx, id); err != nil {
			r.failf("delete: session %s: %v", shortID(id), err)
		}
		rep.Forget(id)
	}()
}

func (r *fzRun) isDeleted(id string) bool {
	r.lock.Lock()
	defer r.lock.Unlock()
	return r.deleted[id]
}

// sock returns the slot's socket, opening one when there is none.
func (r *fzRun) sock(slot int) *fzSock {
	if s := r.slots[slot]; s != nil && !s.ended() {
		return s
	}
	r.slots[slot] = r.open()
	return r.slots[slot]
}

func (r *fzRun) sleepRand(maxMs int) {
	if maxMs > 0 {
		time.Sleep(time.Duration(r.rng.IntN(maxMs+1)) * time.Millisecond)
	}
}

func (r *fzRun) chatText() string {
	switch x := r.rng.IntN(40); {
	case x == 0:
		return "   " // empty: refused
	case x == 1:
		return strings.Repeat("x", 33<<10) // over the chat text limit: refused
	default:
		return fmt.Sprintf("please do thing %d", r.rng.IntN(1000))
	}
}

func (r *fzRun) randomTools() []wire.PageTool {
	var out []wire.PageTool
	for _, t := range fzCatalog {
		if r.rng.IntN(3) > 0 {
			out = append(out, t)
		}
	}
	r.rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// pickResume chooses a session id and a lastSeq for agent/session: mostly a known
// session, sometimes an unknown or malformed id; lastSeq absent, negative, huge, in the
// middle or exact.
func (r *fzRun) pickResume(slot int) (string, *int64) {
	r.lock.Lock()
	ids := make([]string, 0, len(r.sessions))
	for id := range r.sessions {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	r.lock.Unlock()
	var id string
	var seen int64
	if s := r.slots[slot]; s != nil && r.rng.IntN(2) == 0 {
		id, seen = s.currentView()
	}
	switch {
	case id != "":
	case len(ids) > 0 && r.rng.IntN(8) > 0:
		id = ids[r.rng.IntN(len(ids))]
		r.lock.Lock()
		seen = r.sessions[id]
		r.lock.Unlock()
	case r.rng.IntN(2) == 0:
		id = randomID(16) // unknown
	default:
		id = []string{"../../etc", strings.Repeat("a", 5000), "x y", "0"}[r.rng.IntN(4)]
	}
	var v int64
	switch r.rng.IntN(7) {
	case 0:
		return id, nil
	case 1:
		v = -1 - r.rng.Int64N(1<<40)
	case 2:
		v = 1<<62 + r.rng.Int64N(1<<40)
	case 3:
		v = 0
	case 4, 5:
		v = r.rng.Int64N(seen + 1)
	default:
		v = seen
	}
	return id, &v
}

// twinResume resumes one session from two new sockets at once, sometimes after dropping
// the socket that had it.
func (r *fzRun) twinResume(slot int) {
	id, last := "", int64(0)
	if s := r.slots[slot]; s != nil {
		id, last = s.currentView()
		if r.rng.IntN(2) == 0 {
			s.drop()
			r.slots[slot] = nil
		}
	}
	if id == "" {
		r.lock.Lock()
		for sid, seen := range r.sessions {
			if id == "" || sid < id {
				id, last = sid, seen
			}
		}
		r.lock.Unlock()
	}
	if id == "" {
		return
	}
	// The twins go to the other slots, and to this one when its socket was dropped; a
	// socket still alive there keeps the session (the twins then get forks).
	var twins []int
	for i := 1; i < fzSlots; i++ {
		twins = append(twins, (slot+i)%fzSlots)
	}
	if r.slots[slot] == nil {
		twins[r.rng.IntN(len(twins))] = slot
	}
	for _, sl := range twins {
		if s := r.slots[sl]; s != nil {
			s.closeGraceful()
		}
		r.slots[sl] = r.open()
	}
	a, b := r.slots[twins[0]], r.slots[twins[1]]
	la, lb := last, max(0, last-1)
	ra := a.request(wire.MethodAgentSession, wire.SessionParams{SessionID: id, LastSeq: &la})
	rb := b.request(wire.MethodAgentSession, wire.SessionParams{SessionID: id, LastSeq: &lb})
	a.await(ra, fzWait)
	b.await(rb, fzWait)
}

// ---- the fake model ----

// respond draws the fake model's answer to one request.
func (r *fzRun) respond(req llmtest.RecordedRequest) llmtest.Step {
	r.mmu.Lock()
	defer r.mmu.Unlock()
	rng := r.mrng
	var names []string
	for _, t := range req.Tools {
		names = append(names, t.Name)
	}
	afterTool := req.LastMessage().Role == "tool"
	text := llmtest.Step{Text: fmt.Sprintf("Done with step %d, all good.", rng.IntN(100))}
	x := rng.IntN(100)
	if afterTool && x < 30 {
		return text // turns end
	}
	switch {
	case x < 25 || len(names) == 0 && x < 60:
		if rng.IntN(4) == 0 {
			text.ChunkDelay = time.Millisecond
		}
		return text
	case x < 60:
		return llmtest.Step{ToolCalls: r.calls(rng, names)}
	case x < 66:
		return llmtest.Step{Status: http.StatusTooManyRequests, Message: "slow down", RetryAfter: "0"}
	case x < 72:
		return llmtest.Step{Status: []int{500, 502, 503}[rng.IntN(3)], Message: "upstream failed"}
	case x < 79: // cut in the middle of tool-call arguments
		calls := r.calls(rng, names)
		return llmtest.Step{ToolCalls: calls, FailAfterTokens: 1 + rng.IntN(3*len(calls))}
	case x < 84: // an error event in the middle of the stream
		return llmtest.Step{Text: "I will start and then fail now", Status: 500, Message: "stream broke", FailAfterTokens: 1 + rng.IntN(4)}
	case x < 89: // a hang: the client's idle timeout ends it
		return llmtest.Step{Text: "thinking about it", Stall: true, FailAfterTokens: rng.IntN(3)}
	default:
		return llmtest.Step{Text: "Let me look.", ToolCalls: r.calls(rng, names)}
	}
}

// calls makes 1–3 parallel tool calls on the offered tools, with valid arguments mostly.
func (r *fzRun) calls(rng *rand.Rand, names []string) []llmtest.FakeCall {
	n := 1 + rng.IntN(3)
	var out []llmtest.FakeCall
	for range n {
		r.callSeq++
		c := llmtest.FakeCall{ID: fmt.Sprintf("call_fz%d", r.callSeq)}
		if len(names) == 0 || rng.IntN(12) == 0 {
			c.Name = "ghost_tool"
		} else {
			c.Name = names[rng.IntN(len(names))]
		}
		c.Args = validArgs(c.Name)
		if rng.IntN(7) == 0 {
			c.Args = []string{`{"text":5}`, `{}`, `{"a":"x","b":[]}`, `{"te`, `[1,2]`, ``}[rng.IntN(6)]
		}
		out = append(out, c)
	}
	return out
}

func validArgs(model string) string {
	switch {
	case strings.Contains(model, "echo"):
		return `{"text":"hello there"}`
	case strings.Contains(model, "add"):
		return `{"a":1.5,"b":2}`
	case strings.Contains(model, "wait_user"):
		return `{"q":"sure?"}`
	case strings.Contains(model, "go_page"):
		return `{"to":"cart"}`
	case strings.Contains(model, "filter"):
		return `{"max":20000}`
	default:
		return `{}`
	}
}

// ---- a fuzzed page socket ----

// fzSock is one page socket, written frame by frame. Its reader goroutine answers the agent
// and records what arrives; the driver and delayed answers write under wmu (gorilla allows
// one writer at a time).
type fzSock struct {
	r    *fzRun
	n    int
	c    *websocket.Conn
	wmu  sync.Mutex
	done chan struct{} // closed when the reader has ended

	lock        sync.Mutex
	rng         *rand.Rand
	nextID      int64
	reqs        map[string]*fzReq // our requests by id (JSON text), answered or not
	nullAnswer  int               // error responses with a null id
	junkSent    int               // frames that may get such an answer
	tools       []wire.PageTool
	listDelay   time.Duration
	pageSize    int
	badInit     bool
	lists       int
	tokens      []json.RawMessage // progress tokens of recent tools/call requests
	agentIDs    []json.RawMessage // ids of the agent's recent requests
	binds       []*fzBind
	lastTurn    string
	byUs        bool  // we closed or dropped it
	endErr      error // why reading ended
	sessionSent int   // agent/session requests sent, odd ones included
}

// fzReq is one request the page sent.
type fzReq struct {
	method  string
	id      string
	junk    bool   // a deliberately odd request: at most one answer, any error code
	bindGen int    // len(binds) when sent
	lastSeq *int64 // of an agent/session
	answers int
	result  json.RawMessage
	err     *wsrpc.Error
	done    chan struct{}
}

// fzBind is what a socket saw of one session between the agent/session answer that bound it
// and the next one.
type fzBind struct {
	sessionID string
	from      int64 // events are expected from from+1
	resumed   bool
	events    []fzEvent
	turnEnds  map[string]event
}

type fzEvent struct {
	ev  event
	raw json.RawMessage
}

func (r *fzRun) open() *fzSock {
	r.lock.Lock()
	n := len(r.socks)
	r.lock.Unlock()
	s := &fzSock{
		r:        r,
		n:        n,
		done:     make(chan struct{}),
		rng:      rand.New(rand.NewPCG(r.seed, uint64(n)+1)),
		reqs:     map[string]*fzReq{},
		tools:    r.randomTools(),
		pageSize: []int{0, 0, 1, 3}[r.rng.IntN(4)],
		badInit:  r.rng.IntN(40) == 0,
	}
	ctx, cancel := context.WithTimeout(context.Background(), fzWait)
	defer cancel()
	d := websocket.Dialer{WriteBufferSize: 4096}
	to := r.replicas[s.n%len(r.replicas)] // round robin, as a load balancer without stickiness
	c, _, err := d.DialContext(ctx, to.wsURL, http.Header{"Origin": {fzOrigin}})
	if err != nil {
		r.t.Fatalf("seed %d: dial: %v", r.seed, err)
	}
	c.SetReadLimit(8 << 20)
	s.c = c
	r.lock.Lock()
	r.socks = append(r.socks, s)
	r.lock.Unlock()
	r.pageWG.Add(1)
	go s.read()
	return s
}

func (s *fzSock) ended() bool {
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}

func (s *fzSock) write(b []byte) {
	s.r.tracef("socket %d -> %.300s", s.n, b)
	s.wmu.Lock()
	defer s.wmu.Unlock()
	_ = s.c.SetWriteDeadline(time.Now().Add(fzWait))
	_ = s.c.WriteMessage(websocket.TextMessage, b) // fails only once the socket is gone
}

func (s *fzSock) send(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		s.r.failf("encoding a page message: %v", err)
		return
	}
	s.write(b)
}

func (s *fzSock) notify(method string, params any) {
	m := map[string]any{"jsonrpc": "2.0", "method": method}
	if params != nil {
		m["params"] = params
	}
	s.send(m)
}

// request sends a request of ours; nil when the socket has ended.
func (s *fzSock) request(method string, params any) *fzReq {
	if s.ended() {
		return nil
	}
	s.lock.Lock()
	s.nextID++
	id := s.nextID
	if method == wire.MethodAgentSession {
		s.sessionSent++
	}
	req := &fzReq{method: method, id: strconv.FormatInt(id, 10), bindGen: s.sessionSent, done: make(chan struct{})}
	s.reqs[req.id] = req
	if sp, ok := params.(wire.SessionParams); ok && sp.LastSeq != nil {
		req.lastSeq = ptr(*sp.LastSeq)
	}
	s.lock.Unlock()
	s.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	return req
}

// junk sends a raw frame that carries request id idText (JSON), expecting at most one answer.
func (s *fzSock) junk(frame string, idText string) {
	if idText != "" {
		s.lock.Lock()
		if s.reqs[idText] == nil {
			s.reqs[idText] = &fzReq{method: "junk", id: idText, junk: true, done: make(chan struct{})}
		}
		s.lock.Unlock()
	}
	s.lock.Lock()
	s.junkSent++
	if strings.Contains(frame, wire.MethodAgentSession) {
		s.sessionSent++
	}
	s.lock.Unlock()
	s.write([]byte(frame))
}

// await waits for req's answer, the end of the socket, or d.
func (s *fzSock) await(req *fzReq, d time.Duration) {
	if req == nil {
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-req.done:
	case <-s.done:
	case <-t.C:
	}
}

// session sends agent/session and waits for its answer: nothing is pipelined behind it.
func (s *fzSock) session(p wire.SessionParams) {
	s.awaitSession(s.request(wire.MethodAgentSession, p), p)
}

// awaitSession waits for the answer to agent/session req (sent with p), which must come
// within fzWait unless the socket ends.
func (s *fzSock) awaitSession(req *fzReq, p wire.SessionParams) {
	if req == nil {
		return
	}
	s.await(req, fzWait)
	select {
	case <-req.done:
	case <-s.done:
	default:
		s.r.failf("socket %d: agent/session %+v not answered within %v", s.n, p, fzWait)
	}
}

func (s *fzSock) chat(text string) *fzReq {
	return s.request(wire.MethodAgentChat, wire.ChatParams{Text: text})
}

// cancelChat cancels our latest unanswered agent/chat with notifications/cancelled (or,
// sometimes, an id that names nothing).
func (s *fzSock) cancelChat() {
	s.lock.Lock()
	var last *fzReq
	for _, req := range s.reqs {
		if req.method == wire.MethodAgentChat && req.answers == 0 && (last == nil || len(req.id) > len(last.id) || len(req.id) == len(last.id) && req.id > last.id) {
			last = req
		}
	}
	x := s.rng.IntN(6)
	s.lock.Unlock()
	var id any = json.RawMessage("987654321")
	switch {
	case last != nil && x > 0:
		id = json.RawMessage(last.id)
	case x == 0:
		id = "nope"
	}
	s.notify(wire.MethodCancelled, map[string]any{"requestId": id, "reason": "the user clicked stop"})
}

func (s *fzSock) agentCancel(kind int) {
	s.lock.Lock()
	turn := s.lastTurn
	s.lock.Unlock()
	p := wire.CancelParams{}
	switch kind {
	case 1:
		p.TurnID = turn
	case 2:
		p.TurnID = "t-nosuchturn"
	}
	s.request(wire.MethodAgentCancel, p)
}

func (s *fzSock) setTools(list []wire.PageTool) {
	s.lock.Lock()
	s.tools = list
	s.lock.Unlock()
}

func (s *fzSock) setListDelay(d time.Duration) {
	s.lock.Lock()
	s.listDelay = d
	s.lock.Unlock()
}

// currentView is the session the socket is bound to and the last seq it saw of it.
func (s *fzSock) currentView() (string, int64) {
	s.lock.Lock()
	defer s.lock.Unlock()
	if len(s.binds) == 0 {
		return "", 0
	}
	b := s.binds[len(s.binds)-1]
	last := b.from
	if len(b.events) > 0 {
		last = b.events[len(b.events)-1].ev.Seq
	}
	return b.sessionID, last
}

func (s *fzSock) progressFlood(rng *rand.Rand) {
	s.lock.Lock()
	tokens := slices.Clone(s.tokens)
	s.lock.Unlock()
	odd := []any{"byomcp-999999", 12345, map[string]any{"a": 1}, nil, strings.Repeat("t", 3000), -1, 1e300}
	for i, n := 0, 20+rng.IntN(80); i < n; i++ {
		var tok any
		if len(tokens) > 0 && rng.IntN(3) > 0 {
			tok = tokens[rng.IntN(len(tokens))]
		} else {
			tok = odd[rng.IntN(len(odd))]
		}
		s.notify(wire.MethodProgress, map[string]any{"progressToken": tok, "progress": i, "message": "working"})
	}
}

// bogusResponses answers requests the agent never made, or made and got answered already.
func (s *fzSock) bogusResponses(rng *rand.Rand) {
	s.lock.Lock()
	ids := slices.Clone(s.agentIDs)
	s.lock.Unlock()
	frames := []string{
		`{"jsonrpc":"2.0","id":99999999,"result":{}}`,
		`{"jsonrpc":"2.0","id":"x-unknown","error":{"code":-32603,"message":"nope"}}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}`,
		`{"jsonrpc":"2.0","id":7,"result":{},"error":{"code":1,"message":"both"}}`,
		`{"jsonrpc":"2.0","id":1e999,"result":{}}`,
		`{"jsonrpc":"2.0","id":-1,"result":{"tools":[]}}`,
	}
	for _, id := range ids { // duplicates of answers already given
		frames = append(frames, `{"jsonrpc":"2.0","id":`+string(id)+`,"result":{"content":[{"type":"text","text":"again"}]}}`,
			`{"jsonrpc":"2.0","id":`+string(id)+`,"error":{"code":-32000,"message":"late"}}`)
	}
	for i, n := 0, 1+rng.IntN(5); i < n; i++ {
		s.write([]byte(frames[rng.IntN(len(frames))]))
	}
}

// malformed sends one frame that is not a well-formed message of the protocol.
func (s *fzSock) malformed(rng *rand.Rand) {
	k := rng.IntN(1 << 20)
	switch x := rng.IntN(22); x {
	case 0:
		s.junk(`{"jsonrpc":"2.0","method":"ping","id":`, "")
	case 1:
		s.junk(`[]`, "")
	case 2:
		s.junk(fmt.Sprintf(`[{"jsonrpc":"2.0","method":"ping","id":"b%d"}]`, k), "")
	case 3:
		s.junk(`"just a string"`, "")
	case 4:
		s.junk(`42`, "")
	case 5:
		s.junk(`null`, "")
	case 6:
		id := fmt.Sprintf("1234567890123456789012345678901234567890%d", k)
		s.junk(`{"jsonrpc":"2.0","id":`+id+`,"method":"ping"}`, id)
	case 7:
		id := fmt.Sprintf(`"%s%d"`, strings.Repeat("i", 2000), k)
		s.junk(`{"jsonrpc":"2.0","id":`+id+`,"method":"ping"}`, id)
	case 8:
		s.junk(`{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, "")
	case 9:
		id := fmt.Sprintf(`"m%d"`, k)
		s.junk(`{"jsonrpc":"2.0","id":`+id+`,"method":5}`, id)
	case 10:
		id := fmt.Sprintf(`"v%d"`, k)
		s.junk(`{"jsonrpc":"1.0","id":`+id+`,"method":"ping"}`, id)
	case 11:
		id := fmt.Sprintf(`"u%d"`, k)
		s.junk(`{"jsonrpc":"2.0","id":`+id+`,"method":"no/such/method","params":{}}`, id)
	case 12:
		s.junk(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":{"x":[1]}}}`, "")
	case 13:
		s.junk(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":123456789012345678901234567890}}`, "")
	case 14:
		s.junk(`{"jsonrpc":"2.0","method":"notifications/progress","params":"wrong"}`, "")
	case 15:
		s.junk(`{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":[1]}`, "")
	case 16: // invalid UTF-8: the agent closes the socket with 1007 (RFC 6455 8.1)
		if rng.IntN(3) == 0 {
			s.lock.Lock()
			s.byUs = true
			s.lock.Unlock()
			s.write([]byte(fmt.Sprintf("{\"jsonrpc\":\"2.0\",\"method\":\"ping\",\"id\":\"\xff\xfe%d\"}", k)))
		}
	case 17:
		s.junk(`{}`, "")
	case 18:
		id := fmt.Sprintf(`"dupm%d"`, k)
		s.junk(`{"jsonrpc":"2.0","id":`+id+`,"method":"ping","method":"agent/cancel"}`, id)
	case 19:
		s.junk(`{"jsonrpc":"2.0","method":"agent/event","params":{"seq":1,"type":"turn_end"}}`, "")
	case 20: // a binary frame: the agent closes the socket with 1003
		if rng.IntN(3) == 0 {
			s.lock.Lock()
			s.byUs = true
			s.lock.Unlock()
			s.wmu.Lock()
			_ = s.c.WriteMessage(websocket.BinaryMessage, []byte{1, 2, 3})
			s.wmu.Unlock()
		}
	case 21: // over the frame limit: the agent closes the socket with 1009
		if rng.IntN(3) == 0 {
			s.lock.Lock()
			s.byUs = true
			s.lock.Unlock()
			s.write([]byte(`{"jsonrpc":"2.0","method":"ping","params":"` + strings.Repeat("z", fzReadCap+10) + `"}`))
		}
	}
}

// badParams sends agent requests with params of the wrong shape: each gets one error.
func (s *fzSock) badParams(rng *rand.Rand) {
	params := []struct{ method, params string }{
		{wire.MethodAgentSession, `{"lastSeq":"x"}`},
		{wire.MethodAgentSession, `{"sessionId":5}`},
		{wire.MethodAgentSession, `[]`},
		{wire.MethodAgentChat, `{"text":5}`},
		{wire.MethodAgentChat, `"hello"`},
		{wire.MethodAgentCancel, `{"turnId":{}}`},
		{wire.MethodAgentChat, `{"text":"` + strings.Repeat("é", 20000) + `"}`},
	}
	p := params[rng.IntN(len(params))]
	id := fmt.Sprintf(`"bp%d"`, rng.IntN(1<<30))
	s.junk(`{"jsonrpc":"2.0","id":`+id+`,"method":"`+p.method+`","params":`+p.params+`}`, id)
}

// drop closes the connection without a close frame, as a tab that dies.
func (s *fzSock) drop() {
	s.lock.Lock()
	s.byUs = true
	s.lock.Unlock()
	_ = s.c.NetConn().Close()
}

func (s *fzSock) closeGraceful() {
	s.lock.Lock()
	s.byUs = true
	s.lock.Unlock()
	_ = s.c.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, "bye"), time.Now().Add(time.Second))
	select {
	case <-s.done:
	case <-time.After(time.Second):
	}
	_ = s.c.Close()
}

// unfinishedFragment starts a fragmented message (FIN=0 frames) and leaves it unfinished:
// the socket is then dropped or closed. It holds the write lock to the end: a write of
// another goroutine in between (an answer to the agent) would make gorilla close the open
// writer, which sends the final frame, and the agent would read a whole message that is no
// JSON (answered "parse error" with a null id; seed 7, about 1 run in 100 under load).
func (s *fzSock) unfinishedFragment(graceful bool) {
	s.lock.Lock()
	s.byUs = true
	s.lock.Unlock()
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if w, err := s.c.NextWriter(websocket.TextMessage); err == nil {
		_, _ = w.Write([]byte(`{"jsonrpc":"2.0","method":"ping","params":"` + strings.Repeat("f", 9000))) // flushes non-final frames
	}
	if graceful {
		_ = s.c.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""), time.Now().Add(time.Second))
	}
	_ = s.c.NetConn().Close()
}

// ---- the page's reader ----

// fzMsg is any JSON-RPC message the agent sends.
type fzMsg struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   *wsrpc.Error    `json:"error"`
}

func (s *fzSock) read() {
	defer s.r.pageWG.Done()
	defer close(s.done)
	for {
		typ, data, err := s.c.ReadMessage()
		if err != nil {
			s.lock.Lock()
			s.endErr = err
			s.lock.Unlock()
			return
		}
		if typ != websocket.TextMessage {
			s.r.failf("socket %d: the agent sent a frame of type %d", s.n, typ)
			continue
		}
		r := s.r
		r.tracef("socket %d <- %.300s", s.n, data)
		var m fzMsg
		if err := json.Unmarshal(data, &m); err != nil || m.JSONRPC != "2.0" {
			s.r.failf("socket %d: the agent sent a malformed message %.200s: %v", s.n, data, err)
			continue
		}
		switch {
		case m.Method != "" && m.ID != nil:
			s.onRequest(m)
		case m.Method != "":
			s.onNotification(m, data)
		default:
			s.onResponse(m)
		}
	}
}

func (s *fzSock) reply(id json.RawMessage, result any) {
	s.send(map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
}

func (s *fzSock) replyError(id json.RawMessage, code int64, msg string) {
	s.send(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": code, "message": msg}})
}

// later runs fn after d in a page goroutine, unless the socket or the run ends first.
func (s *fzSock) later(d time.Duration, fn func()) {
	s.r.pageWG.Add(1)
	go func() {
		defer s.r.pageWG.Done()
		if d > 0 {
			t := time.NewTimer(d)
			defer t.Stop()
			select {
			case <-t.C:
			case <-s.done:
				return
			case <-s.r.stop:
				return
			}
		}
		fn()
	}()
}

func (s *fzSock) onRequest(m fzMsg) {
	s.lock.Lock()
	s.agentIDs = append(s.agentIDs, m.ID)
	if len(s.agentIDs) > 8 {
		s.agentIDs = s.agentIDs[1:]
	}
	s.lock.Unlock()
	switch m.Method {
	case wire.MethodPing:
		s.reply(m.ID, map[string]any{})
	case wire.MethodInitialize:
		s.lock.Lock()
		bad := s.badInit
		s.lock.Unlock()
		v := wire.ProtocolVersion
		if bad {
			v = "1999-01-01"
		}
		s.reply(m.ID, wire.InitializeResult{ProtocolVersion: v, Capabilities: json.RawMessage(`{"tools":{"listChanged":true}}`), ServerInfo: wire.Implementation{Name: "fuzz-page", Version: "1"}})
	case wire.MethodToolsList:
		s.onList(m)
	case wire.MethodToolsCall:
		s.onCall(m)
	default:
		s.r.failf("socket %d: the agent sent an unexpected request %q", s.n, m.Method)
	}
}

func (s *fzSock) onList(m fzMsg) {
	var p wire.ToolsListParams
	_ = json.Unmarshal(m.Params, &p)
	s.lock.Lock()
	s.lists++
	all := slices.Clone(s.tools)
	size, delay := s.pageSize, s.listDelay
	fail := s.lists > 1 && s.rng.IntN(25) == 0 // a failing re-list (a failing first list ends the handshake)
	s.lock.Unlock()
	s.later(delay, func() {
		if fail {
			s.replyError(m.ID, -32603, "the page could not list its tools")
			return
		}
		if size <= 0 {
			s.reply(m.ID, wire.ToolsListResult{Tools: all})
			return
		}
		start, _ := strconv.Atoi(p.Cursor)
		start = min(max(start, 0), len(all))
		end := min(start+size, len(all))
		res := wire.ToolsListResult{Tools: all[start:end]}
		if end < len(all) {
			res.NextCursor = strconv.Itoa(end)
		}
		s.reply(m.ID, res)
	})
}

func (s *fzSock) onCall(m fzMsg) {
	var p wire.ToolsCallParams
	if err := json.Unmarshal(m.Params, &p); err != nil {
		s.r.failf("socket %d: tools/call params %s: %v", s.n, m.Params, err)
		return
	}
	if p.Meta == nil {
		s.r.failf("socket %d: tools/call without _meta: %s", s.n, m.Params)
		return
	}
	token, _ := json.Marshal(p.Meta.ProgressToken)
	s.lock.Lock()
	s.tokens = append(s.tokens, token)
	if len(s.tokens) > 8 {
		s.tokens = s.tokens[1:]
	}
	has := slices.ContainsFunc(s.tools, func(t wire.PageTool) bool { return t.Name == p.Name })
	mode := s.rng.IntN(100)
	delay := time.Duration(s.rng.IntN(60)) * time.Millisecond
	ticks := s.rng.IntN(8)
	s.lock.Unlock()
	text := func(t string) map[string]any {
		return map[string]any{"content": []any{map[string]any{"type": "text", "text": t}}}
	}
	switch {
	case !has: // the tools changed between list and call
		s.reply(m.ID, map[string]any{"isError": true, "content": []any{map[string]any{"type": "text", "text": "no such tool"}}})
	case p.Name == "go_page" && mode < 60: // the page navigates away after answering: its socket closes
		s.reply(m.ID, map[string]any{"content": []any{map[string]any{"type": "text", "text": "opening"}}, "_meta": map[string]any{wire.MetaNavigating: true}})
		s.later(delay/4, s.drop)
	case p.Name == "wait_user" || mode < 8: // waits for the user, keeping the call alive with progress
		var tick func(i int)
		tick = func(i int) {
			if i == ticks {
				s.reply(m.ID, text("the user said yes"))
				return
			}
			s.notify(wire.MethodProgress, map[string]any{"progressToken": json.RawMessage(token), "progress": i, "message": "waiting for the user"})
			s.later(150*time.Millisecond, func() { tick(i + 1) })
		}
		tick(0)
	case mode < 50:
		s.reply(m.ID, text("ok: "+string(p.Arguments)))
	case mode < 62:
		s.later(delay, func() { s.reply(m.ID, text("done later")) })
	case mode < 70:
		s.reply(m.ID, map[string]any{"isError": true, "content": []any{map[string]any{"type": "text", "text": "it failed"}}})
	case mode < 77:
		s.replyError(m.ID, -32603, "the tool threw")
	case mode < 83: // never answers: the call times out and is cancelled
	case mode < 89: // answers twice
		s.reply(m.ID, text("first"))
		s.later(delay, func() { s.reply(m.ID, text("second")) })
	case mode < 93: // answers an unknown id first
		s.reply(json.RawMessage("424242"), text("lost"))
		s.later(delay, func() { s.reply(m.ID, text("found")) })
	case mode < 96: // a result of the wrong shape
		s.reply(m.ID, []any{"not", "an", "object"})
	default: // images and structured content
		s.reply(m.ID, map[string]any{"content": []any{map[string]any{"type": "image", "data": "AAAA", "mimeType": "image/png"}},
			"structuredContent": map[string]any{"n": 1, "t": "</tool_output>"}})
	}
}

func (s *fzSock) onNotification(m fzMsg, data []byte) {
	switch m.Method {
	case wire.MethodAgentEvent:
		s.onEvent(m.Params)
	case wire.MethodInitialized:
	case wire.MethodCancelled: // the agent gave up on a tools/call; nothing to do
	default:
		s.r.failf("socket %d: the agent sent an unexpected notification %.200s", s.n, data)
	}
}

func (s *fzSock) onEvent(raw json.RawMessage) {
	var e event
	if err := json.Unmarshal(raw, &e); err != nil {
		s.r.failf("socket %d: event %.200s: %v", s.n, raw, err)
		return
	}
	if e.Type == wire.EventToolRejected && e.Seq == 0 {
		return // outside any session log
	}
	s.lock.Lock()
	defer s.lock.Unlock()
	if e.SessionID == "" || e.Seq <= 0 {
		s.r.failf("socket %d: event without a session or seq: %.300s", s.n, raw)
		return
	}
	if len(s.binds) == 0 {
		s.r.failf("socket %d: event before any agent/session answer: %.300s", s.n, raw)
		return
	}
	b := s.binds[len(s.binds)-1]
	if b.sessionID != e.SessionID {
		s.r.failf("socket %d: event of session %s while bound to %s: %.300s", s.n, shortID(e.SessionID), shortID(b.sessionID), raw)
		return
	}
	last := b.from
	if len(b.events) > 0 {
		last = b.events[len(b.events)-1].ev.Seq
	}
	if e.Seq <= last {
		s.r.failf("socket %d: session %s: seq %d after seq %d (duplicate or out of order): %.300s", s.n, shortID(e.SessionID), e.Seq, last, raw)
	}
	b.events = append(b.events, fzEvent{ev: e, raw: append(json.RawMessage(nil), raw...)})
	s.r.noteSeq(e.SessionID, e.Seq)
	switch e.Type {
	case wire.EventTurnStart:
		s.lastTurn = e.TurnID
	case wire.EventTurnEnd:
		b.turnEnds[e.TurnID] = e
		if s.rng.IntN(6) == 0 { // agent/cancel racing the turn's end
			s.nextID++
			req := &fzReq{method: wire.MethodAgentCancel, id: strconv.FormatInt(s.nextID, 10), bindGen: s.sessionSent, done: make(chan struct{})}
			s.reqs[req.id] = req
			id := s.nextID
			go s.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": wire.MethodAgentCancel, "params": wire.CancelParams{TurnID: e.TurnID}})
		}
	}
}

func (r *fzRun) noteSeq(id string, seq int64) {
	r.lock.Lock()
	r.sessions[id] = max(r.sessions[id], seq)
	r.lock.Unlock()
}

// allowedCodes are the error codes each method may answer with; anything else (an
// internal error above all) is a failure.
var allowedCodes = map[string][]int64{
	// CodeTurnInProgress: another session asked for while a turn the socket started runs.
	wire.MethodAgentSession: {wire.CodeSessionNotFound, wire.CodeTooManySessions, wire.CodeCancelledEarly, wire.CodeTurnInProgress, wsrpc.CodeInvalidParams, wsrpc.CodeRateLimited, wsrpc.CodeBusy},
	wire.MethodAgentChat: {wire.CodeTurnInProgress, wire.CodeTextTooLong, wire.CodeNoSession, wire.CodeBusy, wire.CodeCancelledEarly,
		wsrpc.CodeInvalidParams, wsrpc.CodeRateLimited, wsrpc.CodeBusy},
	wire.MethodAgentCancel: {wire.CodeNoTurn, wire.CodeNoSession, wire.CodeCancelledEarly, wsrpc.CodeInvalidParams, wsrpc.CodeRateLimited, wsrpc.CodeBusy},
	wire.MethodPing:        {wsrpc.CodeRateLimited, wsrpc.CodeBusy},
}

func (s *fzSock) onResponse(m fzMsg) {
	s.lock.Lock()
	defer s.lock.Unlock()
	if m.ID == nil || string(m.ID) == "null" {
		s.nullAnswer++
		if m.Error == nil {
			s.r.failf("socket %d: a result with a null id", s.n)
		}
		if s.nullAnswer > s.junkSent {
			why := ""
			if m.Error != nil { // which frame the agent took for one it cannot answer by id
				why = fmt.Sprintf(" (the last: %d %q)", m.Error.Code, m.Error.Message)
			}
			s.r.failf("socket %d: %d error answers with a null id for %d odd frames sent%s", s.n, s.nullAnswer, s.junkSent, why)
		}
		return
	}
	key := string(m.ID)
	req := s.reqs[key]
	if req == nil {
		s.r.failf("socket %d: an answer to id %.100s, which the page never sent", s.n, key)
		return
	}
	req.answers++
	if req.answers > 1 {
		s.r.failf("socket %d: %s id %s answered %d times", s.n, req.method, key, req.answers)
		return
	}
	req.result, req.err = m.Result, m.Error
	close(req.done)
	if m.Error != nil {
		// A chat on a session an operator deleted meanwhile finds it gone.
		deleted := req.method == wire.MethodAgentChat && m.Error.Code == wire.CodeSessionNotFound &&
			len(s.binds) > 0 && s.r.isDeleted(s.binds[len(s.binds)-1].sessionID)
		if m.Error.Code == wsrpc.CodeInternalError || !req.junk && !deleted && !slices.Contains(allowedCodes[req.method], m.Error.Code) {
			s.r.failf("socket %d: %s answered with error %d %q", s.n, req.method, m.Error.Code, m.Error.Message)
		}
		return
	}
	switch req.method {
	case wire.MethodAgentSession:
		var res wire.SessionResult
		if err := json.Unmarshal(m.Result, &res); err != nil || res.SessionID == "" {
			s.r.failf("socket %d: agent/session result %.300s: %v", s.n, m.Result, err)
			return
		}
		b := &fzBind{sessionID: res.SessionID, from: res.Seq, resumed: res.Resumed, turnEnds: map[string]event{}}
		if l := req.lastSeq; l != nil && res.Resumed && *l >= 0 && *l < res.Seq {
			b.from = *l
		}
		s.binds = append(s.binds, b)
		s.r.noteSeq(res.SessionID, 0)
	case wire.MethodAgentChat:
		var res wire.ChatResult
		if err := json.Unmarshal(m.Result, &res); err != nil {
			s.r.failf("socket %d: agent/chat result %.300s: %v", s.n, m.Result, err)
			return
		}
		if !slices.Contains([]string{wire.StopEnd, wire.StopMaxIterations, wire.StopCancelled, wire.StopError}, res.StopReason) || res.TurnID == "" {
			s.r.failf("socket %d: agent/chat result %.300s", s.n, m.Result)
			return
		}
		if req.bindGen == s.sessionSent && len(s.binds) > 0 && !s.r.isDeleted(s.binds[len(s.binds)-1].sessionID) {
			// no agent/session since the agent/chat, and its session not deleted (the events
			// of a turn that end after the deletion are not stored, so not sent)
			end, ok := s.binds[len(s.binds)-1].turnEnds[res.TurnID]
			switch {
			case !ok:
				b := s.binds[len(s.binds)-1]
				var seen []string
				for _, fe := range b.events[max(0, len(b.events)-12):] {
					seen = append(seen, fmt.Sprintf("%d:%s:%s", fe.ev.Seq, fe.ev.Type, fe.ev.TurnID))
				}
				s.r.failf("socket %d: agent/chat answered (turn %s, %s) before its turn_end reached the page; it saw of session %s: %v",
					s.n, res.TurnID, res.StopReason, shortID(b.sessionID), seen)
			case end.StopReason != res.StopReason || end.Text != res.Text:
				s.r.failf("socket %d: turn %s: turn_end says %s %q, the agent/chat answer %s %q", s.n, res.TurnID, end.StopReason, end.Text, res.StopReason, res.Text)
			}
		}
	}
}

// ---- the checks ----

func (r *fzRun) allSocks() []*fzSock {
	r.lock.Lock()
	defer r.lock.Unlock()
	return slices.Clone(r.socks)
}

// unanswered lists our requests with no answer yet (odd frames need none).
func (s *fzSock) unanswered() []string {
	s.lock.Lock()
	defer s.lock.Unlock()
	var out []string
	for _, req := range s.reqs {
		if req.answers == 0 && !req.junk {
			out = append(out, req.method+" id "+req.id)
		}
	}
	slices.Sort(out)
	return out
}

// settle waits until every socket still open has every answer and has seen its session's
// event log to the end; then it checks how the sockets that ended did.
func (r *fzRun) settle() {
	r.deletes.Wait()
	ctx, cancel := context.WithTimeout(context.Background(), fzSettle)
	defer cancel()
	deadline, _ := ctx.Deadline()
	for _, s := range r.allSocks() {
		var missing []string
		if !pollUntil(deadline, func() bool { missing = s.unanswered(); return s.ended() || len(missing) == 0 }) {
			r.failf("socket %d: no answer within %v to %v", s.n, fzSettle, missing)
		}
	}
	st := r.ts.store
	for _, s := range r.allSocks() {
		var id string
		var last, seq int64
		caughtUp := func() bool {
			if s.ended() {
				return true
			}
			if id, last = s.currentView(); id == "" || r.isDeleted(id) {
				return true
			}
			var err error
			if seq, err = storedSeq(ctx, st, id); err != nil {
				r.failf("socket %d: loading its session %s: %v", s.n, shortID(id), err)
				return true
			}
			if last > seq {
				r.failf("socket %d: saw session %s up to seq %d; the store holds %d", s.n, shortID(id), last, seq)
				return true
			}
			return last == seq
		}
		if !pollUntil(deadline, caughtUp) {
			r.failf("socket %d: saw session %s up to seq %d; the store holds %d", s.n, shortID(id), last, seq)
		}
	}
	for _, s := range r.allSocks() {
		if !s.ended() {
			continue
		}
		s.lock.Lock()
		byUs, err := s.byUs, s.endErr
		s.lock.Unlock()
		if byUs {
			continue
		}
		var ce *websocket.CloseError
		if errors.As(err, &ce) && slices.Contains([]int{
			websocket.CloseProtocolError,   // 1002: a failed handshake (bad version, failing first list)
			websocket.ClosePolicyViolation, // 1008: over the message rate
			wire.CloseResume,               // 4000: its session is served elsewhere now (a take-over lost a race)
		}, ce.Code) {
			continue
		}
		if id, _ := s.currentView(); errors.As(err, &ce) && ce.Code == websocket.CloseNormalClosure &&
			ce.Text == "conversation deleted" && r.isDeleted(id) {
			continue
		}
		r.failf("socket %d: the agent ended it: %v", s.n, err)
	}
}

// storedSeq is the seq of a stored session; 0 for one not stored (a session is stored at
// its first turn).
func storedSeq(ctx context.Context, st store.Store, id string) (int64, error) {
	sess, err := st.Load(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	return sess.Seq, nil
}

func (r *fzRun) closeAll() {
	for _, s := range r.allSocks() {
		if !s.ended() {
			s.closeGraceful()
		}
	}
	for i := range r.slots {
		r.slots[i] = nil
	}
}

// checkNothingLeft waits (bounded) until the server holds no socket, no live session and no
// goroutine of this module started since the run began.
func (r *fzRun) checkNothingLeft() {
	var left []string
	nothingLeft := func() bool {
		left = left[:0]
		for i, ts := range r.replicas {
			if n := ts.ConnCount(); n > 0 {
				left = append(left, fmt.Sprintf("replica %d: %d sockets", i, n))
			}
			if n := liveCount(ts.Server); n > 0 {
				left = append(left, fmt.Sprintf("replica %d: %d live sessions", i, n))
			}
			var g dto.Metric
			if err := ts.metrics.sessions.Write(&g); err != nil || g.GetGauge().GetValue() != 0 {
				left = append(left, fmt.Sprintf("replica %d: live-session gauge at %v (%v)", i, g.GetGauge().GetValue(), err))
			}
			if n, m := relayLinks(ts.Server); n+m > 0 {
				left = append(left, fmt.Sprintf("replica %d: %d proxies, %d remote pages", i, n, m))
			}
		}
		left = append(left, r.newGoroutines()...)
		return len(left) == 0
	}
	if pollUntil(time.Now().Add(fzSettle), nothingLeft) {
		return
	}
	for i, l := range left {
		if len(l) > 3000 {
			left[i] = l[:3000] + "…"
		}
	}
	r.failf("left after every socket closed (%v):\n%s", fzSettle, strings.Join(left, "\n\n"))
}

// goroutineIDs returns the ids of the goroutines that exist now.
func goroutineIDs() map[string]bool {
	ids := map[string]bool{}
	for _, g := range goroutineStacks() {
		ids[goroutineID(g)] = true
	}
	return ids
}

func goroutineStacks() []string {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			return strings.Split(string(buf[:n]), "\n\n")
		}
		buf = make([]byte, 2*len(buf))
	}
}

func goroutineID(stack string) string {
	head, _, _ := strings.Cut(stack, " [")
	return head
}

// newGoroutines are the goroutines of this module (not the test's pages) started since the
// baseline.
func (r *fzRun) newGoroutines() []string {
	var out []string
	for _, g := range goroutineStacks() {
		if r.baseline[goroutineID(g)] || !strings.Contains(g, "github.com/byomcp/byomcp/") {
			continue
		}
		if strings.Contains(g, "agentsvc.(*fzSock)") || strings.Contains(g, "agentsvc.(*fzRun)") ||
			strings.Contains(g, "agentsvc.runPageFuzz") {
			continue
		}
		if strings.Contains(g, "wsrpc.pollLoop") {
			continue // the process's one epoll goroutine for idle sockets, started with the first
		}
		out = append(out, g)
	}
	return out
}

// checkStore checks every session the pages opened: its log, its turns, its tool calls,
// and what each page saw of it.
func (r *fzRun) checkStore() {
	ctx, cancel := context.WithTimeout(context.Background(), fzWait)
	defer cancel()
	r.lock.Lock()
	ids := make([]string, 0, len(r.sessions))
	for id := range r.sessions {
		ids = append(ids, id)
	}
	r.lock.Unlock()
	slices.Sort(ids)
	st := r.ts.store
	for _, id := range ids {
		where := "session " + shortID(id)
		sess, err := st.Load(ctx, id)
		r.lock.Lock()
		seen, deleted := r.sessions[id], r.deleted[id]
		r.lock.Unlock()
		if deleted {
			if !errors.Is(err, store.ErrNotFound) {
				r.failf("%s: deleted, but the store has it (%v)", where, err)
			}
			continue
		}
		if errors.Is(err, store.ErrNotFound) && seen == 0 {
			continue // never used: not stored
		}
		if err != nil {
			r.failf("%s: %v", where, err)
			continue
		}
		evs, err := st.EventsAfter(ctx, id, 0, 0)
		if err != nil {
			r.failf("%s: events: %v", where, err)
			continue
		}
		ok := true
		for i, e := range evs {
			var h struct {
				Seq int64 `json:"seq"`
			}
			if e.Seq != int64(i+1) || json.Unmarshal(e.Data, &h) != nil || h.Seq != e.Seq {
				r.failf("%s: stored event %d has seq %d (data %.200s): want 1, 2, 3… with no gap", where, i, e.Seq, e.Data)
				ok = false
				break
			}
		}
		if sess.Seq != int64(len(evs)) {
			r.failf("%s: Seq %d but %d events stored", where, sess.Seq, len(evs))
			ok = false
		}
		if sess.ActiveTurn != "" {
			r.failf("%s: turn %s still active after every socket closed", where, sess.ActiveTurn)
		}
		r.checkTurns(where, evs)
		r.checkToolPairs(where+" history", storedPairs(sess.Messages))
		if !ok {
			continue
		}
		for _, s := range r.allSocks() {
			s.lock.Lock()
			binds := slices.Clone(s.binds)
			s.lock.Unlock()
			for _, b := range binds {
				if b.sessionID == id {
					r.compareView(fmt.Sprintf("socket %d, %s", s.n, where), b, evs)
				}
			}
		}
	}
}

// checkTurns checks that turns do not overlap and all ended, and that every tool_call has
// exactly one tool_result, within its turn.
func (r *fzRun) checkTurns(where string, evs []store.Event) {
	open := ""
	calls := map[string]int{} // callId → 1 called, 2 answered
	for _, se := range evs {
		var e event
		if err := json.Unmarshal(se.Data, &e); err != nil {
			r.failf("%s: event %d: %v", where, se.Seq, err)
			return
		}
		switch e.Type {
		case wire.EventTurnStart:
			if open != "" {
				r.failf("%s: turn %s starts at seq %d while turn %s runs", where, e.TurnID, se.Seq, open)
			}
			open = e.TurnID
		case wire.EventTurnEnd:
			if e.TurnID != open {
				r.failf("%s: turn_end of %s at seq %d, but the running turn is %q", where, e.TurnID, se.Seq, open)
			}
			open = ""
		case wire.EventToolCall:
			if calls[e.CallID] != 0 {
				r.failf("%s: tool_call %s twice (seq %d)", where, e.CallID, se.Seq)
			}
			calls[e.CallID] = 1
		case wire.EventToolResult:
			if calls[e.CallID] != 1 {
				r.failf("%s: tool_result %s at seq %d without its tool_call, or twice", where, e.CallID, se.Seq)
			}
			calls[e.CallID] = 2
		}
		if e.Type != wire.EventTurnStart && e.Type != wire.EventTurnEnd && e.TurnID != open {
			r.failf("%s: %s event at seq %d of turn %q while turn %q runs", where, e.Type, se.Seq, e.TurnID, open)
		}
	}
	if open != "" {
		r.failf("%s: turn %s never ended", where, open)
	}
	for id, state := range calls {
		if state != 2 {
			r.failf("%s: tool_call %s has no tool_result", where, id)
		}
	}
}

// pairMsg is a message reduced to what tool-call pairing needs.
type pairMsg struct {
	role    string
	calls   []string
	answers string
}

func storedPairs(msgs []chat.Message) []pairMsg {
	out := make([]pairMsg, 0, len(msgs))
	for _, m := range msgs {
		p := pairMsg{role: m.Role, answers: m.ToolCallID}
		for _, c := range m.ToolCalls {
			p.calls = append(p.calls, c.ID)
		}
		out = append(out, p)
	}
	return out
}

// checkToolPairs checks that each assistant message's tool calls are answered by exactly one
// tool message each, right after it, and that no tool message answers anything else.
func (r *fzRun) checkToolPairs(where string, msgs []pairMsg) {
	seen := map[string]bool{}
	for i := 0; i < len(msgs); i++ {
		m := msgs[i]
		if m.role == chat.RoleTool {
			r.failf("%s: message %d answers tool call %q, which the message before it did not make", where, i, m.answers)
			continue
		}
		if m.role != chat.RoleAssistant || len(m.calls) == 0 {
			continue
		}
		got := map[string]int{}
		j := i + 1
		for ; j < len(msgs) && msgs[j].role == chat.RoleTool; j++ {
			got[msgs[j].answers]++
		}
		for _, id := range m.calls {
			if seen[id] {
				r.failf("%s: tool call id %s made twice", where, id)
			}
			seen[id] = true
			if got[id] != 1 {
				r.failf("%s: tool call %s (message %d) answered by %d tool messages, want 1", where, id, i, got[id])
			}
		}
		for id := range got {
			if !slices.Contains(m.calls, id) {
				r.failf("%s: a tool message after message %d answers %q, which it did not call", where, i, id)
			}
		}
		i = j - 1
	}
}

// checkModelRequests checks the tool-call pairing of every request the model received.
func (r *fzRun) checkModelRequests() {
	for n, req := range r.fake.Requests() {
		msgs := make([]pairMsg, 0, len(req.Messages))
		for _, m := range req.Messages {
			p := pairMsg{role: m.Role, answers: m.ToolCallID}
			for _, c := range m.ToolCalls {
				p.calls = append(p.calls, c.ID)
			}
			msgs = append(msgs, p)
		}
		r.checkToolPairs(fmt.Sprintf("model request #%d", n+1), msgs)
	}
}

// compareView checks what one socket saw of a session against the stored log: each event is
// the stored one, in order from where its agent/session answer said; a replay may merge a
// run of text_delta into one event that carries the run's last seq, and may start later
// when more than replayMax events are due.
func (r *fzRun) compareView(where string, b *fzBind, evs []store.Event) {
	expected := b.from
	for i, fe := range b.events {
		e := fe.ev
		if e.Seq > int64(len(evs)) {
			r.failf("%s: the page saw seq %d; the store holds %d events", where, e.Seq, len(evs))
			return
		}
		lo := expected + 1
		if i == 0 && int64(len(evs))-b.from > replayMax && e.Seq > lo {
			lo = e.Seq // the replay was cut: find where its first run starts
			for e.Type == wire.EventTextDelta && lo > 1 && isDeltaOf(evs[lo-2], e.TurnID) {
				lo--
			}
		}
		switch {
		case e.Seq < lo:
			r.failf("%s: seq %d came after seq %d", where, e.Seq, expected)
		case e.Seq == lo:
			if !sameEvent(fe.raw, evs[e.Seq-1].Data, b.sessionID) {
				r.failf("%s: seq %d: the page got %.300s, the store holds %.300s", where, e.Seq, fe.raw, evs[e.Seq-1].Data)
			}
		default:
			if !mergedRun(evs[lo-1:e.Seq], e) {
				r.failf("%s: seq %d came after seq %d, and seqs %d…%d are not a run of text_delta it merges", where, e.Seq, expected, lo, e.Seq)
			}
		}
		expected = e.Seq
	}
}

func isDeltaOf(se store.Event, turn string) bool {
	var e event
	return json.Unmarshal(se.Data, &e) == nil && e.Type == wire.EventTextDelta && e.TurnID == turn
}

func mergedRun(run []store.Event, got event) bool {
	if got.Type != wire.EventTextDelta {
		return false
	}
	var sb strings.Builder
	for _, se := range run {
		var e event
		if json.Unmarshal(se.Data, &e) != nil || e.Type != wire.EventTextDelta || e.TurnID != got.TurnID {
			return false
		}
		sb.WriteString(e.Delta)
	}
	return sb.String() == got.Delta
}

// sameEvent compares an event as the page got it with the stored one.
func sameEvent(got, stored json.RawMessage, sessionID string) bool {
	var g, s map[string]any
	if json.Unmarshal(got, &g) != nil || json.Unmarshal(stored, &s) != nil {
		return false
	}
	if g["sessionId"] != sessionID {
		return false
	}
	delete(g, "sessionId")
	return reflect.DeepEqual(g, s)
}

// checkLogs fails the run on any recovered panic and anything logged at error level.
func (r *fzRun) checkLogs() {
	for _, e := range r.logs.All() {
		if e.Level < zapcore.ErrorLevel && !strings.Contains(strings.ToLower(e.Message), "panic") {
			continue
		}
		var fields bytes.Buffer
		for k, v := range e.ContextMap() {
			fmt.Fprintf(&fields, "\n\t%s: %v", k, v)
		}
		r.failf("logged at %s: %s%.4000s", e.Level, e.Message, fields.String())
	}
}

// ---- regressions of what the fuzzer found ----

// A failed agent/session (here: an unknown session id) leaves the socket on the session it
// had. Found by TestPageFuzz: openSession detached the socket before looking the new session
// up, so after the error the socket was still bound to its session but the session had no
// socket: the next turn's tool calls found no page ("not connected" after ReconnectWait) and
// its events, turn_end included, went nowhere, while the agent/chat was answered.
func TestFailedSessionKeepsTheSocketsSession(t *testing.T) {
	ts := newTestServer(t, callOnceEcho(), func(c *Config) { c.ReconnectWait = 200 * time.Millisecond })
	p := newFakePage(t, ts, testOrigin, echoTool())
	p.waitListed(1)
	sess := p.session(wire.SessionParams{})
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	err := p.peer.Call(ctx, wire.MethodAgentSession, wire.SessionParams{SessionID: randomID(16)}, nil)
	if !errors.Is(err, wire.ErrSessionNotFound) {
		t.Fatalf("resuming an unknown session: got %v, want %v", err, wire.ErrSessionNotFound)
	}
	res, err := p.chat("echo x")
	if err != nil {
		t.Fatalf("agent/chat: %v", err)
	}
	if got := len(p.callsMade()); got != 1 {
		t.Errorf("the page got %d tools/call, want 1", got)
	}
	var ends []event
	for len(p.events) > 0 { // events are sent before the agent/chat answer
		var e event
		if err := json.Unmarshal(<-p.events, &e); err != nil {
			t.Fatal(err)
		}
		if e.Type == wire.EventTurnEnd {
			ends = append(ends, e)
		}
	}
	if len(ends) != 1 || ends[0].TurnID != res.TurnID || ends[0].SessionID != sess.SessionID {
		t.Errorf("turn_end events before the answer: got %+v, want one of turn %s in session %s", ends, res.TurnID, shortID(sess.SessionID))
	}
	if res.StopReason != wire.StopEnd {
		t.Errorf("stop reason: got %s, want %s", res.StopReason, wire.StopEnd)
	}
}
