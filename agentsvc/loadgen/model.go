package loadgen

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/byomcp/byomcp/agentsvc/llm/llmtest"
)

// ToolName is the page tool the fake model calls.
const ToolName = "lookup"

// ToolSchema is the input schema of ToolName.
const ToolSchema = `{"type":"object","properties":{"q":{"type":"string","minLength":1}},"required":["q"],"additionalProperties":false}`

// turnMarker starts the text of every turn the generator sends: "bench:<page>:<turn> tools=<n>".
const turnMarker = "bench:"

var toolsRE = regexp.MustCompile(`tools=(\d+)`)

// Model is the fake OpenAI-compatible model of a run (llmtest, on a loopback port). For a
// turn whose text says "tools=N" it first asks for N parallel calls of ToolName, then, once
// the results are in, answers with a short text. It records how long it spent on each turn
// (from a request's arrival to its last byte written), so that model time can be taken out
// of the turn latency the pages measure.
type Model struct {
	// URL is the base URL to give an OpenAI client (OPENAI_BASE_URL), ending in /v1.
	URL string

	fake *llmtest.Server
	hs   *http.Server
	done chan struct{}

	requests atomic.Int64
	mu       sync.Mutex
	spent    map[string]time.Duration // model time by turn key ("<page>:<turn>")
}

// StartModel starts the fake model on a loopback port. Close it when done.
func StartModel() (*Model, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	m := &Model{
		URL:   "http://" + ln.Addr().String() + "/v1",
		fake:  llmtest.NewInMemory(llmtest.WithResponder(respond), llmtest.NoRecording()),
		done:  make(chan struct{}),
		spent: map[string]time.Duration{},
	}
	m.hs = &http.Server{Handler: m, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		defer close(m.done)
		_ = m.hs.Serve(ln)
	}()
	return m, nil
}

// Close stops the model server.
func (m *Model) Close() {
	_ = m.hs.Close()
	<-m.done
	m.fake.Close()
}

// Requests reports the model requests served so far.
func (m *Model) Requests() int64 { return m.requests.Load() }

// respond is the fake model's behaviour (see Model).
func respond(req llmtest.RecordedRequest) llmtest.Step {
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

// take returns the model time spent on a turn and forgets it.
func (m *Model) take(key string) time.Duration {
	m.mu.Lock()
	defer m.mu.Unlock()
	d := m.spent[key]
	delete(m.spent, key)
	return d
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
