package agui

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"unicode/utf8"

	"go.uber.org/zap"

	"github.com/byomcp/byomcp/agentsvc/chat"
	"github.com/byomcp/byomcp/agentsvc/store"
	"github.com/byomcp/byomcp/agentsvc/tools"
)

// A thread is a store session whose messages carry the ids the client knows them by
// (chat.Message.ID). Messages the client never saw have no id: the tool answers to calls
// that were refused before reaching it (arguments that did not validate, unknown tools).
// The client's view of the thread is the stored messages without those (visible).

// plan is what a run starts from.
type plan struct {
	history  []chat.Message // stored messages and the new answers (users after decisions)
	added    []chat.Message // the new tool messages, to store when the run starts
	users    []chat.Message // the new user messages, stored after the decisions' answers
	snapshot []Message      // non-nil: the client's history differs; send this thread
	answer   bool           // the conversation waits for the agent (it ends with user or tool)
	// decisions answer open interrupts (confirm.go); held are the interrupts still open
	// after them: the run ends with them, its new user messages held back.
	decisions []decision
	held      []raisedEvent
	warnings  []string
}

type httpError struct {
	status int
	msg    string
}

// plan works out the run: which of the client's messages are new, which stored tool calls
// they answer, and whether the client's history matches the stored one.
func (h *Handler) plan(sess *store.Session, in *RunAgentInput, rp *resumePlan) (*plan, *httpError) {
	stored := sess.Messages
	interrupted := map[string]bool{} // calls of open interrupts: answered by resume, not messages
	for _, r := range append(slices.Clip(rp.held), decisionsRaised(rp.decisions)...) {
		interrupted[r.Interrupt.ToolCallID] = true
	}
	known := map[string]bool{}
	for _, m := range stored {
		if m.ID != "" {
			known[m.ID] = true
		}
	}
	// Tool calls of the thread still waiting for an answer (a frontend tool the client runs).
	pending := map[string]chat.ToolCall{}
	var pendingOrder []string
	for _, m := range stored {
		for _, tc := range m.ToolCalls {
			if interrupted[tc.ID] {
				continue
			}
			pending[tc.ID] = tc
			pendingOrder = append(pendingOrder, tc.ID)
		}
		if m.Role == chat.RoleTool {
			delete(pending, m.ToolCallID)
		}
	}

	var clientThread []string // the client's messages of the thread's roles, in its order
	var answers, users []chat.Message
	for _, m := range in.Messages {
		if m.Role == RoleUser || m.Role == RoleAssistant || m.Role == RoleTool {
			clientThread = append(clientThread, m.ID)
		}
		if m.ID != "" && known[m.ID] {
			continue
		}
		switch m.Role {
		case RoleTool:
			tc, ok := pending[m.ToolCallID]
			if !ok {
				h.log.Debug("agui: ignoring a tool message that answers no pending call", zap.String("toolCallId", m.ToolCallID))
				continue
			}
			delete(pending, m.ToolCallID)
			body := toolBody(text(m.Content), m.Error)
			body = capText(body, h.maxOutput())
			answers = append(answers, chat.Message{
				ID: m.ID, Role: chat.RoleTool, ToolCallID: tc.ID, Name: tc.Name,
				Content: tools.Wrap(tc.Name, body, m.Error != ""),
			})
		case RoleUser:
			t := text(m.Content)
			if len(t) > h.o.MaxText {
				return nil, &httpError{http.StatusRequestEntityTooLarge, fmt.Sprintf("a user message is longer than %d bytes", h.o.MaxText)}
			}
			if !utf8.ValidString(t) {
				return nil, &httpError{http.StatusBadRequest, "a user message is not valid UTF-8"}
			}
			if strings.TrimSpace(t) == "" {
				continue
			}
			users = append(users, chat.Message{ID: m.ID, Role: chat.RoleUser, Content: t})
		default:
			// System and developer messages: the operator's system prompt rules; assistant
			// messages come from the agent only; activity and reasoning messages are the
			// client's display. All are left out of the thread.
		}
		if len(users)+len(answers) > h.o.MaxNew {
			return nil, &httpError{http.StatusRequestEntityTooLarge, fmt.Sprintf("more than %d new user and tool messages in one run", h.o.MaxNew)}
		}
	}
	p := &plan{decisions: rp.decisions, held: rp.held, warnings: rp.warnings}
	held := len(rp.held) > 0
	// Calls the client left unanswered get an answer that says so, before the next message:
	// every tool call the model made is answered. Not while an interrupt stays open: the
	// conversation does not go on yet.
	if !held && (len(users) > 0 || len(answers) > 0 || len(rp.decisions) > 0) {
		for _, id := range pendingOrder {
			tc, ok := pending[id]
			if !ok {
				continue
			}
			delete(pending, id)
			answers = append(answers, chat.Message{
				ID: newMessageID(), Role: chat.RoleTool, ToolCallID: tc.ID, Name: tc.Name,
				Content: tools.Wrap(tc.Name, "the client returned no result for this call", true),
			})
		}
	}
	p.added = answers
	p.history = append(slices.Clip(stored), answers...)
	if held {
		// New user messages wait for the interrupts' answers (the client keeps them and
		// sends them again): stored now, they would come between a call and its answer.
		heldIDs := map[string]bool{}
		for _, u := range users {
			heldIDs[u.ID] = true
		}
		clientThread = slices.DeleteFunc(clientThread, func(id string) bool { return heldIDs[id] })
		if !slices.Equal(clientThread, visibleIDs(p.history)) {
			p.snapshot = append(toAGUI(p.history), toAGUI(users)...)
		}
		return p, nil
	}
	p.users = users
	p.history = append(p.history, users...)
	if len(rp.decisions) > 0 {
		p.answer = len(pending) == 0
	} else if n := len(p.history); n > 0 {
		last := p.history[n-1].Role
		p.answer = (last == chat.RoleUser || last == chat.RoleTool) && len(pending) == 0
	}
	// The client's history differs from the thread (after this run's new messages) when it
	// misses stored messages, or holds messages the thread left out: assistant messages of
	// its own, answers to calls that are not pending, empty user messages; or the thread
	// answered calls the client left unanswered.
	if !slices.Equal(clientThread, visibleIDs(p.history)) {
		p.snapshot = toAGUI(p.history)
	}
	return p, nil
}

