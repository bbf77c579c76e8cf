package loadgen

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Latency summarizes durations, in milliseconds.
type Latency struct {
	Count int     `json:"count"`
	P50   float64 `json:"p50_ms"`
	P90   float64 `json:"p90_ms"`
	P99   float64 `json:"p99_ms"`
	Max   float64 `json:"max_ms"`
}

// summarize returns the percentiles of ds (nearest rank); ds is sorted in place.
func summarize(ds []time.Duration) Latency {
	if len(ds) == 0 {
		return Latency{}
	}
	slices.Sort(ds)
	rank := func(q float64) float64 {
		i := int(math.Ceil(q*float64(len(ds)))) - 1
		return ms(ds[max(0, min(i, len(ds)-1))])
	}
	return Latency{Count: len(ds), P50: rank(.50), P90: rank(.90), P99: rank(.99), Max: ms(ds[len(ds)-1])}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// Metrics are samples of a Prometheus text exposition, by series as printed, e.g.
// `byomcp_tool_call_seconds_bucket{kind="page",le="0.001"}`.
type Metrics map[string]float64

// parseMetrics reads the Prometheus text format (version 0.0.4).
func parseMetrics(r io.Reader) (Metrics, error) {
	m := Metrics{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' {
			continue
		}
		// name{labels} value [timestamp]; label values may hold spaces, so split after '}'.
		key, rest := line, ""
		if i := strings.LastIndexByte(line, '}'); i >= 0 {
			key, rest = line[:i+1], strings.TrimSpace(line[i+1:])
		} else if i := strings.IndexByte(line, ' '); i >= 0 {
			key, rest = line[:i], strings.TrimSpace(line[i+1:])
		}
		fields := strings.Fields(rest)
		if len(fields) == 0 {
			return nil, fmt.Errorf("loadgen: metrics line %q has no value", line)
		}
		v, err := strconv.ParseFloat(fields[0], 64)
		if err != nil {
			return nil, fmt.Errorf("loadgen: metrics line %q: %w", line, err)
		}
		m[key] = v
	}
	return m, sc.Err()
}

// Histogram is a cumulative Prometheus histogram: Counts[i] observations ≤ Bounds[i]; the
// last bound is +Inf.
type Histogram struct {
	Bounds []float64 `json:"bounds"`
	Counts []float64 `json:"counts"`
}

// histogram extracts the histogram name{labels…} (labels given as `kind="page"`, or "").
func (m Metrics) histogram(name, labels string) Histogram {
	prefix := name + "_bucket{"
	if labels != "" {
		prefix += labels + ","
	}
	var h Histogram
	type bucket struct{ le, n float64 }
	var bs []bucket
	for k, v := range m {
		rest, ok := strings.CutPrefix(k, prefix)
		if !ok {
			continue
		}
		le, ok := strings.CutPrefix(rest, `le="`)
		if !ok {
			continue
		}
		le = strings.TrimSuffix(le, `"}`)
		bound, err := strconv.ParseFloat(le, 64) // "+Inf" parses as +Inf
		if err != nil {
			continue
		}
		bs = append(bs, bucket{bound, v})
	}
	slices.SortFunc(bs, func(a, b bucket) int {
		switch {
		case a.le < b.le:
			return -1
		case a.le > b.le:
			return 1
		}
		return 0
	})
	for _, b := range bs {
		h.Bounds = append(h.Bounds, b.le)
		h.Counts = append(h.Counts, b.n)
	}
	return h
}

// Sub returns the observations of h made after before (same buckets).
func (h Histogram) Sub(before Histogram) Histogram {
	out := Histogram{Bounds: h.Bounds, Counts: slices.Clone(h.Counts)}
	if len(before.Counts) == len(h.Counts) {
		for i := range out.Counts {
			out.Counts[i] -= before.Counts[i]
		}
	}
	return out
}

// MarshalJSON writes the bounds as Prometheus prints them ("+Inf" included) and the counts.
func (h Histogram) MarshalJSON() ([]byte, error) {
	le := make([]string, len(h.Bounds))
	for i, b := range h.Bounds {
		le[i] = strconv.FormatFloat(b, 'g', -1, 64) // +Inf prints as "+Inf"
	}
	return json.Marshal(struct {
		LE     []string  `json:"le"`
		Counts []float64 `json:"counts"`
	}{le, h.Counts})
}

// Millis is a number of milliseconds; in JSON, a value that is not finite (an unknown
// quantile, a maximum above every bucket) is null.
type Millis float64

// MarshalJSON writes null for NaN and ±Inf.
func (m Millis) MarshalJSON() ([]byte, error) {
	f := float64(m)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return []byte("null"), nil
	}
	return json.Marshal(f)
}

// Total is the number of observations.
func (h Histogram) Total() float64 {
	if len(h.Counts) == 0 {
		return 0
	}
	return h.Counts[len(h.Counts)-1]
}

// Quantile estimates the q-quantile the way Prometheus's histogram_quantile does: linear
// interpolation inside the bucket that holds it (from 0 for the first bucket). A quantile
// in the +Inf bucket returns the last finite bound.
func (h Histogram) Quantile(q float64) float64 {
	total := h.Total()
	if total == 0 {
		return math.NaN()
	}
	rank := q * total
	lower, below := 0.0, 0.0
	for i, b := range h.Bounds {
		if h.Counts[i] >= rank {
			if math.IsInf(b, 1) {
				return lower
			}
			in := h.Counts[i] - below
			if in == 0 {
				return b
			}
			return lower + (b-lower)*(rank-below)/in
		}
		lower, below = b, h.Counts[i]
	}
	return lower
}

// Fraction is the share of observations ≤ bound, exact when bound is a bucket bound (else
// the share under the largest bucket bound ≤ bound).
func (h Histogram) Fraction(bound float64) float64 {
	total := h.Total()
	if total == 0 {
		return math.NaN()
	}
	n := 0.0
	for i, b := range h.Bounds {
		if b <= bound {
			n = h.Counts[i]
		}
	}
	return n / total
}

// MaxBound is the upper bound of the highest bucket holding an observation (the maximum is
// at most that); +Inf when observations exceed every finite bound.
func (h Histogram) MaxBound() float64 {
	for i := range h.Bounds {
		if h.Counts[i] == h.Total() {
			return h.Bounds[i]
		}
	}
	return math.NaN()
}
