package store

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"
)

// Defaults of RedisOptions.
const (
	DefaultRedisPrefix = "byomcp:"
	DefaultRedisTTL    = 24 * time.Hour
)

// RedisOptions tunes a Redis store.
type RedisOptions struct {
	// Prefix starts every key the store uses; "" means DefaultRedisPrefix. Stores with
	// different prefixes on one server do not see each other.
	Prefix string
	// TTL is how long a session lives after its Create or its last Append: Redis expires
	// it then. 0 means DefaultRedisTTL; a negative TTL keeps sessions until deleted.
	TTL time.Duration
}

// redisStore is the Store in Redis. Every key starts with prefix:
//
//	s:ID           hash: origin, url, title, created, updated (Unix ns), seq, turn
//	s:ID:msgs      list of message JSON, oldest first
//	s:ID:events    sorted set of "SEQ:DATA" scored by seq
//	s:ID:claim     string: the owner, with the claim's expiry (PX)
//	sessions       sorted set of ids scored by update time (Unix µs), for List and ExpireIdle
//	origin:ORIGIN  the same, per origin
//
// Session ids never contain ':', so these keys cannot collide. The three s:ID keys expire
// together after ttl and every Append renews them; the two indexes do not expire, and the
// ids they keep of expired sessions are dropped by List and ExpireIdle when they meet them.
// Every write that touches several keys is one Lua script, so it is atomic. The scripts
// compose the origin index key from the stored origin, so the store needs a single Redis
// (or a primary with replicas), not a Redis Cluster.
type redisStore struct {
	c      *redis.Client
	prefix string
	ttl    time.Duration
	now    func() time.Time
	closed atomic.Bool
	bus    redisBus // its pub/sub connection, opened by the first Subscribe
}

// OpenRedis opens the Redis store at url (redis:// or rediss://, as go-redis's ParseURL
// reads them, plus the query parameters "prefix" and "ttl" of RedisOptions) and checks that
// the server answers.
func OpenRedis(ctx context.Context, url string) (Store, error) {
	return OpenRedisWith(ctx, url, RedisOptions{})
}

// OpenRedisWith is OpenRedis with options; a field of o that is not zero wins over the
// same parameter in the URL.
func OpenRedisWith(ctx context.Context, rawURL string, o RedisOptions) (Store, error) {
	fromURL, rest, err := redisURLOptions(rawURL)
	if err != nil {
		return nil, err
	}
	if o.Prefix == "" {
		o.Prefix = fromURL.Prefix
	}
	if o.TTL == 0 {
		o.TTL = fromURL.TTL
	}
	if o.Prefix == "" {
		o.Prefix = DefaultRedisPrefix
	}
	if o.TTL == 0 {
		o.TTL = DefaultRedisTTL
	}
	opts, err := redis.ParseURL(rest)
	if err != nil {
		return nil, fmt.Errorf("store: redis: %w", err)
	}
	// The store needs none of the maintenance notifications of managed Redis offerings;
	// asking for them only adds a failed command per connection on plain servers.
	opts.MaintNotificationsConfig = &maintnotifications.Config{Mode: maintnotifications.ModeDisabled}
	c := redis.NewClient(opts)
	if err := c.Ping(ctx).Err(); err != nil {
		c.Close()
		return nil, fmt.Errorf("store: redis: connecting to %s: %w", opts.Addr, err)
	}
	return &redisStore{c: c, prefix: o.Prefix, ttl: o.TTL, now: time.Now}, nil
}

// EvictionError is a Redis whose maxmemory-policy evicts keys when it is full: every key of
// the store has a TTL (or the budgets' and claims' keys do), so volatile-* policies may evict
// them as well as allkeys-* ones, and a conversation, a claim or a budget count would vanish.
type EvictionError struct {
	Policy    string // e.g. allkeys-lru
	MaxMemory int64  // bytes; 0: no limit set, so nothing is evicted until one is
}

