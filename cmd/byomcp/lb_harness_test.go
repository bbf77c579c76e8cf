package main

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/byomcp/byomcp/agentsvc/store/storetest"
	"github.com/byomcp/byomcp/agentsvc/wire"
	"github.com/byomcp/byomcp/wsrpc"
)

// The load-balancer harness: a real redis-server, N `byomcp serve` replicas (this test binary
// run again, see TestMain) on fixed loopback ports so that they can be restarted where the
// balancer expects them, and a real HAProxy (or nginx) from Debian in front of them, running
// the shipped recipe docs/deploy/haproxy.cfg (docs/deploy/nginx.conf) with only the addresses
// filled in: round robin, no stickiness, WebSocket passed through, /readyz checks. The
// balancer names the replica that answered each request in the X-Byomcp-Replica response
// header (the 101 of an upgrade included), so a test knows where each socket landed.

// requireLBEnv set to 1 makes a missing haproxy or nginx a failure instead of a skip (test.sh sets it).
const requireLBEnv = "BYOMCP_REQUIRE_LB"

// replicaHeader is the response header in which HAProxy names the backend that answered.
const replicaHeader = "X-Byomcp-Replica"

// lbClaimTTL is the replicas' claim lifetime: short, so a dead replica's turn is closed soon.
const lbClaimTTL = 2 * time.Second

// balancerPath finds Debian's haproxy or nginx (in /usr/sbin, often not on a user's PATH), or
// skips the test (fails it under BYOMCP_REQUIRE_LB=1).
func balancerPath(tb testing.TB, kind string) string {
	tb.Helper()
	if p, err := exec.LookPath(kind); err == nil {
		return p
	}
	if _, err := os.Stat("/usr/sbin/" + kind); err == nil {
		return "/usr/sbin/" + kind
	}
	if os.Getenv(requireLBEnv) == "1" {
		tb.Fatalf("%s is not installed and %s=1 (apt-get install %s)", kind, requireLBEnv, kind)
	}
	tb.Skipf("%s is not installed (apt-get install %s); set %s=1 to fail instead of skipping", kind, kind, requireLBEnv)
	return ""
}

