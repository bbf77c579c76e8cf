package store

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// Shared is what the replicas of one Redis store share besides the sessions: counters
// (the sites' token budgets), the presence of each replica (a snapshot of its open tabs, for
// the operator console) and a channel of the events each replica appends. Every key and
// channel starts with the store's prefix:
//
//	n:KEY            counter (INCRBY), expiring at the end of its window
//	presence:REPLICA a replica's snapshot (SET … PX ttl)
//	presence         sorted set of replicas scored by when their snapshot expires (Unix ms)
//	v:KEY            a value (SET … PX ttl): the console's open mark, sign-outs and tools
//	ev:SESSION       pub/sub channel of SESSION's appended events
type Shared interface {
	// Add adds n to the counter key and makes it expire at expireAt, atomically.
	Add(ctx context.Context, key string, n int64, expireAt time.Time) (int64, error)
	// Get returns the values of counters (0 for missing).
	Get(ctx context.Context, keys ...string) ([]int64, error)
	// PutPresence stores replica's snapshot for ttl; DropPresence removes it.
	PutPresence(ctx context.Context, replica string, data []byte, ttl time.Duration) error
	DropPresence(ctx context.Context, replica string) error
	// Presences returns the unexpired snapshots of every replica, by replica.
	Presences(ctx context.Context) (map[string][]byte, error)
	// SetValue stores val under key for ttl; Value reads it (nil, nil when there is none).
	SetValue(ctx context.Context, key string, val []byte, ttl time.Duration) error
	Value(ctx context.Context, key string) ([]byte, error)
	// Publish and Subscribe are pub/sub under the store's prefix, as store.Bus: a session's
	// appended events go on "ev:<id>" as {"origin": …, "events": [agent/event params with
	// their seq, …]}, optionally with "replica" (who appended them).
	Publish(ctx context.Context, channel string, msg []byte) error
	Subscribe(ctx context.Context, channel string, fn func(channel string, msg []byte)) (unsubscribe func(), err error)
}

// SharedOf returns what st shares with other replicas: nil unless st is a Redis store.
func SharedOf(st Store) Shared {
	if r, ok := st.(*redisStore); ok {
		return redisShared{r}
	}
	return nil
}

type redisShared struct{ s *redisStore }

// addScript: KEYS counter; ARGV n, expiry (Unix ms). Returns the new value.
var addScript = redis.NewScript(`
local v = redis.call('INCRBY', KEYS[1], ARGV[1])
redis.call('PEXPIREAT', KEYS[1], ARGV[2])
return v
`)

func (r redisShared) counterKey(key string) string { return r.s.prefix + "n:" + key }

func (r redisShared) Add(ctx context.Context, key string, n int64, expireAt time.Time) (int64, error) {
	if r.s.closed.Load() {
		return 0, ErrClosed
	}
	v, err := addScript.Run(ctx, r.s.c, []string{r.counterKey(key)}, n, expireAt.UnixMilli()).Int64()
	if err != nil {
		return 0, r.s.fail("add", err)
	}
	return v, nil
}

func (r redisShared) Get(ctx context.Context, keys ...string) ([]int64, error) {
	if r.s.closed.Load() {
		return nil, ErrClosed
	}
	if len(keys) == 0 {
		return nil, nil
	}
	full := make([]string, len(keys))
	for i, k := range keys {
		full[i] = r.counterKey(k)
	}
	vals, err := r.s.c.MGet(ctx, full...).Result()
	if err != nil {
		return nil, r.s.fail("get", err)
	}
	out := make([]int64, len(keys))
	for i, v := range vals {
		if str, ok := v.(string); ok {
			if out[i], err = strconv.ParseInt(str, 10, 64); err != nil {
				return nil, r.s.fail("get", fmt.Errorf("counter %s: %w", keys[i], err))
			}
		}
	}
	return out, nil
}

func (r redisShared) presenceIndex() string { return r.s.prefix + "presence" }

func (r redisShared) presenceKey(replica string) string { return r.s.prefix + "presence:" + replica }

func (r redisShared) PutPresence(ctx context.Context, replica string, data []byte, ttl time.Duration) error {
	if r.s.closed.Load() {
		return ErrClosed
	}
	if replica == "" || ttl <= 0 {
		return errors.New("store: presence: empty replica or ttl not positive")
	}
	exp := r.s.now().Add(ttl).UnixMilli()
	_, err := r.s.c.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Set(ctx, r.presenceKey(replica), data, ttl)
		p.ZAdd(ctx, r.presenceIndex(), redis.Z{Score: float64(exp), Member: replica})
		return nil
	})
	if err != nil {
		return r.s.fail("presence", err)
	}
	return nil
}

func (r redisShared) DropPresence(ctx context.Context, replica string) error {
	if r.s.closed.Load() {
		return ErrClosed
	}
	_, err := r.s.c.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Del(ctx, r.presenceKey(replica))
		p.ZRem(ctx, r.presenceIndex(), replica)
		return nil
	})
	if err != nil {
		return r.s.fail("presence", err)
	}
	return nil
}

func (r redisShared) Presences(ctx context.Context) (map[string][]byte, error) {
	if r.s.closed.Load() {
		return nil, ErrClosed
	}
	now := strconv.FormatInt(r.s.now().UnixMilli(), 10)
	if err := r.s.c.ZRemRangeByScore(ctx, r.presenceIndex(), "-inf", "("+now).Err(); err != nil {
		return nil, r.s.fail("presence", err)
	}
	replicas, err := r.s.c.ZRange(ctx, r.presenceIndex(), 0, -1).Result()
	if err != nil {
		return nil, r.s.fail("presence", err)
	}
	out := map[string][]byte{}
	if len(replicas) == 0 {
		return out, nil
	}
	keys := make([]string, len(replicas))
	for i, rep := range replicas {
		keys[i] = r.presenceKey(rep)
	}
	vals, err := r.s.c.MGet(ctx, keys...).Result()
	if err != nil {
		return nil, r.s.fail("presence", err)
	}
	for i, v := range vals {
		if str, ok := v.(string); ok { // nil: expired between the two reads
			out[replicas[i]] = []byte(str)
		}
	}
	return out, nil
}

func (r redisShared) valueKey(key string) string { return r.s.prefix + "v:" + key }

func (r redisShared) SetValue(ctx context.Context, key string, val []byte, ttl time.Duration) error {
	if r.s.closed.Load() {
		return ErrClosed
	}
	if key == "" || ttl <= 0 {
		return errors.New("store: value: empty key or ttl not positive")
	}
	if err := r.s.c.Set(ctx, r.valueKey(key), val, ttl).Err(); err != nil {
		return r.s.fail("value", err)
	}
	return nil
}

func (r redisShared) Value(ctx context.Context, key string) ([]byte, error) {
	if r.s.closed.Load() {
		return nil, ErrClosed
	}
	v, err := r.s.c.Get(ctx, r.valueKey(key)).Bytes()
	if errors.Is(err, redis.Nil) {
		return nil, nil
	}
	if err != nil {
		return nil, r.s.fail("value", err)
	}
	if v == nil {
		v = []byte{}
	}
	return v, nil
}

// Publish and Subscribe are the store's Bus (one pub/sub connection per store, see
// redis_bus.go): the console follows the same channels as the replicas' relays.
func (r redisShared) Publish(ctx context.Context, channel string, msg []byte) error {
	return r.s.Publish(ctx, channel, msg)
}

func (r redisShared) Subscribe(ctx context.Context, channel string, fn func(string, []byte)) (func(), error) {
	return r.s.Subscribe(ctx, channel, fn)
}
