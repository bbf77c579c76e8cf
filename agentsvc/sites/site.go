package sites

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/byomcp/byomcp/agentsvc/chat"
	"github.com/byomcp/byomcp/agentsvc/llm"
)

// Config is a checked sites.json: its sites in file order.
type Config struct {
	Sites []*Site
}

// Lookup returns the site of a page Origin ("https://shop.example"), nil for none.
func (c *Config) Lookup(origin string) *Site {
	if c == nil {
		return nil
	}
	scheme, host, port, ok := splitOrigin(origin)
	if !ok {
		return nil
	}
	for _, s := range c.Sites {
		for _, p := range s.patterns {
			if p.match(scheme, host, port) {
				return s
			}
		}
	}
	return nil
}

// Site is one site in force. Its methods are safe on a nil *Site (no site: the server's
// settings), so the agent can call them without checking.
type Site struct {
	SiteConfig
	patterns []pattern
	prompt   string    // systemPrompt, or systemPromptFile's text
	model    llm.Model // nil: the server's
	acct     *accounting
}

// Label is the site's name, "" for nil.
func (s *Site) Label() string {
	if s == nil {
		return ""
	}
	return s.Name
}

// SystemPrompt is the site's instructions, or def when it has none, followed by a sentence
// naming its locale when it has one.
func (s *Site) SystemPrompt(def string) string {
	if s == nil {
		return def
	}
	p := def
	if s.prompt != "" {
		p = s.prompt
	}
	if s.Locale != "" {
		p += "\n\nThe site's language is " + s.Locale + ": answer in it unless the visitor writes in another language."
	}
	return p
}

// OwnPrompt reports whether the site has instructions of its own (systemPrompt or
// systemPromptFile), which SystemPrompt gives instead of the server's.
func (s *Site) OwnPrompt() bool { return s != nil && s.prompt != "" }

// Model is the site's model, def when it names none.
func (s *Site) Model(def llm.Model) llm.Model {
	if s == nil || s.model == nil {
		return def
	}
	return s.model
}

// Confirms reports whether the site's confirm policy names a page tool.
func (s *Site) Confirms(tool string) bool {
	if s == nil {
		return false
	}
	for _, t := range s.ConfirmTools {
		if t == tool {
			return true
		}
	}
	return false
}

// Guards returns the site's turn guards; 0 keeps the server's.
func (s *Site) Guards() (maxModelCalls, maxToolCalls int) {
	if s == nil || s.SiteConfig.Guards == nil {
		return 0, 0
	}
	return s.SiteConfig.Guards.MaxModelCalls, s.SiteConfig.Guards.MaxToolCalls
}

// AllowsServer reports whether the site's conversations may use a server-side MCP server's
// tool, given as the model sees it ("<server>__<tool>").
func (s *Site) AllowsServer(toolName string) bool {
	if s == nil || s.MCPServers == nil {
		return true
	}
	server, _, _ := strings.Cut(toolName, "__")
	for _, n := range s.MCPServers {
		if n == server {
			return true
		}
	}
	return false
}

// Admit checks the budgets before a turn of session: nil, or a *BudgetError whose message
// is for the visitor.
func (s *Site) Admit(session string) error {
	if s == nil || s.acct == nil {
		return nil
	}
	return s.acct.admit(s, session)
}

// Meter wraps m so that each model call of session is checked against the site's budgets
// first (a refused call fails with an *llm.Error wrapping a *BudgetError) and its tokens are
// charged after.
func (s *Site) Meter(m llm.Model, session string) llm.Model {
	if s == nil || s.acct == nil {
		return m
	}
	return meteredModel{Model: m, site: s, session: session}
}

type meteredModel struct {
	llm.Model
	site    *Site
	session string
}

func (mm meteredModel) Stream(ctx context.Context, req llm.Request, onDelta func(string)) (*llm.Response, error) {
	if err := mm.site.acct.admit(mm.site, mm.session); err != nil {
		return nil, &llm.Error{Message: err.Error(), Err: err} // the loop shows an llm.Error's message
	}
	start := time.Now()
	resp, err := mm.Model.Stream(ctx, req, onDelta)
	mm.site.acct.latency.WithLabelValues(mm.site.Name).Observe(time.Since(start).Seconds())
	if resp != nil { // with an error too: what a failed or cancelled call consumed (llm.Model)
		mm.site.acct.charge(mm.site, mm.session, billed(resp.Usage))
	}
	return resp, err
}

// billed is the tokens a usage counts: prompt and completion, or the total when a provider
// reports more there (tokens of reasoning it counts apart).
func billed(u chat.Usage) int64 {
	return max(u.PromptTokens+u.CompletionTokens, u.TotalTokens)
}

// Public is what GET /v1/site tells the widget of its site: nothing secret.
type Public struct {
	Site        string            `json:"site,omitempty"`
	Locale      string            `json:"locale,omitempty"`
	Strings     map[string]string `json:"strings,omitempty"` // UI strings, greeting included
	Suggestions []string          `json:"suggestions,omitempty"`
}

// Public returns what the widget may know of the site.
func (s *Site) Public() Public {
	if s == nil {
		return Public{}
	}
	p := Public{Site: s.Name, Locale: s.Locale, Suggestions: s.Suggestions}
	if len(s.Strings) > 0 || s.Greeting != "" {
		p.Strings = map[string]string{}
		for k, v := range s.Strings {
			p.Strings[k] = v
		}
		if s.Greeting != "" {
			p.Strings["greeting"] = s.Greeting
		}
	}
	return p
}

// Handler serves GET /v1/site: the strings, greeting and suggestions of the calling page's
// site (by its Origin header), readable from any page; {} when the origin has no site.
func Handler(lookup func(origin string) *Site) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Type", "application/json")
		h.Set("Access-Control-Allow-Origin", "*")
		h.Set("Cache-Control", "no-cache")
		h.Set("Vary", "Origin")
		h.Set("X-Content-Type-Options", "nosniff")
		_ = json.NewEncoder(w).Encode(lookup(r.Header.Get("Origin")).Public())
	})
}