// freePort returns a loopback port that was free a moment ago.
func freePort(tb testing.TB) int {
	tb.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatalf("finding a free port: %v", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// lbCluster is redis-server + replicas + HAProxy.
type lbCluster struct {
	tb       testing.TB
	redisURL string
	fakeURL  string
	replicas []*lbReplica
	byName   map[string]*lbReplica
	lb       *lbProc
	url      string // the balancer: http://127.0.0.1:PORT
}

// lbOptions shapes a cluster.
type lbOptions struct {
	replicas int
	logLevel string   // default info
	args     []string // more serve flags for every replica
	balancer string   // "haproxy" (the default) or "nginx": which shipped recipe runs in front
}

// startCluster starts redis-server, the replicas (with the fake model at fakeURL) and HAProxy,
// and waits until the balancer has every replica in service. Everything is stopped at cleanup.
func startCluster(tb testing.TB, fakeURL string, o lbOptions) *lbCluster {
	tb.Helper()
	o.balancer = cmp.Or(o.balancer, "haproxy")
	bin := balancerPath(tb, o.balancer)
	if o.logLevel == "" {
		o.logLevel = cmp.Or(os.Getenv("BYOMCP_LB_LOG_LEVEL"), "info") // debug to see every message
	}
	c := &lbCluster{tb: tb, redisURL: storetest.RedisServer(tb), fakeURL: fakeURL, byName: map[string]*lbReplica{}}
	for i := range o.replicas {
		r := &lbReplica{
			name: fmt.Sprintf("r%d", i),
			addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(freePort(tb))),
			args: append([]string{"--store", c.redisURL, "--log-level", o.logLevel}, o.args...),
			env:  []string{"OPENAI_BASE_URL=" + fakeURL, "BYOMCP_CLAIM_TTL=" + lbClaimTTL.String()},
		}
		r.start(tb)
		c.replicas = append(c.replicas, r)
		c.byName[r.name] = r
	}
	c.lb = startBalancer(tb, o.balancer, bin, c.replicas)
	c.url = c.lb.url
	c.waitInService(c.replicas...)
	return c
}

// waitInService waits until the balancer sends requests to each of rs again (its health
// checks found it up). It sends /healthz requests through the balancer, which move round
// robin on: a test that counts on alternation calls it before, not between, its dials.
func (c *lbCluster) waitInService(rs ...*lbReplica) {
	c.tb.Helper()
	want := map[string]bool{}
	for _, r := range rs {
		want[r.name] = true
	}
	client := &http.Client{Timeout: 2 * time.Second}
	deadline := time.Now().Add(procWait)
	for len(want) > 0 {
		if time.Now().After(deadline) {
			c.tb.Fatalf("the balancer never sent a request to %v; haproxy says:\n%s", want, c.lb.logs.String())
		}
		resp, err := client.Get(c.url + "/healthz")
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				delete(want, c.nameOf(resp.Header.Get(replicaHeader)))
				continue
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// nameOf is the replica named by a replicaHeader value: HAProxy's server name, or nginx's
// $upstream_addr (the address, or after a retry the addresses tried, the last one answering).
func (c *lbCluster) nameOf(h string) string {
	if c.byName[h] != nil || h == "" {
		return h
	}
	if i := strings.LastIndex(h, ", "); i >= 0 {
		h = h[i+2:]
	}
	for _, r := range c.replicas {
		if r.addr == h {
			return r.name
		}
	}
	return h
}

// other returns a replica other than name.
func (c *lbCluster) other(name string) *lbReplica {
	for _, r := range c.replicas {
		if r.name != name {
			return r
		}
	}
	c.tb.Fatalf("no replica other than %s", name)
	return nil
}

// lbReplica is one `byomcp serve` on a fixed address; it can be killed, stopped and started
// again there.
type lbReplica struct {
	name string
	addr string
	args []string
	env  []string

	mu   sync.Mutex
	proc *serveProc // the current process (the last one started)
	all  []*serveProc
}

// url is the replica's own URL (not through the balancer).
func (r *lbReplica) url() string { return "http://" + r.addr }

// start runs `byomcp serve` at r.addr and waits until it prints its URL.
func (r *lbReplica) start(tb testing.TB) {
	tb.Helper()
	p := spawnServe(tb, r.addr, r.env, r.args...)
	r.mu.Lock()
	r.proc = p
	r.all = append(r.all, p)
	r.mu.Unlock()
}

func (r *lbReplica) current() *serveProc {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.proc
}

// logs are the logs of every process this replica ran, in order.
func (r *lbReplica) logs() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var b strings.Builder
	for i, p := range r.all {
		fmt.Fprintf(&b, "--- %s process %d ---\n%s", r.name, i+1, p.logs.String())
	}
	return b.String()
}

// kill9 ends the current process with SIGKILL.
func (r *lbReplica) kill9(tb testing.TB) {
	tb.Helper()
	p := r.current()
	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		tb.Fatal(err)
	}
	waitExit(tb, p, r.name+" after SIGKILL")
}

// stop sends SIGTERM (a deploy) and waits until the process has exited.
func (r *lbReplica) stop(tb testing.TB) {
	tb.Helper()
	p := r.current()
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		tb.Fatal(err)
	}
	waitExit(tb, p, r.name+" after SIGTERM")
}

func waitExit(tb testing.TB, p *serveProc, what string) {
	tb.Helper()
	select {
	case <-p.exited:
	case <-time.After(procWait):
		tb.Fatalf("%s: the process did not exit; its logs:\n%s", what, p.logs.String())
	}
}

