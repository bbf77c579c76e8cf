package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"time"

	_ "modernc.org/sqlite" // the "sqlite" database/sql driver, pure Go
)

// sqliteBusyTimeout is how long a statement waits for another connection or process that
// holds the write lock.
const sqliteBusyTimeout = 10 * time.Second

// migrations build the schema; migrations[i] moves a database from user_version i to i+1.
// Append only: never edit a migration that has shipped.
var migrations = []string{
	// 1: sessions with their messages, events and claims. Times are Unix nanoseconds.
	`CREATE TABLE sessions (
		id          TEXT PRIMARY KEY,
		origin      TEXT NOT NULL,
		page_url    TEXT NOT NULL DEFAULT '',
		page_title  TEXT NOT NULL DEFAULT '',
		created_at  INTEGER NOT NULL,
		updated_at  INTEGER NOT NULL,
		seq         INTEGER NOT NULL DEFAULT 0,
		msg_count   INTEGER NOT NULL DEFAULT 0,
		active_turn TEXT NOT NULL DEFAULT ''
	);
	CREATE INDEX sessions_by_update ON sessions (updated_at, id);
	CREATE INDEX sessions_by_origin ON sessions (origin, updated_at, id);
	CREATE TABLE messages (
		session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
		pos        INTEGER NOT NULL,
		data       TEXT NOT NULL,
		PRIMARY KEY (session_id, pos)
	) WITHOUT ROWID;
	CREATE TABLE events (
		session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
		seq        INTEGER NOT NULL,
		data       TEXT NOT NULL,
		PRIMARY KEY (session_id, seq)
	) WITHOUT ROWID;
	CREATE TABLE claims (
		session_id TEXT PRIMARY KEY REFERENCES sessions (id) ON DELETE CASCADE,
		owner      TEXT NOT NULL,
		expires_at INTEGER NOT NULL
	) WITHOUT ROWID;`,
}

// sqliteStore is the Store in a SQLite file.
//
// Writes go through w, a pool of one connection whose transactions start with BEGIN
// IMMEDIATE: writers in this process queue in database/sql, writers in other processes wait
// on the busy timeout, and no transaction ever has to upgrade a read lock (which SQLite
// cannot wait for). Reads go through r, read-only connections that in WAL mode never block
// the writer nor wait for it.
type sqliteStore struct {
	path   string
	w      *sql.DB
	r      *sql.DB
	now    func() time.Time
	closed atomic.Bool
}

// OpenSQLite opens (creating it when missing) the SQLite database at path, in WAL mode with a
// busy timeout and foreign keys, and migrates its schema (PRAGMA user_version counts the
// migrations applied; a file from a newer program is refused). Several Stores,
// in one process or several, may use the same file. Commits use synchronous=NORMAL: an
// application crash loses nothing, a power cut may lose the last commits.
func OpenSQLite(ctx context.Context, path string) (Store, error) {
	if path == "" || path == ":memory:" || path == "file::memory:" {
		return nil, fmt.Errorf("store: sqlite: %q is not a file path (use the memory store for an in-memory one)", path)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("store: sqlite: %w", err)
	}
	base := "file:" + (&url.URL{Path: abs}).EscapedPath() + "?_busy_timeout=" +
		fmt.Sprint(sqliteBusyTimeout.Milliseconds()) + "&_foreign_keys=1"
	w, err := sql.Open("sqlite", base+"&_journal_mode=WAL&_synchronous=NORMAL&_txlock=immediate")
	if err != nil {
		return nil, fmt.Errorf("store: sqlite: %w", err)
	}
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	w.SetConnMaxIdleTime(0)
	w.SetConnMaxLifetime(0)
	s := &sqliteStore{path: abs, w: w, now: time.Now}
	if err := s.migrate(ctx); err != nil {
		w.Close()
		return nil, fmt.Errorf("store: sqlite: opening %s: %w", abs, err)
	}
	r, err := sql.Open("sqlite", base+"&_query_only=1")
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("store: sqlite: %w", err)
	}
	n := max(4, runtime.GOMAXPROCS(0))
	r.SetMaxOpenConns(n)
	r.SetMaxIdleConns(n)
	if err := r.PingContext(ctx); err != nil {
		w.Close()
		r.Close()
		return nil, fmt.Errorf("store: sqlite: opening %s: %w", abs, err)
	}
	s.r = r
	return s, nil
}

