package wsrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"sync"
	"unicode/utf8"

	fastjson "github.com/segmentio/encoding/json"
)

// msgKind says what an incoming message is.
type msgKind uint8

const (
	kindInvalid      msgKind = iota // not usable: answer message.err with message.id (nil = null)
	kindRequest                     // method and id
	kindNotification                // method, no id
	kindResponse                    // result or error for one of our calls
	kindBadResponse                 // looks like a response but is malformed; never answered
)

// message is a decoded incoming JSON-RPC message. Its slices do not alias the input.
type message struct {
	kind   msgKind
	id     json.RawMessage // as received; for kindInvalid only set when it may be echoed
	method string
	params json.RawMessage // nil when absent or null
	result json.RawMessage
	err    *Error // kindResponse: the error member (nil on success); otherwise: what is wrong
}

// wireMessage holds the members of a message object that JSON-RPC defines, as raw JSON.
type wireMessage struct {
	JSONRPC json.RawMessage
	ID      json.RawMessage
	Method  json.RawMessage
	Params  json.RawMessage
	Result  json.RawMessage
	Error   json.RawMessage
}

var jsonrpcVersion = []byte(`"2.0"`)

func invalid(code int64, msg string, id json.RawMessage) message {
	return message{kind: kindInvalid, id: id, err: NewError(code, msg)}
}

// decodeMessage classifies one incoming message. It never fails: what it cannot use comes back
// as kindInvalid (with the error to send) or kindBadResponse. It copies data once; the result's
// slices point into that copy.
func decodeMessage(data []byte) message {
	trimmed := bytes.TrimLeft(data, " \t\r\n")
	if len(trimmed) == 0 || !fastjson.Valid(trimmed) { // as encoding/json's, faster
		return invalid(CodeParseError, "parse error", nil)
	}
	switch trimmed[0] {
	case '{':
	case '[':
		return invalid(CodeInvalidRequest, "batch requests are not supported", nil)
	default:
		return invalid(CodeInvalidRequest, "a message must be a JSON object", nil)
	}
	var w wireMessage
	splitObject(bytes.Clone(trimmed), &w)
	switch {
	case w.Method != nil:
		return decodeRequest(&w)
	case w.Result != nil || w.Error != nil:
		return decodeResponse(&w)
	default:
		return invalid(CodeInvalidRequest, "not a JSON-RPC request or response", nil)
	}
}

