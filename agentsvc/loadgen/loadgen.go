// Package loadgen is the load generator of `byomcp bench`: it opens many real WebSocket pages
// against a running agent, drives turns through a fake model, and measures what the agent costs.
//
// A page here is what the JS client is on the wire: it answers the agent's initialize,
// tools/list and tools/call (one tool, ToolName), opens a session with agent/session, and
// sends agent/chat. The fake model (Model) asks for N tool calls per turn, then answers.
// Turns are scheduled open loop: each session has intended send times at its rate, and a
// turn's latency runs from its intended time, so a stall of the agent is never hidden by
// the generator waiting for it. Everything is bounded: sessions, turns and time.
package loadgen

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/byomcp/byomcp/agentsvc/internal/clock"
	"github.com/byomcp/byomcp/agentsvc/wire"
	"github.com/byomcp/byomcp/wsrpc"
)

// Scenario is one measured run.
type Scenario struct {
	Name string `json:"name"`
	// Sessions is the number of pages opened, each with its session.
	Sessions int `json:"sessions"`
	// Hold keeps the sessions idle after their first turn, before memory is measured and the
	// load phase starts.
	Hold time.Duration `json:"hold_ns"`
	// Duration of the load phase (0: none, only the first turn of each session).
	Duration time.Duration `json:"duration_ns"`
	// Rate is the turns per second of each session in the load phase, open loop; 0 means
	// closed loop (each session sends its next turn as soon as the previous one ends).
	Rate float64 `json:"rate_per_session"`
	// ToolsPerTurn is the number of page tool calls the model asks for in a turn, in one
	// response, so they run in parallel (default 1).
	ToolsPerTurn int `json:"tools_per_turn"`
	// RenewEvery makes a page start a new conversation after that many turns, so the history
	// sent to the model stays short (default 10).
	RenewEvery int `json:"renew_every"`
	// MaxTurns bounds the turns of the load phase (default: what the rate asks for, plus 10%;
	// 1,000,000 for a closed loop).
	MaxTurns int `json:"max_turns"`
	// Pages is "" for a page with one small tool (ToolName), or PagesDemo for the realistic
	// pages: the demo's four pages with their captured tool sets, a quarter of the sessions
	// each, whose turns follow scripted conversations (one or two tool calls per turn, an
	// answer of 300-600 characters; ToolsPerTurn and RenewEvery are then the script's).
	Pages string `json:"pages,omitempty"`
	// Turns is how many turns each session has before Hold (default 1). Without a load
	// phase, the latencies are those of these turns.
	Turns int `json:"turns,omitempty"`
	// Concurrency bounds the sessions having those turns at once (default
	// Options.FirstTurnConcurrency). Not used with Spread.
	Concurrency int `json:"concurrency,omitempty"`
	// Spread paces those turns as visitors do, open loop: each session sends its first turn
	// at a random moment within Spread, and each next one Think (±50%, at random) after the
	// previous answer arrived; latencies run from those intended moments. 0: the sessions
	// have their turns back to back, Concurrency at a time (a flood).
	Spread time.Duration `json:"spread_ns,omitempty"`
	// Think is the time a visitor takes to read an answer and type the next message (with
	// Spread; default 10 s).
	Think time.Duration `json:"think_ns,omitempty"`
	// Model is the fake model: "" (ModelHTTP) or ModelTLS or ModelPython.
	Model string `json:"model,omitempty"`
	// Store is the store a spawned command is asked for where it says {store}: "memory"
	// (default) or "sqlite" (a fresh file).
	Store string `json:"store,omitempty"`
}

// Options are the generator's knobs, shared by the scenarios.
type Options struct {
	// Origin is sent by every page (default http://localhost:3000, allowed by default).
	Origin string
	// DialConcurrency bounds the pages connecting at once (default 64).
	DialConcurrency int
	// FirstTurnConcurrency bounds the first turns running at once (default 256).
	FirstTurnConcurrency int
	// TurnTimeout bounds one turn (default 30 s); a turn past it counts as a "timeout" error.
	TurnTimeout time.Duration
	// Settle is waited after the first turns before memory is measured (default 2 s).
	Settle time.Duration
	// Progress receives a line per phase; nil: none.
	Progress io.Writer
}

