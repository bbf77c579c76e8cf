package mcpservers

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"

	"github.com/byomcp/byomcp/agentsvc/internal/linereader"
)

// stdioTransport runs a stdio server's command and speaks newline-delimited JSON-RPC on
// its stdin and stdout, like the SDK's mcp.CommandTransport, except that lines of stdout
// that are not JSON-RPC messages (a startup banner, a stray print) are logged and
// skipped instead of ending the connection. The MCP spec forbids them (Transports,
// stdio: "The server MUST NOT write anything to its stdout that is not a valid MCP
// message"), but servers that log to stdout are common, and the TypeScript SDK's client
// keeps reading past them too.
type stdioTransport struct {
	cmd *exec.Cmd
	log *zap.Logger // carries the server's name
}

// stdioMaxLine bounds one line of a server's stdout, as the SDK bounds one message.
const stdioMaxLine = mcp.DefaultMaxLineLength

// Connect starts the command.
func (t *stdioTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	stdout, err := t.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	stdin, err := t.cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	if err := t.cmd.Start(); err != nil {
		return nil, err
	}
	lines := &jsonLines{r: bufio.NewReader(stdout), max: stdioMaxLine, skip: skipLogger(t.log)}
	// The connection is closed by closing stdin (childStdin.Close), never stdout: Wait
	// closes stdout once the process has exited.
	return (&mcp.IOTransport{
		Reader:        io.NopCloser(lines),
		Writer:        &childStdin{cmd: t.cmd, stdin: stdin, terminate: stdioTerminateWait},
		MaxLineLength: stdioMaxLine + 1, // the line and its newline
	}).Connect(ctx)
}

// stdioTerminateWait is how long closing a stdio server waits for it to exit after
// closing its stdin, and again after SIGTERM, before killing it (the SDK's default).
const stdioTerminateWait = 5 * time.Second

// childStdin is the writing half of a stdio connection. Its Close ends the process as
// the spec's stdio shutdown says: close stdin, wait; SIGTERM, wait; SIGKILL.
type childStdin struct {
	cmd       *exec.Cmd
	stdin     io.WriteCloser
	terminate time.Duration

	once sync.Once
	err  error
}

func (c *childStdin) Write(p []byte) (int, error) { return c.stdin.Write(p) }

func (c *childStdin) Close() error {
	c.once.Do(func() { c.err = c.stop() })
	return c.err
}

func (c *childStdin) stop() error {
	if err := c.stdin.Close(); err != nil {
		return fmt.Errorf("closing stdin: %w", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- c.cmd.Wait() }()
	wait := func() (error, bool) {
		t := time.NewTimer(c.terminate)
		defer t.Stop()
		select {
		case err := <-exited:
			return err, true
		case <-t.C:
			return nil, false
		}
	}
	if err, ok := wait(); ok {
		return err
	}
	if c.cmd.Process.Signal(syscall.SIGTERM) == nil { // if signalling fails, kill at once
		if err, ok := wait(); ok {
			return err
		}
	}
	if err := c.cmd.Process.Kill(); err != nil {
		return err
	}
	if err, ok := wait(); ok {
		return err
	}
	return errors.New("stdio server does not exit after SIGKILL")
}

// maxWarnedLines is how many skipped lines of one process are logged at Warn; the rest go
// to Debug, so that a server that logs everything to stdout does not flood the log.
const maxWarnedLines = 20

// skipLogger returns the jsonLines.skip of one process: it logs each skipped line once,
// cut to 200 bytes.
func skipLogger(log *zap.Logger) func(line []byte) {
	const msg = "MCP server wrote a line that is not JSON-RPC on stdout; skipping it"
	n := 0
	return func(line []byte) {
		n++
		shown := string(line) // a copy: line is reused
		if len(line) > 200 {
			shown = string(bytes.ToValidUTF8(line[:200], nil)) + "…"
		}
		switch {
		case n < maxWarnedLines:
			log.Warn(msg, zap.String("line", shown))
		case n == maxWarnedLines:
			log.Warn(msg+" (further such lines are logged at debug level)", zap.String("line", shown))
		default:
			log.Debug(msg, zap.String("line", shown))
		}
	}
}

// jsonLines reads newline-delimited JSON-RPC from r, passing on each line that holds one
// JSON object or array (a message or a batch), with surrounding spaces removed and a
// newline, and handing every other non-blank line to skip. A line longer than max bytes
// is an error. Only one goroutine may read it.
type jsonLines struct {
	r    *bufio.Reader
	max  int
	skip func(line []byte)

	buf []byte // the line being read
	out []byte // what is left to pass on of the current message
	err error  // r's error, returned once out is empty
}

func (j *jsonLines) Read(p []byte) (int, error) {
	for len(j.out) == 0 {
		if j.err != nil {
			return 0, j.err
		}
		var line []byte
		line, j.err = j.nextLine()
		line = bytes.TrimSpace(line)
		switch {
		case len(line) == 0:
		case (line[0] == '{' || line[0] == '[') && json.Valid(line):
			j.out = append(line, '\n') // overwrites at most the line's own trailing space
		default:
			j.skip(line)
		}
	}
	n := copy(p, j.out)
	j.out = j.out[n:]
	return n, nil
}

// nextLine reads the next line into j.buf (linereader.Read).
func (j *jsonLines) nextLine() ([]byte, error) {
	var err error
	j.buf, err = linereader.Read(j.r, j.buf, j.max)
	return j.buf, err
}
