// Package planner is the offline planner: a deterministic router, not a language model, that
// maps the user's words to one of the page's tools and fills its arguments from the schema.
package planner

import (
	"context"
	"fmt"
	"strings"

	"github.com/byomcp/byomcp/agentsvc/chat"
	"github.com/byomcp/byomcp/agentsvc/llm"
)

// Notice ends every reply of the planner: it says what the planner is and how to get a real agent.
const Notice = "(Offline planner — no language model is configured. Set OPENAI_API_KEY, OPENROUTER_API_KEY or GEMINI_API_KEY, or run Ollama, for a real agent.)"

// askPhrase marks a reply that asked the user for a missing value; the next user message is
// read together with the one before it.
const askPhrase = " I need to know "

// threshold is the lowest score of a tool the planner will call.
const threshold = 1.5

// Planner is the offline planner. It is stateless and safe for concurrent use; the same
// request always gets the same response.
type Planner struct{}

var _ llm.Model = (*Planner)(nil)

// New returns the offline planner.
func New() *Planner { return &Planner{} }

// Name implements llm.Model.
func (*Planner) Name() string { return "offline planner" }

// Stream implements llm.Model. When the conversation ends with tool results it summarises
// them; otherwise it calls the tool that best matches the last user message, asks for a
// required value it cannot find, or lists the page's tools when nothing matches.
func (*Planner) Stream(ctx context.Context, req llm.Request, onDelta func(delta string)) (*llm.Response, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	msgs := req.Messages
	if n := len(msgs); n > 0 && msgs[n-1].Role == chat.RoleTool {
		return emit(ctx, summarize(msgs)+"\n\n"+Notice, onDelta)
	}
	text, ok := userText(msgs)
	if !ok {
		return emit(ctx, toolList(req.Tools, "Here is what I can do on this page:"), onDelta)
	}
	best := route(text, req.Tools)
	if best == nil {
		return emit(ctx, toolList(req.Tools, "I could not match your request to a tool on this page. Here is what I can do here:"), onDelta)
	}
	if len(best.missing) > 0 {
		return emit(ctx, ask(best), onDelta)
	}
	call := chat.ToolCall{
		ID:        fmt.Sprintf("planner-1-%d", 1+countRole(msgs, chat.RoleAssistant)),
		Name:      best.def.Name,
		Arguments: best.arguments(),
	}
	return &llm.Response{ToolCalls: []chat.ToolCall{call}, FinishReason: "tool_calls"}, nil
}

// userText returns the last user message. When the planner's reply before it asked for a
// missing value, the user message before that reply is prepended so the answer completes it.
func userText(msgs []chat.Message) (string, bool) {
	last := -1
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == chat.RoleUser {
			last = i
			break
		}
	}
	if last < 0 || strings.TrimSpace(msgs[last].Content) == "" {
		return "", false
	}
	text := msgs[last].Content
	if last >= 2 && msgs[last-1].Role == chat.RoleAssistant && len(msgs[last-1].ToolCalls) == 0 &&
		strings.Contains(msgs[last-1].Content, askPhrase) && strings.Contains(msgs[last-1].Content, Notice) &&
		msgs[last-2].Role == chat.RoleUser {
		text = msgs[last-2].Content + " , " + text
	}
	return text, true
}

func countRole(msgs []chat.Message, role string) int {
	n := 0
	for _, m := range msgs {
		if m.Role == role {
			n++
		}
	}
	return n
}

// toolList is the reply when no tool matches: every tool with its description.
func toolList(tools []chat.ToolDef, intro string) string {
	var b strings.Builder
	if len(tools) == 0 {
		b.WriteString("I could not match your request to a tool, and this page offers no tools right now.")
	} else {
		b.WriteString(intro)
		for _, t := range tools {
			b.WriteString("\n- ")
			b.WriteString(t.Name)
			if d := strings.TrimSpace(t.Description); d != "" {
				b.WriteString(": ")
				b.WriteString(d)
			}
		}
	}
	b.WriteString("\n\n")
	b.WriteString(Notice)
	return b.String()
}

// ask is the reply when the best tool has required parameters the text does not give.
func ask(p *plan) string {
	var b strings.Builder
	b.WriteString("To use ")
	b.WriteString(p.def.Name)
	b.WriteString(askPhrase)
	for i, prop := range p.missing {
		switch {
		case i == 0:
		case i == len(p.missing)-1:
			b.WriteString(" and ")
		default:
			b.WriteString(", ")
		}
		b.WriteString(prop.name)
		if h := prop.schema.hint(); h != "" {
			b.WriteString(" (")
			b.WriteString(h)
			b.WriteString(")")
		}
	}
	b.WriteString(". Please tell me and I will try again.\n\n")
	b.WriteString(Notice)
	return b.String()
}

// emit streams text through onDelta in word-sized chunks and returns it as the response.
func emit(ctx context.Context, text string, onDelta func(string)) (*llm.Response, error) {
	if onDelta != nil {
		for _, c := range chunks(text) {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			onDelta(c)
		}
	}
	return &llm.Response{Text: text, FinishReason: "stop"}, nil
}

// chunks splits text after each run of whitespace that follows a word; the chunks join to text.
func chunks(text string) []string {
	var out []string
	start := 0
	inSpace := false
	for i, r := range text {
		space := r == ' ' || r == '\n' || r == '\t'
		if inSpace && !space {
			out = append(out, text[start:i])
			start = i
		}
		inSpace = space
	}
	if start < len(text) {
		out = append(out, text[start:])
	}
	return out
}
