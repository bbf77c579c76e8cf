package planner

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/byomcp/byomcp/agentsvc/chat"
)

// financingAndByomcp is the financing page with the byomcp tool server connected too.
var financingAndByomcp = append(append([]chat.ToolDef(nil), financingTools...), byomcpTools...)

func TestFreeTextValue(t *testing.T) {
	tests := []struct {
		page  string
		tools []chat.ToolDef
		text  string
		name  string
		args  string
	}{
		{"byomcp", byomcpTools, "calculate (17 * 23) + 4", "byomcp__calculate", `{"expression":"(17 * 23) + 4"}`},
		{"byomcp", byomcpTools, "what is (17 * 23) + 4?", "byomcp__calculate", `{"expression":"(17 * 23) + 4"}`},
		{"byomcp", byomcpTools, "What's 2+2", "byomcp__calculate", `{"expression":"2+2"}`},
		{"byomcp", byomcpTools, "calculate 42", "byomcp__calculate", `{"expression":"42"}`},
		// A terminal audit: operators said in words were refused, and "times" called the clock.
		{"byomcp", byomcpTools, "what's 3 plus 4", "byomcp__calculate", `{"expression":"3 + 4"}`},
		{"byomcp", byomcpTools, "what is 7 times 6", "byomcp__calculate", `{"expression":"7 * 6"}`},
		{"byomcp", byomcpTools, "what is 12 divided by 4 minus 1", "byomcp__calculate", `{"expression":"12 / 4 - 1"}`},
		{"byomcp", byomcpTools, "1 plus 2 plus 3", "byomcp__calculate", `{"expression":"1 + 2 + 3"}`},
		{"byomcp", byomcpTools, "what's 15% of 80?", "byomcp__calculate", `{"expression":"15 / 100 * 80"}`},
		{"byomcp", byomcpTools, "add a note: 15% of 80 said yes", "byomcp__add_note", `{"text":"15% of 80 said yes"}`},
		{"byomcp", byomcpTools, "add a note buy milk", "byomcp__add_note", `{"text":"buy milk"}`},
		{"byomcp", byomcpTools, "add a note: I need to call mom", "byomcp__add_note", `{"text":"I need to call mom"}`},
		{"byomcp", byomcpTools, "can you add a note for me saying buy milk please", "byomcp__add_note", `{"text":"buy milk"}`},
		{"byomcp", byomcpTools, "save buy milk as a note", "byomcp__add_note", `{"text":"buy milk"}`},
		{"byomcp", byomcpTools, `add a note titled "groceries": buy milk`, "byomcp__add_note", `{"text":"buy milk","title":"groceries"}`},
		{"byomcp", byomcpTools, `add a note buy milk, title "groceries"`, "byomcp__add_note", `{"text":"buy milk","title":"groceries"}`},
		{"byomcp", byomcpTools, "list my notes", "byomcp__list_notes", `{}`},
		{"byomcp", byomcpTools, "what time is it?", "byomcp__get_current_time", `{}`},
		{"search", searchTools, "search for red bikes", "search", `{"query":"red bikes"}`},
		{"search", searchTools, "search for red bikes under $500", "search", `{"query":"red bikes","maxPrice":500}`},
		{"search", searchTools, "please search the catalogue for a (red) bike, thanks", "search", `{"query":"(red) bike"}`},
		{"search", searchTools, "show the cart", "open_cart", `{}`},
		{"financing+byomcp", financingAndByomcp, "what is 32000 - 5000", "byomcp__calculate", `{"expression":"32000 - 5000"}`},
		{"financing+byomcp", financingAndByomcp, "payment for 48 months at 4.9% apr on a $32,000 price", "calculate_payment",
			`{"price":32000,"termMonths":48,"apr":4.9}`},
		{"financing+byomcp", financingAndByomcp, "apply for financing as Ada Lovelace, ada@example.com, income $85,000", "apply_for_financing",
			`{"fullName":"Ada Lovelace","email":"ada@example.com","annualIncome":85000}`},
	}
	for _, tt := range tests {
		t.Run(tt.page+"/"+tt.text, func(t *testing.T) {
			resp := stream(t, tt.tools, user(tt.text))
			if len(resp.ToolCalls) != 1 {
				t.Fatalf("got reply %q, want a call of %s", resp.Text, tt.name)
			}
			call := resp.ToolCalls[0]
			if call.Name != tt.name {
				t.Errorf("called %s, want %s", call.Name, tt.name)
			}
			var got, want any
			if err := json.Unmarshal([]byte(call.Arguments), &got); err != nil {
				t.Fatalf("arguments %s: %v", call.Arguments, err)
			}
			if err := json.Unmarshal([]byte(tt.args), &want); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("arguments %s, want %s", call.Arguments, tt.args)
			}
		})
	}
}

