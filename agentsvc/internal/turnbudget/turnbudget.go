// Package turnbudget bounds what one client (a TCP remote address) can make the agent do:
// turns running at once, per client and in all, and new sessions per client.
package turnbudget

import (
	"sync"
	"time"

	"github.com/byomcp/byomcp/agentsvc/internal/ratelimit"
	"github.com/byomcp/byomcp/agentsvc/wire"
)

// Budget bounds what one client (a TCP remote address) can make the agent do: turns
// running at once (each one costs model calls) per client and in all, and new sessions per
// client (a token bucket). The client "" (a connection served without an address, see
// agentsvc.Server.serve) is bound by the totals only.
//
// Lock order: mu is a leaf.
type Budget struct {
	clientTurns, maxTurns int              // negative: no limit
	sessions              *ratelimit.Keyed // new sessions per client; nil: no limit

	mu       sync.Mutex
	running  int
	byClient map[string]int // running turns per client
}

// maxBuckets bounds the clients whose new-session rate is remembered.
const maxBuckets = 100_000

// New returns a Budget of clientTurns turns per client and maxTurns in all (negative: no
// limit), and sessionRate new sessions per second per client with burst (sessionRate
// negative: no limit).
func New(clientTurns, maxTurns int, sessionRate float64, burst int) *Budget {
	b := &Budget{
		clientTurns: clientTurns,
		maxTurns:    maxTurns,
		byClient:    map[string]int{},
	}
	if sessionRate >= 0 {
		b.sessions = ratelimit.NewKeyed(sessionRate, burst, maxBuckets)
	}
	return b
}

// StartTurn takes a running-turn slot for client; the release function gives it back and
// must be called exactly once. Over a bound it returns the error for the page.
func (b *Budget) StartTurn(client string) (release func(), err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.maxTurns >= 0 && b.running >= b.maxTurns {
		return nil, wire.ErrServerBusy
	}
	if client != "" && b.clientTurns >= 0 && b.byClient[client] >= b.clientTurns {
		return nil, wire.ErrClientBusy
	}
	b.running++
	if client != "" {
		b.byClient[client]++
	}
	return sync.OnceFunc(func() {
		b.mu.Lock()
		defer b.mu.Unlock()
		b.running--
		if client != "" {
			if b.byClient[client]--; b.byClient[client] <= 0 {
				delete(b.byClient, client)
			}
		}
	}), nil
}

// NewSession takes a token of client's new-session bucket; false: over the rate.
func (b *Budget) NewSession(client string) bool {
	return client == "" || b.sessions == nil || b.sessions.Allow(client, time.Now())
}
