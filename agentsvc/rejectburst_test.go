package agentsvc

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/byomcp/byomcp/agentsvc/chat"
	"github.com/byomcp/byomcp/agentsvc/llm"
	"github.com/byomcp/byomcp/agentsvc/tools"
	"github.com/byomcp/byomcp/agentsvc/wire"
)

// maxRejectedEvents bounds the tool_rejected events one listing may cause (the agent's own
// bound is smaller): far fewer than the send queue (256), so they can never fill it.
const maxRejectedEvents = tools.MaxTools + 1

// TestManyToolsRejectedKeepsThePage: a page that reads promptly and lists 1000 tools was
// dropped (send queue full, close 1006) by the agent's own burst of one tool_rejected per
// tool over MaxTools, every time it connected. It stays connected now, gets a bounded
// number of tool_rejected events that still account for every rejected tool, is not told
// again when it lists the same tools again, is told of a tool that changed, and its
// session works with the tools admitted.
func TestManyToolsRejectedKeepsThePage(t *testing.T) {
	const listed = 1000
	rejected := listed - tools.MaxTools
	model := &scriptModel{reply: func(_ int, req llm.Request) (*llm.Response, error) {
		// A "use t_0" from the user calls t_0; anything else (its result too) is answered.
		if last := req.Messages[len(req.Messages)-1]; last.Role == "user" && last.Content == "use t_0" {
			return &llm.Response{ToolCalls: []chat.ToolCall{call("c0", "t_0", `{"text":"hi"}`)}}, nil
		}
		return &llm.Response{Text: "done", FinishReason: "stop"}, nil
	}}
	ts := newTestServer(t, model, nil)
	many := make([]pageTestTool, listed)
	for i := range many {
		many[i] = pageTestTool{
			tool: wire.PageTool{Name: fmt.Sprintf("t_%d", i), Description: "Echo the text.", InputSchema: echoSchema},
			fn: func(_ context.Context, args map[string]any) (any, error) {
				return fmt.Sprint("echo: ", args["text"]), nil
			},
		}
	}

	for attempt := range 3 { // a page that reconnects is told again, and kept each time
		page := newFakePage(t, ts, testOrigin, many...)
		page.waitListed(1)
		page.session(wire.SessionParams{})
		res, err := page.chat("use t_0")
		if err != nil || res.StopReason != wire.StopEnd || res.Text != "done" {
			t.Fatalf("attempt %d: chat: got %+v %v, want a normal turn", attempt, res, err)
		}
		if calls := page.callsMade(); len(calls) != 1 || calls[0].Name != "t_0" {
			t.Fatalf("attempt %d: got calls %+v, want one of t_0", attempt, calls)
		}
		// The rejections come before the turn's events: the turn waits for the listing.
		var rejects []event
		for _, e := range page.eventsUntil(wire.EventTurnEnd) {
			if e.Type == wire.EventToolRejected {
				rejects = append(rejects, e)
			}
		}
		if len(rejects) == 0 || len(rejects) > maxRejectedEvents {
			t.Fatalf("attempt %d: got %d tool_rejected events, want 1 to %d", attempt, len(rejects), maxRejectedEvents)
		}
		for i, e := range rejects {
			if want := fmt.Sprintf("t_%d", tools.MaxTools+i); e.Name != want {
				t.Errorf("attempt %d: rejection %d names %q, want %q (the page's order)", attempt, i, e.Name, want)
			}
		}
		if n := len(rejects); n < rejected {
			// The last event stands for the tools not reported one by one, and counts them.
			last := rejects[n-1].Reason
			if want := fmt.Sprintf("and %d more", rejected-n); !strings.Contains(last, want) || !strings.Contains(last, "more than 128 tools") {
				t.Errorf("attempt %d: last tool_rejected reason %q, want the tool's reason and %q", attempt, last, want)
			}
		} else if rejects[0].Reason != "more than 128 tools: only the first 128 reach the model" {
			t.Errorf("attempt %d: got reason %q, want the tool count's", attempt, rejects[0].Reason)
		}

		// Listing the same tools again tells the page nothing new, however often.
		for range 4 {
			if err := page.peer.Notify(context.Background(), wire.MethodToolsListChanged, nil); err != nil {
				t.Fatal(err)
			}
			page.waitListed(1)
		}
		// A tool that changed is reported once, on its own.
		page.lock.Lock()
		page.tools = append(page.tools, wire.PageTool{Name: "t_0", InputSchema: echoSchema})
		page.lock.Unlock()
		for range 2 {
			if err := page.peer.Notify(context.Background(), wire.MethodToolsListChanged, nil); err != nil {
				t.Fatal(err)
			}
			page.waitListed(1)
		}
		if res, err := page.chat("again"); err != nil || res.StopReason != wire.StopEnd {
			t.Fatalf("attempt %d: second chat: got %+v %v, want a normal turn", attempt, res, err)
		}
		var again []event
		for _, e := range page.eventsUntil(wire.EventTurnEnd) {
			if e.Type == wire.EventToolRejected {
				again = append(again, e)
			}
		}
		if len(again) != 1 || again[0].Name != "t_0" || again[0].Reason != "duplicate tool name" {
			t.Errorf("attempt %d: after re-listing, got tool_rejected %+v, want only t_0's duplicate", attempt, again)
		}
		select {
		case <-page.peer.Done():
			t.Fatalf("attempt %d: the page was disconnected: %v", attempt, page.peer.Wait())
		default:
		}
		page.lock.Lock()
		page.tools = page.tools[:listed]
		page.lock.Unlock()
		page.peer.Close(nil)
		_ = page.peer.Wait()
		waitFor(t, "the socket to close", func() bool { return ts.ConnCount() == 0 })
	}
}
