package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// ErrBadCursor: SearchOptions.After is not a Next of Search.
var ErrBadCursor = errors.New("store: search: bad cursor")

// SearchOptions bound Search.
type SearchOptions struct {
	// Query is found case-insensitively in a session's id, origin, page URL or title, or
	// anywhere in its stored events (messages, tool names, arguments, results, errors);
	// "" finds every session.
	Query string
	// After is the Next of the previous page ("" starts with the most recently updated).
	After string
	// Limit is how many sessions a page holds at most; 0 means 50.
	Limit int
	// Scan bounds how many sessions one call reads before it returns a page with a Next
	// (Redis reads each one's events in Go); 0 means 2000. SQLite and the memory store search
	// every session in one call.
	Scan int
}

// SearchPage is one page of Search.
type SearchPage struct {
	// Sessions are the sessions found (without messages), most recently updated first.
	// Their stored text holds Query somewhere, possibly only in the JSON of an event
	// (a key name): the caller decides what counts as a match on what it reads.
	Sessions []*Session
	// Next goes on after the last session read; "" when every session was searched.
	Next string
}

// Search finds the sessions whose stored text holds o.Query, in every session of the
// store (not only the most recent ones), a page at a time: SQLite queries the events table,
// Redis reads the sessions index in batches, the memory store scans everything.
func Search(ctx context.Context, st Store, o SearchOptions) (SearchPage, error) {
	if o.Limit <= 0 {
		o.Limit = 50
	}
	if o.Scan <= 0 {
		o.Scan = 2000
	}
	after, err := parseCursor(o.After)
	if err != nil {
		return SearchPage{}, err
	}
	switch s := st.(type) {
	case *sqliteStore:
		return s.search(ctx, o, after)
	case *redisStore:
		return s.search(ctx, o, after)
	default:
		return scanSearch(ctx, st, o, after)
	}
}

// cursor is a position in the order of List: most recently updated first, then by
// descending id. A session is after the cursor when it comes later in that order.
type cursor struct {
	updated int64 // Unix ns; 0: the start
	id      string
}

func (c cursor) start() bool { return c.updated == 0 && c.id == "" }

// before reports whether s comes after the cursor in the order of List.
func (c cursor) before(s *Session) bool {
	if c.start() {
		return true
	}
	u := nanos(s.UpdatedAt)
	return u < c.updated || (u == c.updated && s.ID < c.id)
}

// SearchCursor is the After that goes on with the sessions that come after s.
func SearchCursor(s *Session) string { return cursorOf(s) }

func cursorOf(s *Session) string {
	return strconv.FormatInt(nanos(s.UpdatedAt), 10) + ":" + s.ID
}

func parseCursor(v string) (cursor, error) {
	if v == "" {
		return cursor{}, nil
	}
	u, id, ok := strings.Cut(v, ":")
	n, err := strconv.ParseInt(u, 10, 64)
	if !ok || err != nil || !validID(id) {
		return cursor{}, fmt.Errorf("%w %q", ErrBadCursor, v)
	}
	return cursor{updated: n, id: id}, nil
}

// needles are the forms q takes in stored text, lower-cased: as typed, and as it appears
// inside a JSON string (quotes, backslashes and control characters escaped; <, > and &
// escaped too by encoding/json, or not by other encoders).
func needles(q string) []string {
	q = strings.ToLower(q)
	out := []string{q}
	for _, html := range []bool{true, false} {
		var b strings.Builder
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(html)
		_ = enc.Encode(q)
		esc := strings.TrimSuffix(b.String(), "\n")
		esc = esc[1 : len(esc)-1]
		if !slices.Contains(out, esc) {
			out = append(out, esc)
		}
	}
	return out
}

// holds reports whether the session's own fields or one of its events hold a needle.
func holds(s *Session, events []Event, ns []string) bool {
	fields := strings.ToLower(s.ID + "\x00" + s.Origin + "\x00" + s.Page.URL + "\x00" + s.Page.Title)
	for _, n := range ns {
		if strings.Contains(fields, n) {
			return true
		}
		for _, e := range events {
			if strings.Contains(strings.ToLower(string(e.Data)), n) {
				return true
			}
		}
	}
	return false
}

// scanSearch reads every session (the memory store, or any Store).
func scanSearch(ctx context.Context, st Store, o SearchOptions, after cursor) (SearchPage, error) {
	all, err := st.List(ctx, ListOptions{Limit: math.MaxInt32})
	if err != nil {
		return SearchPage{}, err
	}
	ns := needles(o.Query)
	var page SearchPage
	for _, s := range all {
		if !after.before(s) {
			continue
		}
		if len(page.Sessions) == o.Limit {
			page.Next = cursorOf(page.Sessions[len(page.Sessions)-1])
			break
		}
		if o.Query != "" {
			evs, err := st.EventsAfter(ctx, s.ID, 0, 0)
			if errors.Is(err, ErrNotFound) {
				continue // deleted meanwhile
			}
			if err != nil {
				return SearchPage{}, err
			}
			if !holds(s, evs, ns) {
				continue
			}
		}
		page.Sessions = append(page.Sessions, s)
	}
	return page, nil
}