func (o Options) withDefaults() Options {
	if o.Origin == "" {
		o.Origin = "http://localhost:3000"
	}
	if o.DialConcurrency <= 0 {
		o.DialConcurrency = 64
	}
	if o.FirstTurnConcurrency <= 0 {
		o.FirstTurnConcurrency = 256
	}
	if o.TurnTimeout <= 0 {
		o.TurnTimeout = 30 * time.Second
	}
	if o.Settle <= 0 {
		o.Settle = 2 * time.Second
	}
	if o.Progress == nil {
		o.Progress = io.Discard
	}
	return o
}

// Result is what a scenario measured. Latencies are in milliseconds, memory in KiB.
type Result struct {
	Target   string   `json:"target"`
	Scenario Scenario `json:"scenario"`
	// Sessions is the number of pages whose handshake and agent/session succeeded.
	Sessions int `json:"sessions"`
	// Held is the number of those pages still open after Hold (and the load phase).
	Held int `json:"held"`
	// ServerSockets is the target's byomcp_open_sockets gauge after Hold.
	ServerSockets float64 `json:"server_sockets"`
	// RSSBeforeKiB and RSSAfterKiB are the target's resident memory before the pages
	// connected and after each had its first turn (and Hold).
	RSSBeforeKiB int64 `json:"rss_before_kib"`
	RSSAfterKiB  int64 `json:"rss_after_kib"`
	// MemPerSessionKiB is (RSSAfter − RSSBefore) / Sessions.
	MemPerSessionKiB float64 `json:"mem_per_session_kib"`
	// AnonBeforeKiB, AnonAfterKiB and AnonPerSessionKiB are the same for the anonymous part
	// of the resident memory (RssAnon: without the program's code paged in on first use).
	AnonBeforeKiB     int64   `json:"anon_before_kib"`
	AnonAfterKiB      int64   `json:"anon_after_kib"`
	AnonPerSessionKiB float64 `json:"anon_per_session_kib"`
	// GoroutinesPerSession is the growth of go_goroutines / Sessions; nil when the target
	// does not export go_goroutines.
	GoroutinesPerSession *float64 `json:"goroutines_per_session,omitempty"`
	// HeapPerSessionKiB and StackPerSessionKiB split the memory of a Go target: the growth
	// of go_memstats_heap_inuse_bytes and go_memstats_stack_inuse_bytes / Sessions.
	HeapPerSessionKiB  *float64 `json:"heap_per_session_kib,omitempty"`
	StackPerSessionKiB *float64 `json:"stack_per_session_kib,omitempty"`

	// Load phase.
	LoadSeconds     float64 `json:"load_seconds"`
	Turns           int     `json:"turns"`
	TurnsPerSec     float64 `json:"turns_per_sec"`
	ToolCalls       int64   `json:"tool_calls"`
	ToolCallsPerSec float64 `json:"tool_calls_per_sec"`
	// CPUSeconds is the processor time the target used during the load phase;
	// CPUPerTurnMs and CPUPerToolCallUs divide it by the turns and tool calls.
	CPUSeconds float64 `json:"cpu_seconds"`
	// GeneratorCPUSeconds is the processor time of the generator (pages and fake model) in
	// the same phase: on a small machine the two share the cores.
	GeneratorCPUSeconds float64 `json:"generator_cpu_seconds"`
	CPUPerTurnMs        float64 `json:"cpu_per_turn_ms"`
	CPUPerToolCallUs    float64 `json:"cpu_per_tool_call_us"`
	// ToolRTT is the tools/call round trip as the agent measures it (its
	// byomcp_tool_call_seconds histogram, page kind, over the load phase).
	ToolRTT ToolRTT `json:"tool_rtt"`
	// TurnLatency runs from a turn's intended send time to its agent/chat result.
	TurnLatency Latency `json:"turn_latency"`
	// Overhead is TurnLatency minus the time the model spent on the turn.
	Overhead Latency `json:"overhead"`
	// Errors counts failures by kind (dial, handshake, session, timeout, closed,
	// chat_<code>, stop_<reason>, tool_calls); all turns count, the first ones included.
	Errors map[string]int `json:"errors"`

	// Model side, over the whole run: the model calls served, the TCP connections and TLS
	// handshakes the fake model accepted (not counted by the Python model), and the
	// connections dropped by a full listen queue (the kernel's ListenOverflows: the whole
	// machine's count, so other processes may add to it).
	ModelCalls      int64 `json:"model_calls"`
	ModelConns      int64 `json:"model_conns"`
	TLSHandshakes   int64 `json:"tls_handshakes"`
	ListenOverflows int64 `json:"listen_overflows"`
	// FailedConnects is the number of model calls the target reported as failed to
	// connect ("cannot reach the model API" on its standard error); -1 when unknown.
	FailedConnects int `json:"failed_connects"`
}

