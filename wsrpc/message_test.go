package wsrpc

import (
	"encoding/json"
	"math"
	"testing"
)

func TestDecodeMessage(t *testing.T) {
	tests := []struct {
		name   string
		in     string
		kind   msgKind
		code   int64  // for kindInvalid and kindBadResponse, and error responses
		id     string // raw id kept ("" = nil)
		method string
		params string
		result string
	}{
		{name: "request", in: `{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":1}}`, kind: kindRequest, id: `1`, method: "m", params: `{"a":1}`},
		{name: "request string id", in: ` {"jsonrpc":"2.0","id":"x","method":"m"} `, kind: kindRequest, id: `"x"`, method: "m"},
		{name: "request array params", in: `{"jsonrpc":"2.0","id":2,"method":"m","params":[1,2]}`, kind: kindRequest, id: `2`, method: "m", params: `[1,2]`},
		{name: "request null params", in: `{"jsonrpc":"2.0","id":2,"method":"m","params":null}`, kind: kindRequest, id: `2`, method: "m"},
		{name: "escaped method", in: `{"jsonrpc":"2.0","id":3,"method":"a\/b\u0021"}`, kind: kindRequest, id: `3`, method: "a/b!"},
		{name: "notification", in: `{"jsonrpc":"2.0","method":"n","params":{}}`, kind: kindNotification, method: "n", params: `{}`},
		{name: "result", in: `{"jsonrpc":"2.0","id":4,"result":{"ok":true}}`, kind: kindResponse, id: `4`, result: `{"ok":true}`},
		{name: "null result", in: `{"jsonrpc":"2.0","id":4,"result":null}`, kind: kindResponse, id: `4`, result: `null`},
		{name: "error", in: `{"jsonrpc":"2.0","id":5,"error":{"code":-32601,"message":"nope"}}`, kind: kindResponse, id: `5`, code: -32601},
		{name: "error null id", in: `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}`, kind: kindResponse, id: `null`, code: -32700},
		{name: "escaped member name", in: `{"jsonrpc":"2.0","id":1,"\u006dethod":"m"}`, kind: kindRequest, id: `1`, method: "m"},
		{name: "member names are case-sensitive", in: `{"jsonrpc":"2.0","ID":1,"Method":"m"}`, kind: kindInvalid, code: CodeInvalidRequest},
		{name: "last duplicate wins", in: `{"jsonrpc":"2.0","id":1,"method":"a","method":"b"}`, kind: kindRequest, id: `1`, method: "b"},
		{name: "spaces everywhere", in: "\r\n{ \"jsonrpc\" : \"2.0\" ,\t\"id\" : -1.5e3 , \"method\":\"m\", \"params\" : { \"a\" : [ 1 , \"}\" ] } }\n", kind: kindRequest, id: `-1.5e3`, method: "m", params: `{ "a" : [ 1 , "}" ] }`},
		{name: "nested strings with brackets", in: `{"jsonrpc":"2.0","method":"m","params":{"s":"]}\"{["}}`, kind: kindNotification, method: "m", params: `{"s":"]}\"{["}`},
		{name: "empty", in: ``, kind: kindInvalid, code: CodeParseError},
		{name: "blank", in: " \n\t", kind: kindInvalid, code: CodeParseError},
		{name: "truncated", in: `{"jsonrpc":"2.0","id":1,"method":"m"`, kind: kindInvalid, code: CodeParseError},
		{name: "garbage", in: `hello`, kind: kindInvalid, code: CodeParseError},
		{name: "bad array", in: `[1,`, kind: kindInvalid, code: CodeParseError},
		{name: "batch", in: `[{"jsonrpc":"2.0","id":1,"method":"m"}]`, kind: kindInvalid, code: CodeInvalidRequest},
		{name: "empty batch", in: `[]`, kind: kindInvalid, code: CodeInvalidRequest},
		{name: "number", in: `42`, kind: kindInvalid, code: CodeInvalidRequest},
		{name: "string", in: `"x"`, kind: kindInvalid, code: CodeInvalidRequest},
		{name: "empty object", in: `{}`, kind: kindInvalid, code: CodeInvalidRequest},
		{name: "only id", in: `{"jsonrpc":"2.0","id":1}`, kind: kindInvalid, code: CodeInvalidRequest},
		{name: "missing jsonrpc", in: `{"id":1,"method":"m"}`, kind: kindInvalid, code: CodeInvalidRequest, id: `1`},
		{name: "wrong jsonrpc", in: `{"jsonrpc":"1.0","id":1,"method":"m"}`, kind: kindInvalid, code: CodeInvalidRequest, id: `1`},
		{name: "method number", in: `{"jsonrpc":"2.0","id":1,"method":1}`, kind: kindInvalid, code: CodeInvalidRequest},
		{name: "method null", in: `{"jsonrpc":"2.0","id":1,"method":null}`, kind: kindInvalid, code: CodeInvalidRequest},
		{name: "id object", in: `{"jsonrpc":"2.0","id":{},"method":"m"}`, kind: kindInvalid, code: CodeInvalidRequest},
		{name: "id bool", in: `{"jsonrpc":"2.0","id":true,"method":"m"}`, kind: kindInvalid, code: CodeInvalidRequest},
		{name: "id null request", in: `{"jsonrpc":"2.0","id":null,"method":"m"}`, kind: kindInvalid, code: CodeInvalidRequest},
		{name: "id fraction", in: `{"jsonrpc":"2.0","id":1.5,"method":"m"}`, kind: kindInvalid, code: CodeInvalidRequest},
		{name: "id fraction by exponent", in: `{"jsonrpc":"2.0","id":1e-1,"method":"m"}`, kind: kindInvalid, code: CodeInvalidRequest},
		{name: "id tiny fraction", in: `{"jsonrpc":"2.0","id":1.0000000000000000000001,"method":"m"}`, kind: kindInvalid, code: CodeInvalidRequest},
		{name: "id huge negative exponent", in: `{"jsonrpc":"2.0","id":5e-99999999999,"method":"m"}`, kind: kindInvalid, code: CodeInvalidRequest},
		{name: "id huge integer", in: `{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"m"}`, kind: kindRequest, id: `123456789012345678901234567890`, method: "m"},
		{name: "id zero fraction", in: `{"jsonrpc":"2.0","id":7.000,"method":"m"}`, kind: kindRequest, id: `7.000`, method: "m"},
		{name: "id integer by exponent", in: `{"jsonrpc":"2.0","id":1.25E+2,"method":"m"}`, kind: kindRequest, id: `1.25E+2`, method: "m"},
		{name: "id huge exponent", in: `{"jsonrpc":"2.0","id":1e99999999999,"method":"m"}`, kind: kindRequest, id: `1e99999999999`, method: "m"},
		{name: "id zero with negative exponent", in: `{"jsonrpc":"2.0","id":0.0e-5,"method":"m"}`, kind: kindRequest, id: `0.0e-5`, method: "m"},
		{name: "response id fraction", in: `{"jsonrpc":"2.0","id":1.5,"result":1}`, kind: kindBadResponse, code: CodeInvalidRequest, id: `1.5`},
		{name: "params string", in: `{"jsonrpc":"2.0","id":1,"method":"m","params":"x"}`, kind: kindInvalid, code: CodeInvalidRequest, id: `1`},
		{name: "request with result", in: `{"jsonrpc":"2.0","id":1,"method":"m","result":1}`, kind: kindInvalid, code: CodeInvalidRequest, id: `1`},
		{name: "response both", in: `{"jsonrpc":"2.0","id":1,"result":1,"error":{"code":1,"message":""}}`, kind: kindBadResponse, code: CodeInvalidRequest, id: `1`},
		{name: "response no id", in: `{"jsonrpc":"2.0","result":1}`, kind: kindBadResponse, code: CodeInvalidRequest},
		{name: "response null id result", in: `{"jsonrpc":"2.0","id":null,"result":1}`, kind: kindBadResponse, code: CodeInvalidRequest, id: `null`},
		{name: "response bad error", in: `{"jsonrpc":"2.0","id":1,"error":"boom"}`, kind: kindBadResponse, code: CodeInvalidRequest, id: `1`},
		{name: "response fractional code", in: `{"jsonrpc":"2.0","id":1,"error":{"code":1.5}}`, kind: kindBadResponse, code: CodeInvalidRequest, id: `1`},
		{name: "response wrong version", in: `{"jsonrpc":"2","id":1,"result":1}`, kind: kindBadResponse, code: CodeInvalidRequest, id: `1`},
		{name: "response id array", in: `{"jsonrpc":"2.0","id":[1],"result":1}`, kind: kindBadResponse, code: CodeInvalidRequest, id: `[1]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := decodeMessage([]byte(tt.in))
			if m.kind != tt.kind {
				t.Fatalf("kind: got %d, want %d (err %v)", m.kind, tt.kind, m.err)
			}
			if tt.code != 0 {
				if m.err == nil {
					t.Fatalf("err: got nil, want code %d", tt.code)
				}
				if m.err.Code != tt.code {
					t.Errorf("code: got %d, want %d", m.err.Code, tt.code)
				}
			} else if m.err != nil {
				t.Errorf("err: got %v, want nil", m.err)
			}
			if string(m.id) != tt.id {
				t.Errorf("id: got %q, want %q", m.id, tt.id)
			}
			if m.method != tt.method {
				t.Errorf("method: got %q, want %q", m.method, tt.method)
			}
			if string(m.params) != tt.params {
				t.Errorf("params: got %q, want %q", m.params, tt.params)
			}
			if string(m.result) != tt.result {
				t.Errorf("result: got %q, want %q", m.result, tt.result)
			}
		})
	}
}

func TestDecodeDoesNotAliasInput(t *testing.T) {
	in := []byte(`{"jsonrpc":"2.0","id":"abc","method":"m","params":{"k":"v"}}`)
	m := decodeMessage(in)
	for i := range in {
		in[i] = 'x'
	}
	if got, want := string(m.id)+string(m.params), `"abc"{"k":"v"}`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

func TestIDKey(t *testing.T) {
	tests := []struct {
		a, b  string
		equal bool
	}{
		{`1`, `1`, true},
		{`1`, `"1"`, false},
		{`"a"`, `"\u0061"`, true},
		{`1`, `1.0`, true},
		{`100`, `1e2`, true},
		{`0`, `-0`, true},
		{`1.5`, `15e-1`, true},
		{`1`, `2`, false},
		{`"x"`, `"y"`, false},
		{`12345678901234567890123`, `12345678901234567890123`, true},
		{`1e400`, `1e400`, true},
	}
	for _, tt := range tests {
		t.Run(tt.a+"="+tt.b, func(t *testing.T) {
			ka, oka := idKey(json.RawMessage(tt.a))
			kb, okb := idKey(json.RawMessage(tt.b))
			if !oka || !okb {
				t.Fatalf("ok: got %v %v, want true true", oka, okb)
			}
			if got := ka == kb; got != tt.equal {
				t.Errorf("equal: got %v (%q, %q), want %v", got, ka, kb, tt.equal)
			}
		})
	}
	for _, bad := range []string{`{}`, `[]`, `true`, `null`} {
		if _, ok := idKey(json.RawMessage(bad)); ok {
			t.Errorf("idKey(%s): got ok, want not ok", bad)
		}
	}
}

func TestCallID(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		ok   bool
	}{
		{`1`, 1, true},
		{`9007199254740993`, 9007199254740993, true},
		{`"1"`, 0, false},
		{`-1`, 0, false},
		{`1.0`, 0, false},
		{`null`, 0, false},
		{`99999999999999999999`, 0, false},
	}
	for _, tt := range tests {
		got, ok := callID(json.RawMessage(tt.in))
		if got != tt.want || ok != tt.ok {
			t.Errorf("callID(%s): got %d %v, want %d %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestEncode(t *testing.T) {
	tests := []struct {
		name string
		enc  func() (*outMsg, error)
		want string
	}{
		{"request", func() (*outMsg, error) { return encodeCall(7, true, "tools/call", map[string]int{"a": 1}) },
			`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"a":1}}`},
		{"notification without params", func() (*outMsg, error) { return encodeCall(0, false, "n", nil) },
			`{"jsonrpc":"2.0","method":"n"}`},
		{"method escaped", func() (*outMsg, error) { return encodeCall(1, true, "a\"<b>\n", nil) },
			`{"jsonrpc":"2.0","id":1,"method":"a\"<b>\n"}`},
		{"raw params", func() (*outMsg, error) {
			return encodeCall(2, true, "m", json.RawMessage(` { "x" : [1, 2], "h": "<&>" } `))
		},
			`{"jsonrpc":"2.0","id":2,"method":"m","params":{"x":[1,2],"h":"<&>"}}`},
		{"result", func() (*outMsg, error) { return encodeResponse(json.RawMessage(`"k"`), []int{1}, nil) },
			`{"jsonrpc":"2.0","id":"k","result":[1]}`},
		{"nil result", func() (*outMsg, error) { return encodeResponse(json.RawMessage(`3`), nil, nil) },
			`{"jsonrpc":"2.0","id":3,"result":null}`},
		{"error null id", func() (*outMsg, error) { return encodeResponse(nil, nil, NewError(CodeParseError, "parse error")) },
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}`},
		{"encoded params in parts", func() (*outMsg, error) {
			return encodeEncodedNotify("agent/event", [][]byte{[]byte(`{"sessionId":"s1",`), []byte(`"seq":4,"text":"<&>"}`)})
		}, `{"jsonrpc":"2.0","method":"agent/event","params":{"sessionId":"s1","seq":4,"text":"<&>"}}`},
		{"error with data", func() (*outMsg, error) {
			return encodeResponse(json.RawMessage(`1`), nil, &Error{Code: -32001, Message: "busy", Data: json.RawMessage(`{"retry":true}`)})
		}, `{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"busy","data":{"retry":true}}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := tt.enc()
			if err != nil {
				t.Fatal(err)
			}
			if got := string(m.bytes()); got != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
			if !json.Valid(m.bytes()) {
				t.Errorf("got invalid JSON %s", m.bytes())
			}
			putOut(m)
		})
	}
	for _, parts := range [][][]byte{nil, {[]byte(`3`)}, {[]byte(`"s"`)}, {[]byte(`{"a":1`)}, {[]byte(`{"a":1}`), []byte(`x`)}, {[]byte(`{"a":1}{}`)}} {
		if m, err := encodeEncodedNotify("m", parts); err == nil {
			t.Errorf("encoded params %q: got %s, want an error", parts, m.bytes())
		}
	}
	if _, err := encodeCall(1, true, "m", make(chan int)); err == nil {
		t.Error("encoding a chan: got nil error, want one")
	}
	if _, err := encodeResponse(json.RawMessage(`1`), math.NaN(), nil); err == nil {
		t.Error("encoding NaN: got nil error, want one")
	}
}

func TestErrorIs(t *testing.T) {
	e := &Error{Code: CodeMethodNotFound, Message: "method not found"}
	if got, want := e.Error(), "method not found (code -32601)"; got != want {
		t.Errorf("Error(): got %q, want %q", got, want)
	}
	tests := []struct {
		target error
		want   bool
	}{
		{NewError(CodeMethodNotFound, "other text"), true},
		{NewError(CodeInternalError, "method not found"), false},
		{ErrClosed, false},
		{(*Error)(nil), false},
	}
	for _, tt := range tests {
		if got := e.Is(tt.target); got != tt.want {
			t.Errorf("Is(%v): got %v, want %v", tt.target, got, tt.want)
		}
	}
}
