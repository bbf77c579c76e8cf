package loadgen

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/byomcp/byomcp/agentsvc/llm"
	"github.com/byomcp/byomcp/agentsvc/llm/llmtest"
)

// ToolName is the page tool the fake model calls.
const ToolName = "lookup"

// ToolSchema is the input schema of ToolName.
const ToolSchema = `{"type":"object","properties":{"q":{"type":"string","minLength":1}},"required":["q"],"additionalProperties":false}`

// turnMarker starts the text of every turn the generator sends: "bench:<page>:<turn> tools=<n>".
const turnMarker = "bench:"

var toolsRE = regexp.MustCompile(`tools=(\d+)`)

// The fake models of Scenario.Model.
const (
	// ModelHTTP is the Go fake model on plain HTTP/1.1 with keep-alive.
	ModelHTTP = ""
	// ModelTLS is the same behind HTTPS (HTTP/1.1 keep-alive, like a provider), with a
	// certificate of its own that the spawned agents trust through SSL_CERT_FILE (Go) and
	// NODE_EXTRA_CA_CERTS (Node).
	ModelTLS = "tls"
	// ModelPython is bench/slow-model.py: Python's http.server (HTTP/1.0, a connection per
	// request, a listen queue of 5), as many local inference wrappers are; realistic pages
	// only.
	ModelPython = "python"
)

// Model is a fake OpenAI-compatible model of a run, on a loopback port. The Go one
// (llmtest) answers a turn whose text says "tools=N" with N parallel calls of ToolName and,
// once the results are in, a short text; a realistic turn ("script=<page>/<turn>") with its
// script's calls and answer. It records how long it spent on each turn (from a request's
// arrival to its last byte written), so that model time can be taken out of the turn latency
// the pages measure, and counts the connections and TLS handshakes it accepts. The Python
// one answers realistic turns the same way, but neither times them nor counts connections.
type Model struct {
	// URL is the base URL to give an OpenAI client (OPENAI_BASE_URL), ending in /v1.
	URL string
	// Kind is ModelHTTP, ModelTLS or ModelPython.
	Kind string
	// CAFile is the PEM certificate a client must trust to reach a ModelTLS model.
	CAFile string

	fake   *llmtest.Server
	hs     *httptest.Server
	py     *exec.Cmd
	pyWait chan struct{}
	dir    string

	requests   atomic.Int64
	conns      atomic.Int64
	handshakes atomic.Int64
	mu         sync.Mutex
	spent      map[string]time.Duration // model time by turn key ("<page>:<turn>")
}

// StartModel starts the Go fake model on plain HTTP. Close it when done.
func StartModel() (*Model, error) { return StartModelKind(context.Background(), ModelHTTP, nil) }

// StartModelKind starts a fake model of kind. python is the command of the Python model
// (default "python3 bench/slow-model.py", run from the current directory).
func StartModelKind(ctx context.Context, kind string, python []string) (*Model, error) {
	switch kind {
	case ModelHTTP, ModelTLS:
		return startGoModel(kind)
	case ModelPython:
		return startPythonModel(ctx, python)
	}
	return nil, fmt.Errorf("loadgen: unknown model %q", kind)
}

func startGoModel(kind string) (*Model, error) {
	m := &Model{
		Kind:  kind,
		fake:  llmtest.NewInMemory(llmtest.WithResponder(respond), llmtest.NoRecording()),
		spent: map[string]time.Duration{},
	}
	m.hs = httptest.NewUnstartedServer(m)
	m.hs.Config.ReadHeaderTimeout = 10 * time.Second
	m.hs.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			m.conns.Add(1)
		}
	}
	if kind == ModelHTTP {
		m.hs.Start()
		m.URL = m.hs.URL + "/v1"
		return m, nil
	}
	m.hs.EnableHTTP2 = false // HTTP/1.1 keep-alive, where a pool too small shows
	m.hs.TLS = &tls.Config{GetConfigForClient: func(*tls.ClientHelloInfo) (*tls.Config, error) {
		m.handshakes.Add(1)
		return nil, nil
	}}
	m.hs.StartTLS()
	m.URL = m.hs.URL + "/v1"
	dir, err := os.MkdirTemp("", "byomcp-bench-ca-")
	if err != nil {
		m.Close()
		return nil, err
	}
	m.dir = dir
	m.CAFile = filepath.Join(dir, "model-ca.pem")
	cert := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: m.hs.Certificate().Raw})
	if err := os.WriteFile(m.CAFile, cert, 0o600); err != nil {
		m.Close()
		return nil, err
	}
	return m, nil
}

