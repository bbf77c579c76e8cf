package agentsvc

import (
	"strings"
	"testing"

	"github.com/byomcp/byomcp/agentsvc/chat"
)

// shape is a compact form of messages: role, +id per call, :id for a tool message.
func shape(msgs []chat.Message) string {
	var out []string
	for _, m := range msgs {
		s := m.Role
		for _, tc := range m.ToolCalls {
			s += "+" + tc.ID
		}
		if m.ToolCallID != "" {
			s += ":" + m.ToolCallID
		}
		out = append(out, s)
	}
	return strings.Join(out, " ")
}

func TestUnansweredAndSettledMessages(t *testing.T) {
	asks := func(turn string, ids ...string) chat.Message {
		m := chat.Message{Role: chat.RoleAssistant, TurnID: turn}
		for _, id := range ids {
			m.ToolCalls = append(m.ToolCalls, chat.ToolCall{ID: id, Name: "f"})
		}
		return m
	}
	answer := func(turn, id string) chat.Message {
		return chat.Message{Role: chat.RoleTool, TurnID: turn, ToolCallID: id, Content: "ok"}
	}
	user := func(turn string) chat.Message { return chat.Message{Role: chat.RoleUser, TurnID: turn} }
	for _, tc := range []struct {
		name               string
		msgs               []chat.Message
		unknown, settledT2 string
	}{
		{"no calls", []chat.Message{user("t1"), {Role: chat.RoleAssistant, TurnID: "t1"}, user("t2")}, "", "user assistant user"},
		{"one ran, one did not come back", []chat.Message{user("t2"), asks("t2", "a", "b"), answer("t2", "a")}, "tool:b", "user"},
		{"two rounds, the second cut", []chat.Message{user("t2"), asks("t2", "a"), answer("t2", "a"), asks("t2", "b", "c")}, "tool:b tool:c", "user"},
		{"all answered", []chat.Message{user("t2"), asks("t2", "a"), answer("t2", "a")}, "", "user"},
		{"an earlier turn's call is not this turn's", []chat.Message{user("t1"), asks("t1", "a"), user("t2")}, "", "user assistant+a user"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := unanswered(tc.msgs, "t2")
			if g := shape(got); g != tc.unknown {
				t.Errorf("unanswered: got %q, want %q", g, tc.unknown)
			}
			for _, m := range got {
				if m.Content != outcomeUnknown || m.TurnID != "t2" {
					t.Errorf("got %+v, want the unknown outcome of turn t2", m)
				}
			}
			if g := shape(settledMessages(tc.msgs, "t2")); g != tc.settledT2 {
				t.Errorf("settledMessages: got %q, want %q", g, tc.settledT2)
			}
			if g, w := shape(settledMessages(tc.msgs, "")), shape(tc.msgs); g != w {
				t.Errorf("settledMessages with no running turn: got %q, want all: %q", g, w)
			}
		})
	}
}
