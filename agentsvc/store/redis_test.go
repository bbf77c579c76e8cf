package store_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"

	"github.com/byomcp/byomcp/agentsvc/chat"
	"github.com/byomcp/byomcp/agentsvc/store"
	"github.com/byomcp/byomcp/agentsvc/store/storetest"
)

func TestRedisPrefix(t *testing.T) {
	ctx := t.Context()
	m := miniredis.RunT(t)
	url := "redis://" + m.Addr()
	def := openRedis(t, url, store.RedisOptions{})
	fromURL := openRedis(t, url+"?prefix=app1:", store.RedisOptions{})
	fromOpts := openRedis(t, url+"?prefix=ignored:", store.RedisOptions{Prefix: "app2:"})
	for i, s := range []store.Store{def, fromURL, fromOpts} {
		if err := s.Create(ctx, &store.Session{ID: "s1", Origin: "o" + strings.Repeat("x", i)}); err != nil {
			t.Fatalf("Create on store %d: %v", i, err)
		}
		if err := s.Append(ctx, "s1", store.Batch{Messages: []chat.Message{{Role: chat.RoleUser, Content: "hi"}}, Events: []store.Event{{Seq: 1, Data: []byte(`{"seq":1}`)}}}); err != nil {
			t.Fatalf("Append on store %d: %v", i, err)
		}
		if _, _, err := s.Claim(ctx, "s1", "a", time.Minute); err != nil {
			t.Fatalf("Claim on store %d: %v", i, err)
		}
	}
	count := map[string]int{}
	for _, k := range m.Keys() {
		p, _, _ := strings.Cut(k, ":")
		count[p+":"]++
	}
	// Per store: the session hash, its messages, events and claim, the index and one origin index.
	for _, p := range []string{store.DefaultRedisPrefix, "app1:", "app2:"} {
		if count[p] != 6 {
			t.Errorf("prefix %s: got %d keys, want 6 (all keys: %v)", p, count[p], m.Keys())
		}
	}
	if len(count) != 3 {
		t.Errorf("got key prefixes %v, want only byomcp:, app1: and app2:", count)
	}
	// Stores with different prefixes do not see each other.
	if err := fromURL.Delete(ctx, "s1"); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	if _, err := def.Load(ctx, "s1"); err != nil {
		t.Errorf("Load on the default prefix after a Delete under app1: %v", err)
	}
	if list, err := fromOpts.List(ctx, store.ListOptions{}); err != nil || len(list) != 1 || list[0].Origin != "oxx" {
		t.Errorf("List under app2: got %v, %v; want its own session only", list, err)
	}
}

func TestRedisTTL(t *testing.T) {
	ctx := t.Context()
	m := miniredis.RunT(t)
	s := openRedis(t, "redis://"+m.Addr()+"?ttl=1h", store.RedisOptions{})
	if err := s.Create(ctx, &store.Session{ID: "s1", Origin: "o"}); err != nil {
		t.Fatalf("Create: %v", err)
	}
	if err := s.Create(ctx, &store.Session{ID: "s2", Origin: "o"}); err != nil {
		t.Fatalf("Create: %v", err)
	}
	keys := []string{"byomcp:s:s1", "byomcp:s:s1:msgs", "byomcp:s:s1:events"}
	if got := m.TTL(keys[0]); got != time.Hour {
		t.Errorf("TTL after Create: got %v, want 1h", got)
	}
	m.FastForward(50 * time.Minute)
	b := store.Batch{Messages: []chat.Message{{Role: chat.RoleUser, Content: "hi"}}, Events: []store.Event{{Seq: 1, Data: []byte(`{"seq":1}`)}}}
	if err := s.Append(ctx, "s1", b); err != nil {
		t.Fatalf("Append: %v", err)
	}
	for _, k := range keys {
		if got := m.TTL(k); got != time.Hour {
			t.Errorf("TTL of %s after Append: got %v, want 1h (renewed)", k, got)
		}
	}
	// s2 was never touched: it expires; s1 was renewed 50 minutes in: it lives.
	m.FastForward(20 * time.Minute)
	if _, err := s.Load(ctx, "s2"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Load of an expired session: got %v, want ErrNotFound", err)
	}
	if _, err := s.Load(ctx, "s1"); err != nil {
		t.Errorf("Load of a renewed session: %v", err)
	}
	list, err := s.List(ctx, store.ListOptions{})
	if err != nil || len(list) != 1 || list[0].ID != "s1" {
		t.Fatalf("List: got %v, %v; want s1 only", list, err)
	}
	// List dropped the expired session from the index.
	if members, err := m.ZMembers("byomcp:sessions"); err != nil || len(members) != 1 {
		t.Errorf("index after List: got %v, %v; want [s1]", members, err)
	}
	m.FastForward(time.Hour)
	if n, err := s.ExpireIdle(ctx, time.Now()); err != nil || n != 0 {
		t.Errorf("ExpireIdle after Redis expired everything: got %d, %v; want 0", n, err)
	}
	if m.Exists("byomcp:sessions") {
		t.Errorf("ExpireIdle left the index of expired sessions: %v", m.Keys())
	}
}

func TestRedisNoTTL(t *testing.T) {
	m := miniredis.RunT(t)
	s := openRedis(t, "redis://"+m.Addr(), store.RedisOptions{TTL: -1})
	if err := s.Create(t.Context(), &store.Session{ID: "s1"}); err != nil {
		t.Fatalf("Create: %v", err)
	}
	if got := m.TTL("byomcp:s:s1"); got != 0 {
		t.Errorf("TTL with a negative TTL option: got %v, want none", got)
	}
	def := openRedis(t, "redis://"+m.Addr()+"?prefix=def:", store.RedisOptions{})
	if err := def.Create(t.Context(), &store.Session{ID: "s1"}); err != nil {
		t.Fatalf("Create: %v", err)
	}
	if got := m.TTL("def:s:s1"); got != store.DefaultRedisTTL {
		t.Errorf("default TTL: got %v, want %v", got, store.DefaultRedisTTL)
	}
}

