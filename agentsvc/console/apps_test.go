package console

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/byomcp/byomcp/agentsvc/store"
)

// TestAppInTranscript: a call whose result came with an MCP App names it in the transcript
// (without its document or token), and its document is served for a read-only view: only to
// a signed-in operator, sandboxed (CSP sandbox: an opaque origin, away from the console's
// cookie and API), with no network but its declared origins, framed only by the console.
func TestAppInTranscript(t *testing.T) {
	f := newFixture(t)
	c := f.signIn(t)
	ctx := context.Background()
	if err := f.st.Create(ctx, &store.Session{ID: "s1", Origin: "https://shop.example"}); err != nil {
		t.Fatal(err)
	}
	app := `{"server":"shop","tool":"show_car","uri":"ui://shop/card.html","html":"<!doctype html><p>car card</p>","csp":{"connectDomains":["https://api.example.com","https://x.example; script-src *"]},"input":{"id":"7"},"result":{"content":[{"type":"text","text":"a red car"}]},"token":"shop.SECRETMAC"}`
	evs := []string{
		`{"seq":1,"turnId":"t1","type":"turn_start","time":1000,"text":"car 7"}`,
		`{"seq":2,"turnId":"t1","type":"tool_call","time":1100,"callId":"c1","name":"shop__show_car","arguments":{"id":"7"}}`,
		`{"seq":3,"turnId":"t1","type":"tool_result","time":1200,"callId":"c1","name":"shop__show_car","isError":false,"text":"a red car","app":` + app + `}`,
		`{"seq":4,"turnId":"t1","type":"turn_end","time":1300,"stopReason":"end","text":"here"}`,
	}
	var b store.Batch
	for i, e := range evs {
		b.Events = append(b.Events, store.Event{Seq: int64(i + 1), Data: json.RawMessage(e)})
	}
	if err := f.st.Append(ctx, "s1", b); err != nil {
		t.Fatal(err)
	}

	rec := f.do("GET", "/console/api/conversations/s1", "", nil, c)
	var tr Transcript
	if err := json.Unmarshal(rec.Body.Bytes(), &tr); err != nil || len(tr.TurnList) != 1 || len(tr.TurnList[0].Calls) != 1 {
		t.Fatalf("transcript: %s", rec.Body)
	}
	a := tr.TurnList[0].Calls[0].App
	if a == nil || a.Server != "shop" || a.URI != "ui://shop/card.html" || a.Bytes != len("<!doctype html><p>car card</p>") || string(a.Input) != `{"id":"7"}` {
		t.Errorf("the call's app: %+v", a)
	}
	if strings.Contains(rec.Body.String(), "SECRETMAC") || strings.Contains(rec.Body.String(), "car card") {
		t.Errorf("the transcript carries the app's token or document: %s", rec.Body)
	}

	rec = f.do("GET", "/console/api/conversations/s1/apps/c1", "", nil, c)
	if rec.Code != 200 || rec.Body.String() != "<!doctype html><p>car card</p>" {
		t.Fatalf("app document: %d %q", rec.Code, rec.Body)
	}
	csp := rec.Header().Get("Content-Security-Policy")
	for _, want := range []string{"sandbox allow-scripts", "default-src 'none'", "connect-src https://api.example.com;", "frame-ancestors 'self'", "form-action 'none'"} {
		if !strings.Contains(csp, want) {
			t.Errorf("CSP %q lacks %q", csp, want)
		}
	}
	if strings.Contains(csp, "allow-same-origin") || strings.Contains(csp, "x.example") {
		t.Errorf("CSP %q", csp)
	}
	if got := rec.Header().Get("X-Frame-Options"); got != "SAMEORIGIN" {
		t.Errorf("X-Frame-Options %q, want SAMEORIGIN (the console frames it)", got)
	}
	if got := rec.Header().Get("Content-Type"); got != "text/html; charset=utf-8" {
		t.Errorf("Content-Type %q", got)
	}
	for path, code := range map[string]int{"/console/api/conversations/s1/apps/c2": 404, "/console/api/conversations/nope/apps/c1": 404} {
		if rec := f.do("GET", path, "", nil, c); rec.Code != code {
			t.Errorf("%s: %d, want %d", path, rec.Code, code)
		}
	}
	if rec := f.do("GET", "/console/api/conversations/s1/apps/c1", "", nil, nil); rec.Code != 401 || strings.Contains(rec.Body.String(), "car card") {
		t.Errorf("signed out: %d %q, want 401", rec.Code, rec.Body)
	}
}
