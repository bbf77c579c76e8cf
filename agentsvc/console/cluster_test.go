package console

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/byomcp/byomcp/agentsvc/store"
	"github.com/byomcp/byomcp/agentsvc/store/storetest"
)

// replica is one console of a cluster test: its handler, feed and HTTP server.
type replica struct {
	h      *Handler
	feed   *Feed
	srv    *httptest.Server
	cookie *http.Cookie
	stop   context.CancelFunc
	done   chan struct{}
}

func startReplica(t *testing.T, url, name string, tabs []Tab) *replica {
	t.Helper()
	st, err := store.OpenRedis(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	feed := NewFeed(func(o string) string { return map[string]string{"https://shop.example": "shop"}[o] })
	h, err := New(Options{Token: token, Store: st, Feed: feed, Gatherer: feed.Gatherer(),
		Tabs: func() []Tab { return append([]Tab(nil), tabs...) }, SiteOf: feed.siteOf,
		Cluster: store.SharedOf(st), Replica: name})
	if err != nil {
		t.Fatal(err)
	}
	r := &replica{h: h, feed: feed, srv: httptest.NewServer(h), done: make(chan struct{})}
	t.Cleanup(r.srv.Close)
	ctx, cancel := context.WithCancel(context.Background())
	r.stop = func() { cancel(); <-r.done }
	t.Cleanup(r.stop)
	go func() { defer close(r.done); h.Run(ctx) }()
	req, _ := http.NewRequest("POST", r.srv.URL+"/console/api/signin", strings.NewReader(`{"token":"`+token+`"}`))
	req.Header.Set(csrfHeader, "1")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	for _, c := range resp.Cookies() {
		if c.Name == cookieName {
			r.cookie = c
		}
	}
	return r
}

func (r *replica) get(t *testing.T, path string, v any) {
	t.Helper()
	req, _ := http.NewRequest("GET", r.srv.URL+path, nil)
	req.AddCookie(r.cookie)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatal(err)
	}
}

