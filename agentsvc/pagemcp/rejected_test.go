package pagemcp

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/byomcp/byomcp/agentsvc/tools"
	"github.com/byomcp/byomcp/agentsvc/wire"
	"github.com/byomcp/byomcp/wsrpc"
)

// rejections records what OnRejected is told.
type rejections struct {
	mu  sync.Mutex
	got [][2]string // name, reason
}

func (r *rejections) add(name, reason string) {
	r.mu.Lock()
	r.got = append(r.got, [2]string{name, reason})
	r.mu.Unlock()
}

// take returns what was reported since the last take.
func (r *rejections) take() [][2]string {
	r.mu.Lock()
	defer r.mu.Unlock()
	got := r.got
	r.got = nil
	return got
}

// numbered returns the names prefix0 … prefix(n-1).
func numbered(prefix string, n int) []string {
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("%s%d", prefix, i)
	}
	return names
}

// A page listing many more tools than MaxTools was told of each one, one report per tool, at
// once: its socket's send queue (256) overflowed and the page was dropped. A listing now
// reports at most MaxRejectedReports+1, the last one counting and naming the rest; listing
// the same tools again reports nothing, a tool whose rejection changed is reported again,
// and the tools admitted are unchanged.
func TestRejectionsBoundedPerListing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var rec rejections
		names := numbered("t", 1000)
		page, c := serveRelistPage(t, Options{Logger: zaptest.NewLogger(t), OnPanic: failOnPanic(t), OnRejected: rec.add}, 0, names...)
		synctest.Wait()
		if got := registeredNames(c); !slices.Equal(got, names[:tools.MaxTools]) {
			t.Fatalf("got %d tools, want the first %d", len(got), tools.MaxTools)
		}
		got := rec.take()
		if len(got) != MaxRejectedReports+1 {
			t.Fatalf("got %d reports, want %d", len(got), MaxRejectedReports+1)
		}
		const reason = "more than 128 tools: only the first 128 reach the model"
		for i, r := range got[:MaxRejectedReports] {
			if want := names[tools.MaxTools+i]; r[0] != want || r[1] != reason {
				t.Errorf("report %d: got %q %q, want %q %q", i, r[0], r[1], want, reason)
			}
		}
		first := tools.MaxTools + MaxRejectedReports
		last := got[MaxRejectedReports]
		want := fmt.Sprintf("%s (and %d more rejected tools, not reported one by one: t%d, t%d, t%d, t%d, t%d, …)",
			reason, len(names)-first-1, first+1, first+2, first+3, first+4, first+5)
		if last[0] != names[first] || last[1] != want {
			t.Errorf("last report: got %q %q, want %q %q", last[0], last[1], names[first], want)
		}

		for range 5 { // the same tools again: nothing new to tell
			page.listChanged(t)
			synctest.Wait()
			c.Ready(t.Context())
		}
		if got := rec.take(); len(got) != 0 {
			t.Errorf("re-listing the same tools: got %d reports, want none", len(got))
		}

		// A tool that was reported together, now first with a schema that is not an object:
		// told again with its new reason. It takes a place among the 128, so t127 is
		// rejected now: told too. Nothing else changed.
		page.setTools(append([]string{"t999"}, names[:999]...)...)
		page.mu.Lock()
		page.tools[0].InputSchema = json.RawMessage(`{"type":"string"}`)
		page.mu.Unlock()
		page.listChanged(t)
		synctest.Wait()
		c.Ready(t.Context())
		got = rec.take()
		if len(got) != 2 || got[0][0] != "t999" || got[0][1] == reason || got[1] != [2]string{"t127", reason} {
			t.Errorf("a changed rejection: got %q, want t999's new reason, then t127's", got)
		}

		// Few rejections are reported one by one, with nothing added.
		page.setTools(append(numbered("t", tools.MaxTools), "has space", "x y")...)
		page.listChanged(t)
		synctest.Wait()
		c.Ready(t.Context())
		got = rec.take()
		if len(got) != 2 || got[0][0] != "has space" || got[1][0] != "x y" || strings.Contains(got[1][1], "more rejected") {
			t.Errorf("two bad names: got %q, want each reported alone", got)
		}

		page.peer.Close(nil)
		page.peer.Wait()
		c.peer.Wait()
	})
}

// The rejections remembered so as not to report them again are bounded: a page that lists
// new bad names again and again cannot grow its client's memory without end, and each
// listing still reports at most MaxRejectedReports+1.
func TestRememberedRejectionsBounded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var rec rejections
		page, c := serveRelistPage(t, Options{Logger: zaptest.NewLogger(t), OnPanic: failOnPanic(t), OnRejected: rec.add}, 0)
		synctest.Wait()
		for i := range 12 {
			page.setTools(numbered(fmt.Sprintf("l%d_", i), 1000)...)
			page.listChanged(t)
			synctest.Wait()
			c.Ready(t.Context())
			if got := rec.take(); len(got) > MaxRejectedReports+1 {
				t.Fatalf("listing %d: got %d reports, want at most %d", i, len(got), MaxRejectedReports+1)
			}
		}
		c.mu.Lock()
		n := len(c.rejected)
		c.mu.Unlock()
		if n > maxRememberedRejections {
			t.Errorf("got %d remembered rejections, want at most %d", n, maxRememberedRejections)
		}
		page.peer.Close(nil)
		page.peer.Wait()
		c.peer.Wait()
	})
}