func (e *EvictionError) Error() string {
	limit := "no maxmemory is set now, but once one is"
	if e.MaxMemory > 0 {
		limit = fmt.Sprintf("with maxmemory %d bytes, once it is full", e.MaxMemory)
	}
	return fmt.Sprintf("store: redis: maxmemory-policy is %s: %s Redis evicts the agent's keys and conversations are lost (set maxmemory-policy noeviction)", e.Policy, limit)
}

// CheckEviction reports whether the Redis of st would evict the store's keys: nil for
// noeviction (or a store that is not Redis), an *EvictionError for any other policy, and
// another error when the server does not say (a managed Redis that refuses INFO and CONFIG).
// It reads INFO memory, which managed offerings usually allow, else CONFIG GET.
func CheckEviction(ctx context.Context, st Store) error {
	s, ok := st.(*redisStore)
	if !ok {
		return nil
	}
	policy, maxmemory, err := "", int64(0), error(nil)
	if info, ierr := s.c.InfoMap(ctx, "memory").Result(); ierr == nil {
		policy = info["Memory"]["maxmemory_policy"]
		maxmemory, _ = strconv.ParseInt(info["Memory"]["maxmemory"], 10, 64)
	} else {
		err = ierr
	}
	if policy == "" {
		cfg, cerr := s.c.ConfigGet(ctx, "maxmemory*").Result()
		if cerr != nil {
			return fmt.Errorf("store: redis: reading maxmemory-policy: %w", errors.Join(err, cerr))
		}
		policy = cfg["maxmemory-policy"]
		maxmemory, _ = strconv.ParseInt(cfg["maxmemory"], 10, 64)
		if policy == "" {
			return errors.New("store: redis: reading maxmemory-policy: neither INFO memory nor CONFIG GET gives it")
		}
	}
	if policy == "noeviction" {
		return nil
	}
	return &EvictionError{Policy: policy, MaxMemory: maxmemory}
}

// withoutUserinfo is a URL that did not parse with what may be a user and password
// (between "://" and the last "@" before the path) replaced by "…".
func withoutUserinfo(raw string) string {
	scheme, rest, ok := strings.Cut(raw, "://")
	if !ok {
		return raw
	}
	authority, path := rest, ""
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		authority, path = rest[:i], rest[i:]
	}
	if i := strings.LastIndex(authority, "@"); i >= 0 {
		authority = "…" + authority[i:]
	}
	return scheme + "://" + authority + path
}

// redisURLOptions takes the store's own query parameters out of a Redis URL.
func redisURLOptions(rawURL string) (RedisOptions, string, error) {
	var o RedisOptions
	u, err := url.Parse(rawURL)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			ue.URL = withoutUserinfo(ue.URL) // the error quotes the URL: not its password
		}
		return o, "", fmt.Errorf("store: redis: %w", err)
	}
	if u.Scheme != "redis" && u.Scheme != "rediss" {
		return o, "", fmt.Errorf("store: redis: URL scheme %q, want redis or rediss", u.Scheme)
	}
	q := u.Query()
	if q.Has("prefix") {
		o.Prefix = q.Get("prefix")
		if o.Prefix == "" {
			return o, "", errors.New("store: redis: empty prefix parameter")
		}
		q.Del("prefix")
	}
	if q.Has("ttl") {
		d, err := time.ParseDuration(q.Get("ttl"))
		if err != nil {
			return o, "", fmt.Errorf("store: redis: ttl parameter: %w", err)
		}
		if d == 0 {
			return o, "", errors.New("store: redis: ttl parameter is 0 (use a negative ttl to keep sessions forever)")
		}
		o.TTL = d
		q.Del("ttl")
	}
	u.RawQuery = q.Encode()
	return o, u.String(), nil
}

// Keys of one session and of the indexes.
func (s *redisStore) sessionKey(id string) string { return s.prefix + "s:" + id }
func (s *redisStore) indexKey() string            { return s.prefix + "sessions" }
func (s *redisStore) originPrefix() string        { return s.prefix + "origin:" }

// sessionKeys are KEYS[1..4] of the scripts: the hash, the messages, the events, the claim.
func (s *redisStore) sessionKeys(id string) []string {
	k := s.sessionKey(id)
	return []string{k, k + ":msgs", k + ":events", k + ":claim"}
}

