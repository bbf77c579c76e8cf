package agentsvc

import (
	"context"
	"fmt"
	"testing"

	"github.com/byomcp/byomcp/agentsvc/chat"
	"github.com/byomcp/byomcp/agentsvc/llm"
)

// twentyCalls is the saturation scenario's model, in process: 20 page tool calls for the
// user's message, then a short answer once their results are in. It keeps nothing.
type twentyCalls struct{}

func (twentyCalls) Name() string { return "twenty" }

func (twentyCalls) Stream(_ context.Context, req llm.Request, onDelta func(string)) (*llm.Response, error) {
	if req.Messages[len(req.Messages)-1].Role == chat.RoleTool {
		if onDelta != nil {
			onDelta("All ")
			onDelta("done.")
		}
		return &llm.Response{Text: "All done."}, nil
	}
	calls := make([]chat.ToolCall, 20)
	for i := range calls {
		calls[i] = call(fmt.Sprint("call_", i), "echo", `{"text":"x"}`)
	}
	return &llm.Response{ToolCalls: calls}, nil
}

// BenchmarkSaturationTurn is the saturation scenario's turn without sockets or model: a new
// conversation, 20 tools/call to the page at once, the answer, every event stored (memory
// store) and sent. Per op: one turn, so divide by 20 for a tool call. The page's side is in
// the figures too (it is in process).
func BenchmarkSaturationTurn(b *testing.B) {
	benchmarkTurns(b, twentyCalls{}, "pipe", 1)
}
