package toolserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"

	"github.com/byomcp/byomcp/agentsvc/internal/linereader"
)

// maxLine bounds one input line, as the SDK bounds one message.
const maxLine = mcp.DefaultMaxLineLength

// newStdioTransport is mcp.StdioTransport over r and w, except that an input line that is
// not a JSON-RPC message is answered with an error whose id is null, as JSON-RPC 2.0
// (section 5, "Response object") says, and the connection goes on: -32700 Parse error
// for a line that is not JSON, -32600 Invalid Request for JSON that is not a request,
// notification or response. The SDK's own transport ends the connection at such a line.
func newStdioTransport(r io.Reader, w io.Writer, log *zap.Logger) mcp.Transport {
	out := &lockedWriter{w: w}
	in := &requestLines{r: bufio.NewReader(r), out: out, log: log}
	if c, ok := r.(io.Closer); ok {
		in.closer = c
	}
	return &mcp.IOTransport{Reader: in, Writer: out, MaxLineLength: maxLine + 1}
}

// lockedWriter lets requestLines write its error responses between the SDK's messages,
// each of which the SDK writes in one call. Close does not close w (stdout).
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (l *lockedWriter) Close() error { return nil }

// requestLines passes on the lines of r that are JSON-RPC messages and answers the others
// on out. Only one goroutine may read it.
type requestLines struct {
	r      *bufio.Reader
	out    io.Writer
	log    *zap.Logger
	closer io.Closer

	buf []byte // the line being read
	msg []byte // what is left to pass on of the current message
	err error  // r's error, returned once msg is empty
}

func (l *requestLines) Read(p []byte) (int, error) {
	for len(l.msg) == 0 {
		if l.err != nil {
			return 0, l.err
		}
		var line []byte
		line, l.err = l.nextLine()
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		if code, why := checkMessage(line); code != 0 {
			l.log.Debug("answering an input line that is not a JSON-RPC message", zap.Int("code", code), zap.String("why", why))
			resp := fmt.Sprintf(`{"jsonrpc":"2.0","id":null,"error":{"code":%d,"message":%q}}`+"\n", code, why)
			if _, err := io.WriteString(l.out, resp); err != nil {
				return 0, err
			}
			continue
		}
		l.msg = append(line, '\n') // overwrites at most the line's own trailing space
	}
	n := copy(p, l.msg)
	l.msg = l.msg[n:]
	return n, nil
}

func (l *requestLines) Close() error {
	if l.closer != nil {
		return l.closer.Close()
	}
	return nil
}

// checkMessage returns 0 for a JSON-RPC message or a non-empty batch of them, else the
// error code and message to answer with.
func checkMessage(line []byte) (code int, why string) {
	if !json.Valid(line) {
		return jsonrpc.CodeParseError, "Parse error"
	}
	var items []json.RawMessage
	switch line[0] {
	case '{':
		items = []json.RawMessage{line}
	case '[':
		if json.Unmarshal(line, &items) != nil || len(items) == 0 {
			return jsonrpc.CodeInvalidRequest, "Invalid Request"
		}
	default:
		return jsonrpc.CodeInvalidRequest, "Invalid Request"
	}
	for _, item := range items {
		if _, err := jsonrpc.DecodeMessage(item); err != nil {
			return jsonrpc.CodeInvalidRequest, "Invalid Request"
		}
	}
	return 0, ""
}

// nextLine reads the next line into l.buf (linereader.Read).
func (l *requestLines) nextLine() ([]byte, error) {
	var err error
	l.buf, err = linereader.Read(l.r, l.buf, maxLine)
	return l.buf, err
}
