package loadgen

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
)

// WriteJSON writes the results as indented JSON.
func WriteJSON(w io.Writer, results []*Result) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(results)
}

// WriteDetails writes every measure of every result, one block per scenario.
func WriteDetails(w io.Writer, results []*Result) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	scenario := ""
	for _, r := range results {
		if r.Scenario.Name != scenario {
			scenario = r.Scenario.Name
			sc := r.Scenario
			fmt.Fprintf(tw, "\n%s: %d sessions", sc.Name, sc.Sessions)
			if sc.Duration > 0 {
				rate := "closed loop"
				if sc.Rate > 0 {
					rate = fmt.Sprintf("%g turns/s each", sc.Rate)
				}
				fmt.Fprintf(tw, ", %s for %s, %d tool call(s) per turn", rate, sc.Duration, sc.ToolsPerTurn)
			}
			if sc.Pages == PagesDemo {
				fmt.Fprintf(tw, ", realistic pages, %d turn(s) each", max(sc.Turns, 1))
				switch {
				case sc.Spread > 0:
					fmt.Fprintf(tw, ", paced (first turns within %s, %s to read and reply)", sc.Spread, sc.Think)
				case sc.Concurrency > 0:
					fmt.Fprintf(tw, ", %d at once", sc.Concurrency)
				}
			}
			if sc.Store != "" {
				fmt.Fprintf(tw, ", %s store", sc.Store)
			}
			if sc.Model != "" {
				fmt.Fprintf(tw, ", %s model", sc.Model)
			}
			if sc.Hold > 0 {
				fmt.Fprintf(tw, ", held idle %s", sc.Hold)
			}
			fmt.Fprintln(tw)
			fmt.Fprintln(tw, "target\tsessions\theld\tKiB/session\theap+stacks\tgoroutines/session\tturns/s\ttool calls/s\tCPU/turn\ttools/call p50\tp99\tmax ≤\tturn p50\tp99\toverhead p50\tp99\tmax\tmodel calls\tconns\tTLS\tfailed connects\tlisten overflows\terrors")
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.1f\t%s\t%s\t%.0f\t%.0f\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t%d\t%d\t%s\t%d\t%s\n",
			r.Target, r.Sessions, r.Held, r.MemPerSessionKiB, memSplit(r), goroutines(r),
			r.TurnsPerSec, r.ToolCallsPerSec, dur(r.CPUPerTurnMs, r.Turns),
			rtt(r.ToolRTT, float64(r.ToolRTT.P50)), rtt(r.ToolRTT, float64(r.ToolRTT.P99)), rtt(r.ToolRTT, float64(r.ToolRTT.MaxBound)),
			dur(r.TurnLatency.P50, r.TurnLatency.Count), dur(r.TurnLatency.P99, r.TurnLatency.Count),
			dur(r.Overhead.P50, r.Overhead.Count), dur(r.Overhead.P99, r.Overhead.Count), dur(r.Overhead.Max, r.Overhead.Count),
			r.ModelCalls, r.ModelConns, r.TLSHandshakes, failedConnects(r), r.ListenOverflows,
			errorList(r.Errors))
	}
	return tw.Flush()
}

func failedConnects(r *Result) string {
	if r.FailedConnects < 0 {
		return "n/a"
	}
	return strconv.Itoa(r.FailedConnects)
}

func goroutines(r *Result) string {
	if r.GoroutinesPerSession == nil {
		return "n/a"
	}
	return fmt.Sprintf("%.2f", *r.GoroutinesPerSession)
}

// memSplit is "heap+stacks" KiB per session, for a Go target.
func memSplit(r *Result) string {
	if r.HeapPerSessionKiB == nil || r.StackPerSessionKiB == nil {
		return "n/a"
	}
	return fmt.Sprintf("%.1f+%.1f", *r.HeapPerSessionKiB, *r.StackPerSessionKiB)
}

func rtt(t ToolRTT, v float64) string {
	if t.Unavailable {
		return "-"
	}
	return millis(v)
}

func dur(v float64, n int) string {
	if n == 0 {
		return "-"
	}
	return millis(v)
}

// millis formats milliseconds, in µs below one.
func millis(v float64) string {
	switch {
	case math.IsNaN(v):
		return "-"
	case math.IsInf(v, 1):
		return "+Inf"
	case v < 1:
		return fmt.Sprintf("%.0f µs", v*1000)
	default:
		return fmt.Sprintf("%.2f ms", v)
	}
}

func errorList(errs map[string]int) string {
	if len(errs) == 0 {
		return "0"
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(errs)) {
		parts = append(parts, fmt.Sprintf("%s=%d", k, errs[k]))
	}
	return strings.Join(parts, " ")
}

func totalErrors(errs map[string]int) int {
	n := 0
	for _, v := range errs {
		n += v
	}
	return n
}

