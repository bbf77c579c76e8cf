package console

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/byomcp/byomcp/agentsvc/chat"
	"github.com/byomcp/byomcp/agentsvc/store"
	"github.com/byomcp/byomcp/agentsvc/wire"
)

const token = "a-console-token-of-some-length"

type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

type fixture struct {
	h      *Handler
	forgot *[]string
	st     store.Store
	feed   *Feed
	clock  *clock
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	st := store.NewMemory()
	t.Cleanup(func() { _ = st.Close() })
	feed := NewFeed(func(o string) string {
		if o == "https://shop.example" {
			return "shop"
		}
		return ""
	})
	clk := &clock{t: time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)}
	forgot := &[]string{}
	h, err := New(Options{
		Forget: func(id string) { // records whether the store still had it
			where := " stored"
			if _, err := st.Load(context.Background(), id); errors.Is(err, store.ErrNotFound) {
				where = " gone"
			}
			*forgot = append(*forgot, id+where)
		},
		Token: token, Store: st, Feed: feed, Gatherer: prometheus.Gatherers{feed.Gatherer()},
		Tabs: func() []Tab {
			return []Tab{{ConnID: "c1", Origin: "https://shop.example", SessionID: "s1", URL: "https://shop.example/cars", Title: "Cars",
				Tools: []Tool{{Name: "filter_cars", InputSchema: json.RawMessage(`{"type":"object"}`)}}}}
		},
		SiteOf:       feed.siteOf,
		IsSiteOrigin: func(o string, _ *http.Request) bool { return o == "https://shop.example" },
		Now:          clk.now,
		AppDocument:  testAppDocument,
	})
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{h: h, forgot: forgot, st: st, feed: feed, clock: clk}
}

func (f *fixture) do(method, path, body string, hdr map[string]string, cookie *http.Cookie) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	if cookie != nil {
		req.AddCookie(cookie)
	}
	rec := httptest.NewRecorder()
	f.h.ServeHTTP(rec, req)
	return rec
}

var csrf = map[string]string{csrfHeader: "1", "Content-Type": "application/json"}

func (f *fixture) signIn(t *testing.T) *http.Cookie {
	t.Helper()
	rec := f.do("POST", "/console/api/signin", `{"token":"`+token+`"}`, csrf, nil)
	if rec.Code != 200 {
		t.Fatalf("sign-in: %d %s", rec.Code, rec.Body)
	}
	for _, c := range rec.Result().Cookies() {
		if c.Name == cookieName {
			return c
		}
	}
	t.Fatal("no cookie")
	return nil
}

func TestSignIn(t *testing.T) {
	f := newFixture(t)
	if rec := f.do("GET", "/console/api/tabs", "", nil, nil); rec.Code != http.StatusUnauthorized {
		t.Errorf("API without sign-in: got %d, want 401", rec.Code)
	}
	if rec := f.do("POST", "/console/api/signin", `{"token":"wrong"}`, csrf, nil); rec.Code != http.StatusUnauthorized || len(rec.Result().Cookies()) != 0 {
		t.Errorf("wrong token: got %d and %d cookies, want 401 and none", rec.Code, len(rec.Result().Cookies()))
	}
	if rec := f.do("POST", "/console/api/signin", `{"token":"`+token+`"}`, map[string]string{"Content-Type": "application/json"}, nil); rec.Code != http.StatusForbidden {
		t.Errorf("sign-in without the CSRF header: got %d, want 403", rec.Code)
	}
	c := f.signIn(t)
	if !c.HttpOnly || c.SameSite != http.SameSiteStrictMode || c.Secure || c.Path != "/console/" {
		t.Errorf("cookie %+v, want HttpOnly, SameSite=Strict, not Secure over http, Path /console/", c)
	}
	if strings.Contains(c.Value, token) {
		t.Error("the cookie holds the token")
	}
	if rec := f.do("GET", "/console/api/tabs", "", nil, c); rec.Code != 200 || !strings.Contains(rec.Body.String(), `"site":"shop"`) || !strings.Contains(rec.Body.String(), "filter_cars") {
		t.Errorf("tabs: got %d %s, want the tab with its site and tools", rec.Code, rec.Body)
	}
	// A tampered or expired cookie is refused.
	bad := *c
	bad.Value = strings.Replace(c.Value, ".", ".0", 1)
	if rec := f.do("GET", "/console/api/tabs", "", nil, &bad); rec.Code != http.StatusUnauthorized {
		t.Errorf("tampered cookie: got %d, want 401", rec.Code)
	}
	f.clock.add(cookieLife + time.Second)
	if rec := f.do("GET", "/console/api/tabs", "", nil, c); rec.Code != http.StatusUnauthorized {
		t.Errorf("expired cookie: got %d, want 401", rec.Code)
	}
}

