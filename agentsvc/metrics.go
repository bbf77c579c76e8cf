package agentsvc

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/byomcp/byomcp/agentsvc/llm"
)

// metrics are the server's Prometheus metrics, on a registry of its own.
type metrics struct {
	reg          *prometheus.Registry
	sockets      prometheus.Gauge
	sessions     prometheus.Gauge
	turns        *prometheus.CounterVec
	toolCalls    *prometheus.CounterVec
	toolLatency  *prometheus.HistogramVec
	modelLatency prometheus.Histogram
	tokens       *prometheus.CounterVec
	storeWrites  prometheus.Histogram
	dropped      prometheus.Counter
	refused      *prometheus.CounterVec
	panics       *prometheus.CounterVec
}

func newMetrics() *metrics {
	m := &metrics{
		reg: prometheus.NewRegistry(),
		sockets: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "byomcp_open_sockets", Help: "Page sockets open now.",
		}),
		sessions: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "byomcp_live_sessions", Help: "Sessions held in memory now (attached to a socket or running a turn).",
		}),
		turns: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "byomcp_turns_total", Help: "Turns ended, by how: stop reason end, cancelled, max_iterations, error (agent/chat's stopReason), deferred (an AG-UI run that ended at frontend tools), interrupted (cut by a crash or a store failure, closed when its session was resumed), taken_over (cut by the death of the replica running it, closed by the replica that took its session over). Each turn once.",
		}, []string{"stop_reason"}),
		toolCalls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "byomcp_tool_calls_total", Help: "Tool calls ended, by kind (page, server, client) and outcome (ok, tool_error, invalid_args, timeout, page_gone, cancelled, unknown_tool, failed, over_limit, handed_off: tools.Kind).",
		}, []string{"kind", "outcome"}),
		toolLatency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "byomcp_tool_call_seconds", Help: "Tool call latency.",
			Buckets: []float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30},
		}, []string{"kind"}),
		modelLatency: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "byomcp_model_call_seconds", Help: "Model call latency (whole streamed response).",
			Buckets: prometheus.ExponentialBuckets(0.01, 2.5, 12),
		}),
		storeWrites: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "byomcp_store_write_seconds", Help: "Writes of a session's events to the store, from the flusher's call to its answer (retries included): the wait before its events reach the page.",
			Buckets: []float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
		}),
		tokens: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "byomcp_model_tokens_total", Help: "Tokens used, by kind (prompt, completion).",
		}, []string{"kind"}),
		dropped: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "byomcp_slow_clients_dropped_total", Help: "Sockets closed because they did not read fast enough.",
		}),
		refused: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "byomcp_refused_total", Help: "Connections, frames, turns and sessions refused, by reason (origin, host, rate_limit, too_big, protocol, message_timeout, budget, sessions, store_down).",
		}, []string{"reason"}),
		panics: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "byomcp_panics_total", Help: "Panics recovered (each one a bug: logged with its stack), by where: socket_handler, socket_notification, socket_after, socket_read, socket_write, socket_ping, socket_linger, handshake, relist, turn, tool_call, model, flusher, expire_idle, renew_claims.",
		}, []string{"where"}),
	}
	m.reg.MustRegister(m.sockets, m.sessions, m.turns, m.toolCalls, m.toolLatency, m.modelLatency, m.storeWrites, m.tokens, m.dropped, m.refused, m.panics,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

func (m *metrics) observeTool(kind, outcome string, d time.Duration) {
	m.toolCalls.WithLabelValues(kind, outcome).Inc()
	m.toolLatency.WithLabelValues(kind).Observe(d.Seconds())
}

// meteredModel records model call latency and tokens.
type meteredModel struct {
	llm.Model
	m *metrics
}

func (mm meteredModel) Stream(ctx context.Context, req llm.Request, onDelta func(string)) (*llm.Response, error) {
	start := time.Now()
	resp, err := mm.Model.Stream(ctx, req, onDelta)
	mm.m.modelLatency.Observe(time.Since(start).Seconds())
	if resp != nil { // with an error too: what a failed or cancelled call consumed (llm.Model)
		mm.m.tokens.WithLabelValues("prompt").Add(float64(resp.Usage.PromptTokens))
		mm.m.tokens.WithLabelValues("completion").Add(float64(resp.Usage.CompletionTokens))
	}
	return resp, err
}
