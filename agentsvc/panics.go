package agentsvc

// Contained panics: every goroutine started for a socket, a turn or a server loop recovers
// through these, logs, counts and ends only what failed.

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"
)

// guardian recovers, logs and counts panics. The Server holds one, and hands it to the hub
// and the relay at construction, so that their goroutines are guarded without reaching back
// into the Server.
type guardian struct {
	log     *zap.Logger
	panics  *prometheus.CounterVec    // byomcp_panics_total{where}
	onPanic func(where string, v any) // Config.OnPanic; nil: none
}

// countPanic counts a recovered panic (already logged with its stack) and reports it to
// Config.OnPanic.
func (g *guardian) countPanic(where string, v any) {
	g.panics.WithLabelValues(where).Inc()
	if g.onPanic != nil {
		g.onPanic(where, v)
	}
}

// reportPanic logs a recovered panic with its stack at Error level and counts it.
func (g *guardian) reportPanic(log *zap.Logger, where string, v any) {
	log.Error("recovered a panic", zap.String("where", where), zap.Any("panic", v), zap.Stack("stack"))
	g.countPanic(where, v)
}

// guard runs fn, reporting a panic instead of letting it end the process (server loops run
// each round through it, so the next round still comes).
func (g *guardian) guard(where string, fn func()) {
	defer func() {
		if v := recover(); v != nil {
			g.reportPanic(g.log, where, v)
		}
	}()
	fn()
}

// loopUntil runs a server loop (fn returns when until is closed), starting it again a second
// after a panic.
func (g *guardian) loopUntil(until <-chan struct{}, where string, fn func()) {
	for {
		g.guard(where, fn)
		select {
		case <-until:
			return
		case <-time.After(time.Second):
		}
	}
}