// ttlMillis is the session TTL in milliseconds (0 = none).
func (s *redisStore) ttlMillis() int64 {
	if s.ttl < 0 {
		return 0
	}
	return millis(s.ttl)
}

// millis is d in milliseconds, rounded up so that a positive d never becomes 0.
func millis(d time.Duration) int64 {
	return int64((d + time.Millisecond - 1) / time.Millisecond)
}

// score is the index score of a time: Unix microseconds, exact in a float64.
func score(t time.Time) int64 { return t.UnixMicro() }

// fail maps err from op to the store's errors.
func (s *redisStore) fail(op string, err error) error {
	if s.closed.Load() || errors.Is(err, redis.ErrClosed) {
		return ErrClosed
	}
	return fmt.Errorf("store: redis: %s: %w", op, err)
}

// createScript: KEYS hash, msgs, events, claim, index; ARGV id, origin, url, title,
// created ns, score, turn, ttl ms, origin index prefix, claim owner ("": none), claim ttl
// ms. Returns 1, or 0 when the id exists.
var createScript = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('DEL', KEYS[2], KEYS[3], KEYS[4])
if ARGV[10] ~= '' then redis.call('SET', KEYS[4], ARGV[10], 'PX', ARGV[11]) end
redis.call('HSET', KEYS[1], 'origin', ARGV[2], 'url', ARGV[3], 'title', ARGV[4],
	'created', ARGV[5], 'updated', ARGV[5], 'seq', '0', 'turn', ARGV[7])
