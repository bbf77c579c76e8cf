package console

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Activity is one logged event of a session, as the live view gets it.
type Activity struct {
	// Replica is the replica that ran it: "" for this one; for another one its name, or
	// "?" when no snapshot of the other replicas names the session.
	Replica   string          `json:"replica,omitempty"`
	Origin    string          `json:"origin"`
	Site      string          `json:"site"`
	SessionID string          `json:"sessionId"`
	Event     json.RawMessage `json:"event"`
}

// Feed fans the service's events out to the live views, and counts tool calls per tool in
// metrics served on /metrics (byomcp_tool_calls_by_tool_total, byomcp_tool_call_by_tool_seconds).
// Publish never blocks: a view that does not keep up loses events (it is told).
//
// Lock order: mu is a leaf.
type Feed struct {
	siteOf func(string) string

	calls   *prometheus.CounterVec
	latency *prometheus.HistogramVec
	reg     *prometheus.Registry

	mu      sync.Mutex
	subs    map[chan Activity]struct{}
	started map[string]time.Time // session + callId → tool_call time
	labels  map[[2]string]bool   // (site, tool) pairs counted; bounded
	seqs    map[string]int64     // session → last seq published here (trackSeqs); nil: not tracked
}

// maxSeqs bounds the sessions whose last local seq is remembered.
const maxSeqs = 100_000

// maxToolLabels bounds the distinct (site, tool) label pairs (page tool names are chosen by
// pages); later ones are counted as tool "other".
const maxToolLabels = 256

// NewFeed returns a Feed; siteOf names the site of an origin (nil: none).
func NewFeed(siteOf func(origin string) string) *Feed {
	if siteOf == nil {
		siteOf = func(string) string { return "" }
	}
	f := &Feed{
		siteOf: siteOf,
		calls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "byomcp_tool_calls_by_tool_total", Help: "Tool calls ended, by site, tool and outcome (ok, error).",
		}, []string{"site", "tool", "outcome"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "byomcp_tool_call_by_tool_seconds", Help: "Tool call latency by site and tool, from the tool_call event to the tool_result event.",
			Buckets: []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 120},
		}, []string{"site", "tool"}),
		reg:     prometheus.NewRegistry(),
		subs:    map[chan Activity]struct{}{},
		started: map[string]time.Time{},
		labels:  map[[2]string]bool{},
	}
	f.reg.MustRegister(f.calls, f.latency)
	return f
}

// Gatherer serves the per-tool metrics.
func (f *Feed) Gatherer() prometheus.Gatherer { return f.reg }

// trackSeqs makes Publish remember each session's last seq, so that PublishRemote drops the
// events of this replica that come back from the other replicas' channel.
func (f *Feed) trackSeqs() {
	f.mu.Lock()
	if f.seqs == nil {
		f.seqs = map[string]int64{}
	}
	f.mu.Unlock()
}

// watched reports whether a live view is open.
func (f *Feed) watched() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.subs) > 0
}

// seqOf reads an event's seq (0 when it has none).
func seqOf(data json.RawMessage) int64 {
	var ev struct {
		Seq int64 `json:"seq"`
	}
	_ = json.Unmarshal(data, &ev)
	return ev.Seq
}

// PublishRemote takes one event that another replica logged (replica: its name, "" when
// unknown): the live views get it, marked with the replica; an event this process published
// already (same session, a seq not after the last one here) is dropped. It does not block
// and counts nothing (each replica counts its own events in its metrics).
func (f *Feed) PublishRemote(replica, origin, sessionID string, data json.RawMessage) {
	if replica == "" {
		replica = "?"
	}
	f.mu.Lock()
	tracked := f.seqs != nil
	n := len(f.subs)
	f.mu.Unlock()
	if tracked {
		seq := seqOf(data)
		f.mu.Lock()
		last, mine := f.seqs[sessionID]
		f.mu.Unlock()
		if mine && seq != 0 && seq <= last {
			return
		}
	}
	if n == 0 {
		return
	}
	f.fanOut(Activity{Replica: replica, Origin: origin, Site: f.siteOf(origin), SessionID: sessionID, Event: data})
}

