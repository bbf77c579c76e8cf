package loadgen

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"sync"

	"github.com/byomcp/byomcp/agentsvc/llm/llmtest"
)

// The realistic pages: the demo's four kinds of pages with their real tool sets, captured
// from the demo by bench/capture-demo-tools.mjs, and a three-turn conversation per kind.

//go:embed testdata/demo-tools.json
var demoToolsJSON []byte

//go:embed testdata/conversations.json
var conversationsJSON []byte

// PagesDemo is Scenario.Pages for the realistic pages.
const PagesDemo = "demo"

// demoPage is one kind of demo page, as captured.
type demoPage struct {
	Kind  string            `json:"kind"`
	URL   string            `json:"url"`
	Title string            `json:"title"`
	Tools []json.RawMessage `json:"tools"`

	toolsList json.RawMessage // the page's tools/list result
}

// scriptTurn is one turn of a realistic conversation.
type scriptTurn struct {
	User string `json:"user"`
	// Rounds are the model's responses that call tools, in order; the calls of one round
	// run in parallel. The model then answers with Answer.
	Rounds [][]scriptCall `json:"rounds"`
	Answer string         `json:"answer"`
}

type scriptCall struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

func (t scriptTurn) calls() int {
	n := 0
	for _, r := range t.Rounds {
		n += len(r)
	}
	return n
}

// demoSet is the realistic pages and their conversations.
type demoSet struct {
	pages   []*demoPage
	convs   map[string][]scriptTurn
	results map[string]json.RawMessage // the page's tools/call result, by tool name
}

var loadDemo = sync.OnceValues(func() (*demoSet, error) {
	var tools struct {
		Pages []*demoPage `json:"pages"`
	}
	if err := json.Unmarshal(demoToolsJSON, &tools); err != nil {
		return nil, fmt.Errorf("loadgen: testdata/demo-tools.json: %w", err)
	}
	var conv struct {
		Conversations map[string][]scriptTurn    `json:"conversations"`
		Results       map[string]json.RawMessage `json:"results"`
	}
	if err := json.Unmarshal(conversationsJSON, &conv); err != nil {
		return nil, fmt.Errorf("loadgen: testdata/conversations.json: %w", err)
	}
	d := &demoSet{pages: tools.Pages, convs: conv.Conversations, results: conv.Results}
	for _, p := range d.pages {
		list, err := json.Marshal(map[string]any{"tools": p.Tools})
		if err != nil {
			return nil, err
		}
		p.toolsList = list
		turns := d.convs[p.Kind]
		if len(turns) == 0 {
			return nil, fmt.Errorf("loadgen: no conversation for the %s page", p.Kind)
		}
		for _, t := range turns {
			for _, r := range t.Rounds {
				for _, c := range r {
					if _, ok := d.results[c.Name]; !ok {
						return nil, fmt.Errorf("loadgen: no result for tool %s", c.Name)
					}
				}
			}
		}
	}
	if len(d.pages) == 0 {
		return nil, fmt.Errorf("loadgen: testdata/demo-tools.json has no page")
	}
	return d, nil
})

// WriteConversations writes the realistic conversations (for the Python model server).
func WriteConversations(path string) error {
	return os.WriteFile(path, conversationsJSON, 0o644)
}

// scriptMarker follows the turn marker in a realistic turn: "script=<kind>/<turn>".
var scriptRE = regexp.MustCompile(`script=([a-z-]+)/(\d+)`)

// scriptText is what a realistic page sends as turn i of its conversation.
func scriptText(kind string, i int, t scriptTurn) string {
	return "script=" + kind + "/" + strconv.Itoa(i) + " " + t.User
}

// respondScript is the fake model's answer for a realistic turn: the calls of the next
// round not yet made since the user's message, else the answer. ok is false when the last
// user message names no script.
func respondScript(req llmtest.RecordedRequest) (llmtest.Step, bool) {
	last := -1
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role == "user" {
			last = i
			break
		}
	}
	if last < 0 {
		return llmtest.Step{}, false
	}
	m := scriptRE.FindStringSubmatch(req.Messages[last].Content)
	if m == nil {
		return llmtest.Step{}, false
	}
	d, err := loadDemo()
	if err != nil {
		return llmtest.Step{Status: 500, Message: err.Error()}, true
	}
	turns := d.convs[m[1]]
	i, _ := strconv.Atoi(m[2])
	if i >= len(turns) {
		return llmtest.Step{Status: 400, Message: "loadgen: no such script turn " + m[0]}, true
	}
	t := turns[i]
	round := 0
	for _, msg := range req.Messages[last+1:] {
		if msg.Role == "assistant" && len(msg.ToolCalls) > 0 {
			round++
		}
	}
	if round >= len(t.Rounds) {
		return llmtest.Step{Text: t.Answer}, true
	}
	calls := make([]llmtest.FakeCall, len(t.Rounds[round]))
	for j, c := range t.Rounds[round] {
		calls[j] = llmtest.FakeCall{Name: c.Name, Args: string(c.Arguments)}
	}
	return llmtest.Step{ToolCalls: calls}, true
}

// kindOf names the realistic page a session id gets: a quarter of the pages each.
func kindOf(d *demoSet, id int) *demoPage { return d.pages[id%len(d.pages)] }