// ConnsPer1000 is the new TCP connections to the model per 1,000 model calls.
func (r *Result) ConnsPer1000() float64 {
	if r.ModelCalls == 0 {
		return math.NaN()
	}
	return float64(r.ModelConns) * 1000 / float64(r.ModelCalls)
}

// HandshakesPer1000 is the TLS handshakes with the model per 1,000 model calls.
func (r *Result) HandshakesPer1000() float64 {
	if r.ModelCalls == 0 {
		return math.NaN()
	}
	return float64(r.TLSHandshakes) * 1000 / float64(r.ModelCalls)
}

// ToolRTT summarizes the agent's tools/call histogram: quantiles interpolated inside
// buckets, exact shares under the bucket bounds that are the targets, and the bound under
// which the maximum lies.
type ToolRTT struct {
	Count       float64   `json:"count"`
	P50         Millis    `json:"p50_ms"`
	P99         Millis    `json:"p99_ms"`
	MaxBound    Millis    `json:"max_le_ms"`
	Under250us  float64   `json:"share_le_250us"`
	Under1ms    float64   `json:"share_le_1ms"`
	Under5ms    float64   `json:"share_le_5ms"`
	Histogram   Histogram `json:"histogram"`
	Unavailable bool      `json:"unavailable,omitempty"`
}

func toolRTT(h Histogram) ToolRTT {
	if h.Total() == 0 {
		return ToolRTT{Unavailable: true, Histogram: h}
	}
	return ToolRTT{
		Count:      h.Total(),
		P50:        Millis(h.Quantile(.50) * 1000),
		P99:        Millis(h.Quantile(.99) * 1000),
		MaxBound:   Millis(h.MaxBound() * 1000),
		Under250us: h.Fraction(.00025),
		Under1ms:   h.Fraction(.001),
		Under5ms:   h.Fraction(.005),
		Histogram:  h,
	}
}