// splitObject sets w's fields to the raw values of the members of obj, a valid JSON object.
// Member names are matched exactly (after unescaping); the last of duplicate members wins;
// the values alias obj.
func splitObject(obj []byte, w *wireMessage) {
	i := skipSpace(obj, 1)
	for obj[i] != '}' {
		if obj[i] == ',' {
			i = skipSpace(obj, i+1)
		}
		start := i
		i = skipString(obj, i)
		key := obj[start:i]
		i = skipSpace(obj, skipSpace(obj, i)+1) // the colon and the spaces around it
		start = i
		i = skipValue(obj, i)
		val := obj[start:i:i]
		i = skipSpace(obj, i)
		name := string(key[1 : len(key)-1]) // does not escape: no allocation for short names
		if bytes.IndexByte(key, '\\') >= 0 {
			name, _ = decodeString(key)
		}
		switch name {
		case "jsonrpc":
			w.JSONRPC = val
		case "id":
			w.ID = val
		case "method":
			w.Method = val
		case "params":
			w.Params = val
		case "result":
			w.Result = val
		case "error":
			w.Error = val
		}
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}

// skipString returns the index after the valid JSON string starting at b[i].
func skipString(b []byte, i int) int {
	for i++; b[i] != '"'; i++ {
		if b[i] == '\\' {
			i++
		}
	}
	return i + 1
}

// skipValue returns the index after the valid JSON value starting at b[i].
func skipValue(b []byte, i int) int {
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for {
			switch b[i] {
			case '"':
				i = skipString(b, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
	default: // number, true, false, null
		for ; i < len(b); i++ {
			switch b[i] {
			case ',', '}', ']', ' ', '\t', '\r', '\n':
				return i
			}
		}
		return i
	}
}

func decodeRequest(w *wireMessage) message {
	if w.ID != nil && !validID(w.ID) {
		return invalid(CodeInvalidRequest, "id must be a string or an integer", nil)
	}
	method, ok := decodeString(w.Method)
	if !ok {
		return invalid(CodeInvalidRequest, "method must be a string", nil)
	}
	if !bytes.Equal(w.JSONRPC, jsonrpcVersion) {
		return invalid(CodeInvalidRequest, `jsonrpc must be "2.0"`, w.ID)
	}
	if w.Result != nil || w.Error != nil {
		return invalid(CodeInvalidRequest, "a request cannot have result or error", w.ID)
	}
	params := w.Params
	if isNull(params) {
		params = nil
	} else if params != nil && params[0] != '{' && params[0] != '[' {
		return invalid(CodeInvalidRequest, "params must be an object or an array", w.ID)
	}
	m := message{kind: kindRequest, id: w.ID, method: method, params: params}
	if w.ID == nil {
		m.kind = kindNotification
	}
	return m
}

func decodeResponse(w *wireMessage) message {
	bad := func(msg string) message {
		return message{kind: kindBadResponse, id: w.ID, err: NewError(CodeInvalidRequest, msg)}
	}
	switch {
	case !bytes.Equal(w.JSONRPC, jsonrpcVersion):
		return bad(`jsonrpc must be "2.0"`)
	case w.ID == nil:
		return bad("response without id")
	case !isNull(w.ID) && !validID(w.ID):
		return bad("id must be a string or an integer")
	case w.Result != nil && w.Error != nil:
		return bad("response with both result and error")
	case w.Error != nil:
		var e Error
		if isNull(w.Error) || json.Unmarshal(w.Error, &e) != nil {
			return bad("malformed error object")
		}
		return message{kind: kindResponse, id: w.ID, err: &e}
	case isNull(w.ID):
		return bad("result with a null id")
	default:
		return message{kind: kindResponse, id: w.ID, result: w.Result}
	}
}

func isNull(raw json.RawMessage) bool {
	return string(raw) == "null"
}

// validID reports whether raw (valid JSON) is an id MCP allows: a string or an integer.
// An integer is any number without a fractional part, however it is written (7, 7.0, 7e0 and
// 123456789012345678901234567890 are integers; 1.5 and 1e-1 are not), as JSON Schema's
// "integer" of docs/protocol.schema.json counts them. The id is echoed as written.
func validID(raw json.RawMessage) bool {
	return isString(raw) || (isNumber(raw) && integral(raw))
}

func isString(raw json.RawMessage) bool { return len(raw) > 0 && raw[0] == '"' }

func isNumber(raw json.RawMessage) bool {
	return len(raw) > 0 && (raw[0] == '-' || (raw[0] >= '0' && raw[0] <= '9'))
}

// integral reports whether num, a valid JSON number, has no fractional part: every digit
// that the exponent leaves after the decimal point is a zero. It does not convert num, so
// the size of the number or of its exponent does not matter.
func integral(num []byte) bool {
	if num[0] == '-' {
		num = num[1:]
	}
	var exp int64
	if i := bytes.IndexAny(num, "eE"); i >= 0 {
		e, err := strconv.ParseInt(string(num[i+1:]), 10, 32)
		switch {
		case err == nil:
			exp = e
		case num[i+1] == '-': // beyond any digit: only zeros are integral
			exp = math.MinInt32
		default:
			exp = math.MaxInt32
		}
		num = num[:i]
	}
	point := int64(len(num)) // digits before the decimal point
	if dot := bytes.IndexByte(num, '.'); dot >= 0 {
		point = int64(dot)
	}
	fraction := point + exp // the index of the first digit after the point, once shifted
	var k int64
	for _, c := range num {
		if c == '.' {
			continue
		}
		if k >= fraction && c != '0' {
			return false
		}
		k++
	}
	return true
}

// decodeString returns the string that raw (valid JSON) encodes, if it is a string.
func decodeString(raw json.RawMessage) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' {
		return "", false
	}
	if bytes.IndexByte(raw, '\\') < 0 && utf8.Valid(raw) {
		return string(raw[1 : len(raw)-1]), true
	}
	// Escapes or invalid UTF-8 (which becomes U+FFFD, as encoding/json does).
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", false
	}
	return s, true
}

