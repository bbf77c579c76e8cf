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
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		if os.Getenv(RequireRedisEnv) == "1" {
			tb.Fatalf("redis-server is not on PATH and %s=1: %v", RequireRedisEnv, err)
		}
		tb.Skipf("redis-server is not on PATH (%v); set %s=1 to fail instead of skipping", err, RequireRedisEnv)
	}
	// The free port is found by closing a listener, so another process may take it before
	// redis-server binds it: then the server exits and the next attempt takes another port.
	var last string
	for range 3 {
		url, out, ok := startRedis(tb, bin)
		if ok {
			return url
		}
		last = out
	}
	tb.Fatalf("redis-server did not start; its last output:\n%s", last)
	return ""
}

// startRedis starts one redis-server and waits until it answers PING. On failure it returns
// the server's output.
func startRedis(tb testing.TB, bin string) (url, output string, ok bool) {
	tb.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatalf("finding a free port: %v", err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()

	var out syncBuffer
	cmd := exec.Command(bin, "--port", strconv.Itoa(port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--dir", tb.TempDir(), "--loglevel", "warning")
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		tb.Fatalf("starting redis-server: %v", err)
	}
	exited := make(chan struct{})
	go func() {
		cmd.Wait()
		close(exited)
	}()
	stop := func() {
		cmd.Process.Kill()
		<-exited
	}

	url = fmt.Sprintf("redis://127.0.0.1:%d/0", port)
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
			return "", out.String(), false
		default:
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		err := c.Ping(ctx).Err()
		cancel()
		if err == nil {
			tb.Cleanup(stop)
			return url, "", true
		}
		time.Sleep(10 * time.Millisecond)
	}
	stop()
	return "", out.String() + "\n(no answer to PING)", false
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
