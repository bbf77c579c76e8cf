package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Providers, as reported by Name and in Options.Provider.
const (
	ProviderOpenAI     = "openai"
	ProviderOpenRouter = "openrouter"
	ProviderGemini     = "gemini"
	ProviderOllama     = "ollama"
	ProviderCustom     = "custom"
)

// Provider presets.
const (
	openAIBaseURL          = "https://api.openai.com/v1"
	openAIDefaultModel     = "gpt-4o-mini"
	openRouterBaseURL      = "https://openrouter.ai/api/v1"
	openRouterDefaultModel = "openai/gpt-4o-mini"
	geminiBaseURL          = "https://generativelanguage.googleapis.com/v1beta/openai/"
	geminiDefaultModel     = "gemini-2.5-flash"
)

// Environment variables read by Select.
const (
	EnvModel            = "BYOMCP_MODEL"
	EnvOpenAIKey        = "OPENAI_API_KEY"
	EnvOpenAIBaseURL    = "OPENAI_BASE_URL"
	EnvOpenRouterAPIKey = "OPENROUTER_API_KEY"
	EnvGeminiAPIKey     = "GEMINI_API_KEY"
	// EnvModelConns sets Options.MaxConns: the connections and concurrent requests per
	// provider.
	EnvModelConns = "BYOMCP_MODEL_CONNS"
)

// Time allowed to probe the local Ollama and to list a custom server's models.
const (
	ollamaProbeTimeout = 500 * time.Millisecond
	ollamaShowTimeout  = 2 * time.Second
	listModelsTimeout  = 2 * time.Second
	maxOllamaModels    = 32
)

// keylessToken is sent to OpenAI-compatible servers that need no key (llama.cpp, vLLM,
// Ollama), since the client always sends a bearer token.
const keylessToken = "byomcp-no-key"

// Env reads an environment variable; os.Getenv fits.
type Env func(string) string

// Select picks the model in DESIGN.md order:
//
//  1. explicit configuration: OPENAI_API_KEY and/or OPENAI_BASE_URL (any OpenAI-compatible
//     server; no key is needed for a local one), else OPENROUTER_API_KEY, else
//     GEMINI_API_KEY, each with its preset base URL and default model;
//  2. else a local Ollama answering at o.OllamaURL (default http://127.0.0.1:11434): the
//     model named by modelFlag, or its first model whose capabilities include "tools";
//  3. else nil: the caller uses the offline planner.
//
// The model name is modelFlag, else BYOMCP_MODEL, else the preset's default (a custom
// server without one is asked for its /models list). Select fills BaseURL, APIKey, Model and
// Provider of o and keeps its other fields. The string describes the choice for the log
// and never contains a key. A model that was asked for but cannot be served is an error.
// BYOMCP_MODEL_CONNS, when set and o.MaxConns is not, sizes the model's connections.
func Select(ctx context.Context, env Env, modelFlag string, o Options) (Model, string, error) {
	if env == nil {
		env = func(string) string { return "" }
	}
	get := func(k string) string { return strings.TrimSpace(env(k)) }
	model := strings.TrimSpace(modelFlag)
	if model == "" {
		model = get(EnvModel)
	}
	if v := get(EnvModelConns); v != "" && o.MaxConns == 0 {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			return nil, "", fmt.Errorf("llm: %s=%q is not a positive number of connections", EnvModelConns, v)
		}
		o.MaxConns = n
	}
	client := o.HTTPClient
	if client == nil {
		client = http.DefaultClient
	}

	preset := func(provider, base, key, defaultModel, source string) (Model, string, error) {
		o.Provider, o.BaseURL, o.APIKey, o.Model = provider, base, key, model
		if o.Model == "" {
			o.Model = defaultModel
		}
		return NewOpenAI(o), fmt.Sprintf("%s %s at %s (%s)", provider, o.Model, base, source), nil
	}

	key, base := get(EnvOpenAIKey), get(EnvOpenAIBaseURL)
	switch {
	case key != "" || base != "":
		if base == "" || sameURL(base, openAIBaseURL) {
			return preset(ProviderOpenAI, openAIBaseURL, key, openAIDefaultModel, EnvOpenAIKey)
		}
		u, err := url.Parse(base)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, "", fmt.Errorf("llm: %s=%q is not an http(s) URL", EnvOpenAIBaseURL, base)
		}
		source := EnvOpenAIBaseURL + " and " + EnvOpenAIKey
		if key == "" {
			key = keylessToken
			source = EnvOpenAIBaseURL + ", no key"
		}
		provider := ProviderCustom
		if u.Port() == "11434" {
			provider = ProviderOllama
		}
		if model == "" {
			m, err := listModels(ctx, client, base, key)
			if err != nil {
				return nil, "", fmt.Errorf("llm: %s is set but no model is named (--model or %s) and its /models list gave none: %w",
					EnvOpenAIBaseURL, EnvModel, err)
			}
			model = m
			source += ", first model it lists"
		}
		return preset(provider, base, key, "", source)
	case get(EnvOpenRouterAPIKey) != "":
		return preset(ProviderOpenRouter, openRouterBaseURL, get(EnvOpenRouterAPIKey), openRouterDefaultModel, EnvOpenRouterAPIKey)
	case get(EnvGeminiAPIKey) != "":
		return preset(ProviderGemini, geminiBaseURL, get(EnvGeminiAPIKey), geminiDefaultModel, EnvGeminiAPIKey)
	}

	ollama := strings.TrimRight(o.OllamaURL, "/")
	if ollama == "" {
		ollama = DefaultOllamaURL
	}
	names, err := ollamaModels(ctx, client, ollama)
	if err != nil {
		if model != "" {
			return nil, "", fmt.Errorf("llm: model %q was asked for, but no API key is set (%s, %s, %s, %s) and no Ollama answers at %s",
				model, EnvOpenAIKey, EnvOpenAIBaseURL, EnvOpenRouterAPIKey, EnvGeminiAPIKey, ollama)
		}
		return nil, fmt.Sprintf("no model configured (%s, %s, %s, %s or --model) and no Ollama at %s",
			EnvOpenAIKey, EnvOpenAIBaseURL, EnvOpenRouterAPIKey, EnvGeminiAPIKey, ollama), nil
	}
	var source string
	if model != "" {
		if !slices.ContainsFunc(names, func(n string) bool { return n == model || n == model+":latest" }) {
			return nil, "", fmt.Errorf("llm: model %q was asked for, but the Ollama at %s does not have it (it has: %s)",
				model, ollama, strings.Join(names, ", "))
		}
		source = "local Ollama"
	} else {
		model = firstToolModel(ctx, client, ollama, names)
		if model == "" {
			return nil, fmt.Sprintf("no model configured, and the Ollama at %s has no model that supports tools (it has: %s)",
				ollama, strings.Join(names, ", ")), nil
		}
		source = "local Ollama found; first model that supports tools"
	}
	return preset(ProviderOllama, ollama+"/v1", keylessToken, "", source)
}