// Run runs one scenario against t, with m as the model t is configured with.
func Run(ctx context.Context, t *Target, m *Model, sc Scenario, o Options) (*Result, error) {
	o = o.withDefaults()
	if sc.ToolsPerTurn <= 0 {
		sc.ToolsPerTurn = 1
	}
	if sc.RenewEvery <= 0 {
		sc.RenewEvery = 10
	}
	if sc.Turns <= 0 {
		sc.Turns = 1
	}
	if sc.Concurrency <= 0 && sc.Spread <= 0 {
		sc.Concurrency = o.FirstTurnConcurrency
	}
	if sc.Spread > 0 && sc.Think <= 0 {
		sc.Think = 10 * time.Second
	}
	r := &run{t: t, m: m, sc: sc, o: o, errs: map[string]int{}}
	if sc.Pages == PagesDemo {
		d, err := loadDemo()
		if err != nil {
			return nil, err
		}
		r.demo = d
	} else if sc.Pages != "" {
		return nil, fmt.Errorf("loadgen: unknown pages %q", sc.Pages)
	}
	res := &Result{Target: t.Name, Scenario: sc}
	logf := func(format string, args ...any) {
		fmt.Fprintf(o.Progress, "%s %s: "+format+"\n", append([]any{t.Name, sc.Name}, args...)...)
	}

	before, err := t.Scrape(ctx)
	if err != nil {
		return nil, err
	}
	model0 := m.counts()
	if rss, err := t.RSS(); err == nil {
		res.RSSBeforeKiB = rss >> 10
	}
	if anon, err := t.RSSAnon(); err == nil {
		res.AnonBeforeKiB = anon >> 10
	}
	start := time.Now()
	pages := r.connect(ctx)
	defer closeAll(pages)
	res.Sessions = len(pages)
	logf("%d/%d sessions open (%.1f s)", len(pages), sc.Sessions, time.Since(start).Seconds())
	if len(pages) == 0 {
		res.Errors = r.errs
		return res, errors.New("loadgen: no session could be opened")
	}

	start = time.Now()
	opening := r.firstTurns(ctx, pages)
	logf("%d turn(s) of every session done (%.1f s)", sc.Turns, time.Since(start).Seconds())
	if sc.Duration <= 0 {
		res.Turns = len(opening)
		res.TurnLatency, res.Overhead = r.latencies(opening)
		logf("turn latency p50 %.2f ms p99 %.2f ms, overhead p50 %.2f ms p99 %.2f ms",
			res.TurnLatency.P50, res.TurnLatency.P99, res.Overhead.P50, res.Overhead.P99)
	}
	if err := clock.Sleep(ctx, max(o.Settle, sc.Hold)); err != nil {
		return nil, err
	}
	if rss, err := t.RSS(); err == nil {
		res.RSSAfterKiB = rss >> 10
		res.MemPerSessionKiB = float64(res.RSSAfterKiB-res.RSSBeforeKiB) / float64(len(pages))
	}
	if anon, err := t.RSSAnon(); err == nil {
		res.AnonAfterKiB = anon >> 10
		res.AnonPerSessionKiB = float64(res.AnonAfterKiB-res.AnonBeforeKiB) / float64(len(pages))
	}
	held, err := t.Scrape(ctx)
	if err != nil {
		return nil, err
	}
	res.ServerSockets = held["byomcp_open_sockets"]
	perSession := func(series string, unit float64) *float64 {
		v0, ok := before[series]
		if !ok {
			return nil
		}
		v := (held[series] - v0) / unit / float64(len(pages))
		return &v
	}
	res.GoroutinesPerSession = perSession("go_goroutines", 1)
	res.HeapPerSessionKiB = perSession("go_memstats_heap_inuse_bytes", 1024)
	res.StackPerSessionKiB = perSession("go_memstats_stack_inuse_bytes", 1024)
	res.Held = countOpen(pages)
	logf("%d sessions held; %.1f KiB per session", res.Held, res.MemPerSessionKiB)

	if sc.Duration > 0 {
		cpu0, cpuErr := t.CPU()
		gen0, genErr := readCPU(os.Getpid())
		recs, elapsed := r.load(ctx, pages)
		if cpu1, err := t.CPU(); err == nil && cpuErr == nil {
			res.CPUSeconds = (cpu1 - cpu0).Seconds()
		}
		if gen1, err := readCPU(os.Getpid()); err == nil && genErr == nil {
			res.GeneratorCPUSeconds = (gen1 - gen0).Seconds()
		}
		after, err := t.Scrape(ctx)
		if err != nil {
			return nil, err
		}
		res.LoadSeconds = elapsed.Seconds()
		res.Turns = len(recs)
		res.ToolCalls = r.loadCalls.Load()
		if elapsed > 0 {
			res.TurnsPerSec = float64(res.Turns) / elapsed.Seconds()
			res.ToolCallsPerSec = float64(res.ToolCalls) / elapsed.Seconds()
		}
		if res.Turns > 0 && res.ToolCalls > 0 {
			res.CPUPerTurnMs = res.CPUSeconds * 1000 / float64(res.Turns)
			res.CPUPerToolCallUs = res.CPUSeconds * 1e6 / float64(res.ToolCalls)
		}
		h := after.histogram("byomcp_tool_call_seconds", `kind="page"`).Sub(held.histogram("byomcp_tool_call_seconds", `kind="page"`))
		res.ToolRTT = toolRTT(h)
		res.TurnLatency, res.Overhead = r.latencies(recs)
		res.Held = countOpen(pages)
		logf("%d turns, %.0f turns/s, %.0f tool calls/s, overhead p99 %.2f ms", res.Turns, res.TurnsPerSec, res.ToolCallsPerSec, res.Overhead.P99)
	}
	res.Errors = r.errs
	model1 := m.counts()
	res.ModelCalls = model1.calls - model0.calls
	res.ModelConns = model1.conns - model0.conns
	res.TLSHandshakes = model1.handshakes - model0.handshakes
	res.ListenOverflows = model1.overflows - model0.overflows
	res.FailedConnects = t.failedConnects()
	return res, nil
}