// figure is one row of the summary: a measure of one scenario and its goal.
type figure struct {
	label, goal, scenario string
	value                 func(*Result) (float64, bool)
	format                func(float64) string
	lowerIsBetter         bool
}

var figures = []figure{
	{"idle sessions held by one process", "≥ 20,000", "idle",
		func(r *Result) (float64, bool) { return float64(r.Held), true }, count, false},
	{"memory per session after one turn", "≤ 24 KiB", "idle",
		func(r *Result) (float64, bool) { return r.MemPerSessionKiB, true }, kib, true},
	{"Go heap in use per session", "", "idle", optional(func(r *Result) *float64 { return r.HeapPerSessionKiB }), kib, true},
	{"goroutine stacks per session", "", "idle", optional(func(r *Result) *float64 { return r.StackPerSessionKiB }), kib, true},
	{"goroutines per session", "", "idle", optional(func(r *Result) *float64 { return r.GoroutinesPerSession }),
		func(v float64) string { return fmt.Sprintf("%.2f", v) }, true},
	{"tools/call round trip, 1 session: p50", "≤ 250 µs", "one", rttOf(func(t ToolRTT) float64 { return float64(t.P50) }), millis, true},
	{"tools/call round trip, 1 session: p99", "≤ 1 ms", "one", rttOf(func(t ToolRTT) float64 { return float64(t.P99) }), millis, true},
	{"tools/call round trip, 1 session: max", "", "one", rttOf(func(t ToolRTT) float64 { return float64(t.MaxBound) }), func(v float64) string { return "≤ " + millis(v) }, true},
	{"tools/call round trip, 1,000 sessions × 1 call/s: p99", "≤ 5 ms", "steady", rttOf(func(t ToolRTT) float64 { return float64(t.P99) }), millis, true},
	{"same: errors", "0", "steady",
		func(r *Result) (float64, bool) { return float64(totalErrors(r.Errors)), true }, count, true},
	{"1,000 sessions × 1 turn/s (1 call each): turns/s kept up with", "1,000", "turns",
		func(r *Result) (float64, bool) { return r.TurnsPerSec, r.Turns > 0 }, count, false},
	{"agent CPU per turn of 1 tool call (2 model calls)", "", "turns",
		func(r *Result) (float64, bool) { return r.CPUPerTurnMs, r.CPUPerTurnMs > 0 }, millis, true},
	{"tool calls/s at saturation", "≥ 15,000", "saturation",
		func(r *Result) (float64, bool) { return r.ToolCallsPerSec, r.Turns > 0 }, count, false},
	{"agent overhead per turn (model excluded), 1 session: p99", "≤ 5 ms", "one",
		func(r *Result) (float64, bool) { return r.Overhead.P99, r.Overhead.Count > 0 }, millis, true},
	{"agent overhead per turn (model excluded), 100 sessions: p99", "≤ 20 ms", "hundred",
		func(r *Result) (float64, bool) { return r.Overhead.P99, r.Overhead.Count > 0 }, millis, true},
	{"turns/s at saturation", "", "saturation",
		func(r *Result) (float64, bool) { return r.TurnsPerSec, r.Turns > 0 }, count, false},
	{"agent CPU per tool call at saturation", "", "saturation",
		func(r *Result) (float64, bool) { return r.CPUPerToolCallUs / 1000, r.CPUPerToolCallUs > 0 }, millis, true},
	{"memory per idle tab, realistic pages, SQLite store", "≤ 24 KiB", "realistic",
		func(r *Result) (float64, bool) { return r.MemPerSessionKiB, true }, kib, true},
	{"same: anonymous memory (RssAnon) per tab", "", "realistic",
		func(r *Result) (float64, bool) { return r.AnonPerSessionKiB, r.AnonAfterKiB > 0 }, kib, true},
	{"same: Go heap in use per tab", "", "realistic", optional(func(r *Result) *float64 { return r.HeapPerSessionKiB }), kib, true},
	{"same: goroutine stacks per tab", "", "realistic", optional(func(r *Result) *float64 { return r.StackPerSessionKiB }), kib, true},
	{"memory per idle tab, realistic pages, memory store", "≤ 48 KiB", "realistic-memory",
		func(r *Result) (float64, bool) { return r.MemPerSessionKiB, true }, kib, true},
	{"same: anonymous memory (RssAnon) per tab", "", "realistic-memory",
		func(r *Result) (float64, bool) { return r.AnonPerSessionKiB, r.AnonAfterKiB > 0 }, kib, true},
	{"same: Go heap in use per tab", "", "realistic-memory", optional(func(r *Result) *float64 { return r.HeapPerSessionKiB }), kib, true},
	{"same: goroutine stacks per tab", "", "realistic-memory", optional(func(r *Result) *float64 { return r.StackPerSessionKiB }), kib, true},
	{"turn latency (model excluded), realistic pages, SQLite: p50", "", "realistic",
		func(r *Result) (float64, bool) { return r.Overhead.P50, r.Overhead.Count > 0 }, millis, true},
	{"turn latency (model excluded), realistic pages, SQLite: p99", "≤ 20 ms", "realistic",
		func(r *Result) (float64, bool) { return r.Overhead.P99, r.Overhead.Count > 0 }, millis, true},
	{"turn latency (model excluded), realistic pages, memory: p99", "≤ 20 ms", "realistic-memory",
		func(r *Result) (float64, bool) { return r.Overhead.P99, r.Overhead.Count > 0 }, millis, true},
	{"new model connections per 1,000 model calls (HTTPS keep-alive)", "≤ 10", "provider",
		func(r *Result) (float64, bool) { v := r.ConnsPer1000(); return v, !math.IsNaN(v) }, oneDecimal, true},
	{"TLS handshakes per 1,000 model calls", "≤ 10", "provider",
		func(r *Result) (float64, bool) { v := r.HandshakesPer1000(); return v, !math.IsNaN(v) }, oneDecimal, true},
	{"failed model connects, burst of tabs on a small server", "0", "burst",
		func(r *Result) (float64, bool) { return float64(r.FailedConnects), r.FailedConnects >= 0 }, count, true},
	{"same: turn latency p99 (model included)", "≤ Node's", "burst",
		func(r *Result) (float64, bool) { return r.TurnLatency.P99, r.TurnLatency.Count > 0 }, millis, true},
	{"same: errors", "0", "burst",
		func(r *Result) (float64, bool) { return float64(totalErrors(r.Errors)), true }, count, true},
}

