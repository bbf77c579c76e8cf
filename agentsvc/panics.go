package agentsvc

// Contained panics: every goroutine started for a socket, a turn or a server loop recovers
// through these, logs, counts and ends only what failed.

import (
	"time"

	"go.uber.org/zap"
)

// countPanic counts a recovered panic (already logged with its stack) and reports it to
// Config.OnPanic.
func (s *Server) countPanic(where string, v any) {
	s.metrics.panics.WithLabelValues(where).Inc()
	if s.cfg.OnPanic != nil {
		s.cfg.OnPanic(where, v)
	}
}

// reportPanic logs a recovered panic with its stack at Error level and counts it.
func (s *Server) reportPanic(log *zap.Logger, where string, v any) {
	log.Error("recovered a panic", zap.String("where", where), zap.Any("panic", v), zap.Stack("stack"))
	s.countPanic(where, v)
}

// guard runs fn, reporting a panic instead of letting it end the process (server loops run
// each round through it, so the next round still comes).
func (s *Server) guard(where string, fn func()) {
	defer func() {
		if v := recover(); v != nil {
			s.reportPanic(s.log, where, v)
		}
	}()
	fn()
}

// loopUntil runs a server loop (fn returns when until is closed), starting it again a second
// after a panic.
func (s *Server) loopUntil(until <-chan struct{}, where string, fn func()) {
	for {
		s.guard(where, fn)
		select {
		case <-until:
			return
		case <-time.After(time.Second):
		}
	}
}
