package wsrpc

import "time"

// tokenBucket is a token-bucket rate limiter. It is used by one goroutine only and reads the
// time it is given, so it follows fake time in tests.
type tokenBucket struct {
	rate   float64 // tokens per second
	burst  float64 // capacity
	tokens float64
	last   time.Time
}

func newTokenBucket(rate float64, burst int, now time.Time) *tokenBucket {
	return &tokenBucket{rate: rate, burst: float64(burst), tokens: float64(burst), last: now}
}

// allow takes a token if there is one. calm reports that the bucket was full, i.e. the sender
// had stayed within the rate long enough to be forgiven earlier refusals.
func (b *tokenBucket) allow(now time.Time) (ok, calm bool) {
	if d := now.Sub(b.last); d > 0 {
		b.tokens = min(b.burst, b.tokens+d.Seconds()*b.rate)
		b.last = now
	}
	calm = b.tokens >= b.burst
	if b.tokens >= 1 {
		b.tokens--
		return true, calm
	}
	return false, false
}
