package storetest

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"
)

// RequireRedisEnv names the environment variable that, set to "1", turns the skip of a test
// that needs redis-server into a failure (CI sets it).
const RequireRedisEnv = "BYOMCP_REQUIRE_REDIS"

// RedisServer starts a real redis-server (no persistence) on a free loopback port for the
// test and returns its redis:// URL; the server is killed at cleanup. Without redis-server
// on PATH the test is skipped, or fails when BYOMCP_REQUIRE_REDIS=1.
func RedisServer(tb testing.TB) string {
	tb.Helper()
	return startRedis(tb, "--save", "", "--appendonly", "no").URL
}

// RedisServerWith is RedisServer with more redis-server arguments (e.g. "--maxmemory-policy",
// "allkeys-lru").
func RedisServerWith(tb testing.TB, args ...string) string {
	tb.Helper()
	return startRedis(tb, append([]string{"--save", "", "--appendonly", "no"}, args...)...).URL
}

// RedisProcess is a real redis-server that a test can kill and start again on the same port
// and data directory, to play an outage.
type RedisProcess struct {
	URL  string // redis://127.0.0.1:PORT/0
	tb   testing.TB
	bin  string
	port int
	args []string // after --port
	mu   sync.Mutex
	stop func() // kills the running server; nil when none runs
}

// RedisWithAOF starts a redis-server that writes every command to its append-only file
// before it answers (appendfsync always), so a kill -9 loses nothing it acknowledged and a
// Restart has all of it back. Skipped or failed without redis-server like RedisServer.
func RedisWithAOF(tb testing.TB) *RedisProcess {
	tb.Helper()
	return startRedis(tb, "--save", "", "--appendonly", "yes", "--appendfsync", "always")
}

// Kill kills the server with SIGKILL and waits until it has exited.
func (p *RedisProcess) Kill() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stop != nil {
		p.stop()
		p.stop = nil
	}
}

// Restart starts the server again on the same port and data directory, and waits until it
// answers PING (it has then loaded its append-only file). It fails the test if it cannot.
func (p *RedisProcess) Restart() {
	p.tb.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stop != nil {
		p.tb.Fatal("Restart of a redis-server that runs")
	}
	// The port was just released; another process may take it meanwhile (then this fails).
	var last string
	for range 3 {
		stop, out, ok := runRedis(p.tb, p.bin, p.port, p.args)
		if ok {
			p.stop = stop
			return
		}
		last = out
		time.Sleep(100 * time.Millisecond)
	}
	p.tb.Fatalf("redis-server did not start again on port %d; its last output:\n%s", p.port, last)
}

// startRedis starts a redis-server with args on a free loopback port; it is killed at
// cleanup.
func startRedis(tb testing.TB, args ...string) *RedisProcess {
	tb.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		if os.Getenv(RequireRedisEnv) == "1" {
			tb.Fatalf("redis-server is not on PATH and %s=1: %v", RequireRedisEnv, err)
		}
		tb.Skipf("redis-server is not on PATH (%v); set %s=1 to fail instead of skipping", err, RequireRedisEnv)
	}
	args = append(args, "--bind", "127.0.0.1", "--dir", tb.TempDir(), "--loglevel", "warning")
	// The free port is found by closing a listener, so another process may take it before
	// redis-server binds it: then the server exits and the next attempt takes another port.
	var last string
	for range 3 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			tb.Fatalf("finding a free port: %v", err)
		}
		port := l.Addr().(*net.TCPAddr).Port
		l.Close()
		stop, out, ok := runRedis(tb, bin, port, args)
		if ok {
			p := &RedisProcess{URL: fmt.Sprintf("redis://127.0.0.1:%d/0", port), tb: tb, bin: bin, port: port, args: args, stop: stop}
			tb.Cleanup(p.Kill)
			return p
		}
		last = out
	}
	tb.Fatalf("redis-server did not start; its last output:\n%s", last)
	return nil
}

// runRedis starts one redis-server on port and waits until it answers PING. On failure it
// returns the server's output.
func runRedis(tb testing.TB, bin string, port int, args []string) (stop func(), output string, ok bool) {
	tb.Helper()
	var out syncBuffer
	cmd := exec.Command(bin, append([]string{"--port", strconv.Itoa(port)}, args...)...)
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		tb.Fatalf("starting redis-server: %v", err)
	}
	exited := make(chan struct{})
	go func() {
		cmd.Wait()
		close(exited)
	}()
	stop = func() {
		cmd.Process.Kill()
		<-exited
	}

	url := fmt.Sprintf("redis://127.0.0.1:%d/0", port)
	opts, err := redis.ParseURL(url)
	if err != nil {
		stop()
		tb.Fatalf("parsing %s: %v", url, err)
	}
	opts.MaintNotificationsConfig = &maintnotifications.Config{Mode: maintnotifications.ModeDisabled}
	opts.MaxRetries = -1
	c := redis.NewClient(opts)
	defer c.Close()
	// At most 500 attempts, 10 ms apart: about five seconds for the server to come up.
	for range 500 {
		select {
		case <-exited:
			return nil, out.String(), false
		default:
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		err := c.Ping(ctx).Err()
		cancel()
		if err == nil {
			return stop, "", true
		}
		time.Sleep(10 * time.Millisecond)
	}
	stop()
	return nil, out.String() + "\n(no answer to PING)", false
}

// syncBuffer is a bytes.Buffer that a child process and the test may use at once.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
