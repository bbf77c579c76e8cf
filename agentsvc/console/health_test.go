package console

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/byomcp/byomcp/agentsvc/store"
	"github.com/byomcp/byomcp/agentsvc/store/storetest"
)

// healthReplica is one replica of the health tests: its handler on a real Redis, its own
// registry of the counters the charts read, on a shared fake clock.
type healthReplica struct {
	h       *Handler
	f       *fixture
	turns   *prometheus.CounterVec
	tokens  *prometheus.CounterVec
	sockets prometheus.Gauge
	tools   *prometheus.CounterVec
	pub     bool
	ann     bool
}

func newHealthReplica(t *testing.T, url, name string, clk *clock, tabs []Tab) *healthReplica {
	t.Helper()
	st, err := store.OpenRedis(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	reg := prometheus.NewRegistry()
	r := &healthReplica{
		turns:   prometheus.NewCounterVec(prometheus.CounterOpts{Name: "byomcp_turns_total"}, []string{"stop_reason"}),
		tokens:  prometheus.NewCounterVec(prometheus.CounterOpts{Name: "byomcp_site_model_tokens_total"}, []string{"site"}),
		sockets: prometheus.NewGauge(prometheus.GaugeOpts{Name: "byomcp_open_sockets"}),
		tools:   prometheus.NewCounterVec(prometheus.CounterOpts{Name: "byomcp_tool_calls_by_tool_total"}, []string{"site", "tool", "outcome"}),
	}
	reg.MustRegister(r.turns, r.tokens, r.sockets, r.tools)
	feed := NewFeed(nil)
	h, err := New(Options{Token: token, Store: st, Feed: feed, Gatherer: reg, Now: clk.now,
		Tabs: func() []Tab { return append([]Tab(nil), tabs...) }, Cluster: store.SharedOf(st), Replica: name})
	if err != nil {
		t.Fatal(err)
	}
	r.h, r.f = h, &fixture{h: h}
	return r
}

func (r *healthReplica) round(t *testing.T) {
	r.pub, r.ann = r.h.presenceRound(t.Context(), r.pub, r.ann)
	if !r.pub {
		t.Fatalf("%s did not publish its presence", r.h.o.Replica)
	}
}

func (r *healthReplica) health(t *testing.T, cookie *http.Cookie) Health {
	t.Helper()
	rec := r.f.do("GET", "/console/api/metrics", "", nil, cookie)
	if rec.Code != 200 {
		t.Fatalf("metrics on %s: %d %s", r.h.o.Replica, rec.Code, rec.Body)
	}
	var x Health
	if err := json.Unmarshal(rec.Body.Bytes(), &x); err != nil {
		t.Fatal(err)
	}
	return x
}

// TestHealthClusterWide: behind a balancer that alternates between replicas, each one's
// /console/api/metrics answers the same cluster-wide counters: every replica's own (as its
// presence said) and their sums; a replica whose presence is late is marked.
func TestHealthClusterWide(t *testing.T) {
	url := storetest.RedisServer(t)
	clk := &clock{t: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)}
	a := newHealthReplica(t, url, "replica-a", clk, nil)
	b := newHealthReplica(t, url, "replica-b", clk, nil)
	a.turns.WithLabelValues("end").Add(3)
	a.tokens.WithLabelValues("shop").Add(1000)
	a.sockets.Set(2)
	a.tools.WithLabelValues("shop", "filter_cars", "ok").Add(4)
	b.turns.WithLabelValues("end").Add(5)
	b.turns.WithLabelValues("error").Add(1)
	b.tokens.WithLabelValues("shop").Add(500)
	b.sockets.Set(1)
	b.tools.WithLabelValues("shop", "filter_cars", "error").Add(2)

	cookie := a.f.signIn(t)
	a.health(t, cookie) // a console opens (on A): both replicas publish their presence
	a.round(t)
	b.round(t)
	a.turns.WithLabelValues("end").Add(1) // A's own counters are read now; B has A's presence's
	for _, r := range []*healthReplica{a, b} {
		x := r.health(t, cookie)
		wantEnd := map[*healthReplica]float64{a: 9, b: 8}[r]
		if x.Turns["end"] != wantEnd || x.Turns["error"] != 1 || x.TokensBySite["shop"] != 1500 || x.Sockets != 3 {
			t.Errorf("on %s: turns %v, tokens %v, sockets %v; want end %v, error 1, shop 1500, 3 sockets", r.h.o.Replica, x.Turns, x.TokensBySite, x.Sockets, wantEnd)
		}
		if len(x.Tools) != 1 || x.Tools[0].OK != 4 || x.Tools[0].Errors != 2 {
			t.Errorf("on %s: tools %+v, want filter_cars 4 ok 2 errors", r.h.o.Replica, x.Tools)
		}
		if len(x.Replicas) != 2 || x.Replicas[0].Replica != "replica-a" || x.Replicas[1].Replica != "replica-b" {
			t.Fatalf("on %s: replicas %+v, want replica-a and replica-b", r.h.o.Replica, x.Replicas)
		}
		if x.Replicas[1].Turns["end"] != 5 || x.Replicas[1].Sockets != 1 || x.Replicas[1].Late || x.Replicas[0].Late {
			t.Errorf("on %s: replica-b %+v", r.h.o.Replica, x.Replicas[1])
		}
		if r == a && x.Replicas[0].Turns["end"] != 4 {
			t.Errorf("A's own turns on A: %v, want 4 (read now)", x.Replicas[0].Turns)
		}
	}

	// B stops renewing its presence: once it is late, A marks it.
	clk.add(presenceLate - time.Second)
	a.round(t)
	if x := a.health(t, cookie); x.Replicas[1].Late {
		t.Errorf("B marked late %v after its presence", presenceLate-time.Second)
	}
	clk.add(2 * time.Second)
	if x := a.health(t, cookie); !x.Replicas[1].Late || x.Replicas[0].Late || x.Replicas[1].Turns["end"] != 5 {
		t.Errorf("after %v: replicas %+v, want replica-b late with its last counters", presenceLate+time.Second, x.Replicas)
	}
}

