package planner_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/byomcp/byomcp/agentsvc/chat"
	"github.com/byomcp/byomcp/agentsvc/llm"
	"github.com/byomcp/byomcp/agentsvc/planner"
)

func ExamplePlanner_Stream() {
	ctx := context.Background()
	tools := []chat.ToolDef{{
		Name:        "search_cars",
		Description: "Filter the car inventory shown on the page.",
		Parameters: json.RawMessage(`{"type":"object","properties":{
			"bodyType":{"type":"string","enum":["suv","sedan"]},
			"maxPrice":{"type":"number","minimum":0}}}`),
	}}
	p := planner.New()
	msgs := []chat.Message{{Role: chat.RoleUser, Content: "show me SUVs under 40k"}}

	resp, _ := p.Stream(ctx, llm.Request{Messages: msgs, Tools: tools}, nil)
	call := resp.ToolCalls[0]
	fmt.Println(call.ID, call.Name, call.Arguments)

	msgs = append(msgs,
		chat.Message{Role: chat.RoleAssistant, ToolCalls: resp.ToolCalls},
		chat.Message{Role: chat.RoleTool, ToolCallID: call.ID, Name: call.Name,
			Content: `<tool_output tool="search_cars" status="ok">Showing 1 car: c01 2023 Toyota RAV4 $31990</tool_output>`})
	resp, _ = p.Stream(ctx, llm.Request{Messages: msgs, Tools: tools}, func(delta string) {})
	fmt.Println(resp.Text)
	// Output:
	// planner-1-1 search_cars {"bodyType":"suv","maxPrice":40000}
	// Showing 1 car: 2023 Toyota RAV4 $31,990
	//
	// (Offline planner — this is the offline planner, not a language model: it follows simple requests only. Site owner: set OPENAI_API_KEY, OPENROUTER_API_KEY or GEMINI_API_KEY, or run Ollama, for a real agent.)
}