// rawPage connects a page over wsrpc.Pipe that lists toolsJSON (a tools/list result, as
// written) and answers tools/call with call (nil: none), to a new Client made with o, whose
// handshake has run. Both ends close at the end of the test (inside its synctest bubble).
func rawPage(t *testing.T, o Options, toolsJSON string, call func(page *wsrpc.Peer) wsrpc.Handler) *Client {
	t.Helper()
	a, b := wsrpc.Pipe()
	page := wsrpc.NewPeer(b, wsrpc.Options{PingInterval: -1, OnPanic: failOnPanic(t)})
	page.Handle(wire.MethodInitialize, func(context.Context, *wsrpc.Request) (any, error) {
		return wire.InitializeResult{ProtocolVersion: wire.ProtocolVersion, Capabilities: json.RawMessage(`{"tools":{}}`), ServerInfo: wire.Implementation{Name: "pipe-page", Version: "1"}}, nil
	})
	page.Handle(wire.MethodToolsList, func(context.Context, *wsrpc.Request) (any, error) { return json.RawMessage(toolsJSON), nil })
	if call != nil {
		page.Handle(wire.MethodToolsCall, call(page))
	}
	page.Start()
	agent := wsrpc.NewPeer(a, wsrpc.Options{PingInterval: -1, OnPanic: failOnPanic(t)})
	o.Logger, o.OnPanic = zaptest.NewLogger(t), failOnPanic(t)
	c := New(agent, o)
	agent.Start()
	t.Cleanup(func() {
		agent.Close(nil)
		page.Close(nil)
	})
	if err := c.Handshake(context.Background()); err != nil {
		t.Fatal(err)
	}
	return c
}

// progress sends the page's progress notification with message for the call req.
func progress(ctx context.Context, page *wsrpc.Peer, req *wsrpc.Request, n int, message string) {
	var p wire.ToolsCallParams
	_ = json.Unmarshal(req.Params, &p)
	_ = page.Notify(ctx, wire.MethodProgress, wire.ProgressParams{ProgressToken: json.RawMessage(strconv.Quote(p.Meta.ProgressToken)), Progress: float64(n), Message: message})
}

// bookTool is a page tool the visitor must confirm.
const bookTool = `{"tools":[{"name":"book","description":"books","inputSchema":{"type":"object"},"annotations":{"destructiveHint":true}}]}`

// An outside test: one entry of tools/list that was no tool definition (a number, "junk"
// annotations, a hint that is not a boolean) failed the whole listing, so the page had no
// tools at all and was told nothing. Such an entry is rejected alone, named by its "name"
// when that is a string, else by its position, and the page's other tools are kept.
func TestMalformedToolIsRejectedAlone(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var rec rejections
		c := rawPage(t, Options{OnRejected: rec.add}, `{"tools":[
				{"name":"echo","description":"echoes","inputSchema":{"type":"object"}},
				5, "str", [], {"name":5},
				{"name":"bad_desc","description":7},
				{"name":"bad_ann","description":"d","annotations":"junk"},
				{"name":"bad_hint","description":"d","annotations":{"destructiveHint":"yes"}},
				{"name":"search","description":"searches","inputSchema":{"type":"object"}}]}`, nil)
		synctest.Wait()
		if got := registeredNames(c); !slices.Equal(got, []string{"echo", "search"}) {
			t.Errorf("got tools %v, want echo and search kept", got)
		}
		var names []string
		for _, r := range rec.take() {
			names = append(names, r[0])
			if !strings.HasPrefix(r[1], "not a tool definition: ") {
				t.Errorf("%s rejected with %q, want it to say it is not a tool definition", r[0], r[1])
			}
		}
		if want := []string{"tools[1]", "tools[2]", "tools[3]", "tools[4]", "bad_desc", "bad_ann", "bad_hint"}; !slices.Equal(names, want) {
			t.Errorf("got rejections %v, want %v", names, want)
		}
	})
}