func oneDecimal(v float64) string { return fmt.Sprintf("%.1f", v) }

func optional(f func(*Result) *float64) func(*Result) (float64, bool) {
	return func(r *Result) (float64, bool) {
		if p := f(r); p != nil {
			return *p, true
		}
		return 0, false
	}
}

func rttOf(f func(ToolRTT) float64) func(*Result) (float64, bool) {
	return func(r *Result) (float64, bool) { return f(r.ToolRTT), !r.ToolRTT.Unavailable }
}

func count(v float64) string {
	s := fmt.Sprintf("%.0f", v)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func kib(v float64) string { return fmt.Sprintf("%.1f KiB", v) }

// WriteSummary writes the README's table: each figure per target, and with two or more
// targets the advantage of the first over each other one (how many times better; below 1
// means worse). Figures that no target has (their scenario did not run) are left out.
func WriteSummary(w io.Writer, results []*Result) error {
	var targets []string
	by := map[string]*Result{}
	for _, r := range results {
		if !slices.Contains(targets, r.Target) {
			targets = append(targets, r.Target)
		}
		by[r.Target+"/"+r.Scenario.Name] = r
	}
	if len(targets) == 0 {
		return nil
	}
	head := "| figure | goal |"
	rule := "| --- | --- |"
	for _, t := range targets {
		head += " " + t + " |"
		rule += " --- |"
	}
	for _, t := range targets[1:] {
		head += " " + targets[0] + " vs " + t + " |"
		rule += " --- |"
	}
	var rows []string
	for _, f := range figures {
		vals := make([]float64, len(targets))
		oks := make([]bool, len(targets))
		found := false
		for i, t := range targets {
			if r := by[t+"/"+f.scenario]; r != nil {
				vals[i], oks[i] = f.value(r)
				found = found || oks[i]
			}
		}
		if !found {
			continue
		}
		goal := f.goal
		if goal == "" {
			goal = "—"
		}
		row := "| " + f.label + " | " + goal + " |"
		for i := range targets {
			if oks[i] {
				row += " " + f.format(vals[i]) + " |"
			} else {
				row += " n/a |"
			}
		}
		for i := 1; i < len(targets); i++ {
			row += " " + advantage(vals[0], vals[i], oks[0] && oks[i], f.lowerIsBetter) + " |"
		}
		rows = append(rows, row)
	}
	if len(rows) == 0 {
		return nil
	}
	_, err := fmt.Fprintln(w, head+"\n"+rule+"\n"+strings.Join(rows, "\n"))
	return err
}

// advantage says how many times better ours is than theirs.
func advantage(ours, theirs float64, ok, lowerIsBetter bool) string {
	if !ok || math.IsNaN(ours) || math.IsNaN(theirs) {
		return "—"
	}
	if ours == theirs {
		return "same"
	}
	var x float64
	if lowerIsBetter {
		if ours <= 0 {
			return "better"
		}
		x = theirs / ours
	} else {
		if theirs <= 0 {
			return "better"
		}
		x = ours / theirs
	}
	if x >= 1 {
		return fmt.Sprintf("%.1f× better", x)
	}
	return fmt.Sprintf("%.1f× worse", 1/x)
}