// metric sums the samples of a metric (name, or name{labels…} as a prefix of the sample
// line) on the replica's /metrics.
func (r *lbReplica) metric(tb testing.TB, prefix string) float64 {
	tb.Helper()
	resp, err := http.Get(r.url() + "/metrics")
	if err != nil {
		tb.Fatalf("%s /metrics: %v", r.name, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	var sum float64
	for _, line := range strings.Split(string(body), "\n") {
		if !strings.HasPrefix(line, prefix) || strings.HasPrefix(line, "#") {
			continue
		}
		if rest := line[len(prefix):]; !strings.Contains(prefix, "{") && (rest == "" || (rest[0] != ' ' && rest[0] != '{')) {
			continue // another metric whose name starts with prefix
		}
		f := strings.Fields(line)
		v, err := strconv.ParseFloat(f[len(f)-1], 64)
		if err == nil {
			sum += v
		}
	}
	return sum
}

// spawnServe starts `byomcp serve --addr addr` with the fake model and env, and waits for the
// URL on its first line. The process is killed at cleanup.
func spawnServe(tb testing.TB, addr string, env []string, args ...string) *serveProc {
	tb.Helper()
	exe, err := os.Executable()
	if err != nil {
		tb.Fatal(err)
	}
	cmd := exec.Command(exe, append([]string{"serve", "--addr", addr}, args...)...)
	cmd.Env = append([]string{
		"BYOMCP_TEST_MAIN=1",
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + tb.TempDir(),
		"OLLAMA_HOST=http://127.0.0.1:9",
		"OPENAI_API_KEY=test-key",
		"BYOMCP_MODEL=fake-model",
	}, env...)
	p := &serveProc{cmd: cmd, logs: &syncBuffer{}, exited: make(chan struct{})}
	cmd.Stderr = p.logs
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	go func() {
		_ = cmd.Wait()
		close(p.exited)
	}()
	tb.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-p.exited
	})
	first := make(chan string, 1)
	go func() {
		r := bufio.NewReader(stdout)
		line, _ := r.ReadString('\n')
		first <- line
		_, _ = io.Copy(io.Discard, r)
	}()
	select {
	case line := <-first:
		m := regexp.MustCompile(`^(http://\S+)\n$`).FindStringSubmatch(line)
		if m == nil {
			tb.Fatalf("serve at %s: got first line %q, want the listening URL; logs:\n%s", addr, line, p.logs.String())
		}
		p.url = m[1]
	case <-time.After(procWait):
		tb.Fatalf("serve at %s did not print its URL; logs:\n%s", addr, p.logs.String())
	}
	return p
}

// lbProc is the balancer running in the foreground.
type lbProc struct {
	kind string // haproxy or nginx
	url  string
	logs *syncBuffer
}

// The shipped recipes, run as they are: templateConfig changes only the listening address
// and the replicas' addresses in them (what their headers say the tests replace).
const (
	haproxyRecipe = "../../docs/deploy/haproxy.cfg"
	nginxRecipe   = "../../docs/deploy/nginx.conf"
)

// templateConfig returns the recipe at path with the address of its `bind`/`listen` line
// set to listen and its backend `server` lines replaced by one per replica (the first one's
// other settings kept; HAProxy's servers are named after the replicas). It fails when the
// recipe has no such lines, so a recipe that changes shape is noticed.
func templateConfig(tb testing.TB, path, listen string, replicas []*lbReplica) string {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatalf("reading the shipped recipe: %v", err)
	}
	var out []string
	var listened, served bool
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		indent := line[:len(line)-len(strings.TrimLeft(line, " \t"))]
		switch {
		case len(f) >= 2 && (f[0] == "bind" || f[0] == "listen"):
			semi := strings.HasSuffix(f[1], ";")
			f[1] = listen
			if semi {
				f[1] += ";"
			}
			line, listened = indent+strings.Join(f, " "), true
		case len(f) >= 3 && f[0] == "server" && !strings.HasSuffix(line, "{") && strings.HasSuffix(path, ".cfg"): // HAProxy: server NAME ADDR …
			if served {
				continue
			}
			var lines []string
			for _, r := range replicas {
				g := append([]string{"server", r.name, r.addr}, f[3:]...)
				lines = append(lines, indent+strings.Join(g, " "))
			}
			line, served = strings.Join(lines, "\n"), true
		case len(f) >= 2 && f[0] == "server" && f[1] != "{" && !strings.HasSuffix(path, ".cfg"): // nginx: server ADDR …;
			if served {
				continue
			}
			var lines []string
			for _, r := range replicas {
				g := append([]string{"server", r.addr}, f[2:]...)
				l := strings.Join(g, " ")
				if !strings.HasSuffix(l, ";") {
					l += ";"
				}
				lines = append(lines, indent+l)
			}
			line, served = strings.Join(lines, "\n"), true
		}
		out = append(out, line)
	}
	if !listened || !served {
		tb.Fatalf("%s has no bind/listen line or no server line for the tests to fill in", path)
	}
	return strings.Join(out, "\n")
}

