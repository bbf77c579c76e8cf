package agentsvc

import (
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/byomcp/byomcp/agentsvc/internal/ratelimit"
	"github.com/byomcp/byomcp/agentsvc/llm"
)

// What other endpoints of the same service (agentsvc/agui) share with the page socket: the
// Origin allow-list, the metered model and the metrics.

// OriginAllowed reports whether a request with this Origin header may use the agent: the
// allow-list of /v1/ws (a missing or "null" Origin is refused), and its Host header check
// (DNS rebinding: a page whose name was made to resolve to this server is same-origin to it).
// A nil r checks the Origin alone, against Config.OwnOrigins and the allowed origins.
func (s *Server) OriginAllowed(origin string, r *http.Request) bool {
	return (r == nil || s.hostAllowed(r)) && s.originAllowed(origin, r)
}

// StartRun takes a running-turn slot for a run of another endpoint (an AG-UI run) from r,
// counted as a socket's turn is: in all (Config.MaxTurns) and per client address
// (Config.ClientTurns; a loopback address only in all). The release function gives it back
// and must be called exactly once. Over a bound: wire.ErrServerBusy or wire.ErrClientBusy.
func (s *Server) StartRun(r *http.Request) (release func(), err error) {
	release, err = s.budget.StartTurn(ratelimit.Client(r))
	if err != nil {
		s.metrics.refused.WithLabelValues("budget").Inc()
	}
	return release, err
}

// Model returns the configured model, recording call latency and tokens in the metrics.
func (s *Server) Model() llm.Model { return meteredModel{s.cfg.Model, s.metrics} }

// Metered returns m recording call latency and tokens in the metrics, as the socket's turns
// do for a site's own model (the AG-UI endpoint's runs on a site).
func (s *Server) Metered(m llm.Model) llm.Model { return meteredModel{m, s.metrics} }

// CountRefused counts a refused request in byomcp_refused_total{reason}.
func (s *Server) CountRefused(reason string) { s.metrics.refused.WithLabelValues(reason).Inc() }

// CountTurn counts an ended turn in byomcp_turns_total{stop_reason}.
func (s *Server) CountTurn(stopReason string) { s.metrics.turns.WithLabelValues(stopReason).Inc() }

// ObserveToolCall counts an ended tool call in byomcp_tool_calls_total{kind,outcome} and its
// latency.
func (s *Server) ObserveToolCall(kind, outcome string, d time.Duration) {
	s.metrics.observeTool(kind, outcome, d)
}

// CountPanic counts a panic that another endpoint recovered in byomcp_panics_total{where}
// (and tells Config.OnPanic, so tests fail on it).
func (s *Server) CountPanic(where string, v any) { s.countPanic(where, v) }

// MetricsHandler serves the Prometheus metrics.
func (s *Server) MetricsHandler() http.Handler {
	return promhttp.HandlerFor(s.metrics.reg, promhttp.HandlerOpts{})
}
