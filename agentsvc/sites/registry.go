package sites

import (
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/byomcp/byomcp/agentsvc/llm"
)

// Options configure a Registry.
type Options struct {
	// Env reads the variables named by model.apiKeyEnv; default os.Getenv.
	Env Env
	// NewModel builds a site's model from its model entry (serve's knows the providers).
	// Required when a site names a model.
	NewModel func(Model) (llm.Model, error)
	// OnRefuse is called for each turn or model call refused over a budget (serve counts
	// byomcp_refused_total{reason="token_budget"}).
	OnRefuse func()
	// Now is the clock of the budgets; default time.Now.
	Now func() time.Time
	// Shared, when not nil, counts the budgets for every replica that shares it (serve
	// passes a Redis store's store.Shared); nil counts them in this process.
	Shared Counter
	// OnSharedError is called when the shared count fails (this process's count decides
	// meanwhile); may be nil.
	OnSharedError func(error)
}

// Registry holds the sites.json in force. Lookup is safe from any goroutine at any time;
// Reload swaps the whole configuration at once (a socket already open keeps working, and
// its next turn sees the new site settings).
type Registry struct {
	path string
	o    Options
	cur  atomic.Pointer[Config]
	acct *accounting
	reg  *prometheus.Registry
}

// Open loads and checks the sites.json at path.
func Open(path string, o Options) (*Registry, error) {
	r := &Registry{path: path, o: o, acct: newAccounting(o.Now), reg: prometheus.NewRegistry()}
	r.acct.onRefuse = o.OnRefuse
	r.acct.shared, r.acct.failed = o.Shared, o.OnSharedError
	r.reg.MustRegister(r.acct.refused, r.acct.tokens, r.acct.latency)
	if err := r.Reload(); err != nil {
		return nil, err
	}
	return r, nil
}

// Reload reads the file again. When it is not valid the configuration in force stays, and
// the error says why.
func (r *Registry) Reload() error {
	cfg, err := Load(r.path, r.o.Env)
	if err != nil {
		return err
	}
	var problems []string
	for i, s := range cfg.Sites {
		s.acct = r.acct
		if s.SiteConfig.Model == nil {
			continue
		}
		if r.o.NewModel == nil {
			problems = append(problems, fmt.Sprintf("sites[%d].model: this command cannot choose a model per site", i))
			continue
		}
		m, err := r.o.NewModel(*s.SiteConfig.Model)
		if err != nil {
			problems = append(problems, fmt.Sprintf("sites[%d].model: %v", i, err))
			continue
		}
		s.model = m
	}
	if len(problems) > 0 {
		return &Errors{Path: r.path, List: problems}
	}
	r.cur.Store(cfg)
	return nil
}

// Path is the file the registry reads.
func (r *Registry) Path() string { return r.path }

// Config is the configuration in force.
func (r *Registry) Config() *Config { return r.cur.Load() }

// Lookup returns the site of a page Origin, nil for none (the server's own settings).
func (r *Registry) Lookup(origin string) *Site {
	if r == nil {
		return nil
	}
	return r.cur.Load().Lookup(origin)
}

// Origins are every site's origin patterns, for the allow-list.
func (r *Registry) Origins() []string {
	var out []string
	for _, s := range r.cur.Load().Sites {
		out = append(out, s.Origins...)
	}
	return out
}

// Gatherer serves the per-site metrics (byomcp_budget_refused_total,
// byomcp_site_model_tokens_total, byomcp_site_model_call_seconds) for /metrics.
func (r *Registry) Gatherer() prometheus.Gatherer { return r.reg }

// Used returns the tokens counted for a site today and for one of its conversations this
// hour: by every replica with a shared Counter, else in this process.
func (r *Registry) Used(site, session string) (siteToday, sessionHour int64) {
	if day, hour, ok := r.acct.sharedUsed(site, session, r.acct.now()); ok {
		return day, hour
	}
	return r.acct.used(site, session)
}

// IsInvalid reports whether err is a sites.json that did not pass the checks (serve exits 2).
func IsInvalid(err error) bool {
	var e *Errors
	return errors.As(err, &e)
}
