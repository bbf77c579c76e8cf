package planner

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/byomcp/byomcp/agentsvc/chat"
	"github.com/byomcp/byomcp/agentsvc/llm"
	"github.com/byomcp/byomcp/agentsvc/tools"
)

// Pages the planner was never tuned on: a library catalogue and a restaurant's bookings.
// Nothing in the planner knows these names; it must still resolve titles to ids, compose
// and ask, from the schemas and the results alone.

var libraryTools = []chat.ToolDef{
	tool("find_books", "Search the library catalogue.", `{"type":"object","properties":{
		"genre":{"type":"string","enum":["fiction","history","science","poetry"]},
		"author":{"type":"string"},
		"publishedAfter":{"type":"integer","minimum":1500,"maximum":2100}},"additionalProperties":false}`),
	tool("reserve_book", "Reserve a book for pick-up at the front desk.", `{"type":"object","properties":{
		"bookId":{"type":"string","pattern":"^bk-[0-9]{3}$"}},"required":["bookId"],"additionalProperties":false}`),
	tool("list_loans", "List the books you have borrowed.", noParams),
}

type book struct {
	ID     string `json:"id"`
	Title  string `json:"title"`
	Author string `json:"author"`
	Genre  string `json:"genre"`
	Year   int    `json:"year"`
	Pages  int    `json:"pages"`
}

var catalogue = []book{
	{"bk-101", "Dune", "Frank Herbert", "fiction", 1965, 412},
	{"bk-102", "The Left Hand of Darkness", "Ursula K. Le Guin", "fiction", 1969, 304},
	{"bk-201", "The Guns of August", "Barbara Tuchman", "history", 1962, 511},
	{"bk-202", "SPQR", "Mary Beard", "history", 2015, 608},
	{"bk-301", "A Brief History of Time", "Stephen Hawking", "science", 1988, 256},
	{"bk-302", "The Selfish Gene", "Richard Dawkins", "science", 1976, 360},
}

func libraryCall(name, args string) (string, bool) {
	var a map[string]any
	_ = json.Unmarshal([]byte(args), &a)
	switch name {
	case "find_books":
		var hits []book
		for _, b := range catalogue {
			if g, ok := a["genre"].(string); ok && b.Genre != g {
				continue
			}
			hits = append(hits, b)
		}
		var parts []string
		for _, b := range hits {
			parts = append(parts, fmt.Sprintf("%s %s", b.ID, b.Title))
		}
		sc, _ := json.Marshal(map[string]any{"books": hits})
		return fmt.Sprintf("%d books: %s", len(hits), strings.Join(parts, "; ")) + "\nstructuredContent: " + string(sc), false
	case "reserve_book":
		for _, b := range catalogue {
			if b.ID == a["bookId"] {
				return fmt.Sprintf("Reserved %s (%s); pick it up at the front desk within 3 days.", b.Title, b.ID), false
			}
		}
		return "no such book", true
	case "list_loans":
		return "You have no books on loan.", false
	}
	return "unknown tool", true
}

var restaurantTools = []chat.ToolDef{
	tool("book_table", "Book a table at the restaurant.", `{"type":"object","properties":{
		"date":{"type":"string","format":"date"},
		"time":{"type":"string","enum":["18:00","18:30","19:00","19:30","20:00","20:30"]},
		"guests":{"type":"integer","minimum":1,"maximum":12},
		"name":{"type":"string","minLength":2},
		"phone":{"type":"string"}},"required":["date","time","guests"],"additionalProperties":false}`),
	tool("show_menu", "Show one course of the menu.", `{"type":"object","properties":{
		"course":{"type":"string","enum":["starters","mains","desserts","drinks"]}},"required":["course"]}`),
}

func restaurantCall(name, args string) (string, bool) {
	switch name {
	case "book_table":
		return "Table booked: " + args, false
	case "show_menu":
		return "Desserts: tiramisu €7.50, panna cotta €6.90.", false
	}
	return "unknown tool", true
}

