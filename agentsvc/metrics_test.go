package agentsvc

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/gorilla/websocket"

	"github.com/byomcp/byomcp/agentsvc/llm/llmtest"
	"github.com/byomcp/byomcp/agentsvc/wire"
)

// scrape reads the server's /metrics in the Prometheus text format and returns every
// sample by its series as printed, e.g. `byomcp_turns_total{stop_reason="end"}`.
func scrape(t *testing.T, s *Server) map[string]float64 {
	t.Helper()
	rec := httptest.NewRecorder()
	s.MetricsHandler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("GET /metrics: got HTTP %d, want 200", rec.Code)
	}
	out := map[string]float64{}
	sc := bufio.NewScanner(rec.Body)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		if i < 0 {
			t.Fatalf("malformed metrics line %q", line)
		}
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			t.Fatalf("metrics line %q: %v", line, err)
		}
		out[line[:i]] = v
	}
	return out
}

// metric returns one sample of the server's metrics (0 when the series does not exist yet).
func metric(t *testing.T, s *Server, series string) float64 {
	t.Helper()
	return scrape(t, s)[series]
}

// waitMetric waits (bounded) until a sample has the value v.
func waitMetric(t *testing.T, s *Server, series string, v float64) {
	t.Helper()
	waitFor(t, fmt.Sprintf("%s to be %v", series, v), func() bool { return metric(t, s, series) == v })
}

// wantMetrics checks samples against their expected values.
func wantMetrics(t *testing.T, s *Server, want map[string]float64) {
	t.Helper()
	got := scrape(t, s)
	for series, v := range want {
		if got[series] != v {
			t.Errorf("%s: got %v, want %v", series, got[series], v)
		}
	}
}

// TestMetricsOfATurn: one turn with three parallel tool calls of three outcomes, through the
// real OpenAI client, shows up in every metric the issue asks for.
func TestMetricsOfATurn(t *testing.T) {
	model, _ := openAIModel(t, llmtest.Script(
		llmtest.Step{
			ToolCalls: []llmtest.FakeCall{
				{ID: "c1", Name: "echo", Args: `{"text":"hi"}`},
				{ID: "c2", Name: "echo", Args: `{"text":5}`},
				{ID: "c3", Name: "fails", Args: `{}`},
			},
			Usage: &llmtest.Usage{PromptTokens: 100, CompletionTokens: 20},
		},
		llmtest.Step{Text: "done", Usage: &llmtest.Usage{PromptTokens: 150, CompletionTokens: 5}},
	))
	ts := newTestServer(t, model, nil)
	fails := pageTestTool{
		tool: wire.PageTool{Name: "fails", InputSchema: []byte(`{"type":"object"}`)},
		fn:   func(context.Context, map[string]any) (any, error) { return nil, errors.New("out of stock") },
	}
	page := newFakePage(t, ts, testOrigin, echoTool(), fails)
	page.session(wire.SessionParams{})
	wantMetrics(t, ts.Server, map[string]float64{
		"byomcp_open_sockets":  1,
		"byomcp_live_sessions": 1,
	})
	res, err := page.chat("go")
	if err != nil || res.StopReason != wire.StopEnd {
		t.Fatalf("got %+v %v, want a finished turn", res, err)
	}
	wantMetrics(t, ts.Server, map[string]float64{
		`byomcp_turns_total{stop_reason="end"}`:                       1,
		`byomcp_tool_calls_total{kind="page",outcome="ok"}`:           1,
		`byomcp_tool_calls_total{kind="page",outcome="invalid_args"}`: 1,
		`byomcp_tool_calls_total{kind="page",outcome="tool_error"}`:   1,
		`byomcp_tool_call_seconds_count{kind="page"}`:                 3,
		`byomcp_tool_call_seconds_bucket{kind="page",le="+Inf"}`:      3,
		"byomcp_model_call_seconds_count":                             2,
		`byomcp_model_tokens_total{kind="prompt"}`:                    250,
		`byomcp_model_tokens_total{kind="completion"}`:                25,
	})
	got := scrape(t, ts.Server)
	// The turn's events were written in one or more flushes, as they came.
	for _, series := range []string{"go_goroutines", "process_resident_memory_bytes", `byomcp_tool_call_seconds_sum{kind="page"}`, "byomcp_store_write_seconds_count", "byomcp_store_write_seconds_sum"} {
		if got[series] <= 0 {
			t.Errorf("%s: got %v, want > 0", series, got[series])
		}
	}

	page.peer.Close(nil)
	waitFor(t, "the socket and its session to go", func() bool {
		m := scrape(t, ts.Server)
		return m["byomcp_open_sockets"] == 0 && m["byomcp_live_sessions"] == 0
	})
}

// TestMetricsOfRefusals: a refused origin, an oversize frame and a binary frame are counted
// by reason, and a page that stops reading is counted as a dropped slow client (see
// TestLimitSlowReaderIsDropped).
func TestMetricsOfRefusals(t *testing.T) {
	ts := newTestServer(t, textModel("hi"), func(c *Config) { c.ReadLimit = 1024 })
	if c, resp, _ := websocket.DefaultDialer.Dial(ts.wsURL, http.Header{"Origin": {"https://evil.example"}}); c != nil || resp == nil || resp.StatusCode != http.StatusForbidden {
		t.Fatalf("got %v, want 403", resp)
	}
	big := dialRaw(t, ts, testOrigin)
	big.waitInitialize(t)
	big.write(t, `{"jsonrpc":"2.0","method":"ping","params":"`+strings.Repeat("x", 2048)+`"}`)
	big.wantClose(t, websocket.CloseMessageTooBig)
	bin := dialRaw(t, ts, testOrigin)
	bin.waitInitialize(t)
	if err := bin.c.WriteMessage(websocket.BinaryMessage, []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	bin.wantClose(t, websocket.CloseUnsupportedData)
	waitFor(t, "the sockets to close", func() bool { return ts.ConnCount() == 0 })
	wantMetrics(t, ts.Server, map[string]float64{
		`byomcp_refused_total{reason="origin"}`:   1,
		`byomcp_refused_total{reason="too_big"}`:  1,
		`byomcp_refused_total{reason="protocol"}`: 1,
	})
}