// startPythonModel runs bench/slow-model.py with the realistic conversations and waits for
// the URL it prints first.
func startPythonModel(ctx context.Context, argv []string) (*Model, error) {
	if len(argv) == 0 {
		argv = []string{"python3", "bench/slow-model.py"}
	}
	dir, err := os.MkdirTemp("", "byomcp-bench-py-")
	if err != nil {
		return nil, err
	}
	conv := filepath.Join(dir, "conversations.json")
	if err := WriteConversations(conv); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	cmd := exec.Command(argv[0], append(argv[1:], "--conversations", conv)...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	stderr := &tailBuffer{max: 4 << 10}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("loadgen: starting the Python model (%s): %w", strings.Join(argv, " "), err)
	}
	m := &Model{Kind: ModelPython, py: cmd, pyWait: make(chan struct{}), dir: dir}
	first := make(chan string, 1)
	go func() {
		br := bufio.NewReader(out)
		line, _ := br.ReadString('\n')
		first <- line
		_, _ = io.Copy(io.Discard, br)
		_ = cmd.Wait()
		close(m.pyWait)
	}()
	timer := time.NewTimer(15 * time.Second)
	defer timer.Stop()
	select {
	case line := <-first:
		if u := urlRE.FindString(line); u != "" {
			m.URL = u + "/v1"
			return m, nil
		}
		m.Close()
		return nil, fmt.Errorf("loadgen: the Python model printed %q, not its URL; stderr: %s", strings.TrimSpace(line), stderr)
	case <-timer.C:
	case <-ctx.Done():
	}
	m.Close()
	return nil, fmt.Errorf("loadgen: the Python model did not print its URL; stderr: %s", stderr)
}

// Close stops the model server.
func (m *Model) Close() {
	if m.hs != nil {
		m.hs.Close()
	}
	if m.fake != nil {
		m.fake.Close()
	}
	if m.py != nil {
		_ = m.py.Process.Kill()
		<-m.pyWait
	}
	if m.dir != "" {
		_ = os.RemoveAll(m.dir)
	}
}

// Requests reports the model requests served so far.
func (m *Model) Requests() int64 { return m.counts().calls }

// ClientTLS is the TLS configuration that trusts a ModelTLS model (nil for the others).
func (m *Model) ClientTLS() *tls.Config {
	if m.Kind != ModelTLS {
		return nil
	}
	pool := x509.NewCertPool()
	pool.AddCert(m.hs.Certificate())
	return &tls.Config{RootCAs: pool}
}

// Env is what a spawned agent needs in its environment to use the model: the CA file of
// a ModelTLS model, for Go (SSL_CERT_FILE, read by crypto/x509 on Linux) and Node
// (NODE_EXTRA_CA_CERTS); and, for the Go models, which stand for a remote provider,
// byomcp's pool sized as for one (it would otherwise take their loopback address for a
// small local server). The Python model is such a local server: it gets the defaults.
func (m *Model) Env() []string {
	var env []string
	if m.Kind != ModelPython {
		env = append(env, llm.EnvModelConns+"="+strconv.Itoa(llm.DefaultMaxConns))
	}
	if m.CAFile != "" {
		env = append(env, "SSL_CERT_FILE="+m.CAFile, "NODE_EXTRA_CA_CERTS="+m.CAFile)
	}
	return env
}

// modelCounts are the model's counters at one moment.
type modelCounts struct{ calls, conns, handshakes, overflows int64 }