// idKey returns a canonical form of a request id (valid JSON) so that equal ids compare equal
// however they are spelled: "a" and "\u0061" match, 1 and 1.0 and 1e0 match, 1 and "1" do not.
func idKey(raw json.RawMessage) (string, bool) {
	if s, ok := decodeString(raw); ok {
		return "s" + s, true
	}
	if !isNumber(raw) {
		return "", false
	}
	if !bytes.ContainsAny(raw, ".eE") {
		if string(raw) == "-0" {
			return "n0", true
		}
		return "n" + string(raw), true
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil { // out of float64 range: compare as written
		return "n" + string(raw), true
	}
	if f == math.Trunc(f) && math.Abs(f) < 1<<53 {
		return "n" + strconv.FormatInt(int64(f), 10), true
	}
	return "n" + strconv.FormatFloat(f, 'g', -1, 64), true
}

// callID returns our own call id from a response id: only plain integers can be ours.
func callID(raw json.RawMessage) (int64, bool) {
	if len(raw) == 0 || len(raw) > 20 {
		return 0, false
	}
	for _, c := range raw {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil {
		return 0, false
	}
	return n, true
}

// outMsg is an encoded outgoing message. They are pooled: the write goroutine puts each back
// after writing it.
type outMsg struct {
	buf bytes.Buffer
	enc *json.Encoder
}

// maxPooledMessage is the largest buffer kept in the pool.
const maxPooledMessage = 64 << 10

var outPool = sync.Pool{New: func() any {
	m := &outMsg{}
	m.enc = json.NewEncoder(&m.buf)
	m.enc.SetEscapeHTML(false) // JSON text over a socket: no need to escape <, > and &
	return m
}}

func getOut() *outMsg {
	m := outPool.Get().(*outMsg)
	m.buf.Reset()
	return m
}

func putOut(m *outMsg) {
	if m != nil && m.buf.Cap() <= maxPooledMessage {
		outPool.Put(m)
	}
}

func (m *outMsg) bytes() []byte { return m.buf.Bytes() }

// appendJSON appends v as JSON. On error nothing is appended.
func (m *outMsg) appendJSON(v any) error {
	if err := m.enc.Encode(v); err != nil {
		return err
	}
	m.buf.Truncate(m.buf.Len() - 1) // Encode ends with a newline
	return nil
}

// appendString appends s as a JSON string.
func (m *outMsg) appendString(s string) {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			_ = m.appendJSON(s) // a string always encodes
			return
		}
	}
	m.buf.WriteByte('"')
	m.buf.WriteString(s)
	m.buf.WriteByte('"')
}

// encodeEncodedNotify encodes a notification whose params are already encoded: the
// concatenation of parts, which must be one valid JSON object or array.
func encodeEncodedNotify(method string, parts [][]byte) (*outMsg, error) {
	m := getOut()
	m.buf.WriteString(`{"jsonrpc":"2.0","method":`)
	m.appendString(method)
	m.buf.WriteString(`,"params":`)
	start := m.buf.Len()
	for _, part := range parts {
		m.buf.Write(part)
	}
	params := m.buf.Bytes()[start:]
	if len(params) == 0 || (params[0] != '{' && params[0] != '[') || !fastjson.Valid(params) {
		putOut(m)
		return nil, errors.New("params must be a valid JSON object or array")
	}
	m.buf.WriteByte('}')
	return m, nil
}

// encodeCall encodes a request (withID) or a notification.
func encodeCall(id int64, withID bool, method string, params any) (*outMsg, error) {
	m := getOut()
	m.buf.WriteString(`{"jsonrpc":"2.0",`)
	if withID {
		m.buf.WriteString(`"id":`)
		m.buf.Write(strconv.AppendInt(m.buf.AvailableBuffer(), id, 10))
		m.buf.WriteByte(',')
	}
	m.buf.WriteString(`"method":`)
	m.appendString(method)
	if params != nil {
		m.buf.WriteString(`,"params":`)
		start := m.buf.Len()
		if err := m.appendJSON(params); err != nil {
			putOut(m)
			return nil, err
		}
		if c := m.buf.Bytes()[start]; c != '{' && c != '[' && c != 'n' { // n: null
			putOut(m)
			return nil, errors.New("params must be an object or an array")
		}
	}
	m.buf.WriteByte('}')
	return m, nil
}

// encodeResponse encodes the answer to request id (nil: null): rpcErr if set, else result.
func encodeResponse(id json.RawMessage, result any, rpcErr *Error) (*outMsg, error) {
	m := getOut()
	m.buf.WriteString(`{"jsonrpc":"2.0","id":`)
	if id == nil {
		m.buf.WriteString("null")
	} else {
		m.buf.Write(id)
	}
	var err error
	if rpcErr != nil {
		m.buf.WriteString(`,"error":`)
		err = m.appendJSON(rpcErr)
	} else {
		m.buf.WriteString(`,"result":`)
		err = m.appendJSON(result)
	}
	if err != nil {
		putOut(m)
		return nil, err
	}
	m.buf.WriteByte('}')
	return m, nil
}
