package console

import (
	"net/http"
	"sort"

	dto "github.com/prometheus/client_model/go"
)

// Health is what the charts read: the counters of /metrics at one moment (the page keeps
// the samples and draws rates from their differences).
type Health struct {
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
	sort.Slice(x.Tools, func(i, j int) bool {
		a, b := x.Tools[i], x.Tools[j]
		if a.Site != b.Site {
			return a.Site < b.Site
		}
		return a.Tool < b.Tool
	})
	return x, nil
}

func (h *Handler) metrics(w http.ResponseWriter, r *http.Request) {
	x, err := h.health()
	if err != nil {
		writeError(w, http.StatusInternalServerError, "gathering the metrics failed")
		return
	}
	writeJSON(w, x)
}
