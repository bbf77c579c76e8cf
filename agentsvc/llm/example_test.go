package llm_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/byomcp/byomcp/agentsvc/chat"
	"github.com/byomcp/byomcp/agentsvc/llm"
	"github.com/byomcp/byomcp/agentsvc/llm/llmtest"
)

// A fake OpenAI-compatible server scripts two answers: a tool call, then text. The real
// client streams both; the tool result goes back in the second request.
func ExampleNewOpenAI() {
	srv := llmtest.New(llmtest.Script(
		llmtest.Step{ToolCalls: []llmtest.FakeCall{{ID: "call_1", Name: "filter_cars", Args: `{"color":"red"}`}}},
		llmtest.Step{Text: "Here are the red cars."},
	))
	defer srv.Close()

	model := llm.NewOpenAI(llm.Options{
		BaseURL: srv.URL, APIKey: "test", Model: "gpt-4o-mini", HTTPClient: srv.Client(),
	})
	fmt.Println(model.Name())

	ctx := context.Background()
	req := llm.Request{
		Messages: []chat.Message{{Role: chat.RoleUser, Content: "Show me red cars"}},
		Tools: []chat.ToolDef{{
			Name:       "filter_cars",
			Parameters: json.RawMessage(`{"type":"object","properties":{"color":{"type":"string"}}}`),
		}},
	}
	first, err := model.Stream(ctx, req, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	call := first.ToolCalls[0]
	fmt.Println(first.FinishReason, call.Name, call.Arguments)

	req.Messages = append(req.Messages,
		chat.Message{Role: chat.RoleAssistant, ToolCalls: first.ToolCalls},
		chat.Message{Role: chat.RoleTool, ToolCallID: call.ID, Content: "3 cars"},
	)
	second, err := model.Stream(ctx, req, func(delta string) { fmt.Printf("%q\n", delta) })
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(second.FinishReason, second.Text)
	// Output:
	// custom gpt-4o-mini
	// tool_calls filter_cars {"color":"red"}
	// "Here "
	// "are "
	// "the "
	// "red "
	// "cars."
	// stop Here are the red cars.
}

// Select follows the configuration: here an OpenRouter key.
func ExampleSelect() {
	env := map[string]string{"OPENROUTER_API_KEY": "sk-or-secret"}
	model, desc, err := llm.Select(context.Background(), func(k string) string { return env[k] }, "", llm.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(model.Name())
	fmt.Println(desc)
	// Output:
	// openrouter openai/gpt-4o-mini
	// openrouter openai/gpt-4o-mini at https://openrouter.ai/api/v1 (OPENROUTER_API_KEY)
}