func decisionsRaised(ds []decision) []raisedEvent {
	out := make([]raisedEvent, len(ds))
	for i, d := range ds {
		out[i] = d.raised
	}
	return out
}

// toolBody is what the model reads of a client's tool message: its content and its error,
// both when both are given.
func toolBody(content, errText string) string {
	switch {
	case errText == "":
		return content
	case strings.TrimSpace(content) == "":
		return errText
	default:
		return content + "\n\nError: " + errText
	}
}

func (h *Handler) maxOutput() int {
	if h.o.Limits.MaxOutput > 0 {
		return h.o.Limits.MaxOutput
	}
	return tools.DefaultMaxOutput
}

func capText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return tools.Truncate(s, n) + fmt.Sprintf("\n[output truncated: %d of %d bytes shown]", n, len(s))
}

func newMessageID() string { return "msg_" + randomID(12) }

// hiddenCalls are the tool calls whose answer the client never saw.
func hiddenCalls(msgs []chat.Message) map[string]bool {
	hidden := map[string]bool{}
	for _, m := range msgs {
		if m.Role == chat.RoleTool && m.ID == "" {
			hidden[m.ToolCallID] = true
		}
	}
	return hidden
}

// visibleIDs are the ids of the messages the client's view of the thread holds, in order.
func visibleIDs(msgs []chat.Message) []string {
	var ids []string
	for _, m := range toAGUI(msgs) {
		ids = append(ids, m.ID)
	}
	return ids
}

// toAGUI converts the visible messages of a thread to AG-UI messages.
func toAGUI(msgs []chat.Message) []Message {
	hidden := hiddenCalls(msgs)
	out := make([]Message, 0, len(msgs))
	for _, m := range msgs {
		if m.ID == "" {
			continue
		}
		am := Message{ID: m.ID, Role: m.Role}
		switch m.Role {
		case chat.RoleUser:
			am.Content = stringContent(m.Content)
		case chat.RoleAssistant:
			if m.Content != "" {
				am.Content = stringContent(m.Content)
			} else if m.End != nil && m.End.Error != "" && len(m.ToolCalls) == 0 {
				am.Content = stringContent(m.End.Error) // a run's end mark: how it ended (interrupted.go)
			}
			for _, tc := range m.ToolCalls {
				if hidden[tc.ID] {
					continue
				}
				am.ToolCalls = append(am.ToolCalls, ToolCall{ID: tc.ID, Type: "function", Function: FunctionCall{Name: tc.Name, Arguments: argsOrEmpty(tc.Arguments)}})
			}
			if len(am.Content) == 0 && len(am.ToolCalls) == 0 {
				continue
			}
		case chat.RoleTool:
			body, isErr := unwrap(m.Content)
			am.Content = stringContent(body)
			am.ToolCallID = m.ToolCallID
			if isErr {
				am.Error = body
			}
		default:
			continue
		}
		out = append(out, am)
	}
	return out
}

func argsOrEmpty(args string) string {
	if strings.TrimSpace(args) == "" {
		return "{}"
	}
	return args
}

// unwrap takes back what tools.Wrap added: the label that marks tool output as data.
func unwrap(s string) (body string, isError bool) {
	first, rest, ok := strings.Cut(s, "\n")
	if !ok || !strings.HasPrefix(first, "<tool_output ") {
		return s, false
	}
	i := strings.LastIndex(rest, "\n</tool_output>")
	if i < 0 {
		return s, false
	}
	return rest[:i], strings.Contains(first, `status="error"`)
}