// TestHealthWithoutCluster: with no shared store the health is this replica's, as one
// replica.
func TestHealthWithoutCluster(t *testing.T) {
	f := newFixture(t)
	f.feed.Publish("https://shop.example", "s", json.RawMessage(`{"turnId":"t","type":"tool_result","callId":"c","name":"filter_cars"}`))
	rec := f.do("GET", "/console/api/metrics", "", nil, f.signIn(t))
	var x Health
	if err := json.Unmarshal(rec.Body.Bytes(), &x); err != nil {
		t.Fatal(err)
	}
	if len(x.Replicas) != 1 || x.Replicas[0].Replica != "" || len(x.Tools) != 1 || len(x.Replicas[0].Tools) != 1 {
		t.Errorf("health without a cluster: %s", rec.Body)
	}
	if rec.Header().Get("X-Byomcp-Cluster") != "" {
		t.Errorf("X-Byomcp-Cluster %q without a cluster", rec.Header().Get("X-Byomcp-Cluster"))
	}
}

// TestHealthPublishedBounded: what a replica publishes of its health is bounded whatever
// the labels: the most called tools, the first sites, names clipped.
func TestHealthPublishedBounded(t *testing.T) {
	long := strings.Repeat("n", 4096)
	x := Health{Turns: map[string]float64{}, Refused: map[string]float64{}, Tokens: map[string]float64{}, TokensBySite: map[string]float64{}, ModelBySite: map[string]ModelHealth{}}
	for i := range 2000 {
		name := fmt.Sprintf("%s%06d", long, i)
		x.Turns[name] = 1e15
		x.Refused[name] = 1e15
		x.Tokens[name] = 1e15
		x.TokensBySite[name] = 1e15
		x.ModelBySite[name] = ModelHealth{Calls: 1e15, Seconds: 1e15}
		x.Tools = append(x.Tools, ToolHealth{Site: name, Tool: name, OK: float64(i), Errors: 1e15, Timed: 1e15, Seconds: 1e15})
	}
	b := x.bounded()
	if len(b.Tools) != maxHealthTools || len(b.TokensBySite) > maxHealthSites || len(b.ModelBySite) > maxHealthSites || len(b.Turns) > maxHealthKeys {
		t.Fatalf("bounded: %d tools, %d sites, %d stop reasons", len(b.Tools), len(b.TokensBySite), len(b.Turns))
	}
	for _, tool := range b.Tools {
		if tool.OK < float64(2000-maxHealthTools) {
			t.Fatalf("a tool of %v calls kept over busier ones", tool.OK)
		}
		if len(tool.Tool) > maxNameShown+len("…") {
			t.Fatalf("a tool name of %d bytes", len(tool.Tool))
		}
	}
	data, _ := json.Marshal(b)
	t.Logf("the largest health a presence holds: %d bytes", len(data))
	if len(data) > 256<<10 {
		t.Errorf("the bounded health is %d bytes, want under 256 KiB", len(data))
	}
}

// TestLateReplicaTabsMarked: the tabs of a replica whose presence is late (not renewed
// within presenceLate: killed, stopped, cut off) are listed marked ReplicaLate until its
// presence expires; a renewed presence clears the mark.
func TestLateReplicaTabsMarked(t *testing.T) {
	url := storetest.RedisServer(t)
	clk := &clock{t: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)}
	a := newHealthReplica(t, url, "replica-a", clk, nil)
	b := newHealthReplica(t, url, "replica-b", clk, []Tab{{ConnID: "c1", Origin: "https://shop.example", SessionID: "s1"}})
	cookie := a.f.signIn(t)
	tabs := func() []TabView {
		t.Helper()
		rec := a.f.do("GET", "/console/api/tabs", "", nil, cookie)
		var v []TabView
		if err := json.Unmarshal(rec.Body.Bytes(), &v); err != nil || len(v) != 1 || v[0].Replica != "replica-b" {
			t.Fatalf("A's tabs: %s (%v), want B's one", rec.Body, err)
		}
		return v
	}
	a.f.do("GET", "/console/api/tabs", "", nil, cookie) // a console opens
	a.round(t)
	b.round(t)
	if v := tabs(); v[0].ReplicaLate {
		t.Errorf("B's tab marked late at once: %+v", v[0])
	}
	clk.add(presenceLate)
	if v := tabs(); v[0].ReplicaLate {
		t.Errorf("B's tab marked late %v after its presence, want only past it", presenceLate)
	}
	clk.add(time.Second)
	if v := tabs(); !v[0].ReplicaLate {
		t.Errorf("B's tab not marked %v after its presence: %+v", presenceLate+time.Second, v[0])
	}
	b.round(t) // B renews it: no mark
	if v := tabs(); v[0].ReplicaLate {
		t.Errorf("B's tab still marked after B renewed its presence: %+v", v[0])
	}
	if presenceLate >= presenceTTL || presenceLate <= presenceEvery {
		t.Errorf("presenceLate %v must be between the renewal %v and the expiry %v", presenceLate, presenceEvery, presenceTTL)
	}
}
