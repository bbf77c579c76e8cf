package wsrpc

import (
	"bytes"
	"encoding/json"
	"testing"
)

// nopConn is a MessageConn for a peer that is never started.
type nopConn struct{}

func (nopConn) ReadMessage() ([]byte, error) { select {} }
func (nopConn) WriteMessage([]byte) error    { return nil }
func (nopConn) Close() error                 { return nil }

func FuzzDecode(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":"a\u0062","method":"m","params":[1,2.5e3,null]}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":"timeout"}}`,
		`{"jsonrpc":"2.0","id":3,"result":{"content":[]}}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error","data":{}}}`,
		`[{"jsonrpc":"2.0","id":1,"method":"m"}]`,
		`{"jsonrpc":"2.0","id":1,"result":1,"error":{"code":1}}`,
		`{"id":{},"method":7}`,
		`{"jsonrpc":"2.0","ID":1,"Method":"m"}`,
		"\xff\xfe{",
		``,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkSplitObject(t, data)
		m := decodeMessage(data)
		switch m.kind {
		case kindInvalid:
			if m.err == nil || (m.err.Code != CodeParseError && m.err.Code != CodeInvalidRequest) {
				t.Fatalf("invalid message with error %v", m.err)
			}
			if m.id != nil && !validID(m.id) {
				t.Fatalf("invalid message would echo id %s", m.id)
			}
		case kindRequest, kindNotification:
			if (m.kind == kindRequest) != (m.id != nil) {
				t.Fatalf("kind %d with id %q", m.kind, m.id)
			}
			if m.id != nil {
				if _, ok := idKey(m.id); !ok {
					t.Fatalf("request id %s has no key", m.id)
				}
			}
			if m.params != nil && m.params[0] != '{' && m.params[0] != '[' {
				t.Fatalf("params %s", m.params)
			}
			// Encoding what was decoded gives the same message back.
			out, err := encodeCall(1, true, m.method, m.params)
			if err != nil {
				t.Fatalf("re-encoding: %v", err)
			}
			back := decodeMessage(out.bytes())
			var want bytes.Buffer
			if m.params != nil {
				if err := json.Compact(&want, m.params); err != nil {
					t.Fatal(err)
				}
			}
			if back.kind != kindRequest || back.method != m.method || string(back.params) != want.String() {
				t.Fatalf("round trip: got %d %q %s, want request %q %s", back.kind, back.method, back.params, m.method, want.String())
			}
		case kindResponse:
			if (m.err == nil) == (m.result == nil) {
				t.Fatalf("response with result %s and error %v", m.result, m.err)
			}
		case kindBadResponse:
			if m.err == nil {
				t.Fatal("bad response without a reason")
			}
		default:
			t.Fatalf("unknown kind %d", m.kind)
		}

		// Whatever comes in, a peer answers at most once, with a well-formed error response.
		p := NewPeer(nopConn{}, Options{SendQueue: 4})
		p.handleMessage(data)
		if n := len(p.queue); n > 1 {
			t.Fatalf("got %d replies, want at most 1", n)
		}
		if len(p.queue) == 1 {
			reply := p.queue[0]
			r := decodeMessage(reply.bytes())
			if r.kind != kindResponse || r.err == nil {
				t.Fatalf("reply %s is not an error response", reply.bytes())
			}
			if m.kind == kindRequest && !bytes.Equal(r.id, m.id) {
				t.Fatalf("reply id %s, want %s", r.id, m.id)
			}
		}
		p.Close(nil)
	})
}

// checkSplitObject compares splitObject with encoding/json decoding into a map.
func checkSplitObject(t *testing.T, data []byte) {
	trimmed := bytes.TrimLeft(data, " \t\r\n")
	if len(trimmed) == 0 || trimmed[0] != '{' || !json.Valid(trimmed) {
		return
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(trimmed, &members); err != nil {
		t.Fatalf("valid object does not decode: %v", err)
	}
	var w wireMessage
	splitObject(trimmed, &w)
	for name, got := range map[string]json.RawMessage{
		"jsonrpc": w.JSONRPC, "id": w.ID, "method": w.Method,
		"params": w.Params, "result": w.Result, "error": w.Error,
	} {
		want, ok := members[name]
		if ok != (got != nil) || (ok && !bytes.Equal(got, want)) {
			t.Fatalf("member %q: got %q, want %q (present %v)", name, got, want, ok)
		}
	}
}