local ttl = tonumber(ARGV[8])
if ttl > 0 then redis.call('PEXPIRE', KEYS[1], ttl) end
redis.call('ZADD', KEYS[5], ARGV[6], ARGV[1])
redis.call('ZADD', ARGV[9] .. ARGV[2], ARGV[6], ARGV[1])
return 1
`)

func (s *redisStore) Create(ctx context.Context, sess *Session) error {
	return s.create(ctx, sess, "", 0)
}

func (s *redisStore) CreateClaimed(ctx context.Context, sess *Session, owner string, ttl time.Duration) error {
	if err := checkClaim(owner, ttl); err != nil {
		return err
	}
	return s.create(ctx, sess, owner, ttl)
}

// create is Create, claimed by owner for ttl in the same script unless owner is "".
func (s *redisStore) create(ctx context.Context, sess *Session, owner string, ttl time.Duration) error {
	created, err := newSession(sess, s.now())
	if err != nil {
		return err
	}
	if s.closed.Load() {
		return ErrClosed
	}
	keys := append(s.sessionKeys(sess.ID), s.indexKey())
	n, err := createScript.Run(ctx, s.c, keys, sess.ID, sess.Origin, sess.Page.URL, sess.Page.Title,
		nanos(created), score(created), sess.ActiveTurn, s.ttlMillis(), s.originPrefix(), owner, millis(ttl)).Int()
	if err != nil {
		return s.fail("create", err)
	}
	if n == 0 {
		return ErrExists
	}
	return nil
}

// sessionFields are the hash fields parseSession reads, in order.
var sessionFields = []string{"origin", "url", "title", "created", "updated", "seq", "turn"}

// parseSession builds a Session (without messages) from the values of sessionFields;
// ok is false when the hash does not exist.
func parseSession(id string, vals []any) (sess *Session, ok bool, err error) {
	str := make([]string, len(vals))
	for i, v := range vals {
		if v == nil {
			return nil, false, nil
		}
		str[i], _ = v.(string)
	}
	created, err1 := strconv.ParseInt(str[3], 10, 64)
	updated, err2 := strconv.ParseInt(str[4], 10, 64)
	seq, err3 := strconv.ParseInt(str[5], 10, 64)
	if err := errors.Join(err1, err2, err3); err != nil {
		return nil, false, fmt.Errorf("session %s: %w", id, err)
	}
	return &Session{
		ID:         id,
		Origin:     str[0],
		Page:       Page{URL: str[1], Title: str[2]},
		CreatedAt:  fromNanos(created),
		UpdatedAt:  fromNanos(updated),
		Seq:        seq,
		ActiveTurn: str[6],
	}, true, nil
}

func (s *redisStore) Load(ctx context.Context, id string) (*Session, error) {
	if s.closed.Load() {
		return nil, ErrClosed
	}
	if !validID(id) {
		return nil, ErrNotFound
	}
	keys := s.sessionKeys(id)
	var fields *redis.SliceCmd
	var msgs *redis.StringSliceCmd
	// MULTI/EXEC: the messages and the seq come from the same moment.
	_, err := s.c.TxPipelined(ctx, func(p redis.Pipeliner) error {
		fields = p.HMGet(ctx, keys[0], sessionFields...)
		msgs = p.LRange(ctx, keys[1], 0, -1)
		return nil
	})
	if err != nil {
		return nil, s.fail("load", err)
	}
	sess, ok, err := parseSession(id, fields.Val())
	if err != nil {
		return nil, s.fail("load", err)
	}
	if !ok {
		return nil, ErrNotFound
	}
	rows := make([][]byte, len(msgs.Val()))
	for i, m := range msgs.Val() {
		rows[i] = []byte(m)
	}
	if sess.Messages, err = decodeMessages(rows); err != nil {
		return nil, err
	}
	return sess, nil
}

// appendScript: KEYS hash, msgs, events, claim, index; ARGV id, updated ns, score, ttl ms,
// first seq, event count, message count, set page (1/0), url, title, set turn (1/0), turn,
// origin index prefix, then the event members, then the messages. Returns {0, seq} when
// written, {1, 0} when the session is missing, {2, seq} on a seq conflict.
var appendScript = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then return {1, 0} end
local cur = tonumber(redis.call('HGET', KEYS[1], 'seq'))
local ne = tonumber(ARGV[6])
local nm = tonumber(ARGV[7])
if ne > 0 and tonumber(ARGV[5]) ~= cur + 1 then return {2, cur} end
local i = 14
for k = 1, ne do
	redis.call('ZADD', KEYS[3], cur + k, ARGV[i])
	i = i + 1
end
for k = 1, nm do
	redis.call('RPUSH', KEYS[2], ARGV[i])
	i = i + 1
end
redis.call('HSET', KEYS[1], 'updated', ARGV[2], 'seq', string.format('%d', cur + ne))
if ARGV[8] == '1' then redis.call('HSET', KEYS[1], 'url', ARGV[9], 'title', ARGV[10]) end
if ARGV[11] == '1' then redis.call('HSET', KEYS[1], 'turn', ARGV[12]) end
redis.call('ZADD', KEYS[5], ARGV[3], ARGV[1])
redis.call('ZADD', ARGV[13] .. redis.call('HGET', KEYS[1], 'origin'), ARGV[3], ARGV[1])
local ttl = tonumber(ARGV[4])
if ttl > 0 then
	for k = 1, 3 do redis.call('PEXPIRE', KEYS[k], ttl) end
end
if ne > 0 then
	local evs = {}
	for k = 1, ne do
		local m = ARGV[13 + k]
		evs[k] = string.sub(m, string.find(m, ':', 1, true) + 1)
	end
	redis.call('PUBLISH', ARGV[14 + ne + nm], '{"origin":' .. cjson.encode(redis.call('HGET', KEYS[1], 'origin')) ..
		',"replica":' .. cjson.encode(redis.call('GET', KEYS[4]) or '') .. ',"events":[' .. table.concat(evs, ',') .. ']}')
end
return {0, cur + ne}
`)