// A visitor asked to confirm a call leaves the page (a reload, a link): the call failed as
// "may or may not have completed", and the chat told the visitor the booking may have been
// made. The widget says when it asks and when the visitor confirmed (progress messages): a page
// that goes while the last word was the asking did not run the tool, and the outcome says so.
func TestPageGoneWhileAskingToConfirm(t *testing.T) {
	for _, tc := range []struct {
		said []string
		want string
	}{
		{[]string{wire.ProgressAwaitingConfirm}, "it was not confirmed, so the tool did not run"},
		{[]string{wire.ProgressAwaitingConfirm, wire.ProgressAwaitingConfirm}, "it was not confirmed, so the tool did not run"},
		{[]string{wire.ProgressAwaitingConfirm, wire.ProgressConfirmed}, "it may or may not have completed"},
		{nil, "it may or may not have completed"},
	} {
		synctest.Test(t, func(t *testing.T) {
			c := rawPage(t, Options{}, bookTool, func(page *wsrpc.Peer) wsrpc.Handler {
				return func(ctx context.Context, req *wsrpc.Request) (any, error) {
					var p wire.ToolsCallParams
					if err := json.Unmarshal(req.Params, &p); err != nil || !p.Meta.Confirm {
						t.Errorf("tools/call %s: want a call marked byomcp/confirm (%v)", req.Params, err)
					}
					for i, m := range tc.said {
						progress(ctx, page, req, i+1, m)
					}
					go func() { // the visitor leaves, after what the page said was sent
						time.Sleep(time.Millisecond)
						page.Close(nil)
					}()
					<-ctx.Done()
					return nil, ctx.Err()
				}
			})
			out := c.Call(context.Background(), "book", json.RawMessage(`{}`))
			if out.Kind != tools.PageGone || !strings.Contains(out.Text, tc.want) {
				t.Errorf("after %q: got %+v, want the page gone with %q", tc.said, out, tc.want)
			}
		})
	}
}

// A visitor who never answers the confirmation card: the call reaches its hard limit while
// the page still asks; it did not run, and the result says that rather than that the tool
// ran past its time.
func TestNotConfirmedInTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := rawPage(t, Options{ToolTimeout: 30 * time.Second, ToolMaxTimeout: time.Minute}, bookTool, func(page *wsrpc.Peer) wsrpc.Handler {
			return func(ctx context.Context, req *wsrpc.Request) (any, error) {
				for i := 1; ; i++ { // asks every 5 s, as the widget does, until the agent gives up
					progress(ctx, page, req, i, wire.ProgressAwaitingConfirm)
					select {
					case <-ctx.Done():
						return nil, ctx.Err()
					case <-time.After(5 * time.Second):
					}
				}
			}
		})
		out := c.Call(context.Background(), "book", json.RawMessage(`{}`))
		if out.Kind != tools.Timeout || !strings.Contains(out.Text, "did not confirm this call in time, so the tool did not run") {
			t.Errorf("got %+v, want the call not confirmed in time", out)
		}
	})
}

// TestPageToolConfirmationRecorded: a page tool's call records how the visitor answered the
// widget's card, from what the page said (progress) and how the call ended: confirmed (with
// arguments changed, when the result says so), declined (with the reason), or unanswered.
func TestPageToolConfirmationRecorded(t *testing.T) {
	for _, tc := range []struct {
		name   string
		said   []string
		result map[string]any // nil: the page goes away
		want   *wire.Confirmation
	}{
		{"not asked", nil, map[string]any{"content": []any{map[string]any{"type": "text", "text": "booked"}}}, nil},
		{"confirmed", []string{wire.ProgressAwaitingConfirm, wire.ProgressConfirmed},
			map[string]any{"content": []any{map[string]any{"type": "text", "text": "booked"}}}, &wire.Confirmation{Answer: wire.ConfirmConfirmed}},
		{"confirmed with changes", []string{wire.ProgressAwaitingConfirm, wire.ProgressConfirmed},
			map[string]any{"content": []any{map[string]any{"type": "text", "text": tools.ChangedArgs(json.RawMessage(`{"day":"Fri"}`), json.RawMessage(`{"day":"Sat"}`))}, map[string]any{"type": "text", "text": "booked"}}},
			&wire.Confirmation{Answer: wire.ConfirmConfirmed, Changed: true}},
		{"declined with a reason", []string{wire.ProgressAwaitingConfirm},
			map[string]any{"isError": true, "content": []any{map[string]any{"type": "text", "text": tools.Declined("book", "too far").Text}}},
			&wire.Confirmation{Answer: wire.ConfirmDeclined, Reason: "too far"}},
		{"left unanswered", []string{wire.ProgressAwaitingConfirm}, nil, &wire.Confirmation{Answer: wire.ConfirmUnanswered}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				c := rawPage(t, Options{}, bookTool, func(page *wsrpc.Peer) wsrpc.Handler {
					return func(ctx context.Context, req *wsrpc.Request) (any, error) {
						for i, m := range tc.said {
							progress(ctx, page, req, i+1, m)
						}
						if tc.result != nil {
							time.Sleep(time.Millisecond) // the progress is read before the answer
							return tc.result, nil
						}
						go func() {
							time.Sleep(time.Millisecond)
							page.Close(nil)
						}()
						<-ctx.Done()
						return nil, ctx.Err()
					}
				})
				got := c.Call(context.Background(), "book", json.RawMessage(`{}`)).Confirmation
				switch {
				case tc.want == nil && got != nil:
					t.Errorf("recorded %+v, want nothing", got)
				case tc.want != nil && (got == nil || got.Answer != tc.want.Answer || got.Changed != tc.want.Changed || got.Reason != tc.want.Reason || got.At == 0):
					t.Errorf("recorded %+v, want %+v with a time", got, tc.want)
				}
			})
		})
	}
}
