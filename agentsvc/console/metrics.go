package console

import (
	"cmp"
	"maps"
	"net/http"
	"slices"
	"sort"

	dto "github.com/prometheus/client_model/go"
	"go.uber.org/zap"
)

// Health is what the charts read: the counters of /metrics at one moment (the page keeps
// the samples and draws rates from their differences).
//
// With a Cluster (several replicas on one Redis store) GET /console/api/metrics is
// cluster-wide, whichever replica answers: Replicas holds each replica's own counters (this
// one's now, the others' from their presence, made every presenceEvery while a console is
// open anywhere, each with its own Time), and the fields above it are their sums. The page
// draws rates per replica from that replica's successive samples and adds them up, a drop in
// a counter being a restart (the new value is the increase, as Prometheus's rate() does), so
// a rate is never negative and a balancer alternating between replicas changes nothing.
// Without a Cluster, Replicas holds this replica's counters alone.
type Health struct {
	// Replica names whose counters these are (in Replicas; "" without a Cluster), Late
	// marks a replica whose presence is late (presenceLate).
	Replica      string             `json:"replica,omitempty"`
	Late         bool               `json:"late,omitempty"`
	Time         int64              `json:"time"` // milliseconds since 1970
	Sockets      float64            `json:"sockets"`
	Sessions     float64            `json:"sessions"`
	Turns        map[string]float64 `json:"turns"`   // byomcp_turns_total by stop reason
	Refused      map[string]float64 `json:"refused"` // byomcp_refused_total by reason
	ModelCalls   float64            `json:"modelCalls"`
	ModelSeconds float64            `json:"modelSeconds"`
	Tokens       map[string]float64 `json:"tokens"`       // byomcp_model_tokens_total by kind
	TokensBySite map[string]float64 `json:"tokensBySite"` // byomcp_site_model_tokens_total
	// ModelBySite is byomcp_site_model_call_seconds: model calls and their total latency per
	// site (sites.json); the page draws the mean latency per site and the tokens per hour
	// per site from the differences between samples.
	ModelBySite map[string]ModelHealth `json:"modelBySite"`
	Tools       []ToolHealth           `json:"tools"`
	// Replicas is each replica's Health, by name; only at the top of the answer.
	Replicas []Health `json:"replicas,omitempty"`
}

const (
	// maxHealthTools and maxHealthSites bound what one replica publishes of its health in
	// its presence (the feed already keeps maxToolLabels tool labels, sites.json names the
	// sites): the tools with the most calls and the sites first in order are kept, and
	// names are clipped to maxNameShown bytes.
	maxHealthTools = maxToolLabels + 1
	maxHealthSites = 256
	maxHealthKeys  = 64 // stop reasons, refusal reasons, token kinds: fixed sets in the code
)

// bounded is x cut to the bounds of a presence.
func (x Health) bounded() Health {
	clipMap := func(m map[string]float64, n int) map[string]float64 {
		out := map[string]float64{}
		for _, k := range slices.Sorted(maps.Keys(m))[:min(len(m), n)] {
			out[clip(k, maxNameShown)] += m[k]
		}
		return out
	}
	x.Turns, x.Refused, x.Tokens = clipMap(x.Turns, maxHealthKeys), clipMap(x.Refused, maxHealthKeys), clipMap(x.Tokens, maxHealthKeys)
	x.TokensBySite = clipMap(x.TokensBySite, maxHealthSites)
	by := map[string]ModelHealth{}
	for _, k := range slices.Sorted(maps.Keys(x.ModelBySite))[:min(len(x.ModelBySite), maxHealthSites)] {
		m := by[clip(k, maxNameShown)]
		m.Calls += x.ModelBySite[k].Calls
		m.Seconds += x.ModelBySite[k].Seconds
		by[clip(k, maxNameShown)] = m
	}
	x.ModelBySite = by
	tools := slices.Clone(x.Tools)
	if len(tools) > maxHealthTools {
		slices.SortStableFunc(tools, func(a, b ToolHealth) int { return cmp.Compare(b.OK+b.Errors, a.OK+a.Errors) })
		tools = tools[:maxHealthTools]
	}
	for i := range tools {
		tools[i].Site, tools[i].Tool = clip(tools[i].Site, maxNameShown), clip(tools[i].Tool, maxNameShown)
	}
	x.Tools = sortTools(tools)
	x.Replicas = nil
	return x
}

func sortTools(tools []ToolHealth) []ToolHealth {
	sort.Slice(tools, func(i, j int) bool {
		a, b := tools[i], tools[j]
		if a.Site != b.Site {
			return a.Site < b.Site
		}
		return a.Tool < b.Tool
	})
	return tools
}