func (s *redisStore) Append(ctx context.Context, id string, b Batch) error {
	e, err := encodeBatch(b)
	if err != nil {
		return err
	}
	if s.closed.Load() {
		return ErrClosed
	}
	if !validID(id) {
		return ErrNotFound
	}
	now := s.now()
	setPage, url, title := "0", "", ""
	if e.page != nil {
		setPage, url, title = "1", e.page.URL, e.page.Title
	}
	setTurn, turn := "0", ""
	if e.turn != nil {
		setTurn, turn = "1", *e.turn
	}
	args := make([]any, 0, 14+len(e.events)+len(e.messages))
	args = append(args, id, nanos(now), score(now), s.ttlMillis(), e.first, len(e.events), len(e.messages),
		setPage, url, title, setTurn, turn, s.originPrefix())
	for _, ev := range e.events {
		args = append(args, eventMember(ev))
	}
	for _, m := range e.messages {
		args = append(args, m)
	}
	args = append(args, s.prefix+EventsChannel(id)) // the appended events are published there (Bus)
	res, err := appendScript.Run(ctx, s.c, append(s.sessionKeys(id), s.indexKey()), args...).Int64Slice()
	if err != nil {
		return s.fail("append", err)
	}
	if len(res) != 2 {
		return s.fail("append", fmt.Errorf("script answered %v", res))
	}
	switch res[0] {
	case 1:
		return ErrNotFound
	case 2:
		return fmt.Errorf("%w: got event %d, want %d", ErrSeqConflict, e.first, res[1]+1)
	}
	return nil
}

// eventMember is how an event is kept in the sorted set: its seq keeps members unique.
func eventMember(ev Event) string {
	return strconv.FormatInt(ev.Seq, 10) + ":" + string(ev.Data)
}

// parseEventMember reverses eventMember.
func parseEventMember(m string) (Event, error) {
	seq, data, ok := strings.Cut(m, ":")
	if !ok {
		return Event{}, fmt.Errorf("malformed event %.20q", m)
	}
	n, err := strconv.ParseInt(seq, 10, 64)
	if err != nil {
		return Event{}, fmt.Errorf("malformed event %.20q: %w", m, err)
	}
	return Event{Seq: n, Data: []byte(data)}, nil
}

func (s *redisStore) EventsAfter(ctx context.Context, id string, after int64, limit int) ([]Event, error) {
	if s.closed.Load() {
		return nil, ErrClosed
	}
	if !validID(id) {
		return nil, ErrNotFound
	}
	keys := s.sessionKeys(id)
	var exists *redis.IntCmd
	var members *redis.StringSliceCmd
	_, err := s.c.TxPipelined(ctx, func(p redis.Pipeliner) error {
		exists = p.Exists(ctx, keys[0])
		members = p.ZRangeArgs(ctx, redis.ZRangeArgs{
			Key:     keys[2],
			Start:   "(" + strconv.FormatInt(after, 10),
			Stop:    "+inf",
			ByScore: true,
			Count:   int64(max(limit, 0)),
		})
		return nil
	})
	if err != nil {
		return nil, s.fail("events", err)
	}
	if exists.Val() == 0 {
		return nil, ErrNotFound
	}
	out := make([]Event, len(members.Val()))
	for i, m := range members.Val() {
		if out[i], err = parseEventMember(m); err != nil {
			return nil, s.fail("events", err)
		}
	}
	return out, nil
}

func (s *redisStore) List(ctx context.Context, o ListOptions) ([]*Session, error) {
	if s.closed.Load() {
		return nil, ErrClosed
	}
	index := s.indexKey()
	if o.Origin != "" {
		index = s.originPrefix() + o.Origin
	}
	limit := listLimit(o)
	var out []*Session
	var stale []any
	// Each window reads the next ids of the index; ids of expired sessions are skipped
	// (and dropped below), so the loop ends when the page is full or the index exhausted.
	for start := int64(0); len(out) < limit; {
		ids, err := s.c.ZRangeArgs(ctx, redis.ZRangeArgs{Key: index, Start: start, Stop: start + int64(limit) - 1, Rev: true}).Result()
		if err != nil {
			return nil, s.fail("list", err)
		}
		cmds := make([]*redis.SliceCmd, len(ids))
		_, err = s.c.Pipelined(ctx, func(p redis.Pipeliner) error {
			for i, id := range ids {
				cmds[i] = p.HMGet(ctx, s.sessionKey(id), sessionFields...)
			}
			return nil
		})
		if err != nil {
			return nil, s.fail("list", err)
		}
		for i, id := range ids {
			sess, ok, err := parseSession(id, cmds[i].Val())
			if err != nil {
				return nil, s.fail("list", err)
			}
			if !ok {
				stale = append(stale, id)
				continue
			}
			if len(out) < limit {
				out = append(out, sess)
			}
		}
		if len(ids) < limit {
			break
		}
		start += int64(len(ids))
	}
	if len(stale) > 0 {
		if err := s.c.ZRem(ctx, index, stale...).Err(); err != nil {
			return nil, s.fail("list", err)
		}
	}
	slices.SortStableFunc(out, compareRecent)
	return out, nil
}

