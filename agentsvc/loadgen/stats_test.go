package loadgen

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"
)

func TestSummarize(t *testing.T) {
	var ds []time.Duration
	for i := 100; i >= 1; i-- { // 1..100 ms, unsorted
		ds = append(ds, time.Duration(i)*time.Millisecond)
	}
	got := summarize(ds)
	want := Latency{Count: 100, P50: 50, P90: 90, P99: 99, Max: 100}
	if got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
	if got := summarize(nil); got != (Latency{}) {
		t.Errorf("empty: got %+v, want zero", got)
	}
	if got := summarize([]time.Duration{3 * time.Millisecond}); got.P50 != 3 || got.P99 != 3 || got.Max != 3 {
		t.Errorf("one sample: got %+v, want 3 ms everywhere", got)
	}
}

const exposition = `# HELP byomcp_tool_call_seconds Tool call latency.
# TYPE byomcp_tool_call_seconds histogram
byomcp_tool_call_seconds_bucket{kind="page",le="0.0001"} 0
byomcp_tool_call_seconds_bucket{kind="page",le="0.00025"} 40
byomcp_tool_call_seconds_bucket{kind="page",le="0.0005"} 90
byomcp_tool_call_seconds_bucket{kind="page",le="0.001"} 99
byomcp_tool_call_seconds_bucket{kind="page",le="0.0025"} 100
byomcp_tool_call_seconds_bucket{kind="page",le="+Inf"} 100
byomcp_tool_call_seconds_sum{kind="page"} 0.03
byomcp_tool_call_seconds_count{kind="page"} 100
byomcp_tool_call_seconds_bucket{kind="server",le="0.0001"} 7
byomcp_tool_call_seconds_bucket{kind="server",le="+Inf"} 7
byomcp_refused_total{reason="a b"} 3 1700000000
go_goroutines 42
`

func TestParseMetricsAndHistogram(t *testing.T) {
	m, err := parseMetrics(strings.NewReader(exposition))
	if err != nil {
		t.Fatal(err)
	}
	if m["go_goroutines"] != 42 || m[`byomcp_refused_total{reason="a b"}`] != 3 {
		t.Errorf("got %v, want go_goroutines 42 and the refused sample with its timestamp dropped", m)
	}
	h := m.histogram("byomcp_tool_call_seconds", `kind="page"`)
	if len(h.Bounds) != 6 || !math.IsInf(h.Bounds[5], 1) || h.Total() != 100 {
		t.Fatalf("got %+v, want the 6 page buckets with 100 observations", h)
	}
	tests := []struct {
		name string
		got  float64
		want float64
	}{
		{"p40 ends the 250 µs bucket", h.Quantile(.40), .00025},
		{"p50 interpolates in (250 µs, 500 µs]", h.Quantile(.50), .00025 + .00025*10/50},
		{"p99 ends the 1 ms bucket", h.Quantile(.99), .001},
		{"share ≤ 250 µs", h.Fraction(.00025), .40},
		{"share ≤ 1 ms", h.Fraction(.001), .99},
		{"share ≤ 0.9 ms uses the bound below", h.Fraction(.0009), .90},
		{"max bound", h.MaxBound(), .0025},
	}
	for _, tt := range tests {
		if math.Abs(tt.got-tt.want) > 1e-12 {
			t.Errorf("%s: got %v, want %v", tt.name, tt.got, tt.want)
		}
	}
	if s := m.histogram("byomcp_tool_call_seconds", `kind="server"`); s.Total() != 7 {
		t.Errorf("server histogram: got %+v, want 7 observations", s)
	}
}

func TestHistogramSubAndEdges(t *testing.T) {
	inf := math.Inf(1)
	before := Histogram{Bounds: []float64{.001, .005, inf}, Counts: []float64{10, 10, 10}}
	after := Histogram{Bounds: []float64{.001, .005, inf}, Counts: []float64{10, 15, 20}}
	d := after.Sub(before)
	if d.Total() != 10 || d.Counts[0] != 0 || d.Counts[1] != 5 {
		t.Fatalf("got %+v, want 0, 5, 10", d)
	}
	if got := d.Quantile(.99); got != .005 {
		t.Errorf("a quantile in the +Inf bucket: got %v, want the last finite bound", got)
	}
	if got := d.MaxBound(); !math.IsInf(got, 1) {
		t.Errorf("max bound with observations over every bound: got %v, want +Inf", got)
	}
	if got := (Histogram{}).Quantile(.5); !math.IsNaN(got) {
		t.Errorf("empty histogram: got %v, want NaN", got)
	}
	if got := toolRTT(Histogram{}); !got.Unavailable {
		t.Errorf("empty histogram: got %+v, want unavailable", got)
	}
}

func TestTurnKeyAndRespond(t *testing.T) {
	body := []byte(`{"messages":[{"role":"user","content":"bench:3:1 tools=2 hi"},{"role":"assistant","content":"ok"},{"role":"user","content":"bench:3:2 tools=5 Show me"}]}`)
	if got := turnKey(body); got != "3:2" {
		t.Errorf("got key %q, want 3:2 (the last user message)", got)
	}
	if got := turnKey([]byte(`{"messages":[]}`)); got != "" {
		t.Errorf("got key %q, want none", got)
	}
}

func TestAdvantageAndCount(t *testing.T) {
	tests := []struct {
		ours, theirs float64
		lower        bool
		want         string
	}{
		{10, 30, true, "3.0× better"},
		{30, 10, true, "3.0× worse"},
		{300, 100, false, "3.0× better"},
		{5, 5, true, "same"},
		{0, 5, true, "better"},
	}
	for _, tt := range tests {
		if got := advantage(tt.ours, tt.theirs, true, tt.lower); got != tt.want {
			t.Errorf("advantage(%v, %v, lower=%v): got %q, want %q", tt.ours, tt.theirs, tt.lower, got, tt.want)
		}
	}
	for v, want := range map[float64]string{0: "0", 999: "999", 1000: "1,000", 1234567: "1,234,567"} {
		if got := count(v); got != want {
			t.Errorf("count(%v): got %q, want %q", v, got, want)
		}
	}
}

func TestJSONOfNonFiniteValues(t *testing.T) {
	h := Histogram{Bounds: []float64{.001, math.Inf(1)}, Counts: []float64{1, 2}}
	b, err := json.Marshal(Result{ToolRTT: toolRTT(h)})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"max_le_ms":null`, `"le":["0.001","+Inf"]`, `"p50_ms":1`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("got %s, want it to contain %s", b, want)
		}
	}
}
