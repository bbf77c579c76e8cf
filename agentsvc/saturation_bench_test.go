package agentsvc

import (
	"context"
	"fmt"
	"testing"

	"github.com/byomcp/byomcp/agentsvc/chat"
	"github.com/byomcp/byomcp/agentsvc/llm"
	"github.com/byomcp/byomcp/agentsvc/wire"
	"github.com/byomcp/byomcp/wsrpc"
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
	srv, err := NewServer(Config{Store: newTestStore(), Model: twentyCalls{}, RateLimit: -1})
	if err != nil {
		b.Fatal(err)
	}
	agentEnd, pageEnd := wsrpc.Pipe()
	srv.serve(context.Background(), agentEnd, testOrigin)
	page := startPage(b, pageEnd, pageOpts{})
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if err := page.Call(ctx, wire.MethodAgentSession, wire.SessionParams{}, nil); err != nil {
			b.Fatal(err)
		}
		var res wire.ChatResult
		if err := page.Call(ctx, wire.MethodAgentChat, wire.ChatParams{Text: "go"}, &res); err != nil || res.StopReason != wire.StopEnd {
			b.Fatalf("got %+v %v, want a normal turn", res, err)
		}
	}
	b.StopTimer()
	sctx, cancel := context.WithTimeout(ctx, waitLimit)
	defer cancel()
	_ = srv.Shutdown(sctx)
}
