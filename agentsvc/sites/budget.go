package sites

import (
	"context"
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
// (per UTC clock hour). In this process always; with a Counter shared by several replicas
// (a Redis store's) also there, and then the shared count decides, so N replicas spend one
// budget (when the Counter fails, this process's count decides until it answers again).
// It outlives reloads (a Registry keeps one), so a SIGHUP does not reset a budget.
//
// Lock order: mu is a leaf.
type accounting struct {
	now func() time.Time

	refused  *prometheus.CounterVec   // {site, scope}
	tokens   *prometheus.CounterVec   // {site}
	latency  *prometheus.HistogramVec // {site}: model calls
	onRefuse func()                   // counts byomcp_refused_total{reason="token_budget"}, may be nil
	shared   Counter                  // nil: this process only
	failed   func(error)              // a shared count failed, may be nil

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

// Counter is a count shared by several replicas (store.Shared of a Redis store is one).
type Counter interface {
	// Add adds n to key and makes it expire at expireAt, atomically; returns the new total.
	Add(ctx context.Context, key string, n int64, expireAt time.Time) (int64, error)
	// Get returns the values of keys (0 for missing).
	Get(ctx context.Context, keys ...string) ([]int64, error)
}

// sharedTimeout bounds one call to the shared Counter.
const sharedTimeout = 2 * time.Second

// Keys of the shared counts; the window is in the key, so a new window starts at 0, and
// each key expires an hour after its window ends. Session ids hold no ':'.
func siteDayKey(site string, day time.Time) string {
	return "budget:site:" + day.Format("20060102") + ":" + site
}

func sessionHourKey(site, session string, hour time.Time) string {
	return "budget:session:" + hour.Format("2006010215") + ":" + session + ":" + site
}

// sharedUsed reads the shared counts of a site today and of a session this hour; ok is false
// when there is no shared Counter or it failed.
func (a *accounting) sharedUsed(site, session string, now time.Time) (day, hour int64, ok bool) {
	if a.shared == nil {
		return 0, 0, false
	}
	ctx, cancel := context.WithTimeout(context.Background(), sharedTimeout)
	defer cancel()
	v, err := a.shared.Get(ctx, siteDayKey(site, dayOf(now)), sessionHourKey(site, session, now.UTC().Truncate(time.Hour)))
	if err != nil || len(v) != 2 {
		if a.failed != nil {
			a.failed(err)
		}
		return 0, 0, false
	}
	return v[0], v[1], true
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
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "byomcp_site_model_call_seconds", Help: "Model call latency (whole streamed response) of the conversations of each site.",
			Buckets: prometheus.ExponentialBuckets(0.01, 2.5, 12), // byomcp_model_call_seconds's
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
	day, hour, ok := a.sharedUsed(s.Name, session, now)
	if !ok {
		day, hour = a.used(s.Name, session)
	}
	var err *BudgetError
	if b.SiteTokensPerDay > 0 && day >= b.SiteTokensPerDay {
		err = &BudgetError{Site: s.Name, Scope: "site", Until: dayOf(now).Add(24 * time.Hour)}
	} else if b.SessionTokensPerHour > 0 && hour >= b.SessionTokensPerHour {
		err = &BudgetError{Site: s.Name, Scope: "session", Until: now.UTC().Truncate(time.Hour).Add(time.Hour)}
	}
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
	if a.shared != nil {
		a.chargeShared(s, session, tokens, now)
	}
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

// chargeShared adds tokens to the shared counts of the site today and, when the site has a
// session budget, of the session this hour.
func (a *accounting) chargeShared(s *Site, session string, tokens int64, now time.Time) {
	ctx, cancel := context.WithTimeout(context.Background(), sharedTimeout)
	defer cancel()
	day := dayOf(now)
	_, err := a.shared.Add(ctx, siteDayKey(s.Name, day), tokens, day.Add(25*time.Hour))
	if err == nil && s.Budget != nil && s.Budget.SessionTokensPerHour > 0 {
		hour := now.UTC().Truncate(time.Hour)
		_, err = a.shared.Add(ctx, sessionHourKey(s.Name, session, hour), tokens, hour.Add(2*time.Hour))
	}
	if err != nil && a.failed != nil {
		a.failed(err)
	}
}
