package store_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/byomcp/byomcp/agentsvc/store"
	"github.com/byomcp/byomcp/agentsvc/store/storetest"
)

// TestRedisEvictionPolicy: a real redis-server whose maxmemory-policy evicts is found out
// (a manual run on allkeys-lru lost 93 keys: resumes answered "session not found"); one
// with noeviction passes; one that refuses INFO and CONFIG (as managed offerings may) gives
// an error that is not an EvictionError, for the caller to warn of.
func TestRedisEvictionPolicy(t *testing.T) {
	ctx := t.Context()
	for _, tt := range []struct {
		name      string
		args      []string
		policy    string // "" : no EvictionError
		maxmemory bool
	}{
		{"allkeys-lru with a limit", []string{"--maxmemory-policy", "allkeys-lru", "--maxmemory", "64mb"}, "allkeys-lru", true},
		{"volatile-lru without a limit", []string{"--maxmemory-policy", "volatile-lru"}, "volatile-lru", false},
		{"noeviction", []string{"--maxmemory-policy", "noeviction", "--maxmemory", "64mb"}, "", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			st := openRedis(t, storetest.RedisServerWith(t, tt.args...), store.RedisOptions{})
			err := store.CheckEviction(ctx, st)
			var ee *store.EvictionError
			if tt.policy == "" {
				if err != nil {
					t.Fatalf("got %v, want nil", err)
				}
				return
			}
			if !errors.As(err, &ee) || ee.Policy != tt.policy || (ee.MaxMemory > 0) != tt.maxmemory {
				t.Fatalf("got %#v (%v), want an EvictionError for %s (a limit: %v)", ee, err, tt.policy, tt.maxmemory)
			}
			if !strings.Contains(err.Error(), "noeviction") {
				t.Errorf("got %q, want it to say what to set", err)
			}
		})
	}
	t.Run("INFO and CONFIG refused", func(t *testing.T) {
		url := storetest.RedisServerWith(t, "--maxmemory-policy", "allkeys-lru", "--maxmemory", "64mb")
		opts, err := redis.ParseURL(url)
		if err != nil {
			t.Fatal(err)
		}
		admin := redis.NewClient(opts)
		defer admin.Close()
		if err := admin.Do(ctx, "ACL", "SETUSER", "agent", "on", ">secret-pass", "~*", "&*", "+@all", "-info", "-config").Err(); err != nil {
			t.Fatal(err)
		}
		st := openRedis(t, strings.Replace(url, "redis://", "redis://agent:secret-pass@", 1), store.RedisOptions{})
		err = store.CheckEviction(ctx, st)
		var ee *store.EvictionError
		if err == nil || errors.As(err, &ee) || !strings.Contains(err.Error(), "NOPERM") {
			t.Fatalf("got %v, want the refusal (NOPERM), not an EvictionError", err)
		}
	})
	if err := store.CheckEviction(ctx, store.NewMemory()); err != nil {
		t.Errorf("memory store: got %v, want nil", err)
	}
}
