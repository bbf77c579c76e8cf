package mcpservers

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/byomcp/byomcp/agentsvc/loop"
	"github.com/byomcp/byomcp/agentsvc/mcpservers/mcpserverstest"
	"github.com/byomcp/byomcp/agentsvc/wire"

	"github.com/byomcp/byomcp/agentsvc/llm"
	"github.com/byomcp/byomcp/agentsvc/llm/llmtest"
)

// TestEverythingThroughAgentLoop runs the reference server
// @modelcontextprotocol/server-everything over stdio and over Streamable HTTP under the
// agent's loop: the real OpenAI client talks to a fake model that calls the server's
// tools in parallel (one call with arguments that fail validation), and the results must
// reach the model's next request.
func TestEverythingThroughAgentLoop(t *testing.T) {
	tests := []struct {
		name      string
		transport string
		audience  string
		config    func(t *testing.T, ctx context.Context) map[string]any
	}{
		{
			name: "stdio", transport: TransportStdio, audience: AudienceCLI,
			config: func(t *testing.T, _ context.Context) map[string]any {
				node, entry := mcpserverstest.Everything(t)
				return map[string]any{"command": node, "args": []string{entry, "stdio"}}
			},
		},
		{
			name: "streamable HTTP", transport: TransportStreamable, audience: AudienceWeb,
			config: func(t *testing.T, ctx context.Context) map[string]any {
				return map[string]any{"url": startHTTPEverything(t, ctx, "streamableHttp") + "/mcp", "expose": []string{"web"}}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
			defer cancel()
			m := Start(ctx, writeConfig(t, map[string]any{"everything": tt.config(t, ctx)}), realOptions(t))
			defer m.Close()
			if err := m.WaitReady(ctx); err != nil {
				t.Fatalf("WaitReady: %v", err)
			}
			if st := statusOf(t, m, "everything"); st.State != StateReady || st.Transport != tt.transport {
				t.Fatalf("status = %+v, want ready over %s", st, tt.transport)
			}

			fake := llmtest.New(llmtest.Script(
				llmtest.Step{ToolCalls: []llmtest.FakeCall{
					{ID: "call_echo", Name: "everything__echo", Args: `{"message":"through the loop"}`},
					{ID: "call_sum", Name: "everything__get-sum", Args: `{"a":2,"b":40}`},
					{ID: "call_bad", Name: "everything__echo", Args: `{"message":7}`},
				}},
				llmtest.Step{Text: "Echoed, and the sum is 42."},
			))
			defer fake.Close()
			model := llm.NewOpenAI(llm.Options{BaseURL: fake.URL, APIKey: "test", Model: "fake-model", MaxRetries: -1})

			var mu sync.Mutex
			results := map[string]*wire.ToolResultEvent{}
			res := loop.Run(ctx, loop.Turn{
				ID:    "t1",
				Model: model,
				Text:  "echo something and add 2 and 40",
				Tools: Toolbox{Tools: m, Audience: tt.audience},
				Emit: func(ev wire.Event) {
					if r, ok := ev.(*wire.ToolResultEvent); ok {
						mu.Lock()
						results[r.CallID] = r
						mu.Unlock()
					}
				},
			})
			if res.StopReason != wire.StopEnd || res.Text != "Echoed, and the sum is 42." {
				t.Fatalf("turn: stop %q text %q err %v, want end with the model's answer", res.StopReason, res.Text, res.Err)
			}

			mu.Lock()
			defer mu.Unlock()
			if r := results["call_echo"]; r == nil || r.IsError || r.Text != "Echo: through the loop" || r.Name != "everything__echo" {
				t.Errorf("echo result event: got %+v, want Echo: through the loop", r)
			}
			if r := results["call_sum"]; r == nil || r.IsError || !strings.Contains(r.Text, "42") {
				t.Errorf("get-sum result event: got %+v, want the sum 42", r)
			}
			if r := results["call_bad"]; r == nil || !r.IsError || !strings.Contains(r.Text, "/message") {
				t.Errorf("invalid-arguments result event: got %+v, want a tool error naming /message", r)
			}

			reqs := fake.Requests()
			if len(reqs) != 2 {
				t.Fatalf("got %d model requests, want 2", len(reqs))
			}
			var offered []string
			for _, tool := range reqs[0].Tools {
				offered = append(offered, tool.Name)
				if tool.Name == "everything__echo" && !strings.Contains(string(tool.Parameters), `"message"`) {
					t.Errorf("echo's parameters %s do not carry the server's schema", tool.Parameters)
				}
			}
			for _, want := range []string{"everything__echo", "everything__get-sum"} {
				if !slices.Contains(offered, want) {
					t.Errorf("tools offered to the model: %v, missing %s", offered, want)
				}
			}
			toolMsgs := map[string]string{}
			for _, msg := range reqs[1].Messages {
				if msg.Role == "tool" {
					toolMsgs[msg.ToolCallID] = msg.Content
				}
			}
			for id, want := range map[string]string{
				"call_echo": "Echo: through the loop",
				"call_sum":  "42",
				"call_bad":  `status="error"`,
			} {
				if got, ok := toolMsgs[id]; !ok || !strings.Contains(got, want) || !strings.Contains(got, "<tool_output") {
					t.Errorf("tool message for %s in the next request: got %q, want labelled output containing %q", id, got, want)
				}
			}
		})
	}
}