// latencies summarizes turn records: from the intended send time to the result, and the
// same without the time the model spent on the turn (unknown for the Python model: then
// the overhead is left empty).
func (r *run) latencies(recs []turnRecord) (lat, over Latency) {
	all := make([]time.Duration, len(recs))
	net := make([]time.Duration, 0, len(recs))
	for i, rec := range recs {
		all[i] = rec.end.Sub(rec.intended)
		if spent, ok := r.m.take(rec.key); ok {
			net = append(net, all[i]-spent)
		}
	}
	return summarize(all), summarize(net)
}

// run is the state of one scenario run.
type run struct {
	t  *Target
	m  *Model
	sc Scenario
	o  Options

	calls     atomic.Int64 // tools/call answered by every page
	loadCalls atomic.Int64 // the same, during the load phase
	inLoad    atomic.Bool
	events    atomic.Int64
	demo      *demoSet // the realistic pages, or nil

	mu   sync.Mutex
	errs map[string]int
}

func (r *run) fail(kind string) {
	r.mu.Lock()
	r.errs[kind]++
	r.mu.Unlock()
}

// page is one simulated browser tab.
type page struct {
	r      *run
	id     int
	peer   *wsrpc.Peer
	listed chan struct{}
	once   sync.Once
	calls  atomic.Int64 // tools/call answered by this page
	turn   int          // turns sent so far
	inConv int          // turns in the current conversation
	kind   *demoPage    // the realistic page this is, or nil
}

// toolResult is the page's answer to every tools/call.
var toolResult = json.RawMessage(`{"content":[{"type":"text","text":"3 cars match: red Zoe 2021, red Clio 2019, red 208 2022."}]}`)

// toolsList is the page's answer to tools/list.
var toolsList = json.RawMessage(`{"tools":[{"name":"` + ToolName + `","description":"Find cars in the inventory.","inputSchema":` + ToolSchema + `}]}`)