func (m *Model) counts() modelCounts {
	c := modelCounts{calls: m.requests.Load(), conns: m.conns.Load(), handshakes: m.handshakes.Load()}
	if m.Kind == ModelPython {
		c.calls = m.pythonCalls()
	}
	c.overflows, _ = listenOverflows()
	return c
}

// pythonCalls asks the Python model how many model calls it served (GET /stats).
func (m *Model) pythonCalls() int64 {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(m.URL, "/v1")+"/stats", nil)
	if err != nil {
		return 0
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0
	}
	defer res.Body.Close()
	var stats struct {
		Calls int64 `json:"calls"`
	}
	_ = json.NewDecoder(res.Body).Decode(&stats)
	return stats.Calls
}

// listenOverflows reads the kernel's count of connections dropped by full listen queues
// (TcpExt ListenOverflows in /proc/net/netstat).
func listenOverflows() (int64, error) {
	b, err := os.ReadFile("/proc/net/netstat")
	if err != nil {
		return 0, err
	}
	lines := strings.Split(string(b), "\n")
	for i := 0; i+1 < len(lines); i++ {
		if !strings.HasPrefix(lines[i], "TcpExt:") || !strings.HasPrefix(lines[i+1], "TcpExt:") {
			continue
		}
		names, values := strings.Fields(lines[i]), strings.Fields(lines[i+1])
		for j, n := range names {
			if n == "ListenOverflows" && j < len(values) {
				return strconv.ParseInt(values[j], 10, 64)
			}
		}
	}
	return 0, errors.New("loadgen: no ListenOverflows in /proc/net/netstat")
}

// respond is the fake model's behaviour (see Model).
func respond(req llmtest.RecordedRequest) llmtest.Step {
	if step, ok := respondScript(req); ok {
		return step
	}
	if req.LastMessage().Role == "tool" {
		return llmtest.Step{Text: "Done: the lookup found 3 cars."}
	}
	n := 1
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role == "user" {
			if m := toolsRE.FindStringSubmatch(req.Messages[i].Content); m != nil {
				n, _ = strconv.Atoi(m[1])
			}
			break
		}
	}
	calls := make([]llmtest.FakeCall, n)
	for i := range calls {
		calls[i] = llmtest.FakeCall{Name: ToolName, Args: `{"q":"red cars"}`}
	}
	return llmtest.Step{ToolCalls: calls}
}

// ServeHTTP times a request and hands it to llmtest.
func (m *Model) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	m.requests.Add(1)
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	tw := &timedWriter{ResponseWriter: w, last: start}
	m.fake.ServeHTTP(tw, r)
	if key := turnKey(body); key != "" {
		m.mu.Lock()
		m.spent[key] += tw.last.Sub(start)
		m.mu.Unlock()
	}
}

// take returns the model time spent on a turn and forgets it; ok is false when the model
// does not time turns (the Python one).
func (m *Model) take(key string) (time.Duration, bool) {
	if m.Kind == ModelPython {
		return 0, false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	d := m.spent[key]
	delete(m.spent, key)
	return d, true
}

// turnKey finds the turn a request belongs to: the marker of the last user message, which
// is the last marker in the body (tool results and answers never contain one).
func turnKey(body []byte) string {
	i := bytes.LastIndex(body, []byte(turnMarker))
	if i < 0 {
		return ""
	}
	rest := body[i+len(turnMarker):]
	end := bytes.IndexAny(rest, " \"\\")
	if end < 0 {
		return ""
	}
	return string(rest[:end])
}

// timedWriter notes when the last byte of a response was written.
type timedWriter struct {
	http.ResponseWriter
	last time.Time
}

func (t *timedWriter) Write(b []byte) (int, error) {
	n, err := t.ResponseWriter.Write(b)
	t.last = time.Now()
	return n, err
}

// Flush sends what is buffered (SSE chunks are flushed one by one).
func (t *timedWriter) Flush() {
	if f, ok := t.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
	t.last = time.Now()
}
