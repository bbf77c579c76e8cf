package agentsvc

import (
	"sync"
	"time"

	"github.com/byomcp/byomcp/agentsvc/wire"
)

// budget bounds what one client (a TCP remote address) can make the agent do: turns
// running at once (each one costs model calls) per client and in all, and new sessions per
// client (a token bucket). The client "" (a connection served without an address, see
// Server.serve) is bound by the totals only.
//
// Lock order: mu is a leaf.
type budget struct {
	clientTurns, maxTurns int     // negative: no limit
	rate                  float64 // new sessions per second per client; negative: no limit
	burst                 float64

	mu       sync.Mutex
	running  int
	byClient map[string]int            // running turns per client
	buckets  map[string]*sessionBucket // new-session buckets per client
}

type sessionBucket struct {
	tokens float64
	at     time.Time
}

// maxBuckets bounds the session buckets kept; full buckets are dropped first.
const maxBuckets = 100_000

func newBudget(cfg Config) *budget {
	return &budget{
		clientTurns: cfg.ClientTurns,
		maxTurns:    cfg.MaxTurns,
		rate:        cfg.ClientSessionRate,
		burst:       float64(cfg.ClientSessionBurst),
		byClient:    map[string]int{},
		buckets:     map[string]*sessionBucket{},
	}
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
	if client == "" || b.rate < 0 {
		return true
	}
	now := time.Now()
	b.mu.Lock()
	defer b.mu.Unlock()
	bk := b.buckets[client]
	if bk == nil {
		if len(b.buckets) >= maxBuckets {
			b.pruneLocked(now)
		}
		bk = &sessionBucket{tokens: b.burst, at: now}
		b.buckets[client] = bk
	}
	bk.tokens = min(b.burst, bk.tokens+now.Sub(bk.at).Seconds()*b.rate)
	bk.at = now
	if bk.tokens < 1 {
		return false
	}
	bk.tokens--
	return true
}

// pruneLocked drops the buckets that have filled up again (they hold nothing a new one
// would not), or all of them if none has.
func (b *budget) pruneLocked(now time.Time) {
	for k, bk := range b.buckets {
		if bk.tokens+now.Sub(bk.at).Seconds()*b.rate >= b.burst {
			delete(b.buckets, k)
		}
	}
	if len(b.buckets) >= maxBuckets {
		clear(b.buckets)
	}
}
