package agentsvc

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/byomcp/byomcp/agentsvc/llm"
	"github.com/byomcp/byomcp/agentsvc/tools"
	"github.com/byomcp/byomcp/agentsvc/wire"
)

// defsBytes is what the tool definitions of a model request weigh.
func defsBytes(t *testing.T, req llm.Request) int {
	t.Helper()
	b, err := json.Marshal(req.Tools)
	if err != nil {
		t.Fatal(err)
	}
	return len(b)
}

// TestToolDefsBoundedForTheModel: a page cannot make each model request megabytes long
// (issue 11, #6: 64 tools/list pages of one tool with a 900 KB description each became one
// 59 MB request). Descriptions are cut, the total is bounded, and what does not fit is
// rejected with tool_rejected, one by one.
func TestToolDefsBoundedForTheModel(t *testing.T) {
	answer := func(int, llm.Request) (*llm.Response, error) { return &llm.Response{Text: "ok"}, nil }

	t.Run("long descriptions are cut", func(t *testing.T) {
		model := &scriptModel{reply: answer}
		ts := newTestServer(t, model, nil)
		var list []pageTestTool
		// Six pages of one tool with a 100 KB description (the defect: 64 of 900 KB): 600 KB
		// of definitions in every model request without the bound. (Small enough for -race
		// and the tests' debug logs of every message.)
		for i := range 6 {
			list = append(list, pageTestTool{tool: wire.PageTool{Name: fmt.Sprintf("t%d", i), Description: strings.Repeat("d", 100_000), InputSchema: echoSchema}})
		}
		page := newFakePageWith(t, ts, testOrigin, func(p *fakePage) { p.pageSize = 1 }, list...)
		page.waitListed(1)
		page.session(wire.SessionParams{})
		if res, err := page.chat("hi"); err != nil || res.StopReason != wire.StopEnd {
			t.Fatalf("chat: %+v %v", res, err)
		}
		req := model.requests()[0]
		if len(req.Tools) != 6 {
			t.Fatalf("got %d tools, want 6", len(req.Tools))
		}
		for _, d := range req.Tools {
			if len(d.Description) > tools.MaxDescription+64 || !strings.Contains(d.Description, "[description cut: 4096 of 100000 bytes]") {
				t.Fatalf("tool %s: description of %d bytes ending %q, want it cut to %d with a note", d.Name, len(d.Description), d.Description[max(0, len(d.Description)-60):], tools.MaxDescription)
			}
		}
		if n := defsBytes(t, req); n > len(req.Tools)*(tools.MaxDescription+300) {
			t.Errorf("tool definitions of the model request: %d bytes, want at most %d", n, len(req.Tools)*(tools.MaxDescription+300))
		}
	})

	t.Run("total and count", func(t *testing.T) {
		model := &scriptModel{reply: answer}
		ts := newTestServer(t, model, nil)
		big := json.RawMessage(`{"type":"object","description":"` + strings.Repeat("s", 55_000) + `"}`)
		var list []pageTestTool
		for i := range 10 {
			list = append(list, pageTestTool{tool: wire.PageTool{Name: fmt.Sprintf("big%d", i), Description: "A tool with a big schema.", InputSchema: big}})
		}
		for i := range 200 {
			list = append(list, pageTestTool{tool: wire.PageTool{Name: fmt.Sprintf("small%d", i), Description: "Small.", InputSchema: echoSchema}})
		}
		page := newFakePage(t, ts, testOrigin, list...)
		page.waitListed(1)
		reasons := map[string]string{}
		for len(reasons) < 6+200-(tools.MaxTools-4) {
			e := page.nextEvent()
			if e.Type != wire.EventToolRejected {
				t.Fatalf("got event %s, want tool_rejected", e.Type)
			}
			reasons[e.Name] = e.Reason
		}
		for i := 4; i < 10; i++ { // 4 x 55 KB fit in 256 KiB, a fifth does not
			if r := reasons[fmt.Sprintf("big%d", i)]; !strings.Contains(r, "tool definitions over 262144 bytes") {
				t.Errorf("big%d: got reason %q, want the total budget", i, r)
			}
		}
		if r := reasons["small199"]; !strings.Contains(r, "more than 128 tools") {
			t.Errorf("small199: got reason %q, want the tool count", r)
		}
		page.session(wire.SessionParams{})
		if res, err := page.chat("hi"); err != nil || res.StopReason != wire.StopEnd {
			t.Fatalf("chat: %+v %v", res, err)
		}
		req := model.requests()[0]
		if len(req.Tools) != tools.MaxTools {
			t.Errorf("got %d tools, want %d", len(req.Tools), tools.MaxTools)
		}
		if n := defsBytes(t, req); n > tools.MaxDefsBytes+len(req.Tools)*100 {
			t.Errorf("tool definitions of the model request: %d bytes, want at most about %d", n, tools.MaxDefsBytes)
		}
	})
}