// search runs in SQLite: the events of every session are searched by the query, so a match
// in a conversation of last year is found as well as one of a minute ago. SQLite's lower()
// folds ASCII letters only: other letters match in the case typed.
func (s *sqliteStore) search(ctx context.Context, o SearchOptions, after cursor) (SearchPage, error) {
	if s.closed.Load() {
		return SearchPage{}, ErrClosed
	}
	q := `SELECT ` + sessionColumns + ` FROM sessions WHERE 1`
	var args []any
	if !after.start() {
		q += ` AND (updated_at < ? OR (updated_at = ? AND id < ?))`
		args = append(args, after.updated, after.updated, after.id)
	}
	if o.Query != "" {
		var or []string
		for _, n := range needles(o.Query) {
			or = append(or, `instr(lower(id || char(0) || origin || char(0) || page_url || char(0) || page_title), lower(?)) > 0`,
				`EXISTS (SELECT 1 FROM events e WHERE e.session_id = sessions.id AND instr(lower(e.data), lower(?)) > 0)`)
			args = append(args, n, n)
		}
		q += ` AND (` + strings.Join(or, " OR ") + `)`
	}
	q += ` ORDER BY updated_at DESC, id DESC LIMIT ?`
	args = append(args, o.Limit+1)
	rows, err := s.r.QueryContext(ctx, q, args...)
	if err != nil {
		return SearchPage{}, s.fail("search", err)
	}
	defer rows.Close()
	var page SearchPage
	for rows.Next() {
		sess, err := scanSession(rows)
		if err != nil {
			return SearchPage{}, s.fail("search", err)
		}
		page.Sessions = append(page.Sessions, sess)
	}
	if err := rows.Err(); err != nil {
		return SearchPage{}, s.fail("search", err)
	}
	if len(page.Sessions) > o.Limit {
		page.Sessions = page.Sessions[:o.Limit]
		page.Next = cursorOf(page.Sessions[o.Limit-1])
	}
	return page, nil
}

// search runs on Redis in batches of the sessions index (most recent first): each batch's
// hashes and events are read in one pipeline and searched here. One call reads at most
// o.Scan sessions, then returns with a Next to go on from.
func (s *redisStore) search(ctx context.Context, o SearchOptions, after cursor) (SearchPage, error) {
	if s.closed.Load() {
		return SearchPage{}, ErrClosed
	}
	const batch = 200
	ns := needles(o.Query)
	var page SearchPage
	top := "+inf"
	if !after.start() {
		top = strconv.FormatInt(after.updated/int64(time.Microsecond), 10) // index scores are µs
	}
	scanned := 0
	var last *Session // the last session read, where Next goes on from
	for offset := int64(0); ; {
		ids, err := s.c.ZRangeArgs(ctx, redis.ZRangeArgs{Key: s.indexKey(), Start: top, Stop: "-inf", ByScore: true, Rev: true, Offset: offset, Count: batch}).Result()
		if err != nil {
			return SearchPage{}, s.fail("search", err)
		}
		offset += int64(len(ids))
		hashes := make([]*redis.SliceCmd, len(ids))
		events := make([]*redis.StringSliceCmd, len(ids))
		_, err = s.c.Pipelined(ctx, func(p redis.Pipeliner) error {
			for i, id := range ids {
				hashes[i] = p.HMGet(ctx, s.sessionKey(id), sessionFields...)
				if o.Query != "" {
					events[i] = p.ZRange(ctx, s.sessionKeys(id)[2], 0, -1)
				}
			}
			return nil
		})
		if err != nil && !errors.Is(err, redis.Nil) {
			return SearchPage{}, s.fail("search", err)
		}
		for i, id := range ids {
			sess, ok, err := parseSession(id, hashes[i].Val())
			if err != nil {
				return SearchPage{}, s.fail("search", err)
			}
			if !ok || !after.before(sess) {
				continue // expired, or read by the previous page
			}
			if len(page.Sessions) == o.Limit || scanned == o.Scan {
				page.Next = cursorOf(last)
				return page, nil
			}
			scanned++
			last = sess
			if o.Query != "" {
				members := events[i].Val()
				evs := make([]Event, 0, len(members))
				for _, m := range members {
					if ev, err := parseEventMember(m); err == nil {
						evs = append(evs, ev)
					}
				}
				if !holds(sess, evs, ns) {
					continue
				}
			}
			page.Sessions = append(page.Sessions, sess)
		}
		if len(ids) < batch {
			return page, nil
		}
	}
}