func TestOpenRedisErrors(t *testing.T) {
	m := miniredis.RunT(t)
	tests := []struct{ url, want string }{
		{"redis://" + m.Addr() + "?ttl=soon", "ttl"},
		{"redis://" + m.Addr() + "?ttl=0s", "ttl"},
		{"redis://" + m.Addr() + "?prefix=", "prefix"},
		{"redis://" + m.Addr() + "?bogus=1", "bogus"},
		{"http://" + m.Addr(), "scheme"},
		{"redis://127.0.0.1:1", "connecting"},
	}
	for _, tc := range tests {
		s, err := store.OpenRedis(t.Context(), tc.url)
		if err == nil {
			s.Close()
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("OpenRedis(%s): got %v, want an error about %s", tc.url, err, tc.want)
		}
	}
}

// TestRedisExpireIdleMany expires more sessions than one round of ExpireIdle reads, next to
// sessions Redis expired already and sessions within the same microsecond as the limit.
func TestRedisExpireIdleMany(t *testing.T) {
	ctx := t.Context()
	m := miniredis.RunT(t)
	url := "redis://" + m.Addr()
	s := openRedis(t, url, store.RedisOptions{})
	short := openRedis(t, url, store.RedisOptions{TTL: time.Minute})
	before := time.Now().Add(-time.Hour).Truncate(time.Microsecond).Add(500 * time.Nanosecond)
	create := func(s store.Store, id string, created time.Time) {
		t.Helper()
		if err := s.Create(ctx, &store.Session{ID: id, Origin: "o", CreatedAt: created}); err != nil {
			t.Fatalf("Create(%s): %v", id, err)
		}
	}
	const old = 1100
	for i := range old {
		create(s, fmt.Sprintf("old-%d", i), before.Add(-time.Hour-time.Duration(i)*time.Millisecond))
	}
	for i := range 5 {
		create(short, fmt.Sprintf("gone-%d", i), before.Add(-time.Duration(i)*time.Second))
	}
	m.FastForward(2 * time.Minute) // Redis expires the gone-* sessions
	create(s, "same-us-older", before.Add(-400*time.Nanosecond))
	create(s, "same-us-newer", before.Add(100*time.Nanosecond))
	create(s, "exact", before)
	create(s, "fresh", time.Time{})

	n, err := s.ExpireIdle(ctx, before)
	if err != nil || n != old+1 {
		t.Fatalf("ExpireIdle: got %d, %v; want %d", n, err, old+1)
	}
	members, err := m.ZMembers("byomcp:sessions")
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(members)
	if want := []string{"exact", "fresh", "same-us-newer"}; !slices.Equal(members, want) {
		t.Errorf("index after ExpireIdle: got %v, want %v", members, want)
	}
	if got := len(m.Keys()); got != 3+2 {
		t.Errorf("got %d keys after ExpireIdle, want 5 (3 sessions, the index, the origin index): %v", got, m.Keys())
	}
}

// TestRedisServerRestart: while redis-server is down every call fails at once with an error
// (none hangs, none pretends to succeed); once it is back on the same port with its
// append-only file, the same Store has everything it acknowledged and goes on.
func TestRedisServerRestart(t *testing.T) {
	ctx := t.Context()
	rp := storetest.RedisWithAOF(t)
	s := openRedis(t, rp.URL, store.RedisOptions{})
	ev := func(seq int64) store.Event {
		return store.Event{Seq: seq, Data: []byte(fmt.Sprintf(`{"seq":%d}`, seq))}
	}
	if err := s.Create(ctx, &store.Session{ID: "s1", Origin: "o"}); err != nil {
		t.Fatal(err)
	}
	if err := s.Append(ctx, "s1", store.Batch{Messages: []chat.Message{{Role: chat.RoleUser, Content: "one"}}, Events: []store.Event{ev(1)}}); err != nil {
		t.Fatal(err)
	}
	rp.Kill()
	if err := s.Append(ctx, "s1", store.Batch{Events: []store.Event{ev(2)}}); err == nil {
		t.Fatal("Append while redis-server is down: got nil, want an error")
	}
	if _, err := s.Load(ctx, "s1"); err == nil || errors.Is(err, store.ErrNotFound) {
		t.Fatalf("Load while redis-server is down: got %v, want an error that is not ErrNotFound", err)
	}
	rp.Restart()
	got, err := s.Load(ctx, "s1")
	if err != nil {
		t.Fatalf("Load after the restart: %v", err)
	}
	if got.Seq != 1 || len(got.Messages) != 1 || got.Messages[0].Content != "one" {
		t.Fatalf("after the restart: got seq %d and %v, want seq 1 and the first message", got.Seq, got.Messages)
	}
	if err := s.Append(ctx, "s1", store.Batch{Events: []store.Event{ev(3)}}); !errors.Is(err, store.ErrSeqConflict) {
		t.Errorf("Append of seq 3 after seq 1: got %v, want ErrSeqConflict", err)
	}
	if err := s.Append(ctx, "s1", store.Batch{Events: []store.Event{ev(2)}}); err != nil {
		t.Fatalf("Append of seq 2 after the restart: %v", err)
	}
	evs, err := s.EventsAfter(ctx, "s1", 0, 0)
	if err != nil || len(evs) != 2 || evs[0].Seq != 1 || evs[1].Seq != 2 {
		t.Errorf("events after the restart: got %v, %v; want seqs 1 and 2", evs, err)
	}
}