func TestSecureCookieOverTLS(t *testing.T) {
	f := newFixture(t)
	req := httptest.NewRequest("POST", "/console/api/signin", strings.NewReader(`{"token":"`+token+`"}`))
	req.Header.Set(csrfHeader, "1")
	req.TLS = &tls.ConnectionState{}
	rec := httptest.NewRecorder()
	f.h.ServeHTTP(rec, req)
	if cs := rec.Result().Cookies(); len(cs) != 1 || !cs[0].Secure {
		t.Errorf("cookies over https: %+v, want one Secure", cs)
	}
}

func TestSignInRateLimited(t *testing.T) {
	f := newFixture(t)
	for i := range 5 {
		if rec := f.do("POST", "/console/api/signin", `{"token":"guess`+fmt.Sprint(i)+`"}`, csrf, nil); rec.Code != http.StatusUnauthorized {
			t.Fatalf("attempt %d: got %d, want 401", i, rec.Code)
		}
	}
	if rec := f.do("POST", "/console/api/signin", `{"token":"`+token+`"}`, csrf, nil); rec.Code != http.StatusTooManyRequests {
		t.Errorf("6th attempt in a minute: got %d, want 429 (even with the right token)", rec.Code)
	}
	f.clock.add(time.Minute)
	if rec := f.do("POST", "/console/api/signin", `{"token":"`+token+`"}`, csrf, nil); rec.Code != 200 {
		t.Errorf("a minute later: got %d, want 200", rec.Code)
	}
}

func TestRefusedFromSitesAndWithoutCSRFHeader(t *testing.T) {
	f := newFixture(t)
	c := f.signIn(t)
	for _, hdr := range []map[string]string{{"Origin": "https://shop.example"}, {"Origin": "null"}, {"Sec-Fetch-Site": "cross-site"}} {
		if rec := f.do("GET", "/console/api/tabs", "", hdr, c); rec.Code != http.StatusForbidden {
			t.Errorf("%v: got %d, want 403", hdr, rec.Code)
		}
		if rec := f.do("GET", "/console/", "", hdr, nil); rec.Code != http.StatusForbidden {
			t.Errorf("page with %v: got %d, want 403", hdr, rec.Code)
		}
	}
	seed(t, f.st, "s1")
	if rec := f.do("DELETE", "/console/api/conversations/s1", "", nil, c); rec.Code != http.StatusForbidden {
		t.Errorf("DELETE without the CSRF header: got %d, want 403", rec.Code)
	}
	if _, err := f.st.Load(context.Background(), "s1"); err != nil {
		t.Errorf("the conversation is gone after a refused DELETE: %v", err)
	}
	rec := f.do("GET", "/console/", "", nil, nil)
	if rec.Code != 200 || !strings.Contains(rec.Body.String(), "byomcp console") || rec.Header().Get("X-Frame-Options") != "DENY" {
		t.Errorf("the page: %d, X-Frame-Options %q", rec.Code, rec.Header().Get("X-Frame-Options"))
	}
}

// seed stores a conversation of one turn with a tool call, as the agent logs it.
func seed(t *testing.T, st store.Store, id string) {
	t.Helper()
	ctx := context.Background()
	if err := st.Create(ctx, &store.Session{ID: id, Origin: "https://shop.example", Page: store.Page{URL: "https://shop.example/cars", Title: "Cars"}}); err != nil {
		t.Fatal(err)
	}
	evs := []string{
		`{"seq":1,"turnId":"t1","type":"turn_start","time":1000,"text":"Show me red SUVs"}`,
		`{"seq":2,"turnId":"t1","type":"tool_call","time":1100,"callId":"c1","name":"filter_cars","arguments":{"color":"red"}}`,
		`{"seq":3,"turnId":"t1","type":"tool_result","time":1350,"callId":"c1","name":"filter_cars","isError":false,"text":"3 cars","confirmation":{"answer":"confirmed","changed":true,"at":1300},"asked":[{"server":"shop","message":"Your name?","mode":"form","action":"decline","at":1320}]}`,
		`{"seq":4,"turnId":"t1","type":"text_delta","time":1400,"delta":"Three."}`,
		`{"seq":5,"turnId":"t1","type":"turn_end","time":1500,"stopReason":"end","text":"Three.","usage":{"promptTokens":90,"completionTokens":10,"totalTokens":100}}`,
	}
	b := store.Batch{Messages: []chat.Message{{Role: chat.RoleUser, Content: "Show me red SUVs", TurnID: "t1"}}}
	for i, e := range evs {
		b.Events = append(b.Events, store.Event{Seq: int64(i + 1), Data: json.RawMessage(e)})
	}
	if err := st.Append(ctx, id, b); err != nil {
		t.Fatal(err)
	}
}