// migrate applies the missing migrations in one transaction, so two processes opening a
// new file at once migrate it once.
func (s *sqliteStore) migrate(ctx context.Context) error {
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var v int
	if err := tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
		return fmt.Errorf("reading schema version: %w", err)
	}
	if v > len(migrations) {
		return fmt.Errorf("schema version %d is newer than this program's %d", v, len(migrations))
	}
	if v == len(migrations) {
		return nil
	}
	for i := v; i < len(migrations); i++ {
		if _, err := tx.ExecContext(ctx, migrations[i]); err != nil {
			return fmt.Errorf("migrating schema to version %d: %w", i+1, err)
		}
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", len(migrations))); err != nil {
		return fmt.Errorf("writing schema version: %w", err)
	}
	return tx.Commit()
}

// fail wraps err from op, reporting ErrClosed when the store was closed meanwhile.
func (s *sqliteStore) fail(op string, err error) error {
	if s.closed.Load() {
		return ErrClosed
	}
	if errors.Is(err, ErrNotFound) || errors.Is(err, ErrSeqConflict) || errors.Is(err, ErrExists) {
		return err
	}
	return fmt.Errorf("store: sqlite: %s: %w", op, err)
}

func (s *sqliteStore) Create(ctx context.Context, sess *Session) error {
	created, err := newSession(sess, s.now())
	if err != nil {
		return err
	}
	if s.closed.Load() {
		return ErrClosed
	}
	res, err := s.w.ExecContext(ctx, `INSERT INTO sessions
		(id, origin, page_url, page_title, created_at, updated_at, active_turn)
		VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`,
		sess.ID, sess.Origin, sess.Page.URL, sess.Page.Title, nanos(created), nanos(created), sess.ActiveTurn)
	if err != nil {
		return s.fail("create", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return s.fail("create", err)
	}
	if n == 0 {
		return ErrExists
	}
	return nil
}

// sessionColumns are the columns scanSession reads.
const sessionColumns = `id, origin, page_url, page_title, created_at, updated_at, seq, active_turn`

// scanSession reads one row of sessionColumns.
func scanSession(row interface{ Scan(...any) error }) (*Session, error) {
	var sess Session
	var created, updated int64
	err := row.Scan(&sess.ID, &sess.Origin, &sess.Page.URL, &sess.Page.Title, &created, &updated, &sess.Seq, &sess.ActiveTurn)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	sess.CreatedAt, sess.UpdatedAt = fromNanos(created), fromNanos(updated)
	return &sess, nil
}

func (s *sqliteStore) Load(ctx context.Context, id string) (*Session, error) {
	if s.closed.Load() {
		return nil, ErrClosed
	}
	// One read transaction: the messages and the seq come from the same snapshot.
	tx, err := s.r.BeginTx(ctx, nil)
	if err != nil {
		return nil, s.fail("load", err)
	}
	defer tx.Rollback()
	sess, err := scanSession(tx.QueryRowContext(ctx, `SELECT `+sessionColumns+` FROM sessions WHERE id = ?`, id))
	if err != nil {
		return nil, s.fail("load", err)
	}
	rows, err := tx.QueryContext(ctx, `SELECT data FROM messages WHERE session_id = ? ORDER BY pos`, id)
	if err != nil {
		return nil, s.fail("load", err)
	}
	defer rows.Close()
	var data [][]byte
	for rows.Next() {
		var d []byte
		if err := rows.Scan(&d); err != nil {
			return nil, s.fail("load", err)
		}
		data = append(data, d)
	}
	if err := rows.Err(); err != nil {
		return nil, s.fail("load", err)
	}
	if sess.Messages, err = decodeMessages(data); err != nil {
		return nil, err
	}
	return sess, nil
}

func (s *sqliteStore) Append(ctx context.Context, id string, b Batch) error {
	e, err := encodeBatch(b)
	if err != nil {
		return err
	}
	if s.closed.Load() {
		return ErrClosed
	}
	if err := s.append(ctx, id, e); err != nil {
		return s.fail("append", err)
	}
	return nil
}

// append writes e in one BEGIN IMMEDIATE transaction.
func (s *sqliteStore) append(ctx context.Context, id string, e encodedBatch) error {
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var cur, count int64
	err = tx.QueryRowContext(ctx, `SELECT seq, msg_count FROM sessions WHERE id = ?`, id).Scan(&cur, &count)
	if errors.Is(err, sql.ErrNoRows) {
		return ErrNotFound
	}
	if err != nil {
		return err
	}
	seq, err := e.nextSeq(cur)
	if err != nil {
		return err
	}
	if err := insertRows(ctx, tx, `INSERT INTO messages (session_id, pos, data) VALUES (?, ?, ?)`, id, len(e.messages),
		func(i int) (int64, []byte) { return count + int64(i), e.messages[i] }); err != nil {
		return err
	}
	if err := insertRows(ctx, tx, `INSERT INTO events (session_id, seq, data) VALUES (?, ?, ?)`, id, len(e.events),
		func(i int) (int64, []byte) { return e.events[i].Seq, e.events[i].Data }); err != nil {
		return err
	}
	q := `UPDATE sessions SET updated_at = ?, seq = ?, msg_count = ?`
	args := []any{nanos(s.now()), seq, count + int64(len(e.messages))}
	if e.page != nil {
		q += `, page_url = ?, page_title = ?`
		args = append(args, e.page.URL, e.page.Title)
	}
	if e.turn != nil {
		q += `, active_turn = ?`
		args = append(args, *e.turn)
	}
	if _, err := tx.ExecContext(ctx, q+` WHERE id = ?`, append(args, id)...); err != nil {
		return err
	}
	return tx.Commit()
}

// insertRows runs the insert q for n rows of (id, key, data).
func insertRows(ctx context.Context, tx *sql.Tx, q, id string, n int, row func(i int) (int64, []byte)) error {
	if n == 0 {
		return nil
	}
	stmt, err := tx.PrepareContext(ctx, q)
	if err != nil {
		return err
	}
	defer stmt.Close()
	for i := range n {
		key, data := row(i)
		if _, err := stmt.ExecContext(ctx, id, key, string(data)); err != nil {
			return err
		}
	}
	return nil
}

func (s *sqliteStore) EventsAfter(ctx context.Context, id string, after int64, limit int) ([]Event, error) {
	if s.closed.Load() {
		return nil, ErrClosed
	}
	if limit <= 0 {
		limit = -1 // SQLite: no limit
	}
	rows, err := s.r.QueryContext(ctx, `SELECT seq, data FROM events WHERE session_id = ? AND seq > ? ORDER BY seq LIMIT ?`, id, after, limit)
	if err != nil {
		return nil, s.fail("events", err)
	}
	defer rows.Close()
	var out []Event
	for rows.Next() {
		var ev Event
		var data []byte
		if err := rows.Scan(&ev.Seq, &data); err != nil {
			return nil, s.fail("events", err)
		}
		ev.Data = data
		out = append(out, ev)
	}
	if err := rows.Err(); err != nil {
		return nil, s.fail("events", err)
	}
	if len(out) == 0 {
		var one int
		err := s.r.QueryRowContext(ctx, `SELECT 1 FROM sessions WHERE id = ?`, id).Scan(&one)
		if errors.Is(err, sql.ErrNoRows) {
			return nil, ErrNotFound
		}
		if err != nil {
			return nil, s.fail("events", err)
		}
		return []Event{}, nil
	}
	return out, nil
}

func (s *sqliteStore) List(ctx context.Context, o ListOptions) ([]*Session, error) {
	if s.closed.Load() {
		return nil, ErrClosed
	}
	q := `SELECT ` + sessionColumns + ` FROM sessions`
	var args []any
	if o.Origin != "" {
		q += ` WHERE origin = ?`
		args = append(args, o.Origin)
	}
	q += ` ORDER BY updated_at DESC, id DESC LIMIT ?`
	rows, err := s.r.QueryContext(ctx, q, append(args, listLimit(o))...)
	if err != nil {
		return nil, s.fail("list", err)
	}
	defer rows.Close()
	var out []*Session
	for rows.Next() {
		sess, err := scanSession(rows)
		if err != nil {
			return nil, s.fail("list", err)
		}
		out = append(out, sess)
	}
	if err := rows.Err(); err != nil {
		return nil, s.fail("list", err)
	}
	return out, nil
}

func (s *sqliteStore) Delete(ctx context.Context, id string) error {
	if s.closed.Load() {
		return ErrClosed
	}
	// Foreign keys cascade to messages, events and claims.
	if _, err := s.w.ExecContext(ctx, `DELETE FROM sessions WHERE id = ?`, id); err != nil {
		return s.fail("delete", err)
	}
	return nil
}

func (s *sqliteStore) ExpireIdle(ctx context.Context, before time.Time) (int, error) {
	if s.closed.Load() {
		return 0, ErrClosed
	}
	res, err := s.w.ExecContext(ctx, `DELETE FROM sessions WHERE updated_at < ?`, nanos(before))
	if err != nil {
		return 0, s.fail("expire", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, s.fail("expire", err)
	}
	return int(n), nil
}

func (s *sqliteStore) Claim(ctx context.Context, id, owner string, ttl time.Duration) (bool, string, error) {
	if err := checkClaim(owner, ttl); err != nil {
		return false, "", err
	}
	if s.closed.Load() {
		return false, "", ErrClosed
	}
	ok, current, err := s.claim(ctx, id, owner, ttl)
	if err != nil {
		return false, "", s.fail("claim", err)
	}
	return ok, current, nil
}

// claim reads and writes the claim in one BEGIN IMMEDIATE transaction.
func (s *sqliteStore) claim(ctx context.Context, id, owner string, ttl time.Duration) (bool, string, error) {
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return false, "", err
	}
	defer tx.Rollback()
	var one int
	err = tx.QueryRowContext(ctx, `SELECT 1 FROM sessions WHERE id = ?`, id).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, "", ErrNotFound
	}
	if err != nil {
		return false, "", err
	}
	now := s.now()
	var current string
	var until int64
	err = tx.QueryRowContext(ctx, `SELECT owner, expires_at FROM claims WHERE session_id = ?`, id).Scan(&current, &until)
	switch {
	case errors.Is(err, sql.ErrNoRows):
	case err != nil:
		return false, "", err
	case current != owner && until > nanos(now):
		return false, current, nil
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO claims (session_id, owner, expires_at) VALUES (?, ?, ?)
		ON CONFLICT (session_id) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at`,
		id, owner, nanos(now.Add(ttl)))
	if err != nil {
		return false, "", err
	}
	if err := tx.Commit(); err != nil {
		return false, "", err
	}
	return true, owner, nil
}

func (s *sqliteStore) Release(ctx context.Context, id, owner string) error {
	if s.closed.Load() {
		return ErrClosed
	}
	if _, err := s.w.ExecContext(ctx, `DELETE FROM claims WHERE session_id = ? AND owner = ?`, id, owner); err != nil {
		return s.fail("release", err)
	}
	return nil
}

func (s *sqliteStore) Close() error {
	if s.closed.Swap(true) {
		return nil
	}
	return errors.Join(s.r.Close(), s.w.Close())
}
