package agentsvc

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"go.uber.org/zap/zaptest"

	"github.com/byomcp/byomcp/agentsvc/wire"
	"github.com/byomcp/byomcp/wsrpc"
)

// handshakePage is a page written as a third party might: its answer to initialize and to
// tools/list are the test's; it records the agent's tools/list requests and cancellations.
type handshakePage struct {
	peer      *wsrpc.Peer
	lock      sync.Mutex
	lists     int
	cancelled []json.RawMessage // requestId of each notifications/cancelled
}

func dialHandshakePage(t *testing.T, ts *testServer, initialize, toolsList wsrpc.Handler) *handshakePage {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), waitLimit)
	defer cancel()
	mc, _, err := wsrpc.Dial(ctx, ts.wsURL, http.Header{"Origin": {testOrigin}}, wsrpc.WSOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p := &handshakePage{peer: wsrpc.NewPeer(mc, wsrpc.Options{Logger: zaptest.NewLogger(t).Named("page"), PingInterval: -1})}
	p.peer.Handle(wire.MethodInitialize, initialize)
	p.peer.Handle(wire.MethodToolsList, func(ctx context.Context, req *wsrpc.Request) (any, error) {
		p.lock.Lock()
		p.lists++
		p.lock.Unlock()
		return toolsList(ctx, req)
	})
	p.peer.HandleNotification(wire.MethodCancelled, func(_ context.Context, req *wsrpc.Request) {
		var cp wire.CancelledParams
		_ = json.Unmarshal(req.Params, &cp)
		p.lock.Lock()
		p.cancelled = append(p.cancelled, cp.RequestID)
		p.lock.Unlock()
	})
	p.peer.Start()
	t.Cleanup(func() { p.peer.Close(nil) })
	return p
}

func initializeWith(capabilities string) wsrpc.Handler {
	return func(context.Context, *wsrpc.Request) (any, error) {
		return wire.InitializeResult{ProtocolVersion: wire.ProtocolVersion, Capabilities: json.RawMessage(capabilities), ServerInfo: wire.Implementation{Name: "third-party", Version: "1"}}, nil
	}
}

// TestPageWithoutToolsIsServed: a page that declares no tools capability is not asked for
// tools (MCP: only negotiated capabilities are used), and one whose tools/list fails (an
// error, a result of the wrong shape, no answer) is used without tools, as the README
// promises for a page that has none: its chat is answered and its socket stays open.
func TestPageWithoutToolsIsServed(t *testing.T) {
	noList := func(context.Context, *wsrpc.Request) (any, error) {
		return nil, wsrpc.NewError(wsrpc.CodeMethodNotFound, "Method not found")
	}
	for _, tc := range []struct {
		name         string
		capabilities string
		list         wsrpc.Handler
		wantLists    int
	}{
		{"no tools capability", `{}`, noList, 0},
		{"capabilities left out", ``, noList, 0},
		{"tools/list not found", `{"tools":{}}`, noList, 1},
		{"tools/list of the wrong shape", `{"tools":{}}`, func(context.Context, *wsrpc.Request) (any, error) {
			return map[string]any{"tools": "nope"}, nil
		}, 1},
		{"tools/list never answered", `{"tools":{}}`, func(ctx context.Context, _ *wsrpc.Request) (any, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts := newTestServer(t, textModel("Hello."), func(c *Config) { c.HandshakeTimeout = 300 * time.Millisecond })
			p := dialHandshakePage(t, ts, initializeWith(tc.capabilities), tc.list)
			ctx, cancel := context.WithTimeout(t.Context(), waitLimit)
			defer cancel()
			if err := p.peer.Call(ctx, wire.MethodAgentSession, wire.SessionParams{}, nil); err != nil {
				t.Fatal(err)
			}
			var res wire.ChatResult
			if err := p.peer.Call(ctx, wire.MethodAgentChat, wire.ChatParams{Text: "hi"}, &res); err != nil || res.StopReason != wire.StopEnd || res.Text != "Hello." {
				t.Fatalf("agent/chat: %+v %v, want the answer", res, err)
			}
			select {
			case <-p.peer.Done():
				t.Fatalf("the socket was closed: %v", p.peer.Wait())
			default:
			}
			p.lock.Lock()
			defer p.lock.Unlock()
			if p.lists != tc.wantLists {
				t.Errorf("tools/list asked %d times, want %d", p.lists, tc.wantLists)
			}
		})
	}
}

// TestInitializeNeverAnswered: a page that never answers initialize is closed with 1002 once
// the handshake time is out, and the agent does not cancel initialize (MCP: a client never
// does).
func TestInitializeNeverAnswered(t *testing.T) {
	ts := newTestServer(t, textModel("Hello."), func(c *Config) { c.HandshakeTimeout = 200 * time.Millisecond })
	p := dialHandshakePage(t, ts, func(ctx context.Context, _ *wsrpc.Request) (any, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	}, nil)
	select {
	case <-p.peer.Done():
	case <-time.After(waitLimit):
		t.Fatal("the socket of a page that never answered initialize is still open")
	}
	var ce *websocket.CloseError
	if err := p.peer.Wait(); !errors.As(err, &ce) || ce.Code != 1002 || !strings.Contains(ce.Text, "did not answer initialize within") {
		t.Errorf("the socket ended with %v, want close code 1002 saying the page did not answer initialize", err)
	}
	p.lock.Lock()
	defer p.lock.Unlock()
	if len(p.cancelled) != 0 {
		t.Errorf("the agent sent notifications/cancelled for %s, want none (initialize is never cancelled)", p.cancelled)
	}
}