// waitTabs polls r's tabs until cond holds on them (the replicas publish their presence
// when they start; the poll ends at the test's deadline otherwise).
func (r *replica) waitTabs(t *testing.T, what string, cond func(map[string][]TabView) bool) map[string][]TabView {
	t.Helper()
	for {
		var tabs []TabView
		r.get(t, "/console/api/tabs", &tabs)
		by := map[string][]TabView{}
		for _, tab := range tabs {
			by[tab.Replica] = append(by[tab.Replica], tab)
		}
		if cond(by) {
			return by
		}
		select {
		case <-t.Context().Done():
			t.Fatalf("never saw %s; last tabs %+v", what, by)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// live opens r's live stream and returns a function that reads its next activity.
func (r *replica) live(t *testing.T) func() Activity {
	t.Helper()
	req, _ := http.NewRequestWithContext(t.Context(), "GET", r.srv.URL+"/console/api/live", nil)
	req.AddCookie(r.cookie)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	br := bufio.NewReader(resp.Body)
	if line, _ := br.ReadString('\n'); !strings.HasPrefix(line, ":") {
		t.Fatalf("first line %q", line)
	}
	return func() Activity {
		t.Helper()
		for {
			line, err := br.ReadString('\n')
			if err != nil {
				t.Fatalf("live stream ended: %v", err)
			}
			if data, ok := strings.CutPrefix(strings.TrimSpace(line), "data: "); ok {
				var a Activity
				if err := json.Unmarshal([]byte(data), &a); err != nil {
					t.Fatal(err)
				}
				return a
			}
		}
	}
}

// TestClusterConsole: two replicas' consoles on one real redis-server. Each lists the tabs of
// both, marked with their replica (tool names; a definition comes from its replica when it
// is asked for); the events appended on one
// replica, as the store publishes them on ev:<sessionId>, stream live on the other's console
// marked with that replica, and a replica's own events are not shown twice; a stopped replica's
// tabs leave the others' lists. (The store's Append publishes the events once issue 14's bus
// is in; here the test publishes them itself, in that format: {"origin", "events"}.)
func TestClusterConsole(t *testing.T) {
	url := storetest.RedisServer(t)
	schema := json.RawMessage(`{"type":"object","properties":{"make":{"type":"string"}}}`)
	a := startReplica(t, url, "replica-a", []Tab{{ConnID: "c1", Origin: "https://shop.example", SessionID: "sessA", URL: "https://shop.example/cars", Title: "Cars",
		Since: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC), Tools: []Tool{{Name: "filter_cars", InputSchema: schema}}}})
	b := startReplica(t, url, "replica-b", []Tab{{ConnID: "c2", Origin: "https://shop.example", SessionID: "sessB", URL: "https://shop.example/", Title: "Home"}})

	both := func(by map[string][]TabView) bool { return len(by["replica-a"]) == 1 && len(by["replica-b"]) == 1 }
	byB := b.waitTabs(t, "both replicas' tabs on B", both)
	a.waitTabs(t, "both replicas' tabs on A", both)
	got := byB["replica-a"][0]
	if got.SessionID != "sessA" || got.Site != "shop" || got.Title != "Cars" || got.ToolCount != 1 || len(got.Tools) != 1 || got.Tools[0].Name != "filter_cars" {
		t.Fatalf("A's tab on B: %+v", got)
	}
	var def Tool
	b.get(t, "/console/api/tools/"+got.Tools[0].Ref, &def)
	if def.Name != "filter_cars" || string(def.InputSchema) != string(schema) {
		t.Errorf("A's tool, read on B: %+v, want filter_cars with its schema", def)
	}

	nextA, nextB := a.live(t), b.live(t)
	ev1 := json.RawMessage(`{"seq":1,"turnId":"t1","type":"turn_start","text":"red cars?"}`)
	ev2 := json.RawMessage(`{"seq":2,"turnId":"t1","type":"tool_call","callId":"c1","name":"filter_cars","arguments":{"make":"Kia"}}`)
	a.feed.Publish("https://shop.example", "sessA", ev1) // A logs its events (OnEvent) …
	a.feed.Publish("https://shop.example", "sessA", ev2)
	shared := store.SharedOf(a.h.o.Store)
	msg, _ := json.Marshal(map[string]any{"origin": "https://shop.example", "events": []json.RawMessage{ev1, ev2}})
	if err := shared.Publish(t.Context(), "ev:sessA", msg); err != nil { // … and appends them
		t.Fatal(err)
	}
	for _, want := range []int64{1, 2} {
		act := nextB()
		if act.Replica != "replica-a" || act.SessionID != "sessA" || act.Site != "shop" || seqOf(act.Event) != want {
			t.Errorf("B's live view: got %+v (seq %d), want sessA's event %d from replica-a", act, seqOf(act.Event), want)
		}
	}
	// A saw its two events once, from its own log; the next thing it sees is B's event.
	evB := json.RawMessage(`{"seq":1,"turnId":"t9","type":"turn_start","text":"hello"}`)
	msg, _ = json.Marshal(map[string]any{"origin": "https://shop.example", "replica": "replica-b", "events": []json.RawMessage{evB}})
	if err := shared.Publish(t.Context(), "ev:sessB", msg); err != nil {
		t.Fatal(err)
	}
	for i, want := range []struct {
		replica, session string
		seq              int64
	}{{"", "sessA", 1}, {"", "sessA", 2}, {"replica-b", "sessB", 1}} {
		act := nextA()
		if act.Replica != want.replica || act.SessionID != want.session || seqOf(act.Event) != want.seq {
			t.Errorf("A's live view, activity %d: got %+v, want %+v", i, act, want)
		}
	}

	// The store's copy of A's own event can come back before A's log has it: it names A (the
	// claim holder), so A drops it instead of showing it twice, once marked "?".
	ev3 := json.RawMessage(`{"seq":3,"turnId":"t1","type":"text_delta","delta":"Two Kias."}`)
	msg, _ = json.Marshal(map[string]any{"origin": "https://shop.example", "replica": "replica-a", "events": []json.RawMessage{ev3}})
	if err := shared.Publish(t.Context(), "ev:sessA", msg); err != nil {
		t.Fatal(err)
	}
	if act := nextB(); act.Replica != "replica-a" || seqOf(act.Event) != 3 { // the bus has delivered it
		t.Errorf("B's live view: got %+v, want sessA's event 3 from replica-a", act)
	}
	a.feed.Publish("https://shop.example", "sessA", ev3)
	evB2 := json.RawMessage(`{"seq":2,"turnId":"t9","type":"turn_end","stopReason":"end","text":"hi"}`)
	msg, _ = json.Marshal(map[string]any{"origin": "https://shop.example", "replica": "replica-b", "events": []json.RawMessage{evB2}})
	if err := shared.Publish(t.Context(), "ev:sessB", msg); err != nil {
		t.Fatal(err)
	}
	for i, want := range []struct {
		replica, session string
		seq              int64
	}{{"", "sessA", 3}, {"replica-b", "sessB", 2}} {
		if act := nextA(); act.Replica != want.replica || act.SessionID != want.session || seqOf(act.Event) != want.seq {
			t.Errorf("A's live view after its own event came back first, activity %d: got %+v, want %+v", i, act, want)
		}
	}

	a.stop()
	b.waitTabs(t, "A's tabs gone from B once A stopped", func(by map[string][]TabView) bool { return len(by["replica-a"]) == 0 && len(by["replica-b"]) == 1 })
}

// TestPresenceSnapshotBounded: a presence holds no tool definition (names and references
// only), each list of names once, at most maxPresenceTabs tabs (the most recent) and
// maxPresenceSets lists, and says how many tabs there are.
func TestPresenceSnapshotBounded(t *testing.T) {
	h := &Handler{o: Options{Replica: "r1"}}
	schema := json.RawMessage(`{"type":"object","description":"` + strings.Repeat("x", 4096) + `"}`)
	var tabs []Tab
	start := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	for i := range maxPresenceTabs + 5 {
		name := "filter_cars"
		if i >= maxPresenceTabs-maxPresenceSets { // the most recent tabs each have a tool of their own
			name = fmt.Sprintf("tool_%d", i)
		}
		tabs = append(tabs, Tab{ConnID: fmt.Sprint(i), Since: start.Add(time.Duration(i) * time.Second), Tools: []Tool{{Name: name, InputSchema: schema}}})
	}
	s := h.makeSnapshot(start, tabs)
	if len(s.Tabs) != maxPresenceTabs || s.Total != maxPresenceTabs+5 || len(s.Sets) != maxPresenceSets {
		t.Fatalf("snapshot of %d tabs: %d tabs, total %d, %d lists of tools; want %d, %d, %d", len(tabs), len(s.Tabs), s.Total, len(s.Sets), maxPresenceTabs, maxPresenceTabs+5, maxPresenceSets)
	}
	data, _ := json.Marshal(s)
	if strings.Contains(string(data), "xxxx") {
		t.Errorf("the presence holds a tool's schema")
	}
	if len(data) > 1<<20 {
		t.Errorf("the presence of %d tabs is %d bytes, want under 1 MiB", maxPresenceTabs, len(data))
	}
	for _, st := range s.Tabs {
		if st.Since.Before(start.Add(5 * time.Second)) {
			t.Fatalf("an oldest tab (%v) kept over a newer one", st.Since)
		}
	}
	// 200 tabs with 250 KiB tools (issue 36: a 50 MiB presence every 5 s).
	big, _ := json.Marshal(h.makeSnapshot(start, bigTabs(200, 250<<10)))
	t.Logf("presence of 200 tabs with 250 KiB tools: %d bytes", len(big))
	if len(big) > 128<<10 {
		t.Errorf("presence of 200 tabs with 250 KiB tools: %d bytes, want under 128 KiB", len(big))
	}
	var back snapshot
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	listed, unlisted := 0, 0
	for _, tab := range back.tabs() {
		if tab.Replica != "r1" || tab.ToolCount != 1 {
			t.Fatalf("read back: %+v", tab)
		}
		if len(tab.Tools) == 1 && tab.Tools[0].Ref == hashTool(Tool{Name: tab.Tools[0].Name, InputSchema: schema}) {
			listed++
		} else {
			unlisted++
		}
	}
	if unlisted == 0 || listed < maxPresenceTabs/2 {
		t.Errorf("tabs with their tools listed: %d, without: %d; want most listed and those past %d lists not", listed, unlisted, maxPresenceSets)
	}
}

// TestHealthPerSite: the model latency and tokens per site of /metrics reach the charts'
// samples (byomcp_site_model_call_seconds, byomcp_site_model_tokens_total).
func TestHealthPerSite(t *testing.T) {
	f := newFixture(t)
	reg := prometheus.NewRegistry()
	lat := prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "byomcp_site_model_call_seconds"}, []string{"site"})
	tok := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "byomcp_site_model_tokens_total"}, []string{"site"})
	reg.MustRegister(lat, tok)
	lat.WithLabelValues("shop").Observe(0.5)
	lat.WithLabelValues("shop").Observe(1.5)
	lat.WithLabelValues("docs").Observe(0.25)
	tok.WithLabelValues("shop").Add(1200)
	f.h.o.Gatherer = reg
	var h Health
	rec := f.do("GET", "/console/api/metrics", "", nil, f.signIn(t))
	if err := json.Unmarshal(rec.Body.Bytes(), &h); err != nil {
		t.Fatal(err)
	}
	if got := h.ModelBySite["shop"]; got.Calls != 2 || got.Seconds != 2 {
		t.Errorf("shop: %+v, want 2 calls, 2 s", got)
	}
	if got := h.ModelBySite["docs"]; got.Calls != 1 || got.Seconds != 0.25 {
		t.Errorf("docs: %+v, want 1 call, 0.25 s", got)
	}
	if h.TokensBySite["shop"] != 1200 {
		t.Errorf("tokens by site %v, want shop 1200", h.TokensBySite)
	}
}

