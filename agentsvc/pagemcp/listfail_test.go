package pagemcp

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"go.uber.org/zap/zaptest"

	"github.com/byomcp/byomcp/agentsvc/wire"
	"github.com/byomcp/byomcp/wsrpc"
)

// A re-listing that fails is told to the page (OnRejected, name "tools/list") with its
// reason, once per reason, and the tools listed before are kept; a listing that works again
// makes the next failure news again.
func TestFailedRelistIsReported(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var rec rejections
		var mu sync.Mutex
		failing := false
		a, b := wsrpc.Pipe()
		page := wsrpc.NewPeer(b, wsrpc.Options{PingInterval: -1, OnPanic: failOnPanic(t)})
		page.Handle(wire.MethodInitialize, func(context.Context, *wsrpc.Request) (any, error) {
			return wire.InitializeResult{ProtocolVersion: wire.ProtocolVersion, Capabilities: json.RawMessage(`{"tools":{"listChanged":true}}`), ServerInfo: wire.Implementation{Name: "pipe-page", Version: "1"}}, nil
		})
		page.Handle(wire.MethodToolsList, func(context.Context, *wsrpc.Request) (any, error) {
			mu.Lock()
			defer mu.Unlock()
			if failing {
				return nil, wsrpc.NewError(-32000, "tools not ready")
			}
			return wire.ToolsListResult{Tools: []wire.PageTool{{Name: "t", InputSchema: json.RawMessage(`{"type":"object"}`)}}}, nil
		})
		page.Start()
		agent := wsrpc.NewPeer(a, wsrpc.Options{PingInterval: -1, OnPanic: failOnPanic(t)})
		c := New(agent, Options{Logger: zaptest.NewLogger(t), OnPanic: failOnPanic(t), OnRejected: rec.add})
		agent.Start()
		if err := c.Handshake(t.Context()); err != nil {
			t.Fatal(err)
		}
		relist := func(fail bool) [][2]string {
			t.Helper()
			mu.Lock()
			failing = fail
			mu.Unlock()
			if err := page.Notify(context.Background(), wire.MethodToolsListChanged, map[string]any{}); err != nil {
				t.Fatal(err)
			}
			synctest.Wait()
			c.Ready(t.Context())
			if got := len(c.Tools()); got != 1 {
				t.Errorf("got %d tools, want the 1 listed before", got)
			}
			return rec.take()
		}
		if got := rec.take(); len(got) != 0 {
			t.Errorf("a good listing: got %q, want no report", got)
		}
		const want = "tools/list could not be used: the page answered with error -32000: tools not ready"
		got := relist(true)
		if len(got) != 1 || got[0][0] != ListRejectedName || !strings.HasPrefix(got[0][1], want) {
			t.Errorf("a failed re-list: got %q, want one %q report starting %q", got, ListRejectedName, want)
		}
		if got := relist(true); len(got) != 0 {
			t.Errorf("the same failure again: got %q, want no report", got)
		}
		if got := relist(false); len(got) != 0 {
			t.Errorf("a good re-list: got %q, want no report", got)
		}
		if got := relist(true); len(got) != 1 {
			t.Errorf("failing again after a good listing: got %q, want one report", got)
		}
		page.Close(nil)
		page.Wait()
		agent.Wait()
	})
}