// connect opens the scenario's pages, at most DialConcurrency at a time.
func (r *run) connect(ctx context.Context) []*page {
	var mu sync.Mutex
	var pages []*page
	sem := make(chan struct{}, r.o.DialConcurrency)
	var wg sync.WaitGroup
	for i := 0; i < r.sc.Sessions && ctx.Err() == nil; i++ {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			if p := r.open(ctx, i); p != nil {
				mu.Lock()
				pages = append(pages, p)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return pages
}

// open connects one page and opens its session; failures are counted and give nil.
func (r *run) open(ctx context.Context, id int) *page {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	mc, _, err := wsrpc.Dial(ctx, r.t.WSURL(), http.Header{"Origin": {r.o.Origin}}, wsrpc.WSOptions{PongWait: -1})
	if err != nil {
		r.fail("dial")
		return nil
	}
	p := &page{r: r, id: id, listed: make(chan struct{})}
	list, results := toolsList, map[string]json.RawMessage(nil)
	if r.demo != nil {
		p.kind = kindOf(r.demo, id)
		list, results = p.kind.toolsList, r.demo.results
	}
	p.peer = wsrpc.NewPeer(mc, wsrpc.Options{PingInterval: -1, CallTimeout: r.o.TurnTimeout})
	p.peer.Handle(wire.MethodInitialize, func(_ context.Context, req *wsrpc.Request) (any, error) {
		var params wire.InitializeParams
		_ = json.Unmarshal(req.Params, &params)
		return wire.InitializeResult{
			ProtocolVersion: params.ProtocolVersion,
			Capabilities:    json.RawMessage(`{"tools":{"listChanged":true}}`),
			ServerInfo:      wire.Implementation{Name: "loadgen-page", Version: "1"},
		}, nil
	})
	p.peer.Handle(wire.MethodToolsList, func(context.Context, *wsrpc.Request) (any, error) {
		p.once.Do(func() { close(p.listed) })
		return list, nil
	})
	p.peer.Handle(wire.MethodToolsCall, func(_ context.Context, req *wsrpc.Request) (any, error) {
		p.calls.Add(1)
		r.calls.Add(1)
		if r.inLoad.Load() {
			r.loadCalls.Add(1)
		}
		if results != nil {
			var params struct {
				Name string `json:"name"`
			}
			_ = json.Unmarshal(req.Params, &params)
			if res, ok := results[params.Name]; ok {
				return res, nil
			}
			return json.RawMessage(`{"isError":true,"content":[{"type":"text","text":"no such tool on this page"}]}`), nil
		}
		return toolResult, nil
	})
	p.peer.Handle(wire.MethodPing, func(context.Context, *wsrpc.Request) (any, error) { return struct{}{}, nil })
	p.peer.HandleNotification(wire.MethodAgentEvent, func(context.Context, *wsrpc.Request) { r.events.Add(1) })
	p.peer.Start()
	select {
	case <-p.listed:
	case <-p.peer.Done():
		r.fail("handshake")
		return nil
	case <-ctx.Done():
		r.fail("handshake")
		p.peer.Close(nil)
		return nil
	}
	if err := p.newSession(ctx); err != nil {
		r.fail("session")
		p.peer.Close(nil)
		return nil
	}
	return p
}

func (p *page) newSession(ctx context.Context) error {
	p.inConv = 0
	params := wire.SessionParams{Page: &wire.Page{URL: "http://localhost:3000/cars", Title: "Cars"}}
	if p.kind != nil {
		params.Page = &wire.Page{URL: p.kind.URL, Title: p.kind.Title}
	}
	return p.peer.Call(ctx, wire.MethodAgentSession, params, nil)
}

// turnRecord is one finished turn of the load phase.
type turnRecord struct {
	key           string
	intended, end time.Time
}

// chat runs one turn and reports it; a failure is counted and gives ok false.
func (p *page) chat(ctx context.Context, intended time.Time) (rec turnRecord, ok bool) {
	r := p.r
	renew := r.sc.RenewEvery
	if p.kind != nil {
		renew = len(r.demo.convs[p.kind.Kind])
	}
	if p.inConv >= renew {
		if err := p.newSession(ctx); err != nil {
			r.fail(errKind(err))
			return rec, false
		}
	}
	p.turn++
	p.inConv++
	key := strconv.Itoa(p.id) + ":" + strconv.Itoa(p.turn)
	text := turnMarker + key + " tools=" + strconv.Itoa(r.sc.ToolsPerTurn) + " Show me the red cars."
	wantCalls := int64(r.sc.ToolsPerTurn)
	if p.kind != nil {
		t := r.demo.convs[p.kind.Kind][p.inConv-1]
		text = turnMarker + key + " " + scriptText(p.kind.Kind, p.inConv-1, t)
		wantCalls = int64(t.calls())
	}
	before := p.calls.Load()
	var res wire.ChatResult
	err := p.peer.Call(ctx, wire.MethodAgentChat, wire.ChatParams{Text: text}, &res)
	end := time.Now()
	switch {
	case err != nil:
		r.fail(errKind(err))
		_, _ = r.m.take(key)
		return rec, false
	case res.StopReason != wire.StopEnd:
		r.fail("stop_" + res.StopReason)
		_, _ = r.m.take(key)
		return rec, false
	case p.calls.Load()-before != wantCalls:
		r.fail("tool_calls")
		_, _ = r.m.take(key)
		return rec, false
	}
	return turnRecord{key: key, intended: intended, end: end}, true
}

// errKind names a failed call for the error counts.
func errKind(err error) string {
	var rpcErr *wsrpc.Error
	switch {
	case errors.As(err, &rpcErr):
		return "chat_" + strconv.FormatInt(rpcErr.Code, 10)
	case errors.Is(err, wsrpc.ErrClosed):
		return "closed"
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	default:
		return "other"
	}
}

// firstTurns gives every session its Turns turns, one after the other, Concurrency
// sessions at a time; or, with Spread, as a visitor would have them: the first at a random
// moment within Spread, each next one Think (±50%) after the previous answer, each timed
// from its intended moment (so a slow agent cannot slow the visitors down). It returns the
// turns that succeeded.
func (r *run) firstTurns(ctx context.Context, pages []*page) []turnRecord {
	paced := r.sc.Spread > 0
	sem := make(chan struct{}, max(r.sc.Concurrency, 1))
	var mu sync.Mutex
	var recs []turnRecord
	var wg sync.WaitGroup
	start := time.Now()
	for _, p := range pages {
		if ctx.Err() != nil {
			break
		}
		if !paced {
			sem <- struct{}{}
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if !paced {
				defer func() { <-sem }()
			}
			for i := range r.sc.Turns {
				intended := time.Now()
				if paced {
					if i == 0 {
						intended = start.Add(time.Duration(rand.Int64N(int64(r.sc.Spread))))
					} else {
						intended = intended.Add(r.sc.Think/2 + time.Duration(rand.Int64N(int64(r.sc.Think))))
					}
					if clock.Sleep(ctx, time.Until(intended)) != nil {
						return
					}
				}
				tctx, cancel := context.WithTimeout(ctx, r.o.TurnTimeout)
				rec, ok := p.chat(tctx, intended)
				cancel()
				if ok {
					mu.Lock()
					recs = append(recs, rec)
					mu.Unlock()
				} else if isDone(p.peer) {
					return
				}
			}
		}()
	}
	wg.Wait()
	return recs
}

// load runs the load phase and returns its finished turns and its length (from its start
// to the end of its last turn).
func (r *run) load(ctx context.Context, pages []*page) ([]turnRecord, time.Duration) {
	sc := r.sc
	maxTurns := int64(sc.MaxTurns)
	if maxTurns <= 0 {
		if sc.Rate > 0 {
			maxTurns = int64(math.Ceil(float64(len(pages))*sc.Rate*sc.Duration.Seconds()*1.1)) + int64(len(pages))
		} else {
			maxTurns = 1_000_000
		}
	}
	var issued atomic.Int64
	start := time.Now().Add(50 * time.Millisecond)
	end := start.Add(sc.Duration)
	r.inLoad.Store(true)
	defer r.inLoad.Store(false)

	var mu sync.Mutex
	var all []turnRecord
	last := start
	var wg sync.WaitGroup
	for _, p := range pages {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mine []turnRecord
			var period time.Duration
			next := start
			if sc.Rate > 0 {
				period = time.Duration(float64(time.Second) / sc.Rate)
				next = start.Add(time.Duration(rand.Int64N(int64(period)))) // spread the sessions
			}
			for {
				if sc.Rate > 0 {
					if !next.Before(end) || clock.Sleep(ctx, time.Until(next)) != nil {
						break
					}
				} else {
					next = time.Now()
					if !next.Before(end) || ctx.Err() != nil {
						break
					}
				}
				if issued.Add(1) > maxTurns {
					break
				}
				tctx, cancel := context.WithTimeout(ctx, r.o.TurnTimeout)
				rec, ok := p.chat(tctx, next)
				cancel()
				if ok {
					mine = append(mine, rec)
				} else if isDone(p.peer) {
					break // counted as "closed"; this session is over
				}
				next = next.Add(period)
			}
			mu.Lock()
			all = append(all, mine...)
			for _, rec := range mine {
				if rec.end.After(last) {
					last = rec.end
				}
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	return all, last.Sub(start)
}

// countOpen counts the pages whose socket is still open.
func countOpen(pages []*page) int {
	n := 0
	for _, p := range pages {
		if !isDone(p.peer) {
			n++
		}
	}
	return n
}

func isDone(p *wsrpc.Peer) bool {
	select {
	case <-p.Done():
		return true
	default:
		return false
	}
}

// closeAll closes every page and waits for them.
func closeAll(pages []*page) {
	for _, p := range pages {
		p.peer.Close(nil)
	}
	for _, p := range pages {
		_ = p.peer.Wait()
	}
}