// deleteScript: KEYS hash, msgs, events, claim, index; ARGV id, origin index prefix, and
// "" or a time in Unix ns: then the session is deleted only when it was last updated
// before it. Returns 1 when the session was deleted, 0 when it was missing (its index entry
// is dropped), 2 when it was updated since the time and kept.
var deleteScript = redis.NewScript(`
local updated = redis.call('HGET', KEYS[1], 'updated')
if not updated then
	redis.call('DEL', KEYS[2], KEYS[3], KEYS[4])
	redis.call('ZREM', KEYS[5], ARGV[1])
	return 0
end
local before = ARGV[3]
if before ~= '' and (#updated > #before or (#updated == #before and updated >= before)) then
	return 2
end
local origin = redis.call('HGET', KEYS[1], 'origin')
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3], KEYS[4])
redis.call('ZREM', KEYS[5], ARGV[1])
redis.call('ZREM', ARGV[2] .. origin, ARGV[1])
return 1
`)

func (s *redisStore) Delete(ctx context.Context, id string) error {
	if s.closed.Load() {
		return ErrClosed
	}
	if !validID(id) {
		return nil
	}
	keys := append(s.sessionKeys(id), s.indexKey())
	if err := deleteScript.Run(ctx, s.c, keys, id, s.originPrefix(), "").Err(); err != nil {
		return s.fail("delete", err)
	}
	return nil
}

// expireBatch is how many candidate ids ExpireIdle handles per round trip.
const expireBatch = 500

// ExpireIdle deletes the sessions last updated before before. Redis also expires sessions
// by itself after the store's TTL; ExpireIdle is for a shorter idle limit, and it drops the
// index entries of sessions Redis already expired.
func (s *redisStore) ExpireIdle(ctx context.Context, before time.Time) (int, error) {
	if s.closed.Load() {
		return 0, ErrClosed
	}
	if err := deleteScript.Load(ctx, s.c).Err(); err != nil {
		return 0, s.fail("expire", err)
	}
	// Index scores are in µs. A session scored below score(before) was updated before
	// before: each round deletes it, or drops its entry when Redis expired it, or finds it
	// updated meanwhile (then its score moved past the range), so every round takes the
	// next ids from the start of the range, and a round that changes nothing ends the loop.
	// Then the few sessions scored exactly score(before) are checked to the nanosecond.
	deleted := 0
	below := "(" + strconv.FormatInt(score(before), 10)
	for {
		ids, err := s.c.ZRangeArgs(ctx, redis.ZRangeArgs{Key: s.indexKey(), Start: "-inf", Stop: below, ByScore: true, Count: expireBatch}).Result()
		if err != nil {
			return deleted, s.fail("expire", err)
		}
		n, changed, err := s.deleteIdle(ctx, ids, before)
		deleted += n
		if err != nil {
			return deleted, s.fail("expire", err)
		}
		if len(ids) < expireBatch || changed == 0 {
			break
		}
	}
	at := strconv.FormatInt(score(before), 10)
	ids, err := s.c.ZRangeArgs(ctx, redis.ZRangeArgs{Key: s.indexKey(), Start: at, Stop: at, ByScore: true}).Result()
	if err != nil {
		return deleted, s.fail("expire", err)
	}
	n, _, err := s.deleteIdle(ctx, ids, before)
	deleted += n
	if err != nil {
		return deleted, s.fail("expire", err)
	}
	return deleted, nil
}