func TestConversations(t *testing.T) {
	f := newFixture(t)
	c := f.signIn(t)
	seed(t, f.st, "s1")
	if err := f.st.Create(context.Background(), &store.Session{ID: "s2", Origin: "https://blog.example"}); err != nil {
		t.Fatal(err)
	}
	var list []Summary
	rec := f.do("GET", "/console/api/conversations?q=red+suv", "", nil, c)
	if err := json.Unmarshal(rec.Body.Bytes(), &list); err != nil || len(list) != 1 {
		t.Fatalf("search red suv: %s, want s1 only", rec.Body)
	}
	if s := list[0]; s.ID != "s1" || s.Site != "shop" || s.Turns != 1 || s.First != "Show me red SUVs" || s.Tokens != 100 || strings.Join(s.Outcomes, ",") != "end" {
		t.Errorf("summary %+v", s)
	}
	for q, want := range map[string]int{"filter_cars": 1, "3 cars": 1, "nothing like it": 0, "": 2} {
		rec := f.do("GET", "/console/api/conversations?q="+strings.ReplaceAll(q, " ", "+"), "", nil, c)
		_ = json.Unmarshal(rec.Body.Bytes(), &list)
		if len(list) != want {
			t.Errorf("search %q: %d results, want %d", q, len(list), want)
		}
	}
	rec = f.do("GET", "/console/api/conversations?site=shop&outcome=error", "", nil, c)
	_ = json.Unmarshal(rec.Body.Bytes(), &list)
	if len(list) != 0 {
		t.Errorf("outcome=error: %d results, want 0", len(list))
	}

	var tr Transcript
	rec = f.do("GET", "/console/api/conversations/s1", "", nil, c)
	if err := json.Unmarshal(rec.Body.Bytes(), &tr); err != nil || len(tr.TurnList) != 1 {
		t.Fatalf("transcript: %s", rec.Body)
	}
	turn := tr.TurnList[0]
	if len(turn.Calls) != 1 || turn.Calls[0].DurationMs == nil || *turn.Calls[0].DurationMs != 250 || turn.Calls[0].Result != "3 cars" ||
		string(turn.Calls[0].Arguments) != `{"color":"red"}` || turn.Usage == nil || turn.Usage.TotalTokens != 100 || turn.Answer != "Three." {
		t.Errorf("turn %+v", turn)
	}
	// Who answered what, and when, for a call the visitor was asked to confirm.
	if c := turn.Calls[0].Confirmation; c == nil || *c != (wire.Confirmation{Answer: wire.ConfirmConfirmed, Changed: true, At: 1300}) {
		t.Errorf("the call's confirmation: %+v", c)
	}
	// And the server's questions to the visitor, with how each ended (not the answers).
	if a := turn.Calls[0].Asked; len(a) != 1 || a[0] != (wire.Asked{Server: "shop", Message: "Your name?", Mode: wire.ElicitForm, Action: wire.ElicitDecline, At: 1320}) {
		t.Errorf("the call's questions: %+v", a)
	}

	rec = f.do("GET", "/console/api/conversations/s1/export", "", nil, c)
	var x Export
	if err := json.Unmarshal(rec.Body.Bytes(), &x); err != nil || len(x.Events) != 5 || len(x.Messages) != 1 || !strings.Contains(rec.Header().Get("Content-Disposition"), "conversation-s1.json") {
		t.Errorf("export: %d %s", rec.Code, rec.Body)
	}

	if rec := f.do("DELETE", "/console/api/conversations/s1", "", csrf, c); rec.Code != 200 {
		t.Fatalf("delete: %d %s", rec.Code, rec.Body)
	}
	if _, err := f.st.Load(context.Background(), "s1"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("after delete, Load: %v, want ErrNotFound", err)
	}
	if got := strings.Join(*f.forgot, ","); got != "s1 stored,s1 gone" {
		// Before: its running turn ends before the store drops it. After: a tab that
		// reconnected in between may have loaded it again.
		t.Errorf("forgotten in memory: %s, want s1 before the delete and again after", got)
	}
	if rec := f.do("GET", "/console/api/conversations/s1", "", nil, c); rec.Code != http.StatusNotFound {
		t.Errorf("transcript after delete: %d, want 404", rec.Code)
	}
}

