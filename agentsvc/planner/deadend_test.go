package planner

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/byomcp/byomcp/agentsvc/chat"
	"github.com/byomcp/byomcp/agentsvc/llm"
)

// sayLinks are the clickable suggestions of a reply: [“request”](byomcp:say).
var sayLinks = regexp.MustCompile(`\[“([^”]+)”\]\(` + regexp.QuoteMeta(SayLink) + `\)`)

// TestDeadEndsOfferWorkingSuggestions: on every page of the demo site, a request the planner
// cannot do is answered with what it can do here and where else on the site, as clickable
// suggestions (SayLink), and each suggestion, sent as the visitor's next message, is done,
// not another dead end.
func TestDeadEndsOfferWorkingSuggestions(t *testing.T) {
	pages := []struct {
		page, car string
		away      bool // the page has navigation tools: "Elsewhere on the site" is offered
	}{
		{"inventory", "", false},
		{"car", "c01", true},
		{"car", "c19", true},
		{"test-drive", "c10", true},
		{"financing", "c12", true},
	}
	wordings := []string{
		"can I trade in my old car?",
		"tell me a joke",
		"can I pay in bitcoin",
		"how late are you open",
		"are you open on sunday",
		"what's the weather",
		"write me a poem", // "write" is no typo of the colour "white"
	}
	clicked := 0
	for _, pg := range pages {
		for _, say := range wordings {
			t.Run(pg.page+"/"+pg.car+"/"+say, func(t *testing.T) {
				v := &visit{t: t, site: newSite(t, pg.page, pg.car)}
				out := v.say(say)
				if len(out.calls) > 0 || !strings.HasPrefix(out.text, "Sorry") {
					t.Fatalf("%q on %s: calls %v, reply %q; want a dead end", say, pg.page, out.calls, out.text)
				}
				sug := sayLinks.FindAllStringSubmatch(out.text, -1)
				if len(sug) == 0 {
					t.Fatalf("%q on %s: the dead end %q offers no clickable suggestion", say, pg.page, out.text)
				}
				if got := strings.Contains(out.text, "Elsewhere on the site: [“"); got != pg.away {
					t.Errorf("%q on %s: reply %q says where else on the site: %v, want %v", say, pg.page, out.text, got, pg.away)
				}
				for _, s := range sug {
					w := &visit{t: t, site: newSite(t, pg.page, pg.car)}
					w.say(say)
					next := w.say(s[1])
					clicked++
					if len(next.calls) == 0 && (strings.HasPrefix(next.text, "Sorry") || strings.Contains(next.text, "can't")) {
						t.Errorf("clicked %q on %s after %q: a dead end again: %q", s[1], pg.page, say, next.text)
					}
				}
			})
		}
	}
	t.Logf("%d dead ends, %d suggestions clicked", len(pages)*len(wordings), clicked)
	if clicked < 2*len(pages)*len(wordings) {
		t.Errorf("%d suggestions clicked, want at least %d", clicked, 2*len(pages)*len(wordings))
	}
}

// TestTerminalSuggestionsArePlainText: at a terminal the suggestions are quoted, not links.
func TestTerminalSuggestionsArePlainText(t *testing.T) {
	resp, err := NewForTerminal().Stream(context.Background(), llm.Request{Messages: []chat.Message{user("write me a poem")}, Tools: demoPages["financing"]}, nil)
	if err != nil {
		t.Fatal(err)
	}
	text := resp.Text
	if !strings.Contains(text, "“calculate payment 24 months”") || strings.Contains(text, SayLink) {
		t.Errorf("terminal reply %q: want quoted suggestions without %s", text, SayLink)
	}
}
