package jsclient

import (
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// The app frame's policy: sandboxed, no network at all without a csp; the declared origins
// where SEP-1865 maps them, anything that is not an origin dropped.
func TestAppFramePolicy(t *testing.T) {
	for _, tc := range []struct {
		name, csp string
		want      []string
		not       []string
	}{
		{"none", "", []string{"sandbox allow-scripts", "default-src 'none'", "connect-src 'none'", "frame-src 'none'", "base-uri 'none'", "form-action 'none'", "script-src 'unsafe-inline';"},
			[]string{"http", "allow-same-origin"}},
		{"declared", `{"connectDomains":["https://api.example.com","https://x.example; script-src *","'unsafe-eval'"],"resourceDomains":["https://*.cdn.example.com"],"frameDomains":["https://www.youtube.com"]}`,
			[]string{"connect-src https://api.example.com;", "script-src 'unsafe-inline' https://*.cdn.example.com;", "img-src data: blob: https://*.cdn.example.com;", "frame-src https://www.youtube.com;"},
			[]string{"x.example", "unsafe-eval", "script-src *"}},
		{"not JSON", `{"connectDomains":`, []string{"connect-src 'none'"}, []string{"http"}},
		{"too long", `{"connectDomains":["https://a.example"],"pad":"` + strings.Repeat("x", maxAppCSP) + `"}`, []string{"connect-src 'none'"}, []string{"a.example"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			AppFrameHandler().ServeHTTP(rec, httptest.NewRequest("GET", "/byomcp/app-frame?csp="+url.QueryEscape(tc.csp), nil))
			p := rec.Header().Get("Content-Security-Policy")
			for _, w := range tc.want {
				if !strings.Contains(p, w) {
					t.Errorf("policy %q lacks %q", p, w)
				}
			}
			for _, n := range tc.not {
				if strings.Contains(p, n) {
					t.Errorf("policy %q has %q", p, n)
				}
			}
			if ct := rec.Header().Get("Content-Type"); ct != "text/html; charset=utf-8" || !strings.Contains(rec.Body.String(), "byomcp/app-frame-ready") {
				t.Errorf("%s: %s", ct, rec.Body)
			}
		})
	}
}
