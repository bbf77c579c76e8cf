package llm

import (
	"net/http"
	"testing"
)

// TestModelConnsSizing: the default client of a model is a Transport sized by MaxConns,
// which Select reads from BYOMCP_MODEL_CONNS.
func TestModelConnsSizing(t *testing.T) {
	conns := func(t *testing.T, m Model) int {
		t.Helper()
		tr, ok := m.(*OpenAI).opts.HTTPClient.Transport.(*Transport)
		if !ok {
			t.Fatalf("transport: got %T, want *llm.Transport", m.(*OpenAI).opts.HTTPClient.Transport)
		}
		if h := tr.HTTP(); h.MaxIdleConnsPerHost != tr.MaxConns() || h.MaxConnsPerHost != tr.MaxConns() {
			t.Errorf("pool: got %d idle and %d conns per host, want %d each", h.MaxIdleConnsPerHost, h.MaxConnsPerHost, tr.MaxConns())
		}
		return tr.MaxConns()
	}
	if got := conns(t, NewOpenAI(Options{})); got != DefaultMaxConns {
		t.Errorf("default: got %d, want %d", got, DefaultMaxConns)
	}
	if got := conns(t, NewOpenAI(Options{MaxConns: 5})); got != 5 {
		t.Errorf("MaxConns 5: got %d", got)
	}
	for _, local := range []string{"http://127.0.0.1:11434/v1", "http://localhost:8000/v1", "http://[::1]:1234/v1"} {
		if got := conns(t, NewOpenAI(Options{BaseURL: local})); got != DefaultLocalMaxConns {
			t.Errorf("%s: got %d, want %d", local, got, DefaultLocalMaxConns)
		}
	}
	if got := conns(t, NewOpenAI(Options{BaseURL: "http://127.0.0.1:11434/v1", MaxConns: 32})); got != 32 {
		t.Errorf("local with MaxConns 32: got %d", got)
	}
	if got := conns(t, NewOpenAI(Options{BaseURL: "https://llm.example.com/v1"})); got != DefaultMaxConns {
		t.Errorf("remote: got %d, want %d", got, DefaultMaxConns)
	}
	own := &http.Client{}
	if m := NewOpenAI(Options{HTTPClient: own}); m.opts.HTTPClient != own {
		t.Error("a given HTTPClient was replaced")
	}

	env := map[string]string{"OPENAI_API_KEY": "k", EnvModelConns: "12"}
	m, _, err := Select(t.Context(), func(k string) string { return env[k] }, "", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := conns(t, m); got != 12 {
		t.Errorf("%s=12: got %d", EnvModelConns, got)
	}
	for _, bad := range []string{"0", "-3", "many"} {
		env[EnvModelConns] = bad
		if _, _, err := Select(t.Context(), func(k string) string { return env[k] }, "", Options{}); err == nil {
			t.Errorf("%s=%q: got no error", EnvModelConns, bad)
		}
	}
}