func (f *Feed) fanOut(a Activity) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for ch := range f.subs {
		select {
		case ch <- a:
		default: // a slow view misses it; the channel's cap tells it nothing more
		}
	}
}

// Publish takes one logged event (agentsvc.Config.OnEvent). It does not block.
func (f *Feed) Publish(origin, sessionID string, data json.RawMessage) {
	toolEvent := bytes.Contains(data, []byte(`"type":"tool_`))
	f.mu.Lock()
	tracked := f.seqs != nil
	f.mu.Unlock()
	if tracked {
		if seq := seqOf(data); seq != 0 {
			f.mu.Lock()
			if len(f.seqs) >= maxSeqs {
				clear(f.seqs)
			}
			f.seqs[sessionID] = max(f.seqs[sessionID], seq)
			f.mu.Unlock()
		}
	}
	f.mu.Lock()
	n := len(f.subs)
	f.mu.Unlock()
	if n == 0 && !toolEvent {
		return
	}
	site := f.siteOf(origin)
	if toolEvent {
		f.countTool(site, sessionID, data)
	}
	if n == 0 {
		return
	}
	f.fanOut(Activity{Origin: origin, Site: site, SessionID: sessionID, Event: data})
}

func (f *Feed) countTool(site, sessionID string, data json.RawMessage) {
	var ev struct {
		Type    string `json:"type"`
		CallID  string `json:"callId"`
		Name    string `json:"name"`
		IsError bool   `json:"isError"`
		Time    int64  `json:"time"`
	}
	if json.Unmarshal(data, &ev) != nil {
		return
	}
	at := time.UnixMilli(ev.Time)
	if ev.Time == 0 {
		at = time.Now()
	}
	key := sessionID + "\x00" + ev.CallID
	f.mu.Lock()
	defer f.mu.Unlock()
	switch ev.Type {
	case "tool_call":
		if len(f.started) >= 10000 { // calls whose result never came (a crash): forget them
			clear(f.started)
		}
		f.started[key] = at
	case "tool_result":
		tool := ev.Name
		pair := [2]string{site, tool}
		if !f.labels[pair] {
			if len(f.labels) >= maxToolLabels {
				tool = "other"
			} else {
				f.labels[pair] = true
			}
		}
		outcome := "ok"
		if ev.IsError {
			outcome = "error"
		}
		f.calls.WithLabelValues(site, tool, outcome).Inc()
		if start, ok := f.started[key]; ok {
			delete(f.started, key)
			f.latency.WithLabelValues(site, tool).Observe(max(0, at.Sub(start).Seconds()))
		}
	}
}

func (f *Feed) subscribe() (<-chan Activity, func()) {
	ch := make(chan Activity, 256)
	f.mu.Lock()
	f.subs[ch] = struct{}{}
	f.mu.Unlock()
	return ch, func() {
		f.mu.Lock()
		delete(f.subs, ch)
		f.mu.Unlock()
	}
}

// live streams the feed as Server-Sent Events: "activity" events with an Activity, and a
// comment every 15 s so proxies keep the stream open.
func (h *Handler) live(w http.ResponseWriter, r *http.Request) {
	fl, ok := w.(http.Flusher)
	if !ok {
		writeError(w, http.StatusInternalServerError, "streaming unsupported")
		return
	}
	ch, cancel := h.o.Feed.subscribe()
	defer cancel()
	hd := w.Header()
	hd.Set("Content-Type", "text/event-stream")
	hd.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	_, _ = fmt.Fprint(w, ": byomcp console live\n\n")
	fl.Flush()
	tick := time.NewTicker(15 * time.Second)
	defer tick.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-tick.C:
			_, _ = fmt.Fprint(w, ": keep-alive\n\n")
		case a := <-ch:
			b, err := json.Marshal(a)
			if err != nil {
				continue
			}
			if _, err := fmt.Fprintf(w, "event: activity\ndata: %s\n\n", b); err != nil {
				return
			}
		}
		fl.Flush()
	}
}
