package agentsvc

import (
	"encoding/json"
	"testing"

	"github.com/byomcp/byomcp/agentsvc/wire"
	"github.com/byomcp/byomcp/wsrpc"
)

// TestRequestParamsAndIDs: what a page client written from docs/protocol.schema.json may
// send, and how what it must not send is answered (issue: protocol mismatches). agent/chat
// requires params: missing or null params are -32602 invalid params, not an empty text
// (-32004). agent/session and agent/cancel have only optional params: missing, null and {}
// are all valid. A request id is a string or an integer (RequestId in the schema, as in MCP):
// 1.5 is answered -32600 with a null id, like an object or a boolean id, while an integer of
// any size is echoed byte for byte.
func TestRequestParamsAndIDs(t *testing.T) {
	ts := newTestServer(t, textModel("ok"), nil)
	page := dialRawPage(t, ts)

	// answer sends one request and returns its response's id and error code (0: a result).
	answer := func(t *testing.T, id, frame string) (gotID string, code int64) {
		t.Helper()
		page.send(frame)
		msgs := page.until(id)
		m := msgs[len(msgs)-1]
		if m["error"] == nil {
			if m["result"] == nil {
				t.Fatalf("response %s: neither result nor error", id)
			}
			return string(m["id"]), 0
		}
		var e wsrpc.Error
		if err := json.Unmarshal(m["error"], &e); err != nil {
			t.Fatalf("response %s: error %s: %v", id, m["error"], err)
		}
		return string(m["id"]), e.Code
	}

	steps := []struct {
		name  string
		id    string // the id the answer must carry
		frame string
		code  int64 // 0: a result
	}{
		{"session without params", `"s1"`, `{"jsonrpc":"2.0","id":"s1","method":"agent/session"}`, 0},
		{"session with null params", `"s2"`, `{"jsonrpc":"2.0","id":"s2","method":"agent/session","params":null}`, 0},
		{"session with empty params", `"s3"`, `{"jsonrpc":"2.0","id":"s3","method":"agent/session","params":{}}`, 0},
		{"chat without params", `"c1"`, `{"jsonrpc":"2.0","id":"c1","method":"agent/chat"}`, wsrpc.CodeInvalidParams},
		{"chat with null params", `"c2"`, `{"jsonrpc":"2.0","id":"c2","method":"agent/chat","params":null}`, wsrpc.CodeInvalidParams},
		{"chat with params of the wrong type", `"c3"`, `{"jsonrpc":"2.0","id":"c3","method":"agent/chat","params":{"text":5}}`, wsrpc.CodeInvalidParams},
		{"chat with an empty text", `"c4"`, `{"jsonrpc":"2.0","id":"c4","method":"agent/chat","params":{"text":""}}`, wire.CodeTextTooLong},
		{"cancel without params", `"x1"`, `{"jsonrpc":"2.0","id":"x1","method":"agent/cancel"}`, wire.CodeNoTurn},
		{"cancel with null params", `"x2"`, `{"jsonrpc":"2.0","id":"x2","method":"agent/cancel","params":null}`, wire.CodeNoTurn},
		{"fractional id", `null`, `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, wsrpc.CodeInvalidRequest},
		{"fractional chat id", `null`, `{"jsonrpc":"2.0","id":0.5,"method":"agent/chat","params":{"text":"hi"}}`, wsrpc.CodeInvalidRequest},
		{"object id", `null`, `{"jsonrpc":"2.0","id":{},"method":"ping"}`, wsrpc.CodeInvalidRequest},
		{"boolean id", `null`, `{"jsonrpc":"2.0","id":true,"method":"ping"}`, wsrpc.CodeInvalidRequest},
		{"huge integer id", `123456789012345678901234567890`, `{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"ping"}`, 0},
		{"negative integer id", `-7`, `{"jsonrpc":"2.0","id":-7,"method":"ping"}`, 0},
		{"chat after all that", `"c5"`, `{"jsonrpc":"2.0","id":"c5","method":"agent/chat","params":{"text":"hi"}}`, 0},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			gotID, code := answer(t, s.id, s.frame)
			if gotID != s.id || code != s.code {
				t.Errorf("got id %s code %d, want id %s code %d", gotID, code, s.id, s.code)
			}
		})
	}
}
