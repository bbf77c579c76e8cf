package agentsvc

import (
	"context"
	"testing"
	"testing/synctest"

	"github.com/byomcp/byomcp/wsrpc"
)

// An ordered request (agent/session, agent/chat, agent/cancel) settles only once its answer
// is queued: the next one of the socket starts after that, so the answers go out in the
// order the requests came (the page fuzzer found two pipelined agent/session requests
// answered out of order: the socket bound to the session of the answer the page got
// first). The peer queues an answer after the handler returns and then runs the Reply's
// After (wsrpc.Peer.runHandler); the test plays the peer.
func TestOrderedRequestSettlesWhenItsAnswerIsQueued(t *testing.T) {
	for _, tc := range []struct {
		name  string
		first wsrpc.Handler
	}{
		{"plain result", func(context.Context, *wsrpc.Request) (any, error) { return "one", nil }},
		{"result then more", func(context.Context, *wsrpc.Request) (any, error) {
			return wsrpc.ReplyThen("one", func() {}), nil
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				done := make(chan struct{})
				close(done)
				c := &pageConn{lastOp: done}
				first := c.ordered(tc.first)(nil)
				second := c.ordered(func(context.Context, *wsrpc.Request) (any, error) { return "two", nil })(nil)

				res, err := first(t.Context(), nil)
				if err != nil {
					t.Fatal(err)
				}
				ran := make(chan struct{})
				go func() {
					_, _ = second(t.Context(), nil)
					close(ran)
				}()
				synctest.Wait()
				select {
				case <-ran:
					t.Fatal("the second request ran before the first one's answer was queued")
				default:
				}
				r, ok := res.(*wsrpc.Reply)
				if !ok {
					t.Fatalf("the first answer is %T, want a *wsrpc.Reply whose After settles it", res)
				}
				if r.Result != "one" {
					t.Errorf("the first answer's result is %v, want one", r.Result)
				}
				r.After() // the peer queued the answer
				<-ran
			})
		})
	}

	// A failed request settles on its way out: nothing else answers it.
	synctest.Test(t, func(t *testing.T) {
		done := make(chan struct{})
		close(done)
		c := &pageConn{lastOp: done}
		first := c.ordered(func(context.Context, *wsrpc.Request) (any, error) { return nil, wsrpc.NewError(-32000, "no") })(nil)
		second := c.ordered(func(context.Context, *wsrpc.Request) (any, error) { return "two", nil })(nil)
		if _, err := first(t.Context(), nil); err == nil {
			t.Fatal("want the first request's error")
		}
		if _, err := second(t.Context(), nil); err != nil {
			t.Fatal(err)
		}
	})
}