func TestFreeTextAsksWhenNothingIsLeft(t *testing.T) {
	tests := []struct {
		tools []chat.ToolDef
		text  string
		want  []string
	}{
		{byomcpTools, "add a note", []string{"To save a note I need your text."}},
		{byomcpTools, "add a note please", []string{"To save a note I need your text."}},
		{byomcpTools, "calculate", []string{"To evaluate an arithmetic expression exactly as written I need your expression."}},
		{byomcpTools, "calculate the meaning of life", []string{"“"}},
		{searchTools, "search", []string{"To search the shop's catalogue I need your query."}},
		{searchTools, "search for it", []string{"To search the shop's catalogue I need your query."}},
		{financingAndByomcp, "apply for financing", []string{"full name, email and annual income"}},
		{financingAndByomcp, "calculate my monthly payment", []string{"24 months", "72 months"}},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			resp := stream(t, tt.tools, user(tt.text))
			if len(resp.ToolCalls) != 0 {
				t.Fatalf("got call %+v, want a question", resp.ToolCalls)
			}
			for _, w := range tt.want {
				if !strings.Contains(resp.Text, w) {
					t.Errorf("reply %q lacks %q", resp.Text, w)
				}
			}
		})
	}
}

func TestFreeTextAnswerCompletesTheQuestion(t *testing.T) {
	tests := []struct {
		tools          []chat.ToolDef
		first, answer  string
		name, wantArgs string
	}{
		{byomcpTools, "add a note", "buy milk", "byomcp__add_note", `{"text":"buy milk"}`},
		{byomcpTools, "calculate", "(17*23)+4", "byomcp__calculate", `{"expression":"(17*23)+4"}`},
		{searchTools, "search", "red bikes", "search", `{"query":"red bikes"}`},
	}
	for _, tt := range tests {
		t.Run(tt.first, func(t *testing.T) {
			q := stream(t, tt.tools, user(tt.first))
			if len(q.ToolCalls) != 0 {
				t.Fatalf("got call %+v, want a question", q.ToolCalls)
			}
			resp := stream(t, tt.tools, user(tt.first), chat.Message{Role: chat.RoleAssistant, Content: q.Text}, user(tt.answer))
			if len(resp.ToolCalls) != 1 {
				t.Fatalf("got reply %q, want a call", resp.Text)
			}
			if c := resp.ToolCalls[0]; c.Name != tt.name || c.Arguments != tt.wantArgs {
				t.Errorf("got %s %s, want %s %s", c.Name, c.Arguments, tt.name, tt.wantArgs)
			}
		})
	}
}

func TestExpression(t *testing.T) {
	tests := []struct {
		text, want string
		arithmetic bool
	}{
		{"what is (17 * 23) + 4?", "(17 * 23) + 4", true},
		{"calculate 2^10 - 1.5.", "2^10 - 1.5", true},
		{"(what is 6 / 3)", "6 / 3", true},
		{"15% of 80", "15 / 100 * 80", true},
		{"what is 2.5 percent of 1200?", "2.5 / 100 * 1200", true},
		{"15%", "15%", false},
		{"calculate 42", "42", false},
		{"on 2026-12-03", "2026-12-03", false},
		{"call 555-123-4567", "555-123-4567", false},
		{"the meaning of life", "", false},
		{"a + b", "", false},
	}
	for _, tt := range tests {
		got := expression(tt.text)
		if got != tt.want {
			t.Errorf("expression(%q) = %q, want %q", tt.text, got, tt.want)
		}
		if a := arithmetic(got); a != tt.arithmetic {
			t.Errorf("arithmetic(%q) = %v, want %v", got, a, tt.arithmetic)
		}
	}
}