// sameURL reports whether two base URLs are equal but for a trailing slash.
func sameURL(a, b string) bool {
	return strings.TrimRight(a, "/") == strings.TrimRight(b, "/")
}

// getJSON sends a request and decodes a 200 JSON answer into v.
func getJSON(ctx context.Context, client *http.Client, method, u, key string, body any, v any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	res, err := client.Do(req)
	if err != nil {
		return err
	}
	defer func() { _ = res.Body.Close() }()
	if res.StatusCode != http.StatusOK {
		_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, 1<<16))
		return fmt.Errorf("%s %s: HTTP %d", method, u, res.StatusCode)
	}
	return json.NewDecoder(io.LimitReader(res.Body, 8<<20)).Decode(v)
}

// listModels returns the first model of an OpenAI-compatible server's GET /models.
func listModels(ctx context.Context, client *http.Client, base, key string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, listModelsTimeout)
	defer cancel()
	var list struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := getJSON(ctx, client, http.MethodGet, strings.TrimRight(base, "/")+"/models", key, nil, &list); err != nil {
		return "", err
	}
	for _, m := range list.Data {
		if m.ID != "" {
			return m.ID, nil
		}
	}
	return "", errors.New("the list is empty")
}

// ollamaModels returns the names of the models of the Ollama at base (GET /api/tags).
func ollamaModels(ctx context.Context, client *http.Client, base string) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, ollamaProbeTimeout)
	defer cancel()
	var tags struct {
		Models []struct {
			Name  string `json:"name"`
			Model string `json:"model"`
		} `json:"models"`
	}
	if err := getJSON(ctx, client, http.MethodGet, base+"/api/tags", "", nil, &tags); err != nil {
		return nil, err
	}
	names := []string{}
	for _, m := range tags.Models {
		n := m.Name
		if n == "" {
			n = m.Model
		}
		if n != "" {
			names = append(names, n)
		}
	}
	return names, nil
}

// firstToolModel returns the first of names whose POST /api/show capabilities include
// "tools", or "".
func firstToolModel(ctx context.Context, client *http.Client, base string, names []string) string {
	ctx, cancel := context.WithTimeout(ctx, ollamaShowTimeout)
	defer cancel()
	for i, n := range names {
		if i == maxOllamaModels {
			break
		}
		var show struct {
			Capabilities []string `json:"capabilities"`
		}
		if err := getJSON(ctx, client, http.MethodPost, base+"/api/show", "", map[string]string{"model": n}, &show); err != nil {
			if ctx.Err() != nil {
				return ""
			}
			continue
		}
		if slices.Contains(show.Capabilities, "tools") {
			return n
		}
	}
	return ""
}
