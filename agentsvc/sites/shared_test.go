package sites

import (
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/byomcp/byomcp/agentsvc/llm"
	"github.com/byomcp/byomcp/agentsvc/store"
	"github.com/byomcp/byomcp/agentsvc/store/storetest"
)

// TestSharedBudget: two replicas (two registries, each with its own connection to one real
// redis-server) spend one budget: tokens spent on A refuse a turn on B, for the session's
// hour and the site's day; another key prefix (another deployment) does not see them.
func TestSharedBudget(t *testing.T) {
	url := storetest.RedisServer(t)
	dir := writeFiles(t, map[string]string{"sites.json": `{"sites": [
		{"name": "shop", "origins": ["https://shop.example"], "budget": {"sessionTokensPerHour": 100, "siteTokensPerDay": 250}}]}`})
	// The counts expire on Redis's clock: the test's clock is in the future of it.
	clk := &clock{t: time.Now().UTC().Truncate(24 * time.Hour).Add(48*time.Hour + 10*time.Hour + 30*time.Minute)}
	replica := func(prefix string) *Registry {
		st, err := store.OpenRedisWith(t.Context(), url, store.RedisOptions{Prefix: prefix})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		reg, err := Open(filepath.Join(dir, "sites.json"), Options{Now: clk.now, Shared: store.SharedOf(st),
			OnSharedError: func(err error) { t.Errorf("shared count failed: %v", err) }})
		if err != nil {
			t.Fatal(err)
		}
		return reg
	}
	a, b, other := replica("byomcp:"), replica("byomcp:"), replica("other:")
	shopA, shopB := a.Lookup("https://shop.example"), b.Lookup("https://shop.example")
	call := func(m llm.Model) error { _, err := m.Stream(t.Context(), llm.Request{}, nil); return err }

	if err := call(shopA.Meter(fakeModel{tokens: 100}, "s1")); err != nil {
		t.Fatal(err)
	}
	var be *BudgetError
	if err := shopB.Admit("s1"); !errors.As(err, &be) || be.Scope != "session" {
		t.Fatalf("turn of s1 on B after A spent its hour: got %v, want a session BudgetError", err)
	}
	if err := call(shopB.Meter(fakeModel{tokens: 60}, "s1")); !errors.As(err, &be) {
		t.Errorf("model call of s1 on B: got %v, want BudgetError", err)
	}
	if day, hour := b.Used("shop", "s1"); day != 100 || hour != 100 {
		t.Errorf("B sees %d today, %d this hour; want 100, 100", day, hour)
	}
	// The site's day: 100 (A) + 160 (B) >= 250 refuses a new conversation on A.
	for _, tokens := range []int64{80, 80} {
		if err := call(shopB.Meter(fakeModel{tokens: tokens}, "s2")); err != nil {
			t.Fatal(err)
		}
	}
	if err := shopA.Admit("s3"); !errors.As(err, &be) || be.Scope != "site" {
		t.Fatalf("new conversation on A after B spent the day: got %v, want a site BudgetError", err)
	}
	if got := counterValue(t, a.acct.refused.WithLabelValues("shop", "site")); got != 1 {
		t.Errorf("A's refused{site} = %v, want 1", got)
	}
	if err := other.Lookup("https://shop.example").Admit("s3"); err != nil {
		t.Errorf("another prefix shares the count: %v", err)
	}
	var m dto.Metric
	if err := b.acct.latency.WithLabelValues("shop").(prometheus.Histogram).Write(&m); err != nil {
		t.Fatal(err)
	}
	if n := m.GetHistogram().GetSampleCount(); n != 2 { // B's model calls of s2 (s1's was refused)
		t.Errorf("byomcp_site_model_call_seconds_count{site=shop} on B = %d, want 2", n)
	}
	// The next hour s1 may go on; the next day the site too.
	clk.add(time.Hour)
	if err := shopB.Admit("s1"); err == nil || !errors.As(err, &be) || be.Scope != "site" {
		t.Errorf("next hour: got %v, want only the site's day refused", err)
	}
	clk.add(24 * time.Hour)
	if err := shopB.Admit("s1"); err != nil {
		t.Errorf("next day: %v", err)
	}
}
