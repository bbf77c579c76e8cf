package agentsvc

import (
	"sync"
	"time"

	"github.com/byomcp/byomcp/agentsvc/internal/ratelimit"
	"github.com/byomcp/byomcp/agentsvc/wire"
)

// budget bounds what one client (a TCP remote address) can make the agent do: turns
// running at once (each one costs model calls) per client and in all, and new sessions per
// client (a token bucket). The client "" (a connection served without an address, see
// Server.serve) is bound by the totals only.
//
// Lock order: mu is a leaf.
type budget struct {
	clientTurns, maxTurns int              // negative: no limit
	sessions              *ratelimit.Keyed // new sessions per client; nil: no limit

	mu       mutex
	running  int
	byClient map[string]int // running turns per client
}

// maxBuckets bounds the clients whose new-session rate is remembered.
const maxBuckets = 100_000

func newBudget(cfg Config) *budget {
	b := &budget{
		clientTurns: cfg.ClientTurns,
		maxTurns:    cfg.MaxTurns,
		byClient:    map[string]int{},
	}
	if cfg.ClientSessionRate >= 0 {
		b.sessions = ratelimit.NewKeyed(cfg.ClientSessionRate, cfg.ClientSessionBurst, maxBuckets)
	}
	return b
}

// startTurn takes a running-turn slot for client; the release function gives it back and
// must be called exactly once. Over a bound it returns the error for the page.
func (b *budget) startTurn(client string) (release func(), err error) {
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

// newSession takes a token of client's new-session bucket; false: over the rate.
func (b *budget) newSession(client string) bool {
	return client == "" || b.sessions == nil || b.sessions.Allow(client, time.Now())
}
