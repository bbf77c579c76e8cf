package agentsvc

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/byomcp/byomcp/agentsvc/wire"
	"github.com/byomcp/byomcp/wsrpc/wsrpctest"
)

// Pages whose network froze behind a proxy (nothing forwarded either way, nothing closed)
// are reaped: the agent's keep-alive pings go unanswered and each socket is closed once it
// has been silent for PongWait, its TCP connection too; the open-socket count drops to zero.
// Twenty pages with a conversation each, their sockets parked. With BYOMCP_REAP_DEFAULTS set
// the test runs with the defaults (25 s, 60 s) and logs the time to close.
func TestFrozenProxyReapsPageSockets(t *testing.T) {
	n := 20
	pingInterval, pongWait := 200*time.Millisecond, 500*time.Millisecond
	if os.Getenv("BYOMCP_REAP_DEFAULTS") != "" {
		pingInterval, pongWait = 25*time.Second, 60*time.Second
	}
	ts := newTestServer(t, textModel("ok"), func(c *Config) { c.PingInterval = pingInterval; c.PongWait = pongWait })
	fp := wsrpctest.NewFrozenProxy(t, strings.TrimPrefix(ts.wsURL, "ws://"))
	via := *ts
	via.wsURL = "ws://" + fp.Addr()
	for range n {
		p := newFakePage(t, &via, testOrigin, echoTool())
		p.waitListed(1)
		p.session(wire.SessionParams{})
	}
	if got := ts.ConnCount(); got != n {
		t.Fatalf("before the freeze: got %d open sockets, want %d", got, n)
	}
	fp.Freeze()
	at := time.Now()
	deadline := at.Add(2*(pingInterval+pongWait) + waitLimit) // generous: asserted is that they close
	pollUntil(deadline, func() bool { return ts.ConnCount() == 0 })
	if got := ts.ConnCount(); got != 0 {
		t.Fatalf("%d of %d frozen sockets still open %v after the freeze (ping %v, pong wait %v)", got, n, time.Since(at), pingInterval, pongWait)
	}
	t.Logf("%d frozen page sockets closed within %v of the freeze (ping %v, pong wait %v)", n, time.Since(at), pingInterval, pongWait)
	waitFor(t, "the proxy sees every server side closed", func() bool { return fp.ServerClosed() == int32(n) })
}

// A pong wait no longer than the ping interval would close every socket before its ping's
// answer could extend the deadline: refused at construction, with both figures named.
func TestPongWaitMustExceedPingInterval(t *testing.T) {
	_, err := NewServer(Config{Store: newTestStore(), Model: textModel("ok"), PingInterval: time.Minute, PongWait: 30 * time.Second})
	if err == nil || !strings.Contains(err.Error(), "PongWait (30s) must be longer than PingInterval (1m0s)") {
		t.Errorf("got %v, want the PongWait error", err)
	}
}
