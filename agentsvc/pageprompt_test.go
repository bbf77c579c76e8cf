package agentsvc

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/byomcp/byomcp/agentsvc/chat"
	"github.com/byomcp/byomcp/agentsvc/llm"
	"github.com/byomcp/byomcp/agentsvc/planner"
	"github.com/byomcp/byomcp/agentsvc/store"
)

// The offline planner learns the page the visitor is on from the instructions a turn runs
// with (systemPrompt, or an operator's own with pageNote): on a page reached by a link, the
// page's address names the item it is about, and its title names it.
func TestPlannerReadsThePageFromTheInstructions(t *testing.T) {
	page := store.Page{Title: `Test drive: 2023 Toyota RAV4 "XLE" — Northwind Motors`, URL: "https://cars.example/test-drive.html?id=c01"}
	tools := []chat.ToolDef{{Name: "go_to_financing", Description: "Go to the financing calculator for this car.", Parameters: json.RawMessage(`{"type":"object","properties":{}}`)}}
	for _, prompt := range []string{
		(&Server{}).systemPrompt(page),
		(&Server{cfg: Config{SystemPrompt: "You sell cars."}}).systemPrompt(page),
		"A site's own instructions." + pageNote(page), // siteTurn
	} {
		req := llm.Request{Tools: tools, Messages: []chat.Message{
			{Role: chat.RoleSystem, Content: prompt},
			{Role: chat.RoleUser, Content: "which car is this for?"},
		}}
		resp, err := planner.New().Stream(context.Background(), req, nil)
		if err != nil {
			t.Fatal(err)
		}
		if want := `It is the 2023 Toyota RAV4 "XLE".`; len(resp.Text) < len(want) || resp.Text[:len(want)] != want {
			t.Errorf("with the instructions %q: the planner answered %q, want %q first", prompt, resp.Text, want)
		}
	}
}
