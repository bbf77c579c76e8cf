package planner

import (
	"context"
	"testing"

	"github.com/byomcp/byomcp/agentsvc/chat"
	"github.com/byomcp/byomcp/agentsvc/llm"
	"github.com/byomcp/byomcp/agentsvc/tools"
)

// TestFillsOnlyWhatTheAgentAccepts: the planner reads a tool's parameters from the schema
// agentsvc/tools compiles for the agent, so a value it fills is one the agent's validation
// accepts, bounds written in allOf, not, $ref'd definitions and multipleOf included.
func TestFillsOnlyWhatTheAgentAccepts(t *testing.T) {
	book := tool("book_table", "Book a table.", `{"type":"object","$defs":{"size":{"type":"integer","allOf":[{"maximum":8}],"not":{"const":7}}},
		"properties":{"guests":{"$ref":"#/$defs/size","description":"number of guests"},"minutes":{"type":"integer","multipleOf":15}},"required":["guests"]}`)
	cs, err := tools.CompileSchema(book.Parameters)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		say  string
		want string // the call's arguments; "" = no call
	}{
		{"book a table for 4 guests", `{"guests":4}`},
		{"book a table for 12 guests", ""},
		{"book a table for 7 guests", ""},
		{"book a table for 4 guests for 90 minutes", `{"guests":4,"minutes":90}`},
		{"book a table for 4 guests for 100 minutes", `{"guests":4}`},
	} {
		resp, err := New().Stream(context.Background(), llm.Request{Messages: []chat.Message{user(tt.say)}, Tools: []chat.ToolDef{book}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		if len(resp.ToolCalls) == 1 {
			got = resp.ToolCalls[0].Arguments
			if err := cs.Validate(context.Background(), []byte(got)); err != nil {
				t.Errorf("%q: the planner's arguments %s fail the agent's validation: %v", tt.say, got, err)
			}
		}
		if got != tt.want {
			t.Errorf("%q: call %q, want %q (reply %q)", tt.say, got, tt.want, resp.Text)
		}
	}
}