// deleteIdle runs deleteScript (already loaded) for ids in one pipeline. It returns how many
// sessions it deleted and how many index entries it deleted or dropped.
func (s *redisStore) deleteIdle(ctx context.Context, ids []string, before time.Time) (deleted, changed int, err error) {
	if len(ids) == 0 {
		return 0, 0, nil
	}
	cmds := make([]*redis.Cmd, len(ids))
	_, err = s.c.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, id := range ids {
			keys := append(s.sessionKeys(id), s.indexKey())
			cmds[i] = deleteScript.EvalSha(ctx, p, keys, id, s.originPrefix(), strconv.FormatInt(nanos(before), 10))
		}
		return nil
	})
	if err != nil {
		return 0, 0, err
	}
	for _, cmd := range cmds {
		switch n, _ := cmd.Int(); n {
		case 1:
			deleted++
			changed++
		case 0:
			changed++
		}
	}
	return deleted, changed, nil
}

// claimScript: KEYS claim, hash; ARGV owner, ttl ms. Returns {1, owner} when owner holds
// the claim now, {0, current} when another owner does, {-1, ""} when the session is missing.
var claimScript = redis.NewScript(`
if redis.call('EXISTS', KEYS[2]) == 0 then return {-1, ''} end
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return {1, ARGV[1]} end
local cur = redis.call('GET', KEYS[1])
if cur == ARGV[1] then
	redis.call('PEXPIRE', KEYS[1], ARGV[2])
	return {1, cur}
end
return {0, cur}
`)

func (s *redisStore) Claim(ctx context.Context, id, owner string, ttl time.Duration) (bool, string, error) {
	if err := checkClaim(owner, ttl); err != nil {
		return false, "", err
	}
	if s.closed.Load() {
		return false, "", ErrClosed
	}
	if !validID(id) {
		return false, "", ErrNotFound
	}
	keys := s.sessionKeys(id)
	res, err := claimScript.Run(ctx, s.c, []string{keys[3], keys[0]}, owner, millis(ttl)).Slice()
	if err != nil {
		return false, "", s.fail("claim", err)
	}
	if len(res) != 2 {
		return false, "", s.fail("claim", fmt.Errorf("script answered %v", res))
	}
	code, ok1 := res[0].(int64)
	current, ok2 := res[1].(string)
	if !ok1 || !ok2 {
		return false, "", s.fail("claim", fmt.Errorf("script answered %v", res))
	}
	switch code {
	case -1:
		return false, "", ErrNotFound
	case 1:
		return true, current, nil
	}
	return false, current, nil
}

// RenewClaims is Claim for each id, the claim scripts of renewChunk sessions sent in one
// pipeline (one round trip) instead of a round trip each.
func (s *redisStore) RenewClaims(ctx context.Context, ids []string, owner string, ttl time.Duration) error {
	if err := checkClaim(owner, ttl); err != nil {
		return err
	}
	return inRenewChunks(ids, &s.closed, func(chunk []string) error {
		pipe := s.c.Pipeline()
		for _, id := range chunk {
			if validID(id) {
				keys := s.sessionKeys(id)
				// EVAL, not EVALSHA: a pipeline cannot fall back on a server that has
				// not loaded the script yet.
				claimScript.Eval(ctx, pipe, []string{keys[3], keys[0]}, owner, millis(ttl))
			}
		}
		if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
			return s.fail("renew claims", err)
		}
		return nil
	})
}

// releaseScript: KEYS claim; ARGV owner. Deletes the claim when owner holds it.
var releaseScript = redis.NewScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`)

func (s *redisStore) Release(ctx context.Context, id, owner string) error {
	if s.closed.Load() {
		return ErrClosed
	}
	if !validID(id) {
		return nil
	}
	if err := releaseScript.Run(ctx, s.c, []string{s.sessionKeys(id)[3]}, owner).Err(); err != nil {
		return s.fail("release", err)
	}
	return nil
}

func (s *redisStore) Close() error {
	if s.closed.Swap(true) {
		return nil
	}
	s.bus.close()
	return s.c.Close()
}
