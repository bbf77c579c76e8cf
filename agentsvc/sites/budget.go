package sites

import (
	"fmt"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// BudgetError refuses a turn or a model call over a site's token budget. Its message is
// written for the visitor.
type BudgetError struct {
	Site  string
	Scope string    // "session" (tokens per conversation per hour) or "site" (per day)
	Until time.Time // when the window ends
}

func (e *BudgetError) Error() string {
	if e.Scope == "session" {
		return fmt.Sprintf("This conversation has reached its usage limit for now. You can go on after %s UTC, or start a new conversation later.", e.Until.Format("15:04"))
	}
	return "The assistant of this site has reached its usage limit for today. Please try again tomorrow."
}

// accounting counts the model tokens of each site (per UTC day) and of each conversation
// (per UTC clock hour), in this process: with several replicas each one has its own count.
// It outlives reloads (a Registry keeps one), so a SIGHUP does not reset a budget.
//
// Lock order: mu is a leaf.
type accounting struct {
	now func() time.Time

	refused  *prometheus.CounterVec // {site, scope}
	tokens   *prometheus.CounterVec // {site}
	onRefuse func()                 // counts byomcp_refused_total{reason="token_budget"}, may be nil

	mu       sync.Mutex
	sessions map[sessionKey]*window // this hour's
	sites    map[string]*window     // today's
	hour     time.Time              // the hour sessions holds
}

type sessionKey struct{ site, session string }

type window struct {
	start time.Time
	used  int64
}

func newAccounting(now func() time.Time) *accounting {
	if now == nil {
		now = time.Now
	}
	return &accounting{
		now: now,
		refused: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "byomcp_budget_refused_total", Help: "Turns and model calls refused over a site's token budget, by site and scope (session: per conversation per hour; site: per day).",
		}, []string{"site", "scope"}),
		tokens: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "byomcp_site_model_tokens_total", Help: "Model tokens (prompt + completion) used by the conversations of each site.",
		}, []string{"site"}),
		sessions: map[sessionKey]*window{},
		sites:    map[string]*window{},
	}
}

func dayOf(t time.Time) time.Time {
	t = t.UTC()
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
}

// rollLocked drops the windows that ended.
func (a *accounting) rollLocked(now time.Time) {
	hour := now.UTC().Truncate(time.Hour)
	if !hour.Equal(a.hour) {
		clear(a.sessions)
		a.hour = hour
	}
	day := dayOf(now)
	for k, w := range a.sites {
		if !w.start.Equal(day) {
			delete(a.sites, k)
		}
	}
}

func (a *accounting) admit(s *Site, session string) error {
	b := s.Budget
	if b == nil || (b.SessionTokensPerHour <= 0 && b.SiteTokensPerDay <= 0) {
		return nil
	}
	now := a.now()
	a.mu.Lock()
	a.rollLocked(now)
	var err *BudgetError
	if w := a.sites[s.Name]; b.SiteTokensPerDay > 0 && w != nil && w.used >= b.SiteTokensPerDay {
		err = &BudgetError{Site: s.Name, Scope: "site", Until: dayOf(now).Add(24 * time.Hour)}
	} else if w := a.sessions[sessionKey{s.Name, session}]; b.SessionTokensPerHour > 0 && w != nil && w.used >= b.SessionTokensPerHour {
		err = &BudgetError{Site: s.Name, Scope: "session", Until: a.hour.Add(time.Hour)}
	}
	a.mu.Unlock()
	if err == nil {
		return nil
	}
	a.refused.WithLabelValues(s.Name, err.Scope).Inc()
	if a.onRefuse != nil {
		a.onRefuse()
	}
	return err
}

func (a *accounting) charge(s *Site, session string, tokens int64) {
	if tokens <= 0 {
		return
	}
	a.tokens.WithLabelValues(s.Name).Add(float64(tokens))
	now := a.now()
	a.mu.Lock()
	defer a.mu.Unlock()
	a.rollLocked(now)
	w := a.sites[s.Name]
	if w == nil {
		w = &window{start: dayOf(now)}
		a.sites[s.Name] = w
	}
	w.used += tokens
	if s.Budget != nil && s.Budget.SessionTokensPerHour > 0 {
		k := sessionKey{s.Name, session}
		sw := a.sessions[k]
		if sw == nil {
			sw = &window{start: a.hour}
			a.sessions[k] = sw
		}
		sw.used += tokens
	}
}

// used returns the tokens counted now for a site today and for one of its sessions this hour.
func (a *accounting) used(site, session string) (siteToday, sessionHour int64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.rollLocked(a.now())
	if w := a.sites[site]; w != nil {
		siteToday = w.used
	}
	if w := a.sessions[sessionKey{site, session}]; w != nil {
		sessionHour = w.used
	}
	return siteToday, sessionHour
}