// startBalancer runs the shipped recipe of kind (haproxy or nginx) on a free port in front of
// replicas.
func startBalancer(tb testing.TB, kind, bin string, replicas []*lbReplica) *lbProc {
	tb.Helper()
	var last string
	for range 3 { // the free port may be taken before the balancer binds it
		port := freePort(tb)
		listen := fmt.Sprintf("127.0.0.1:%d", port)
		dir := tb.TempDir()
		var cmd *exec.Cmd
		switch kind {
		case "nginx":
			cfg := filepath.Join(dir, "nginx.conf")
			if err := os.WriteFile(cfg, []byte(templateConfig(tb, nginxRecipe, listen, replicas)), 0o600); err != nil {
				tb.Fatal(err)
			}
			// In the foreground, its own pid file and error log; nothing else differs.
			cmd = exec.Command(bin, "-c", cfg, "-p", dir, "-e", "stderr", "-g", "daemon off; pid "+filepath.Join(dir, "nginx.pid")+";")
		default:
			cfg := filepath.Join(dir, "haproxy.cfg")
			if err := os.WriteFile(cfg, []byte(templateConfig(tb, haproxyRecipe, listen, replicas)), 0o600); err != nil {
				tb.Fatal(err)
			}
			cmd = exec.Command(bin, "-db", "-f", cfg)
		}
		p := &lbProc{kind: kind, url: "http://" + listen, logs: &syncBuffer{}}
		cmd.Stdout, cmd.Stderr = p.logs, p.logs
		cmd.WaitDelay = time.Second // a worker left behind must not hold Wait on our pipes
		if err := cmd.Start(); err != nil {
			tb.Fatalf("starting %s: %v", kind, err)
		}
		exited := make(chan struct{})
		go func() {
			_ = cmd.Wait()
			close(exited)
		}()
		stop := func() {
			// nginx's master stops its workers on SIGTERM; killed, it would leave them
			// running (and holding the port and our pipes).
			_ = cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-exited:
			case <-time.After(procWait):
				_ = cmd.Process.Kill()
				<-exited
			}
		}
		if waitListening(listen, exited) {
			tb.Cleanup(stop)
			return p
		}
		stop()
		last = p.logs.String()
	}
	tb.Fatalf("%s did not start; its output:\n%s", kind, last)
	return nil
}

// waitListening waits until addr accepts connections, or exited is closed, or procWait.
func waitListening(addr string, exited <-chan struct{}) bool {
	deadline := time.Now().Add(procWait)
	for time.Now().Before(deadline) {
		select {
		case <-exited:
			return false
		default:
		}
		if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			c.Close()
			return true
		}
		time.Sleep(20 * time.Millisecond)
	}
	return false
}

// lbEvent is the part of an agent/event these tests look at.
type lbEvent struct {
	SessionID    string `json:"sessionId"`
	TurnID       string `json:"turnId"`
	Seq          int64  `json:"seq"`
	Type         string `json:"type"`
	Delta        string `json:"delta"`
	Text         string `json:"text"`
	StopReason   string `json:"stopReason"`
	Interrupted  bool   `json:"interrupted"`
	ClientTurnID string `json:"clientTurnId"`
	CallID       string `json:"callId"`
	Name         string `json:"name"`
	IsError      bool   `json:"isError"`

	epoch int // which of its tab's sockets brought it (set by the tab, not on the wire)
}

// lbTool is a page tool with the schema {"type":"object"}; call answers a tools/call with a
// full MCP result (content, _meta, isError…).
type lbTool struct {
	name string
	call func(ctx context.Context) map[string]any
}

// textResult is a tools/call result with one text part.
func textResult(text string) map[string]any {
	return map[string]any{"content": []any{map[string]any{"type": "text", "text": text}}}
}

// lbPage is one page socket through the balancer, written against the wire protocol: it
// answers the agent's MCP requests with its tools and hands every agent/event, in order, to
// onEvent.
type lbPage struct {
	tb      testing.TB
	peer    *wsrpc.Peer
	replica string // the backend HAProxy sent the socket to
}

