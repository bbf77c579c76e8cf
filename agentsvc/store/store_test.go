package store_test

import (
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"

	"github.com/byomcp/byomcp/agentsvc/store"
	"github.com/byomcp/byomcp/agentsvc/store/storetest"
)

// fakeClock is a clock that moves only when told.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func newFakeClock() *fakeClock { return &fakeClock{now: time.Now()} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

func TestMemory(t *testing.T) {
	storetest.Run(t, func(t *testing.T) storetest.Harness {
		s, c := store.NewMemory(), newFakeClock()
		store.SetClock(s, c.Now)
		return storetest.Harness{Store: s, Advance: c.Advance}
	})
}

// openSQLite opens the SQLite store at path on clock c, closed at the end of the test.
func openSQLite(t *testing.T, path string, c *fakeClock) store.Store {
	t.Helper()
	s, err := store.OpenSQLite(t.Context(), path)
	if err != nil {
		t.Fatalf("OpenSQLite: %v", err)
	}
	if c != nil {
		store.SetClock(s, c.Now)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestSQLite(t *testing.T) {
	storetest.Run(t, func(t *testing.T) storetest.Harness {
		path, c := filepath.Join(t.TempDir(), "byomcp.db"), newFakeClock()
		return storetest.Harness{
			Store:   openSQLite(t, path, c),
			Reopen:  func(t *testing.T) store.Store { return openSQLite(t, path, c) },
			Advance: c.Advance,
		}
	})
}

// openRedis opens the Redis store at url with o, closed at the end of the test.
func openRedis(t testing.TB, url string, o store.RedisOptions) store.Store {
	t.Helper()
	s, err := store.OpenRedisWith(t.Context(), url, o)
	if err != nil {
		t.Fatalf("OpenRedisWith(%s): %v", url, err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestMiniredis(t *testing.T) {
	storetest.Run(t, func(t *testing.T) storetest.Harness {
		m := miniredis.RunT(t)
		url := "redis://" + m.Addr()
		open := func(t *testing.T) store.Store { return openRedis(t, url, store.RedisOptions{}) }
		return storetest.Harness{Store: open(t), Reopen: open, Advance: m.FastForward}
	})
}

func TestRedisServer(t *testing.T) {
	url := storetest.RedisServer(t)
	var n atomic.Int64
	storetest.Run(t, func(t *testing.T) storetest.Harness {
		// One server for the whole suite: each subtest has its own key prefix.
		o := store.RedisOptions{Prefix: fmt.Sprintf("byomcptest%d:", n.Add(1))}
		open := func(t *testing.T) store.Store { return openRedis(t, url, o) }
		return storetest.Harness{Store: open(t), Reopen: open}
	})
}
