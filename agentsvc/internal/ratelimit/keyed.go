// Package ratelimit is a token bucket per key (a client's address), bounded in the keys it
// remembers, shared by the page socket's new-session budget and the AG-UI endpoint's runs.
package ratelimit

import (
	"net"
	"net/http"
	"net/netip"
	"sync"
	"time"
)

// Keyed is a token bucket per key: each key may take burst tokens at once and gets rate
// tokens back per second. It remembers at most max keys; when full, it forgets the buckets
// that have filled up again (forgetting them changes nothing), and if none has, all of them.
// Safe for concurrent use; its mutex is a leaf.
type Keyed struct {
	rate, burst float64
	max         int

	mu      sync.Mutex
	buckets map[string]*bucket
}

type bucket struct {
	tokens float64
	at     time.Time
}

// NewKeyed returns a limiter of rate tokens per second per key, burst at most, remembering
// at most keys keys (at least 1).
func NewKeyed(rate float64, burst, keys int) *Keyed {
	return &Keyed{rate: rate, burst: float64(burst), max: max(1, keys), buckets: map[string]*bucket{}}
}

// Allow takes a token of key's bucket at time now; false: the key is over its rate.
func (l *Keyed) Allow(key string, now time.Time) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.buckets[key]
	if b == nil {
		if len(l.buckets) >= l.max {
			l.pruneLocked(now)
		}
		b = &bucket{tokens: l.burst, at: now}
		l.buckets[key] = b
	}
	b.tokens = min(l.burst, b.tokens+now.Sub(b.at).Seconds()*l.rate)
	b.at = now
	if b.tokens < 1 {
		return false
	}
	b.tokens--
	return true
}

// Len reports how many keys the limiter remembers.
func (l *Keyed) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.buckets)
}

func (l *Keyed) pruneLocked(now time.Time) {
	for k, b := range l.buckets {
		if b.tokens+now.Sub(b.at).Seconds()*l.rate >= l.burst {
			delete(l.buckets, k)
		}
	}
	if len(l.buckets) >= l.max {
		clear(l.buckets)
	}
}

// Client is the key a request's client is counted by: the host of its TCP remote address
// (forwarded headers are not trusted; behind a proxy, the proxy's). A loopback address gives
// "": what connects from this machine is a local reverse proxy, behind which every visitor
// would share one budget, or the operator's own tools, so only the totals bound it.
func Client(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	if ip, err := netip.ParseAddr(host); err == nil && ip.Unmap().IsLoopback() {
		return ""
	}
	return host
}
