package main

import (
	"fmt"
	"sync"
	"testing"

	"github.com/byomcp/byomcp/agentsvc/llm/llmtest"
	"github.com/byomcp/byomcp/agentsvc/wire"
)

// The shipped balancer recipes (docs/deploy/haproxy.cfg, docs/deploy/nginx.conf), run by the
// harness as they are, with only the addresses filled in.

var balancers = []string{"haproxy", "nginx"}

// TestLBRecipeKill9NoFailedHandshake: right after kill -9 of one of two replicas, ten visitors
// open a page socket through the balancer at once (before a health check can have noticed),
// each trying at most twice. The recipe's retries send a refused connection
// to the live replica, so at most one upgrade fails in all, and every visitor is served by
// the live replica.
func TestLBRecipeKill9NoFailedHandshake(t *testing.T) {
	for _, kind := range balancers {
		t.Run(kind, func(t *testing.T) {
			fake := llmtest.New(llmtest.Repeat(llmtest.Step{Text: "Hi."}))
			t.Cleanup(fake.Close)
			c := startCluster(t, fake.URL, lbOptions{replicas: 2, balancer: kind})
			dumpOnFailure(t, c)
			dead, live := c.replicas[0], c.replicas[1]
			dead.kill9(t)

			var mu sync.Mutex
			var errs []string
			var wg sync.WaitGroup
			for i := range 10 { // at once: before any health check can have noticed
				wg.Add(1)
				go func() {
					defer wg.Done()
					for attempt := 1; attempt <= 2; attempt++ {
						page, err := dialVia(t, c.url, func(lbEvent) {})
						if err != nil {
							mu.Lock()
							errs = append(errs, fmt.Sprintf("visitor %d, attempt %d: %v", i, attempt, err))
							mu.Unlock()
							continue
						}
						if got := c.nameOf(page.replica); got != live.name {
							t.Errorf("visitor %d landed on %q, want the live %s", i, got, live.name)
						}
						if _, err := page.session(wire.SessionParams{}); err != nil {
							t.Errorf("visitor %d: agent/session: %v", i, err)
						}
						page.close()
						return
					}
					t.Errorf("visitor %d got no socket in two tries", i)
				}()
			}
			wg.Wait()
			failed := len(errs)
			if failed > 1 {
				t.Errorf("%d upgrades failed after kill -9 of %s, want at most 1: %v", failed, dead.name, errs)
			}
		})
	}
}

// TestLBRecipeNginxAlternatesAndNamesReplicas: TestLBHarnessAlternatesAndNamesReplicas through
// the shipped nginx recipe (HAProxy's runs in that test).
func TestLBRecipeNginxAlternatesAndNamesReplicas(t *testing.T) {
	fake := llmtest.New(llmtest.Repeat(llmtest.Step{Text: "Hi."}))
	t.Cleanup(fake.Close)
	c := startCluster(t, fake.URL, lbOptions{replicas: 2, balancer: "nginx"})
	dumpOnFailure(t, c)
	landed := map[string]int{}
	var order []string
	for range 6 {
		p := dialLB(t, c, func(lbEvent) {})
		mustSession(t, p, wire.SessionParams{})
		landed[p.replica]++
		order = append(order, p.replica)
	}
	for i := 1; i < len(order); i++ {
		if order[i] == order[i-1] {
			t.Errorf("sockets landed on %v, want round robin to alternate", order)
			break
		}
	}
	for _, r := range c.replicas {
		if got := r.metric(t, "byomcp_open_sockets"); got != float64(landed[r.name]) {
			t.Errorf("%s has %v sockets open, nginx sent it %d", r.name, got, landed[r.name])
		}
	}
}
