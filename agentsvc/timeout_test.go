package agentsvc

import (
	"context"
	"encoding/json"
	"testing"
	"testing/synctest"
	"time"

	"github.com/byomcp/byomcp/agentsvc/tools"
	"github.com/byomcp/byomcp/agentsvc/wire"
	"github.com/byomcp/byomcp/wsrpc"
)

// pipePage connects a page peer to srv over an in-memory pipe (for fake time). tool is the
// page's only tool, "work".
func pipePage(t *testing.T, srv *Server, tool func(ctx context.Context, peer *wsrpc.Peer, token any) (any, error)) *wsrpc.Peer {
	t.Helper()
	agentEnd, pageEnd := wsrpc.Pipe()
	srv.serve(context.Background(), agentEnd, testOrigin)
	peer := wsrpc.NewPeer(pageEnd, wsrpc.Options{PingInterval: -1})
	peer.Handle(wire.MethodInitialize, func(context.Context, *wsrpc.Request) (any, error) {
		return wire.InitializeResult{ProtocolVersion: wire.ProtocolVersion, Capabilities: json.RawMessage(`{"tools":{"listChanged":true}}`), ServerInfo: wire.Implementation{Name: "pipe", Version: "1"}}, nil
	})
	peer.Handle(wire.MethodToolsList, func(context.Context, *wsrpc.Request) (any, error) {
		return wire.ToolsListResult{Tools: []wire.PageTool{{Name: "work", InputSchema: json.RawMessage(`{"type":"object"}`)}}}, nil
	})
	peer.Handle(wire.MethodToolsCall, func(ctx context.Context, req *wsrpc.Request) (any, error) {
		var p wire.ToolsCallParams
		_ = json.Unmarshal(req.Params, &p)
		return tool(ctx, peer, p.Meta.ProgressToken)
	})
	peer.Start()
	return peer
}

func pipeServer(t *testing.T) *Server {
	srv, err := NewServer(Config{Store: newTestStore(), Model: textModel("x"), ToolTimeout: 30 * time.Second, ToolMaxTimeout: 2 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	return srv
}

func onlyConn(srv *Server) *pageConn {
	for _, c := range serverConns(srv) {
		return c
	}
	return nil
}

func TestToolCallTimeoutsOnFakeTime(t *testing.T) {
	ok := map[string]any{"content": []any{map[string]any{"type": "text", "text": "done"}}}
	tests := []struct {
		name   string
		tool   func(ctx context.Context, peer *wsrpc.Peer, token any) (any, error)
		want   tools.Outcome
		wantAt time.Duration // fake time when the call returns
	}{
		{"answers in time", func(ctx context.Context, _ *wsrpc.Peer, _ any) (any, error) {
			advance(29 * time.Second)
			return ok, nil
		}, tools.Answered("work", "done", false), 29 * time.Second},
		{"silent page times out at 30s", func(ctx context.Context, _ *wsrpc.Peer, _ any) (any, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		}, tools.TimedOut("work", false), 30 * time.Second},
		{"progress keeps the call alive", func(ctx context.Context, peer *wsrpc.Peer, token any) (any, error) {
			for i := 0; i < 4; i++ { // 100 s in all, never 30 s without progress
				advance(25 * time.Second)
				_ = peer.Notify(ctx, wire.MethodProgress, map[string]any{"progressToken": token, "progress": i})
			}
			return ok, nil
		}, tools.Answered("work", "done", false), 100 * time.Second},
		{"progress never beyond the hard maximum", func(ctx context.Context, peer *wsrpc.Peer, token any) (any, error) {
			for ctx.Err() == nil {
				_ = peer.Notify(ctx, wire.MethodProgress, map[string]any{"progressToken": token, "progress": 1})
				select {
				case <-time.After(10 * time.Second):
				case <-ctx.Done():
				}
			}
			return nil, ctx.Err()
		}, tools.TimedOut("work", true), 2 * time.Minute},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv := pipeServer(t)
				page := pipePage(t, srv, tt.tool)
				synctest.Wait()
				c := onlyConn(srv)
				if c == nil || len(c.mcp.Tools()) != 1 {
					t.Fatal("the page's tool was not registered")
				}
				start := time.Now()
				if got := c.mcp.Call(context.Background(), "work", nil); got != tt.want {
					t.Errorf("got %+v; want %+v", got, tt.want)
				}
				if got := time.Since(start); got != tt.wantAt {
					t.Errorf("returned after %v of fake time, want %v", got, tt.wantAt)
				}
				page.Close(nil)
				if err := srv.Shutdown(context.Background()); err != nil {
					t.Error(err)
				}
			})
		})
	}
}
