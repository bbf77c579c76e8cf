package agentsvc

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/byomcp/byomcp/agentsvc/pagemcp"
	"github.com/byomcp/byomcp/agentsvc/wire"
)

// A tools/list the agent cannot take left the socket open and silent: the page was served
// without its tools and its developer saw nothing. The agent now tells the page with a
// tool_rejected event named "tools/list" whose reason says why, and keeps serving the socket
// (its conversation still works). Over a real socket, with a page that speaks the wire by
// hand: one whose nextCursor never ends (past 64 pages), one whose result is JSON nested
// 10,001 deep.
func TestUnusableToolsListIsReported(t *testing.T) {
	tests := []struct {
		name string
		// answer is the result of tools/list request n (0-based), as raw JSON.
		answer func(n int) string
		reason string // in the event's reason
	}{
		{
			name:   "endless pagination",
			answer: func(n int) string { return `{"tools":[],"nextCursor":"c` + strings.Repeat("x", n%3) + `"}` },
			reason: "more than 64 pages",
		},
		{
			name:   "nested 10,001 deep",
			answer: func(int) string { return `{"tools":` + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + `}` },
			reason: "exceeded max depth",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := newTestServer(t, textModel("ok"), nil)
			h := http.Header{"Origin": {testOrigin}}
			ws, _, err := websocket.DefaultDialer.Dial(ts.wsURL, h)
			if err != nil {
				t.Fatal(err)
			}
			defer ws.Close()
			_ = ws.SetReadDeadline(time.Now().Add(waitLimit))
			send := func(s string) {
				t.Helper()
				if err := ws.WriteMessage(websocket.TextMessage, []byte(s)); err != nil {
					t.Fatalf("send: %v", err)
				}
			}
			lists := 0
			var rejected *wire.ToolRejectedEvent
			sessionAnswered := false
			for !sessionAnswered {
				_, data, err := ws.ReadMessage()
				if err != nil {
					t.Fatalf("read (tool_rejected %v, %d listings): %v", rejected != nil, lists, err)
				}
				var msg struct {
					ID     json.RawMessage `json:"id"`
					Method string          `json:"method"`
					Params json.RawMessage `json:"params"`
					Result json.RawMessage `json:"result"`
				}
				if err := json.Unmarshal(data, &msg); err != nil {
					t.Fatalf("agent sent %s: %v", data, err)
				}
				switch {
				case msg.Method == wire.MethodInitialize:
					send(`{"jsonrpc":"2.0","id":` + string(msg.ID) + `,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{"listChanged":true}},"serverInfo":{"name":"hand","version":"1"}}}`)
				case msg.Method == wire.MethodToolsList:
					send(`{"jsonrpc":"2.0","id":` + string(msg.ID) + `,"result":` + tt.answer(lists) + `}`)
					lists++
				case msg.Method == wire.MethodAgentEvent:
					var ev wire.ToolRejectedEvent
					if err := json.Unmarshal(msg.Params, &ev); err != nil {
						t.Fatal(err)
					}
					if ev.Type != wire.EventToolRejected {
						t.Fatalf("got event %s, want only tool_rejected", msg.Params)
					}
					if rejected != nil {
						t.Fatalf("a second tool_rejected: %s", msg.Params)
					}
					rejected = &ev
					// The socket is still served: a conversation starts.
					send(`{"jsonrpc":"2.0","id":"s1","method":"agent/session","params":{}}`)
				case string(msg.ID) == `"s1"`:
					if msg.Result == nil {
						t.Fatalf("agent/session: got %s, want a result", data)
					}
					sessionAnswered = true
				}
			}
			if rejected.Name != pagemcp.ListRejectedName || !strings.Contains(rejected.Reason, tt.reason) {
				t.Errorf("got tool_rejected %q %q, want %q with %q", rejected.Name, rejected.Reason, pagemcp.ListRejectedName, tt.reason)
			}
			t.Logf("reason: %s", rejected.Reason)
			if ts.ConnCount() != 1 {
				t.Errorf("got %d open sockets, want 1", ts.ConnCount())
			}
		})
	}
}
