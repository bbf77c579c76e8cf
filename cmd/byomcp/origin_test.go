package main

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/gorilla/websocket"

	"github.com/byomcp/byomcp/agentsvc"
)

// socketStatus opens /v1/ws of a running serve with the given Host and Origin headers and
// returns the HTTP status of the answer.
func socketStatus(t *testing.T, serverURL, host, origin string) int {
	t.Helper()
	h := http.Header{"Origin": {origin}}
	if host != "" {
		h.Set("Host", host)
	}
	c, resp, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(serverURL, "http")+"/v1/ws", h)
	if c != nil {
		c.Close()
	}
	if resp == nil {
		t.Fatalf("no HTTP response: %v", err)
	}
	return resp.StatusCode
}

// Issue 11 defect #5 and issue 19 point 9, through the real binary: the own origin comes from
// the listener (both 127.0.0.1:PORT and localhost:PORT), --allowed-origins adds to it, a
// rebinding Host is refused, and /v1/origin-check says the same.
func TestServeOwnOriginAndRebinding(t *testing.T) {
	p := startServe(t, "http://127.0.0.1:1", "--store", "memory", "--allowed-origins", "https://mine.example")
	port := p.url[strings.LastIndexByte(p.url, ':')+1:]
	rebind := "rebind.evil.test:" + port
	for _, tt := range []struct {
		host, origin string
		want         int
	}{
		{"", p.url, 101},
		{"localhost:" + port, "http://localhost:" + port, 101},
		{"", "https://mine.example", 101},
		{"", "http://localhost:5173", 403},
		{rebind, "http://" + rebind, 403},
		{rebind, "https://mine.example", 403},
	} {
		if got := socketStatus(t, p.url, tt.host, tt.origin); got != tt.want {
			t.Errorf("Host %q, Origin %q: got HTTP %d, want %d", tt.host, tt.origin, got, tt.want)
		}
	}

	for origin, want := range map[string]bool{p.url: true, "https://mine.example": true, "https://evil.example": false} {
		req, _ := http.NewRequest(http.MethodGet, p.url+"/v1/origin-check", nil)
		req.Header.Set("Origin", origin)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var res agentsvc.OriginCheck
		err = json.NewDecoder(resp.Body).Decode(&res)
		resp.Body.Close()
		if err != nil || resp.StatusCode != 200 || res.Allowed != want || res.Origin != origin || res.Message == "" {
			t.Errorf("origin-check %s: got %d %+v %v, want allowed %v", origin, resp.StatusCode, res, err, want)
		}
		if got := resp.Header.Get("Access-Control-Allow-Origin"); got != "*" {
			t.Errorf("origin-check: Access-Control-Allow-Origin %q, want *", got)
		}
	}
}

// --public-url names the server behind a proxy: its origin is allowed and its host accepted.
func TestServePublicURL(t *testing.T) {
	p := startServe(t, "http://127.0.0.1:1", "--store", "memory", "--public-url", "https://agent.example/base")
	if got := socketStatus(t, p.url, "agent.example", "https://agent.example"); got != 101 {
		t.Errorf("public host and origin: got HTTP %d, want 101", got)
	}
	if got := socketStatus(t, p.url, "other.example", "https://agent.example"); got != 403 {
		t.Errorf("another host: got HTTP %d, want 403", got)
	}
	if got := socketStatus(t, p.url, "", "http://localhost:3000"); got != 101 {
		t.Errorf("a development origin without --allowed-origins: got HTTP %d, want 101", got)
	}
}

// /v1/agui answers every method itself: POST and its preflight, and 405 with its own Allow
// for the others (GET was the demo's file server's: 404 with Access-Control-Allow-Origin *).
func TestServeAGUIMethods(t *testing.T) {
	p := startServe(t, "http://127.0.0.1:1", "--store", "memory")
	for _, method := range []string{http.MethodGet, http.MethodPut, http.MethodDelete} {
		req, _ := http.NewRequest(method, p.url+"/v1/agui", nil)
		req.Header.Set("Origin", "http://localhost:3000")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "POST, OPTIONS" ||
			resp.Header.Get("Access-Control-Allow-Origin") == "*" {
			t.Errorf("%s /v1/agui: %d, Allow %q, Access-Control-Allow-Origin %q; want 405, Allow \"POST, OPTIONS\", not *",
				method, resp.StatusCode, resp.Header.Get("Allow"), resp.Header.Get("Access-Control-Allow-Origin"))
		}
	}
}