// TestSignOutRevokedOnEveryReplica: with a Redis store, a cookie signed in on one replica is
// accepted by another (same token), and a sign-out on either is refused by both from then on.
func TestSignOutRevokedOnEveryReplica(t *testing.T) {
	url := storetest.RedisServer(t)
	a := startReplica(t, url, "replica-a", nil)
	b := startReplica(t, url, "replica-b", nil)
	status := func(r *replica, method, path string) int {
		t.Helper()
		req, _ := http.NewRequest(method, r.srv.URL+path, nil)
		req.Header.Set(csrfHeader, "1")
		req.AddCookie(a.cookie)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if got := status(b, "GET", "/console/api/me"); got != 200 {
		t.Fatalf("A's cookie on B: got %d, want 200", got)
	}
	if got := status(a, "POST", "/console/api/signout"); got != 200 {
		t.Fatalf("sign-out on A: got %d", got)
	}
	for _, r := range []*replica{a, b} {
		if got := status(r, "GET", "/console/api/me"); got != http.StatusUnauthorized {
			t.Errorf("the signed-out cookie on %s: got %d, want 401", r.h.o.Replica, got)
		}
	}
}

// TestPresenceOnlyWhileConsoleOpen: on a real redis-server, replicas with the console on
// write nothing to the store (no presence, no console:open value, nothing published) while
// no console is open; once one is used on B, A publishes its presence (without its tools'
// definitions) and B lists A's tabs; when no console is open any more (console:open gone),
// A removes its presence.
func TestPresenceOnlyWhileConsoleOpen(t *testing.T) {
	url := storetest.RedisServer(t)
	big := bigTabs(3, 64<<10)
	var clk clock
	clk.t = time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	mk := func(name string, tabs []Tab) (*Handler, store.Shared) {
		st, err := store.OpenRedis(t.Context(), url)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		feed := NewFeed(nil)
		h, err := New(Options{Token: token, Store: st, Feed: feed, Gatherer: feed.Gatherer(), Now: clk.now,
			Tabs: func() []Tab { return append([]Tab(nil), tabs...) }, Cluster: store.SharedOf(st), Replica: name})
		if err != nil {
			t.Fatal(err)
		}
		return h, store.SharedOf(st)
	}
	a, shared := mk("replica-a", big)
	b, _ := mk("replica-b", nil)
	ctx := t.Context()
	var mu sync.Mutex
	var heard []string
	unsubscribe, err := shared.Subscribe(ctx, "console:*", func(ch string, msg []byte) {
		mu.Lock()
		heard = append(heard, ch+" "+string(msg))
		mu.Unlock()
	})
	if err != nil {
		t.Fatal(err)
	}
	defer unsubscribe()
	// heardUpTo publishes a marker and returns what came on console:* before it.
	marks := 0
	heardUpTo := func() []string {
		t.Helper()
		marks++
		mark := fmt.Sprintf("console:mark %d", marks)
		if err := shared.Publish(ctx, "console:mark", []byte(fmt.Sprint(marks))); err != nil {
			t.Fatal(err)
		}
		for {
			mu.Lock()
			if i := slices.Index(heard, mark); i >= 0 {
				got := slices.Clone(heard[:i])
				heard = heard[i+1:]
				mu.Unlock()
				return got
			}
			mu.Unlock()
			select {
			case <-ctx.Done():
				t.Fatal("the marker never came back")
			case <-time.After(10 * time.Millisecond):
			}
		}
	}
	pubA, annA, pubB, annB := false, false, false, false
	for range 3 { // no console open: rounds of both replicas write and publish nothing
		pubA, annA = a.presenceRound(ctx, pubA, annA)
		pubB, annB = b.presenceRound(ctx, pubB, annB)
	}
	if got, err := shared.Presences(ctx); err != nil || len(got) != 0 {
		t.Errorf("presences with no console open: %d (%v), want none", len(got), err)
	}
	if v, err := shared.Value(ctx, openKey); err != nil || v != nil {
		t.Errorf("console:open with no console open: %q (%v), want none", v, err)
	}
	if got := heardUpTo(); len(got) != 0 {
		t.Errorf("published with no console open: %q", got)
	}

	// A console opens on B: B says so, A publishes its tabs, B lists them.
	f := &fixture{h: b}
	cookie := f.signIn(t)
	if rec := f.do("GET", "/console/api/tabs", "", nil, cookie); rec.Code != 200 {
		t.Fatalf("tabs on B: %d", rec.Code)
	}
	select {
	case <-b.wake:
	default:
		t.Error("B's first console use did not wake its presence loop")
	}
	pubB, annB = b.presenceRound(ctx, pubB, annB)
	if got := heardUpTo(); !slices.Equal(got, []string{"console:open replica-b"}) {
		t.Errorf("published when B's console opened: %q, want console:open replica-b", got)
	}
	pubA, annA = a.presenceRound(ctx, pubA, annA)
	all, err := shared.Presences(ctx)
	if err != nil || len(all["replica-a"]) == 0 {
		t.Fatalf("A's presence once a console is open: %d replicas (%v)", len(all), err)
	}
	if n := len(all["replica-a"]); n > 4<<10 {
		t.Errorf("A's presence of 3 tabs with 64 KiB tools: %d bytes, want the tools' names only (under 4 KiB)", n)
	}
	rec := f.do("GET", "/console/api/tabs", "", nil, cookie)
	var tabs []TabView
	if err := json.Unmarshal(rec.Body.Bytes(), &tabs); err != nil || len(tabs) != 3 || tabs[0].Replica != "replica-a" || len(tabs[0].Tools) != 1 {
		t.Fatalf("B's tabs: %s (%v), want A's 3", rec.Body, err)
	}

	// Nobody uses a console any more: console:open expires (here: deleted), A removes its
	// presence at its next round and writes nothing after.
	clk.add(presenceTTL)
	c, err := redis.ParseURL(url)
	if err != nil {
		t.Fatal(err)
	}
	rc := redis.NewClient(c)
	defer rc.Close()
	keys, err := rc.Keys(ctx, "*console:open").Result()
	if err != nil || len(keys) != 1 {
		t.Fatalf("the console:open value: %q (%v)", keys, err)
	}
	rc.Del(ctx, keys...)
	pubA, annA = a.presenceRound(ctx, pubA, annA)
	pubB, annB = b.presenceRound(ctx, pubB, annB)
	if pubA || annA || pubB || annB {
		t.Errorf("with no console open: A published %v, announced %v; B published %v, announced %v; want none", pubA, annA, pubB, annB)
	}
	if got, err := shared.Presences(ctx); err != nil || len(got) != 0 {
		t.Errorf("presences once no console is open: %d (%v), want none", len(got), err)
	}
	if keys, _ := rc.Keys(ctx, "*presence*").Result(); len(keys) != 0 {
		t.Errorf("presence keys left: %q", keys)
	}
	if got := heardUpTo(); len(got) != 0 {
		t.Errorf("published once no console is open: %q", got)
	}
}