func TestLiveAndToolMetrics(t *testing.T) {
	f := newFixture(t)
	c := f.signIn(t)
	srv := httptest.NewServer(f.h)
	defer srv.Close()
	req, _ := http.NewRequest("GET", srv.URL+"/console/api/live", nil)
	req.AddCookie(c)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("content type %q", resp.Header.Get("Content-Type"))
	}
	r := bufio.NewReader(resp.Body)
	if line, _ := r.ReadString('\n'); !strings.HasPrefix(line, ":") { // subscribed once the comment is out
		t.Fatalf("first line %q", line)
	}
	f.feed.Publish("https://shop.example", "s9", json.RawMessage(`{"seq":1,"turnId":"t1","type":"tool_call","time":1000,"callId":"c1","name":"filter_cars","arguments":{}}`))
	f.feed.Publish("https://shop.example", "s9", json.RawMessage(`{"seq":2,"turnId":"t1","type":"tool_result","time":1200,"callId":"c1","name":"filter_cars","isError":true,"text":"boom"}`))
	var got []Activity
	for len(got) < 2 {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("stream ended: %v", err)
		}
		if data, ok := strings.CutPrefix(strings.TrimSpace(line), "data: "); ok {
			var a Activity
			if err := json.Unmarshal([]byte(data), &a); err != nil {
				t.Fatal(err)
			}
			got = append(got, a)
		}
	}
	if got[0].Site != "shop" || got[0].SessionID != "s9" || !strings.Contains(string(got[1].Event), `"tool_result"`) {
		t.Errorf("activities %+v", got)
	}
	rec := f.do("GET", "/console/api/metrics", "", nil, c)
	var h Health
	if err := json.Unmarshal(rec.Body.Bytes(), &h); err != nil {
		t.Fatal(err)
	}
	if len(h.Tools) != 1 || h.Tools[0].Tool != "filter_cars" || h.Tools[0].Site != "shop" || h.Tools[0].Errors != 1 || h.Tools[0].Timed != 1 || h.Tools[0].Seconds != 0.2 {
		t.Errorf("tools health %+v", h.Tools)
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(r, 0))
}

func TestFeedBoundsToolLabels(t *testing.T) {
	feed := NewFeed(nil)
	for i := range maxToolLabels + 10 {
		feed.Publish("o", "s", json.RawMessage(fmt.Sprintf(`{"turnId":"t","type":"tool_result","callId":"c%d","name":"tool%d"}`, i, i)))
	}
	mfs, err := feed.Gatherer().Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() == "byomcp_tool_calls_by_tool_total" && len(mf.GetMetric()) != maxToolLabels+1 {
			t.Errorf("%d series, want %d (the rest as other)", len(mf.GetMetric()), maxToolLabels+1)
		}
	}
}

// TestSignInCountsOnlyFailures: good sign-ins from one address (the operator's colleagues
// behind one NAT) do not use up its attempts; five failures a minute still do.
func TestSignInCountsOnlyFailures(t *testing.T) {
	f := newFixture(t)
	for i := range 20 {
		if rec := f.do("POST", "/console/api/signin", `{"token":"`+token+`"}`, csrf, nil); rec.Code != 200 {
			t.Fatalf("good sign-in %d in a minute: got %d, want 200", i+1, rec.Code)
		}
	}
	for i := range 5 {
		if rec := f.do("POST", "/console/api/signin", `{"token":"guess`+fmt.Sprint(i)+`"}`, csrf, nil); rec.Code != http.StatusUnauthorized {
			t.Fatalf("failure %d: got %d, want 401", i+1, rec.Code)
		}
	}
	if rec := f.do("POST", "/console/api/signin", `{"token":"`+token+`"}`, csrf, nil); rec.Code != http.StatusTooManyRequests {
		t.Errorf("after 5 failures: got %d, want 429", rec.Code)
	}
}

// TestSignOutRevokes: after a sign-out the cookie it ended is refused, although it is still
// signed and not expired (a copy of it kept by someone else included); another sign-in is
// not affected, and a restarted console does not take the ended one back.
func TestSignOutRevokes(t *testing.T) {
	f := newFixture(t)
	c := f.signIn(t)
	f.clock.add(time.Second)
	other := f.signIn(t)
	if c.Value == other.Value {
		t.Fatal("two sign-ins got the same cookie")
	}
	if rec := f.do("GET", "/console/api/me", "", nil, c); rec.Code != 200 {
		t.Fatalf("me: got %d, want 200", rec.Code)
	}
	if rec := f.do("POST", "/console/api/signout", "", csrf, c); rec.Code != 200 {
		t.Fatalf("sign-out: got %d %s", rec.Code, rec.Body)
	}
	for _, path := range []string{"/console/api/me", "/console/api/tabs"} {
		if rec := f.do("GET", path, "", nil, c); rec.Code != http.StatusUnauthorized {
			t.Errorf("%s with the signed-out cookie: got %d %s, want 401", path, rec.Code, rec.Body)
		}
	}
	if rec := f.do("GET", "/console/api/me", "", nil, other); rec.Code != 200 {
		t.Errorf("another sign-in after the sign-out: got %d, want 200", rec.Code)
	}
	restarted, err := New(f.h.o)
	if err != nil {
		t.Fatal(err)
	}
	f.h = restarted
	if rec := f.do("GET", "/console/api/me", "", nil, c); rec.Code != http.StatusUnauthorized {
		t.Errorf("the signed-out cookie on a restarted console (no shared store): got %d, want 401", rec.Code)
	}
}