// dialVia opens a page socket to url (the balancer, or a replica) with tools; onEvent gets
// every agent/event of this socket, in order, in the socket's read goroutine. The socket is
// closed at cleanup.
func dialVia(tb testing.TB, url string, onEvent func(lbEvent), tools ...lbTool) (*lbPage, error) {
	ctx, cancel := context.WithTimeout(context.Background(), procWait)
	defer cancel()
	h := http.Header{}
	h.Set("Origin", pageOrigin)
	mc, resp, err := wsrpc.Dial(ctx, "ws"+strings.TrimPrefix(url, "http")+"/v1/ws", h, wsrpc.WSOptions{})
	if err != nil {
		return nil, err
	}
	p := &lbPage{tb: tb, replica: resp.Header.Get(replicaHeader)}
	peer := wsrpc.NewPeer(mc, wsrpc.Options{PingInterval: -1})
	names := make([]string, len(tools))
	for i, tool := range tools {
		names[i] = tool.name
	}
	handlePage(peer, "lb-page", names, func(ctx context.Context, name string) (any, bool) {
		for _, tool := range tools {
			if tool.name == name {
				return tool.call(ctx), true
			}
		}
		return nil, false
	})
	peer.HandleNotification(wire.MethodAgentEvent, func(_ context.Context, req *wsrpc.Request) {
		var e lbEvent
		if err := json.Unmarshal(req.Params, &e); err != nil {
			tb.Errorf("page: an agent/event that does not decode: %v: %s", err, req.Params)
			return
		}
		if e.Seq == 0 && (e.Type == wire.EventToolRejected || e.Type == wire.EventError) {
			return // not part of the log (no seq)
		}
		onEvent(e)
	})
	p.peer = peer
	peer.Start()
	tb.Cleanup(func() {
		peer.Close(nil)
		_ = peer.Wait()
	})
	return p, nil
}

// close closes the socket and waits until its handlers have returned (no event of it is
// delivered after).
func (p *lbPage) close() {
	p.peer.Close(nil)
	_ = p.peer.Wait()
}

// session sends agent/session.
func (p *lbPage) session(params wire.SessionParams) (wire.SessionResult, error) {
	ctx, cancel := context.WithTimeout(context.Background(), procWait)
	defer cancel()
	var res wire.SessionResult
	err := p.peer.Call(ctx, wire.MethodAgentSession, params, &res)
	return res, err
}

// eventLog is what one tab received, in order, over all its sockets.
type eventLog struct {
	mu     sync.Mutex
	events []lbEvent
	notify chan struct{} // gets a token after each event
}

func newEventLog() *eventLog { return &eventLog{notify: make(chan struct{}, 1)} }

func (l *eventLog) add(e lbEvent) {
	l.mu.Lock()
	l.events = append(l.events, e)
	l.mu.Unlock()
	select {
	case l.notify <- struct{}{}:
	default:
	}
}

func (l *eventLog) all() []lbEvent {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]lbEvent(nil), l.events...)
}

// lastSeq is the highest seq received.
func (l *eventLog) lastSeq() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	var m int64
	for _, e := range l.events {
		m = max(m, e.Seq)
	}
	return m
}

// waitFor waits until done accepts the log, or until stop is closed or procWait passes; it
// reports whether done accepted it.
func (l *eventLog) waitFor(done func([]lbEvent) bool, stop <-chan struct{}) bool {
	timeout := time.NewTimer(procWait)
	defer timeout.Stop()
	for {
		if done(l.all()) {
			return true
		}
		select {
		case <-l.notify:
		case <-stop:
			return done(l.all())
		case <-timeout.C:
			return false
		}
	}
}

// checkLog checks what a page received against the protocol's promise: seq strictly
// increasing (no double, no reordering), and a gap only before a text_delta (a resume sends a
// run of deltas as one delta that carries the run's last seq). It returns the problems.
func checkLog(evs []lbEvent) []string {
	var bad []string
	var prev int64
	for i, e := range evs {
		switch {
		case e.Seq <= prev:
			bad = append(bad, fmt.Sprintf("event %d (socket %d): seq %d (%s) after seq %d: doubled or out of order", i, e.epoch, e.Seq, e.Type, prev))
		case e.Seq > prev+1 && e.Type != wire.EventTextDelta:
			bad = append(bad, fmt.Sprintf("event %d (socket %d): seq %d (%s) after seq %d: events %d..%d lost", i, e.epoch, e.Seq, e.Type, prev, prev+1, e.Seq-1))
		}
		prev = max(prev, e.Seq)
	}
	return bad
}

// turnText is the text a page received for turnID (its deltas joined).
func turnText(evs []lbEvent, turnID string) string {
	var b strings.Builder
	for _, e := range evs {
		if e.TurnID == turnID && e.Type == wire.EventTextDelta {
			b.WriteString(e.Delta)
		}
	}
	return b.String()
}
