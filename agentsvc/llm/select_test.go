package llm

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// fakeOllama serves /api/tags with models and /api/show with their capabilities.
func fakeOllama(t *testing.T, models map[string][]string, order ...string) string {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/tags", func(w http.ResponseWriter, _ *http.Request) {
		var list []map[string]string
		for _, n := range order {
			list = append(list, map[string]string{"name": n, "model": n})
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"models": list})
	})
	mux.HandleFunc("POST /api/show", func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Model string `json:"model"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		caps, ok := models[req.Model]
		if !ok {
			http.Error(w, `{"error":"model not found"}`, http.StatusNotFound)
			return
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"capabilities": caps})
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL
}

// fakeModelsList serves an OpenAI-compatible GET /v1/models.
func fakeModelsList(t *testing.T, ids ...string) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/models" {
			http.NotFound(w, r)
			return
		}
		var data []map[string]string
		for _, id := range ids {
			data = append(data, map[string]string{"id": id, "object": "model"})
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data})
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1"
}

func deadURL(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.NotFoundHandler())
	u := srv.URL
	srv.Close()
	return u
}

func TestSelect(t *testing.T) {
	ollamaTools := fakeOllama(t, map[string][]string{
		"nomic-embed-text:latest": {"embedding"},
		"gemma:2b":                {"completion"},
		"qwen2.5:7b":              {"completion", "tools"},
		"llama3.1:latest":         {"completion", "tools"},
	}, "nomic-embed-text:latest", "gemma:2b", "qwen2.5:7b", "llama3.1:latest")
	ollamaNoTools := fakeOllama(t, map[string][]string{"gemma:2b": {"completion"}}, "gemma:2b")
	noOllama := deadURL(t)
	local := fakeModelsList(t, "local-model-1", "local-model-2")

	tests := []struct {
		name      string
		env       map[string]string
		flag      string
		ollama    string
		wantNil   bool
		wantErr   string
		provider  string
		model     string
		baseURL   string
		apiKey    string
		wantInLog string
	}{
		{name: "openai key", env: map[string]string{"OPENAI_API_KEY": "sk-1"}, ollama: ollamaTools,
			provider: "openai", model: "gpt-4o-mini", baseURL: "https://api.openai.com/v1", apiKey: "sk-1", wantInLog: "OPENAI_API_KEY"},
		{name: "model flag wins over env", env: map[string]string{"OPENAI_API_KEY": "sk-1", "BYOMCP_MODEL": "gpt-4.1"}, flag: "gpt-5-mini",
			provider: "openai", model: "gpt-5-mini", baseURL: "https://api.openai.com/v1", apiKey: "sk-1"},
		{name: "model from env", env: map[string]string{"OPENAI_API_KEY": "sk-1", "BYOMCP_MODEL": "gpt-4.1"},
			provider: "openai", model: "gpt-4.1", baseURL: "https://api.openai.com/v1", apiKey: "sk-1"},
		{name: "openai before openrouter and gemini", env: map[string]string{"OPENAI_API_KEY": "sk-1", "OPENROUTER_API_KEY": "or", "GEMINI_API_KEY": "g"},
			provider: "openai", model: "gpt-4o-mini", baseURL: "https://api.openai.com/v1", apiKey: "sk-1"},
		{name: "base URL without key", env: map[string]string{"OPENAI_BASE_URL": "http://localhost:8000/v1"}, flag: "qwen",
			provider: "custom", model: "qwen", baseURL: "http://localhost:8000/v1", apiKey: keylessToken, wantInLog: "no key"},
		{name: "base URL with key", env: map[string]string{"OPENAI_BASE_URL": "https://llm.example.com/v1", "OPENAI_API_KEY": "k"}, flag: "m",
			provider: "custom", model: "m", baseURL: "https://llm.example.com/v1", apiKey: "k"},
		{name: "base URL of ollama", env: map[string]string{"OPENAI_BASE_URL": "http://127.0.0.1:11434/v1"}, flag: "llama3.1",
			provider: "ollama", model: "llama3.1", baseURL: "http://127.0.0.1:11434/v1", apiKey: keylessToken},
		{name: "base URL without model asks /models", env: map[string]string{"OPENAI_BASE_URL": local},
			provider: "custom", model: "local-model-1", baseURL: local, apiKey: keylessToken, wantInLog: "first model it lists"},
		{name: "base URL without model and no list", env: map[string]string{"OPENAI_BASE_URL": noOllama + "/v1"},
			wantErr: "no model is named"},
		{name: "bad base URL", env: map[string]string{"OPENAI_BASE_URL": "localhost:8000"}, flag: "m",
			wantErr: "is not an http(s) URL"},
		{name: "openrouter", env: map[string]string{"OPENROUTER_API_KEY": "or", "GEMINI_API_KEY": "g"}, ollama: ollamaTools,
			provider: "openrouter", model: "openai/gpt-4o-mini", baseURL: "https://openrouter.ai/api/v1", apiKey: "or"},
		{name: "gemini", env: map[string]string{"GEMINI_API_KEY": "g"},
			provider: "gemini", model: "gemini-2.5-flash", baseURL: "https://generativelanguage.googleapis.com/v1beta/openai/", apiKey: "g"},
		{name: "gemini with model", env: map[string]string{"GEMINI_API_KEY": "g"}, flag: "gemini-2.5-pro",
			provider: "gemini", model: "gemini-2.5-pro", baseURL: "https://generativelanguage.googleapis.com/v1beta/openai/", apiKey: "g"},
		{name: "ollama first tool model", ollama: ollamaTools,
			provider: "ollama", model: "qwen2.5:7b", baseURL: ollamaTools + "/v1", apiKey: keylessToken, wantInLog: "first model that supports tools"},
		{name: "ollama named model", ollama: ollamaTools, flag: "llama3.1",
			provider: "ollama", model: "llama3.1", baseURL: ollamaTools + "/v1", apiKey: keylessToken},
		{name: "ollama lacks named model", ollama: ollamaTools, flag: "mistral", wantErr: `does not have it`},
		{name: "ollama without tool models", ollama: ollamaNoTools, wantNil: true, wantInLog: "no model that supports tools"},
		{name: "nothing", ollama: noOllama, wantNil: true, wantInLog: "no Ollama at " + noOllama},
		{name: "model flag but nothing to run it", ollama: noOllama, flag: "gpt-4o", wantErr: "no Ollama answers"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := func(k string) string { return tt.env[k] }
			ollama := tt.ollama
			if ollama == "" {
				ollama = noOllama
			}
			m, desc, err := Select(t.Context(), env, tt.flag, Options{OllamaURL: ollama})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error: got %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(desc, tt.wantInLog) {
				t.Errorf("description %q, want it to contain %q", desc, tt.wantInLog)
			}
			for _, v := range tt.env {
				if strings.Contains(desc, v) && strings.HasPrefix(v, "sk") {
					t.Errorf("description %q contains a key", desc)
				}
			}
			if tt.wantNil {
				if m != nil {
					t.Fatalf("got model %s, want none", m.Name())
				}
				return
			}
			o, ok := m.(*OpenAI)
			if !ok {
				t.Fatalf("got %T", m)
			}
			if o.opts.Provider != tt.provider || o.opts.Model != tt.model || o.opts.BaseURL != tt.baseURL || o.opts.APIKey != tt.apiKey {
				t.Errorf("got provider %q model %q base %q key %q, want %q %q %q %q",
					o.opts.Provider, o.opts.Model, o.opts.BaseURL, o.opts.APIKey, tt.provider, tt.model, tt.baseURL, tt.apiKey)
			}
			if want := tt.provider + " " + tt.model; m.Name() != want {
				t.Errorf("Name: got %q, want %q", m.Name(), want)
			}
		})
	}
}

func TestRetryAfterParse(t *testing.T) {
	now := mustTime(t, "Wed, 21 Oct 2015 07:28:00 GMT")
	tests := []struct {
		name   string
		header map[string]string
		want   string
		ok     bool
	}{
		{"seconds", map[string]string{"Retry-After": "7"}, "7s", true},
		{"fractional seconds", map[string]string{"Retry-After": "1.5"}, "1.5s", true},
		{"date", map[string]string{"Retry-After": "Wed, 21 Oct 2015 07:28:09 GMT"}, "9s", true},
		{"date in the past", map[string]string{"Retry-After": "Wed, 21 Oct 2015 07:27:00 GMT"}, "0s", true},
		{"milliseconds first", map[string]string{"Retry-After": "7", "Retry-After-Ms": "250"}, "250ms", true},
		{"garbage", map[string]string{"Retry-After": "soon"}, "0s", false},
		{"none", nil, "0s", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := http.Header{}
			for k, v := range tt.header {
				h.Set(k, v)
			}
			got, ok := retryAfter(h, now)
			if got.String() != tt.want || ok != tt.ok {
				t.Errorf("got %s %v, want %s %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestBackoffBounds(t *testing.T) {
	for attempt := range 8 {
		full := min(backoffBase<<attempt, backoffCap)
		for range 50 {
			if d := backoff(attempt); d < full/2 || d > full {
				t.Fatalf("attempt %d: got %s, want within [%s, %s]", attempt, d, full/2, full)
			}
		}
	}
}

func mustTime(t *testing.T, s string) time.Time {
	t.Helper()
	tm, err := http.ParseTime(s)
	if err != nil {
		t.Fatal(err)
	}
	return tm
}
