package loadgen

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/byomcp/byomcp/agentsvc"
	"github.com/byomcp/byomcp/agentsvc/llm"
	"github.com/byomcp/byomcp/agentsvc/store"
)

// startAgent runs a byomcp agent in the test process, on the fake model, with its metrics.
func startAgent(t *testing.T, m *Model) *Target {
	t.Helper()
	return startAgentWith(t, llm.Options{BaseURL: m.URL})
}

// startAgentWith is startAgent with the model's options (BaseURL, HTTPClient) given.
func startAgentWith(t *testing.T, o llm.Options) *Target {
	t.Helper()
	o.APIKey, o.Model = "k", "fake-model"
	srv, err := agentsvc.NewServer(agentsvc.Config{
		Store: store.NewMemory(),
		Model: llm.NewOpenAI(o),
	})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /v1/ws", srv)
	mux.Handle("GET /metrics", srv.MetricsHandler())
	hs := httptest.NewServer(mux)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
		hs.Close()
	})
	return Attach("byomcp", hs.URL, os.Getpid())
}

func startModel(t *testing.T) *Model {
	t.Helper()
	m, err := StartModel()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Close)
	return m
}

func TestRunOpenLoop(t *testing.T) {
	m := startModel(t)
	target := startAgent(t, m)
	sc := Scenario{Name: "small", Sessions: 5, Rate: 10, Duration: 500 * time.Millisecond, ToolsPerTurn: 3, RenewEvery: 2}
	res, err := Run(context.Background(), target, m, sc, Options{Settle: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Errors) != 0 {
		t.Errorf("got errors %v, want none", res.Errors)
	}
	if res.Sessions != 5 || res.Held != 5 || res.ServerSockets != 5 {
		t.Errorf("got %d sessions, %d held, %v server sockets, want 5 each", res.Sessions, res.Held, res.ServerSockets)
	}
	// 5 sessions × 10 turns/s × 0.5 s, each session's first one at a random phase.
	if res.Turns < 20 || res.Turns > 30 {
		t.Errorf("got %d turns, want about 25", res.Turns)
	}
	if res.ToolCalls != int64(3*res.Turns) {
		t.Errorf("got %d tool calls, want 3 per turn (%d)", res.ToolCalls, 3*res.Turns)
	}
	if res.ToolRTT.Unavailable || res.ToolRTT.Count != float64(res.ToolCalls) {
		t.Errorf("got tools/call histogram %+v, want %d observations", res.ToolRTT, res.ToolCalls)
	}
	if res.TurnLatency.Count != res.Turns || res.Overhead.Count != res.Turns {
		t.Errorf("got %d latencies and %d overheads, want %d", res.TurnLatency.Count, res.Overhead.Count, res.Turns)
	}
	if res.Overhead.P50 >= res.TurnLatency.P50 || res.Overhead.P50 <= 0 {
		t.Errorf("got overhead p50 %v ms and latency p50 %v ms, want 0 < overhead < latency (the model time is taken out)", res.Overhead.P50, res.TurnLatency.P50)
	}
	if res.GoroutinesPerSession == nil || *res.GoroutinesPerSession <= 0 {
		t.Errorf("got goroutines per session %v, want > 0", res.GoroutinesPerSession)
	}
	if res.RSSAfterKiB <= 0 {
		t.Errorf("got RSS %d KiB, want it measured", res.RSSAfterKiB)
	}
	if res.AnonAfterKiB <= 0 || res.AnonAfterKiB > res.RSSAfterKiB {
		t.Errorf("got RssAnon %d KiB (RSS %d KiB), want it measured, and part of the RSS", res.AnonAfterKiB, res.RSSAfterKiB)
	}
	if res.CPUSeconds <= 0 || res.CPUPerTurnMs <= 0 || res.CPUPerToolCallUs*3 > res.CPUPerTurnMs*1000*1.001 {
		t.Errorf("got %v s of CPU, %v ms per turn, %v µs per tool call; want it measured, a third per call", res.CPUSeconds, res.CPUPerTurnMs, res.CPUPerToolCallUs)
	}
	// 5 first turns + the load phase, two model calls each.
	if got, want := m.Requests(), int64(2*(5+res.Turns)); got != want {
		t.Errorf("got %d model requests, want %d", got, want)
	}
}

func TestRunClosedLoopIsBounded(t *testing.T) {
	m := startModel(t)
	target := startAgent(t, m)
	sc := Scenario{Name: "closed", Sessions: 2, Duration: time.Minute, ToolsPerTurn: 1, MaxTurns: 12}
	res, err := Run(context.Background(), target, m, sc, Options{Settle: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if res.Turns != 12 || len(res.Errors) != 0 {
		t.Errorf("got %d turns and errors %v, want exactly MaxTurns (12) and none", res.Turns, res.Errors)
	}
}

func TestRunCountsRefusedSessions(t *testing.T) {
	m := startModel(t)
	target := startAgent(t, m)
	_, err := Run(context.Background(), target, m, Scenario{Name: "refused", Sessions: 3}, Options{Origin: "https://evil.example", Settle: time.Millisecond})
	if err == nil || !strings.Contains(err.Error(), "no session") {
		t.Errorf("got %v, want no session opened", err)
	}
}

func TestSpawn(t *testing.T) {
	ctx := context.Background()
	target, err := Spawn(ctx, "fake", []string{"sh", "-c", `echo "$OPENAI_BASE_URL" >&2; echo "fake listening on http://127.0.0.1:1/"; exec sleep 60`}, "http://model.invalid/v1")
	if err != nil {
		t.Fatal(err)
	}
	if target.URL != "http://127.0.0.1:1" || target.WSURL() != "ws://127.0.0.1:1/v1/ws" {
		t.Errorf("got URL %q (%q), want http://127.0.0.1:1", target.URL, target.WSURL())
	}
	if rss, err := target.RSS(); err != nil || rss <= 0 {
		t.Errorf("got RSS %d, %v, want the child's", rss, err)
	}
	if cpu, err := target.CPU(); err != nil || cpu < 0 {
		t.Errorf("got CPU time %v, %v, want the child's", cpu, err)
	}
	target.Stop()
	if !target.Exited() {
		t.Error("Stop returned before the process ended")
	}
	if got := target.stderr.String(); got != "http://model.invalid/v1" {
		t.Errorf("the child saw OPENAI_BASE_URL %q, want the model's", got)
	}

	_, err = Spawn(ctx, "mute", []string{"sh", "-c", "echo no url here"}, "http://model.invalid/v1")
	if err == nil || !strings.Contains(err.Error(), "no url here") {
		t.Errorf("got %v, want an error quoting what the command printed", err)
	}
}

func TestWriteReports(t *testing.T) {
	g := 4.0
	results := []*Result{
		{Target: "byomcp", Scenario: Scenario{Name: "idle", Sessions: 10}, Sessions: 10, Held: 10, MemPerSessionKiB: 12, GoroutinesPerSession: &g},
		{Target: "node-ref", Scenario: Scenario{Name: "idle", Sessions: 10}, Sessions: 10, Held: 10, MemPerSessionKiB: 36},
	}
	var sum, det bytes.Buffer
	if err := WriteSummary(&sum, results); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| figure | goal | byomcp | node-ref | byomcp vs node-ref |",
		"| memory per session after one turn | ≤ 24 KiB | 12.0 KiB | 36.0 KiB | 3.0× better |",
		"| goroutines per session | — | 4.00 | n/a | — |",
	} {
		if !strings.Contains(sum.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, sum.String())
		}
	}
	if strings.Contains(sum.String(), "saturation") {
		t.Errorf("summary shows a figure of a scenario that did not run:\n%s", sum.String())
	}
	if err := WriteDetails(&det, results); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(det.String(), "idle: 10 sessions") || strings.Count(det.String(), "\n") != 5 {
		t.Errorf("got details:\n%s\nwant one block with a header and two rows", det.String())
	}
}

// TestNodeReferenceAgent runs a small scenario against bench/ref-agent.mjs, the agent that
// `byomcp bench --compare` measures byomcp against, so that the comparison cannot rot.
func TestNodeReferenceAgent(t *testing.T) {
	node, err := exec.LookPath("node")
	missing := ""
	switch {
	case err != nil:
		missing = "node is not on PATH"
	default:
		if _, err := os.Stat(filepath.Join("..", "..", "node_modules", "@modelcontextprotocol", "sdk")); err != nil {
			missing = "node_modules is missing (run npm ci)"
		}
	}
	if missing != "" {
		if os.Getenv("BYOMCP_REQUIRE_NODE") == "1" {
			t.Fatal(missing)
		}
		t.Skip(missing)
	}
	m := startModel(t)
	ctx := context.Background()
	target, err := Spawn(ctx, "node-ref", []string{node, filepath.Join("..", "..", "bench", "ref-agent.mjs")}, m.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer target.Stop()
	sc := Scenario{Name: "node", Sessions: 3, Rate: 10, Duration: 300 * time.Millisecond, ToolsPerTurn: 2}
	res, err := Run(ctx, target, m, sc, Options{Settle: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Errors) != 0 || res.Held != 3 || res.ServerSockets != 3 || res.Turns == 0 {
		t.Errorf("got %d turns, %d held, %v server sockets, errors %v; want turns, 3 held and no error", res.Turns, res.Held, res.ServerSockets, res.Errors)
	}
	if res.ToolCalls != int64(2*res.Turns) || res.ToolRTT.Count != float64(res.ToolCalls) {
		t.Errorf("got %d tool calls, %v in its histogram, want %d in both", res.ToolCalls, res.ToolRTT.Count, 2*res.Turns)
	}
	if res.GoroutinesPerSession != nil {
		t.Errorf("got goroutines per session from a Node process: %v", *res.GoroutinesPerSession)
	}
}