func TestGenericPages(t *testing.T) {
	type gstep struct {
		say   string
		calls []string
		reply []string
	}
	tests := []struct {
		name  string
		tools []chat.ToolDef
		call  func(name, args string) (string, bool)
		steps []gstep
	}{
		{"library: a genre", libraryTools, libraryCall, []gstep{{"any science books?", []string{`find_books {"genre":"science"}`}, []string{"A Brief History of Time"}}}},
		{"library: a title never seen", libraryTools, libraryCall, []gstep{{"reserve Dune", []string{`find_books {}`, `reserve_book {"bookId":"bk-101"}`}, []string{"Reserved Dune"}}}},
		{"library: the second one", libraryTools, libraryCall, []gstep{
			{"history books", []string{`find_books {"genre":"history"}`}, []string{"The Guns of August", "SPQR"}},
			{"reserve the second one", []string{`reserve_book {"bookId":"bk-202"}`}, []string{"Reserved SPQR"}},
		}},
		{"library: a title by name after a list", libraryTools, libraryCall, []gstep{
			{"fiction", []string{`find_books {"genre":"fiction"}`}, nil},
			{"i'd like to reserve the left hand of darkness", []string{`reserve_book {"bookId":"bk-102"}`}, nil},
		}},
		{"library: newest", libraryTools, libraryCall, []gstep{{"what's the newest history book", []string{`find_books {"genre":"history"}`}, []string{"The newest history book is the SPQR."}}}},
		{"library: hello", libraryTools, libraryCall, []gstep{{"hello", nil, []string{"“find books fiction”"}}}},
		{"library: unrelated", libraryTools, libraryCall, []gstep{{"what's the wifi password", nil, []string{"can't help"}}}},
		{"restaurant: a booking in words", restaurantTools, restaurantCall, []gstep{{"table for 4 on friday at 7", []string{`book_table {"date":"2026-12-04","time":"19:00","guests":4}`}, nil}}},
		{"restaurant: the menu", restaurantTools, restaurantCall, []gstep{{"what desserts do you have", []string{`show_menu {"course":"desserts"}`}, []string{"€7.50"}}}},
		{"restaurant: missing values", restaurantTools, restaurantCall, []gstep{{"book a table", nil, []string{"date", "time", "guests"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var msgs []chat.Message
			p := &Planner{now: func() time.Time { return fixedDay }}
			for _, st := range tt.steps {
				msgs = append(msgs, chat.Message{Role: chat.RoleUser, Content: st.say})
				var calls []string
				var text string
				for i := 0; ; i++ {
					if i == 6 {
						t.Fatalf("%q: no reply after 6 model calls", st.say)
					}
					resp, err := p.Stream(context.Background(), llm.Request{Messages: slices.Clone(msgs), Tools: tt.tools}, nil)
					if err != nil {
						t.Fatal(err)
					}
					if len(resp.ToolCalls) == 0 {
						text = resp.Text
						msgs = append(msgs, chat.Message{Role: chat.RoleAssistant, Content: text})
						break
					}
					msgs = append(msgs, chat.Message{Role: chat.RoleAssistant, ToolCalls: resp.ToolCalls})
					c := resp.ToolCalls[0]
					validate(t, findTool(t, tt.tools, c.Name), c.Arguments)
					calls = append(calls, c.Name+" "+c.Arguments)
					res, isErr := tt.call(c.Name, c.Arguments)
					msgs = append(msgs, chat.Message{Role: chat.RoleTool, ToolCallID: c.ID, Name: c.Name, Content: tools.Wrap(c.Name, res, isErr)})
				}
				if len(calls) != len(st.calls) {
					t.Fatalf("%q: calls %v, want %v (reply %q)", st.say, calls, st.calls, text)
				}
				for i := range calls {
					if !sameCall(calls[i], st.calls[i]) {
						t.Fatalf("%q: call %s, want %s", st.say, calls[i], st.calls[i])
					}
				}
				for _, w := range st.reply {
					if !strings.Contains(text, w) {
						t.Errorf("%q: reply %q lacks %q", st.say, text, w)
					}
				}
			}
		})
	}
}