// sumHealth adds up the replicas' counters and gauges; parts become its Replicas.
func sumHealth(time int64, parts []Health) Health {
	x := Health{Time: time, Turns: map[string]float64{}, Refused: map[string]float64{}, Tokens: map[string]float64{}, TokensBySite: map[string]float64{}, ModelBySite: map[string]ModelHealth{}, Tools: []ToolHealth{}, Replicas: parts}
	add := func(dst, src map[string]float64) {
		for k, v := range src {
			dst[k] += v
		}
	}
	tools := map[[2]string]*ToolHealth{}
	for _, p := range parts {
		x.Sockets += p.Sockets
		x.Sessions += p.Sessions
		x.ModelCalls += p.ModelCalls
		x.ModelSeconds += p.ModelSeconds
		add(x.Turns, p.Turns)
		add(x.Refused, p.Refused)
		add(x.Tokens, p.Tokens)
		add(x.TokensBySite, p.TokensBySite)
		for k, v := range p.ModelBySite {
			m := x.ModelBySite[k]
			m.Calls += v.Calls
			m.Seconds += v.Seconds
			x.ModelBySite[k] = m
		}
		for _, t := range p.Tools {
			k := [2]string{t.Site, t.Tool}
			s := tools[k]
			if s == nil {
				s = &ToolHealth{Site: t.Site, Tool: t.Tool}
				tools[k] = s
			}
			s.OK += t.OK
			s.Errors += t.Errors
			s.Timed += t.Timed
			s.Seconds += t.Seconds
		}
	}
	for _, t := range tools {
		x.Tools = append(x.Tools, *t)
	}
	x.Tools = sortTools(x.Tools)
	return x
}

// ModelHealth is one site's model calls so far.
type ModelHealth struct {
	Calls   float64 `json:"calls"`
	Seconds float64 `json:"seconds"`
}

// ToolHealth is one tool's calls so far.
type ToolHealth struct {
	Site    string  `json:"site"`
	Tool    string  `json:"tool"`
	OK      float64 `json:"ok"`
	Errors  float64 `json:"errors"`
	Timed   float64 `json:"timed"`   // calls with a latency
	Seconds float64 `json:"seconds"` // their total latency
}

func label(m *dto.Metric, name string) string {
	for _, l := range m.GetLabel() {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}

func (h *Handler) health() (Health, error) {
	mfs, err := h.o.Gatherer.Gather()
	if err != nil {
		return Health{}, err
	}
	x := Health{Time: h.o.Now().UnixMilli(), Turns: map[string]float64{}, Refused: map[string]float64{}, Tokens: map[string]float64{}, TokensBySite: map[string]float64{}, ModelBySite: map[string]ModelHealth{}, Tools: []ToolHealth{}}
	tools := map[[2]string]*ToolHealth{}
	tool := func(m *dto.Metric) *ToolHealth {
		k := [2]string{label(m, "site"), label(m, "tool")}
		if tools[k] == nil {
			tools[k] = &ToolHealth{Site: k[0], Tool: k[1]}
		}
		return tools[k]
	}
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			switch mf.GetName() {
			case "byomcp_open_sockets":
				x.Sockets = m.GetGauge().GetValue()
			case "byomcp_live_sessions":
				x.Sessions = m.GetGauge().GetValue()
			case "byomcp_turns_total":
				x.Turns[label(m, "stop_reason")] += m.GetCounter().GetValue()
			case "byomcp_refused_total":
				x.Refused[label(m, "reason")] += m.GetCounter().GetValue()
			case "byomcp_model_call_seconds":
				x.ModelCalls += float64(m.GetHistogram().GetSampleCount())
				x.ModelSeconds += m.GetHistogram().GetSampleSum()
			case "byomcp_model_tokens_total":
				x.Tokens[label(m, "kind")] += m.GetCounter().GetValue()
			case "byomcp_site_model_call_seconds":
				mh := x.ModelBySite[label(m, "site")]
				mh.Calls += float64(m.GetHistogram().GetSampleCount())
				mh.Seconds += m.GetHistogram().GetSampleSum()
				x.ModelBySite[label(m, "site")] = mh
			case "byomcp_site_model_tokens_total":
				x.TokensBySite[label(m, "site")] += m.GetCounter().GetValue()
			case "byomcp_tool_calls_by_tool_total":
				if label(m, "outcome") == "ok" {
					tool(m).OK += m.GetCounter().GetValue()
				} else {
					tool(m).Errors += m.GetCounter().GetValue()
				}
			case "byomcp_tool_call_by_tool_seconds":
				t := tool(m)
				t.Timed += float64(m.GetHistogram().GetSampleCount())
				t.Seconds += m.GetHistogram().GetSampleSum()
			}
		}
	}
	for _, t := range tools {
		x.Tools = append(x.Tools, *t)
	}
	x.Tools = sortTools(x.Tools)
	return x, nil
}

// metrics serves GET /console/api/metrics: the Health of every replica (see Health), this
// one's when there is no Cluster. X-Byomcp-Cluster says "unavailable" when the other
// replicas could not be read (then it is this replica's alone).
func (h *Handler) metrics(w http.ResponseWriter, r *http.Request) {
	h.consoleUsed() // the other replicas publish their presence, and with it their health
	x, err := h.health()
	if err != nil {
		writeError(w, http.StatusInternalServerError, "gathering the metrics failed")
		return
	}
	x.Replica = h.o.Replica
	parts := []Health{x}
	others, err := h.others(r.Context())
	if err != nil {
		h.log.Warn("console: reading the other replicas' health failed", zap.Error(err))
		w.Header().Set("X-Byomcp-Cluster", "unavailable")
	}
	for name, s := range others {
		if s.Health == nil {
			continue
		}
		p := s.Health.bounded()
		p.Replica, p.Late = name, h.late(s.Time)
		parts = append(parts, p)
	}
	slices.SortFunc(parts, func(a, b Health) int { return cmp.Compare(a.Replica, b.Replica) })
	writeJSON(w, sumHealth(x.Time, parts))
}
