package console

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/byomcp/byomcp/agentsvc/store"
)

const (
	testAppHTML = "<!doctype html><p>car card</p>"
	testAppURI  = "ui://shop/card.html"
	// goneSHA names a document the shop's server no longer has.
	goneSHA = "0000000000000000000000000000000000000000000000000000000000000000"
)

func hexSHA256(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// testAppDocument is the fixture's Options.AppDocument: the agent's documents, by hash.
func testAppDocument(_ context.Context, server, uri, sha string) (string, error) {
	switch {
	case server == "shop" && uri == testAppURI && sha == hexSHA256(testAppHTML):
		return testAppHTML, nil
	case sha == goneSHA:
		return "", fmt.Errorf("%w: the server changed it", ErrAppGone)
	}
	return "", errors.New("no such app")
}

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
	app := `{"server":"shop","tool":"show_car","uri":"ui://shop/card.html","sha256":"` + hexSHA256(testAppHTML) + `","csp":{"connectDomains":["https://api.example.com","https://x.example; script-src *"]},"input":{"id":"7"},"result":{"content":[{"type":"text","text":"a red car"}]},"token":"shop.SECRETMAC"}`
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
	if a == nil || a.Server != "shop" || a.URI != "ui://shop/card.html" || a.SHA256 != hexSHA256(testAppHTML) || string(a.Input) != `{"id":"7"}` {
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

	// A document its server no longer has: 410, and the view says so; an event stored before
	// apps were references (with its html) still shows.
	if err := f.st.Create(ctx, &store.Session{ID: "s2", Origin: "https://shop.example"}); err != nil {
		t.Fatal(err)
	}
	var b2 store.Batch
	for i, e := range []string{
		`{"seq":1,"turnId":"t1","type":"tool_result","time":1200,"callId":"gone","name":"shop__show_car","text":"a red car","app":{"server":"shop","tool":"show_car","uri":"ui://shop/card.html","sha256":"` + goneSHA + `","token":"x"}}`,
		`{"seq":2,"turnId":"t1","type":"tool_result","time":1300,"callId":"old","name":"shop__show_car","text":"a red car","app":{"server":"shop","tool":"show_car","uri":"ui://shop/card.html","html":"<p>old card</p>","token":"x"}}`,
		`{"seq":3,"turnId":"t1","type":"tool_result","time":1400,"callId":"unknown","name":"shop__show_car","text":"a red car","app":{"server":"shop","tool":"show_car","uri":"ui://shop/card.html","sha256":"` + hexSHA256("other") + `","token":"x"}}`,
	} {
		b2.Events = append(b2.Events, store.Event{Seq: int64(i + 1), Data: json.RawMessage(e)})
	}
	if err := f.st.Append(ctx, "s2", b2); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		call string
		code int
		says string
	}{{"gone", 410, "no longer available"}, {"old", 200, "<p>old card</p>"}, {"unknown", 404, "no longer available"}} {
		rec := f.do("GET", "/console/api/conversations/s2/apps/"+tc.call, "", nil, c)
		if rec.Code != tc.code || !strings.Contains(rec.Body.String(), tc.says) {
			t.Errorf("%s: %d %q, want %d saying %q", tc.call, rec.Code, rec.Body, tc.code, tc.says)
		}
	}
}
