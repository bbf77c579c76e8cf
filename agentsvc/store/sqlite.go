package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	_ "modernc.org/sqlite" // the "sqlite" database/sql driver, pure Go
)

// readerIdle is how long a read connection stays open unused.
const readerIdle = 5 * time.Second

// readerCacheKiB bounds the page cache of each read connection (SQLite's default is 2 MB;
// the reads of a turn's start and of a resume touch a few pages of one session, and the
// operating system caches the file anyway).
const readerCacheKiB = 256

// writerCacheKiB bounds the write connection's page cache (SQLite's default is 2 MB). Its
// pages stay in memory for the life of the process, outside Go's heap, and the appends of
// many sessions touch far more pages than either size holds: the kernel's cache of the
// file serves the rest.
const writerCacheKiB = 1024

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
	path    string
	w       *sql.DB
	r       *sql.DB
	stmts   *appendStmts // on w
	reads   readStmts    // on r
	commits groupCommitter
	ck      *checkpointer
	now     func() time.Time
	closed  atomic.Bool
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
	// wal_autocheckpoint=0: the checkpoints run off the commit path (checkpointer), which
	// also bounds the log file; journal_size_limit cuts the file back to walLimit whenever
	// this connection starts the log over.
	w, err := sql.Open("sqlite", base+"&_journal_mode=WAL&_synchronous=NORMAL&_txlock=immediate&_pragma=wal_autocheckpoint(0)&_pragma=journal_size_limit("+fmt.Sprint(walLimit)+")&_pragma=cache_size(-"+fmt.Sprint(writerCacheKiB)+")")
	if err != nil {
		return nil, fmt.Errorf("store: sqlite: %w", err)
	}
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	w.SetConnMaxIdleTime(0)
	w.SetConnMaxLifetime(0)
	s := &sqliteStore{path: abs, w: w, now: time.Now}
	s.commits.init(s)
	if err := s.migrate(ctx); err != nil {
		w.Close()
		return nil, fmt.Errorf("store: sqlite: opening %s: %w", abs, err)
	}
	if s.stmts, err = prepareAppend(ctx, w); err != nil {
		w.Close()
		return nil, fmt.Errorf("store: sqlite: opening %s: %w", abs, err)
	}
	r, err := sql.Open("sqlite", base+"&_query_only=1&_pragma=cache_size(-"+fmt.Sprint(readerCacheKiB)+")")
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("store: sqlite: %w", err)
	}
	n := max(4, runtime.GOMAXPROCS(0))
	r.SetMaxOpenConns(n)
	r.SetMaxIdleConns(n)
	// A read connection that stayed unused for a while is closed, and with it its page
	// cache (up to 2 MB each, outside Go's heap): when the tabs are idle, nothing reads.
	r.SetConnMaxIdleTime(readerIdle)
	if err := r.PingContext(ctx); err != nil {
		w.Close()
		r.Close()
		return nil, fmt.Errorf("store: sqlite: opening %s: %w", abs, err)
	}
	s.r = r
	if s.reads, err = prepareReads(ctx, r); err != nil {
		s.stmts.close()
		w.Close()
		r.Close()
		return nil, fmt.Errorf("store: sqlite: opening %s: %w", abs, err)
	}
	ck, err := sql.Open("sqlite", base+"&_pragma=cache_size(-"+fmt.Sprint(readerCacheKiB)+")")
	if err != nil {
		w.Close()
		r.Close()
		return nil, fmt.Errorf("store: sqlite: %w", err)
	}
	s.ck = newCheckpointer(ck, w, abs+"-wal")
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
	return s.create(ctx, sess, "", 0)
}

func (s *sqliteStore) CreateClaimed(ctx context.Context, sess *Session, owner string, ttl time.Duration) error {
	if err := checkClaim(owner, ttl); err != nil {
		return err
	}
	return s.create(ctx, sess, owner, ttl)
}

// create is Create, claimed by owner for ttl in the same transaction unless owner is "".
func (s *sqliteStore) create(ctx context.Context, sess *Session, owner string, ttl time.Duration) error {
	created, err := newSession(sess, s.now())
	if err != nil {
		return err
	}
	if s.closed.Load() {
		return ErrClosed
	}
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return s.fail("create", err)
	}
	defer tx.Rollback()
	res, err := tx.ExecContext(ctx, `INSERT INTO sessions
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
	if owner != "" {
		if _, err := tx.ExecContext(ctx, `INSERT INTO claims (session_id, owner, expires_at) VALUES (?, ?, ?)
			ON CONFLICT (session_id) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at`,
			sess.ID, owner, nanos(s.now().Add(ttl))); err != nil {
			return s.fail("create", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return s.fail("create", err)
	}
	s.ck.kick()
	return nil
}

// sessionColumns are the columns scanSession reads.
const sessionColumns = `id, origin, page_url, page_title, created_at, updated_at, seq, active_turn`

// scanSession reads one row of sessionColumns, and the columns after them into extra.
func scanSession(row interface{ Scan(...any) error }, extra ...any) (*Session, error) {
	var sess Session
	var created, updated int64
	err := row.Scan(append([]any{&sess.ID, &sess.Origin, &sess.Page.URL, &sess.Page.Title, &created, &updated, &sess.Seq, &sess.ActiveTurn}, extra...)...)
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
	// One statement: the session's row and its messages come from one snapshot, as a read
	// transaction would give them, without its BEGIN and COMMIT (a turn's start reads an
	// idle session back this way).
	rows, err := s.reads.load.QueryContext(ctx, id)
	if err != nil {
		return nil, s.fail("load", err)
	}
	defer rows.Close()
	var sess *Session
	var data [][]byte
	var d []byte
	// Every row repeats the session's columns: the first row's are read, the others' skipped
	// (RawBytes: not copied).
	repeated := make([]sql.RawBytes, strings.Count(sessionColumns, ",")+1)
	skip := make([]any, 0, len(repeated)+1)
	for i := range repeated {
		skip = append(skip, &repeated[i])
	}
	skip = append(skip, &d)
	for rows.Next() {
		d = nil
		if sess == nil {
			sess, err = scanSession(rows, &d)
		} else {
			err = rows.Scan(skip...)
		}
		if err != nil {
			return nil, s.fail("load", err)
		}
		if d != nil { // NULL: a session with no messages yet
			data = append(data, d)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, s.fail("load", err)
	}
	if sess == nil {
		return nil, ErrNotFound
	}
	if sess.Messages, err = decodeMessages(data); err != nil {
		return nil, err
	}
	return sess, nil
}

// readStmts are the reads of a turn's start and of a resume, prepared once on the read pool
// (database/sql prepares each on a read connection the first time it runs there): modernc's
// SQLite spent more on parsing them again than on running them.
type readStmts struct {
	load, events, exists *sql.Stmt
}

const (
	sqlLoad = `SELECT ` + sessionColumns + `, m.data
		FROM sessions LEFT JOIN messages m ON m.session_id = sessions.id WHERE sessions.id = ? ORDER BY m.pos`
	sqlEventsAfter = `SELECT seq, data FROM events WHERE session_id = ? AND seq > ? ORDER BY seq LIMIT ?`
	sqlExists      = `SELECT 1 FROM sessions WHERE id = ?`
)

func prepareReads(ctx context.Context, r *sql.DB) (readStmts, error) {
	var rs readStmts
	for _, p := range []struct {
		st **sql.Stmt
		q  string
	}{{&rs.load, sqlLoad}, {&rs.events, sqlEventsAfter}, {&rs.exists, sqlExists}} {
		st, err := r.PrepareContext(ctx, p.q)
		if err != nil {
			rs.close()
			return readStmts{}, err
		}
		*p.st = st
	}
	return rs, nil
}

func (rs readStmts) close() {
	for _, st := range []*sql.Stmt{rs.load, rs.events, rs.exists} {
		if st != nil {
			_ = st.Close()
		}
	}
}

func (s *sqliteStore) Append(ctx context.Context, id string, b Batch) error {
	e, err := encodeBatch(b)
	if err != nil {
		return err
	}
	if s.closed.Load() {
		return ErrClosed
	}
	if err := s.commits.append(ctx, id, e); err != nil {
		return s.fail("append", err)
	}
	return nil
}

// maxGroup is the most appends one group commit writes.
const maxGroup = 128

// Append states (appendReq.state).
const (
	appendQueued    int32 = iota
	appendTaken           // a group commit has it: its result will come
	appendAbandoned       // its caller's ctx ended first: never written
)

// appendReq is an Append waiting for a group commit.
type appendReq struct {
	id    string
	e     encodedBatch
	state atomic.Int32
	done  chan error // buffer 1: the committer never waits for the caller
}

// groupCommitter writes the appends of every session through the one write connection in
// group commits: the appends queued while a transaction runs are written together in the
// next one (at most maxGroup), and each caller returns once the transaction that holds its
// batch has committed. Under 256 sessions turning at once, one transaction per append queued
// the sessions behind each other on the write connection (each commit writes the same
// sessions-table and index pages again); a group writes those pages once. A caller is
// answered only after its commit, so what an acknowledged Append wrote survives a crash of
// the process as before (WAL, synchronous=NORMAL).
//
// The commit goroutine runs while appends are queued, and ends once none came for
// commitLinger (or the store closes), so an idle store has none. It lingers rather than
// ending at once because SQLite's calls run deep: a new goroutine grew its stack again
// through them for every group (2% of the agent's CPU under the realistic bench, when most
// groups hold one append). An append that fails inside a group (a seq conflict,
// an unknown session) fails alone: those are found before it writes anything. Any other
// error rolls the group back and its appends are written again one transaction each, so
// one bad batch never fails the others.
//
// Lock order: mu is a leaf.
type groupCommitter struct {
	s          *sqliteStore
	beforeHook func()        // tests: runs before each group is taken
	wake       chan struct{} // buffer 1: an append came while the goroutine lingers
	stop       chan struct{} // closed when the store closes

	mu         sync.Mutex
	linger     time.Duration // how long the goroutine waits for appends once the queue is empty
	queue      []*appendReq
	committing bool // the goroutine runs
	lingering  bool // it waits on wake
	stopped    bool
	started    int // goroutines started (tests)
}

// commitLinger is how long the commit goroutine waits for the next append before it ends:
// the appends of a turn come within it, and those of busy tabs far more often.
const commitLinger = time.Second

func (g *groupCommitter) init(s *sqliteStore) {
	g.s = s
	g.linger = commitLinger
	g.wake = make(chan struct{}, 1)
	g.stop = make(chan struct{})
}

// close ends a lingering goroutine (one that commits goes on until its queue is empty).
func (g *groupCommitter) close() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.stopped {
		g.stopped = true
		close(g.stop)
	}
}

// append queues one batch and waits for the commit that writes it. When ctx ends before a
// group took it, it is never written; once taken, the caller waits for the commit (bounded
// by the busy timeout), so it never reports a failure for a batch that was written.
func (g *groupCommitter) append(ctx context.Context, id string, e encodedBatch) error {
	r := &appendReq{id: id, e: e, done: make(chan error, 1)}
	g.mu.Lock()
	g.queue = append(g.queue, r)
	switch {
	case !g.committing:
		g.committing = true
		g.started++
		go g.run()
	case g.lingering:
		g.lingering = false
		select {
		case g.wake <- struct{}{}:
		default:
		}
	}
	g.mu.Unlock()
	select {
	case err := <-r.done:
		return err
	case <-ctx.Done():
		if r.state.CompareAndSwap(appendQueued, appendAbandoned) {
			return ctx.Err()
		}
		return <-r.done
	}
}

// run commits groups until the queue has stayed empty for g.linger.
func (g *groupCommitter) run() {
	var idle *time.Timer // made on the first wait
	defer func() {
		if idle != nil {
			idle.Stop()
		}
	}()
	for {
		if g.beforeHook != nil {
			g.beforeHook()
		}
		g.mu.Lock()
		n := min(len(g.queue), maxGroup)
		if n == 0 {
			g.queue = nil
			linger := g.linger
			if linger <= 0 || g.stopped {
				g.committing = false
				g.mu.Unlock()
				return
			}
			g.lingering = true
			g.mu.Unlock()
			if idle == nil {
				idle = time.NewTimer(linger)
			} else {
				idle.Reset(linger)
			}
			select {
			case <-g.wake:
				continue
			case <-idle.C:
			case <-g.stop:
			}
			g.mu.Lock()
			g.lingering = false
			select { // an append that came as the wait ended is in the queue
			case <-g.wake:
			default:
			}
			if len(g.queue) == 0 {
				g.committing = false
				g.mu.Unlock()
				return
			}
			g.mu.Unlock()
			continue
		}
		taken := make([]*appendReq, 0, n)
		for _, r := range g.queue[:n] {
			if r.state.CompareAndSwap(appendQueued, appendTaken) {
				taken = append(taken, r)
			}
		}
		clear(g.queue[:n])
		g.queue = g.queue[n:]
		g.mu.Unlock()
		if len(taken) > 0 {
			g.commit(taken)
			g.s.ck.kick()
		}
	}
}

// commit writes group in one transaction and answers each append; a panic (the driver's)
// answers the appends not answered yet with an error instead of ending the process.
func (g *groupCommitter) commit(group []*appendReq) {
	answered := 0
	defer func() {
		if v := recover(); v != nil {
			err := fmt.Errorf("group commit panicked: %v", v)
			for _, r := range group[answered:] {
				r.done <- err
			}
		}
	}()
	errs := make([]error, len(group))
	todo := make([]int, len(group)) // indexes into group still to write
	for i := range todo {
		todo[i] = i
	}
	for len(todo) > 0 {
		failed, err := g.s.appendGroup(group, todo, errs)
		if failed < 0 { // committed, or the transaction itself failed: that is every append's result
			for _, i := range todo {
				if err != nil {
					errs[i] = err
				}
			}
			break
		}
		// One append's writes failed in a way its checks did not foresee: it fails alone
		// and the others go again (the transaction was rolled back).
		errs[todo[failed]] = err
		todo = append(todo[:failed], todo[failed+1:]...)
	}
	for i, r := range group {
		r.done <- errs[i]
		answered = i + 1
	}
}

// appendGroup writes the appends group[i] for i in todo in one BEGIN IMMEDIATE transaction.
// errs[i] is set for an append that failed its checks (not found, seq conflict: it wrote
// nothing). When one append's writes failed otherwise, the transaction is rolled back and
// failed is its position in todo; else failed is -1 and err is the transaction's own error
// (begin or commit), nil once committed.
func (s *sqliteStore) appendGroup(group []*appendReq, todo []int, errs []error) (failed int, err error) {
	ctx := context.Background() // an append taken is written whatever its caller does
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return -1, err
	}
	defer tx.Rollback()
	st := &txStmts{a: s.stmts, tx: tx} // the transaction closes the statements it bound
	for k, i := range todo {
		var check error
		if check, err = s.appendIn(ctx, st, group[i].id, group[i].e); err != nil {
			return k, err
		}
		errs[i] = check
	}
	return -1, tx.Commit()
}

// appendIn writes e to session id inside a group's transaction. check is the error of a
// batch that does not fit the session (nothing was written); err is any other failure.
func (s *sqliteStore) appendIn(ctx context.Context, st *txStmts, id string, e encodedBatch) (check, err error) {
	var cur, count, updated int64
	err = st.bind(ctx, &st.get, st.a.get).QueryRowContext(ctx, id).Scan(&cur, &count, &updated)
	if errors.Is(err, sql.ErrNoRows) {
		return ErrNotFound, nil
	}
	if err != nil {
		return nil, err
	}
	seq, err := e.nextSeq(cur)
	if err != nil {
		return err, nil
	}
	if len(e.messages) > 0 {
		ins := st.bind(ctx, &st.message, st.a.message)
		for i, data := range e.messages {
			if _, err := ins.ExecContext(ctx, id, count+int64(i), string(data)); err != nil {
				return nil, err
			}
		}
	}
	// The events go in statements of up to maxEventRows rows: a streamed answer's batch
	// holds several text deltas, and each statement costs more than its rows.
	for evs := e.events; len(evs) > 0; {
		n := min(len(evs), maxEventRows)
		ins := st.events(ctx, n)
		args := make([]any, 0, 3*n)
		for _, ev := range evs[:n] {
			args = append(args, id, ev.Seq, string(ev.Data))
		}
		if _, err := ins.ExecContext(ctx, args...); err != nil {
			return nil, err
		}
		evs = evs[n:]
	}
	var url, title, turn any // NULL keeps the column
	if e.page != nil {
		url, title = e.page.URL, e.page.Title
	}
	if e.turn != nil {
		turn = *e.turn
	}
	args := []any{seq, count + int64(len(e.messages)), url, title, turn, id}
	// Touched within touchEvery: the row keeps its updated_at, and both of its index entries
	// stay where they are.
	update := st.bind(ctx, &st.updateKeep, st.a.updateKeep)
	if now := nanos(s.now()); now-updated >= int64(touchEvery) || now < updated {
		update = st.bind(ctx, &st.update, st.a.update)
		args = append([]any{now}, args...)
	}
	_, err = update.ExecContext(ctx, args...)
	return nil, err
}

// The statements of an append, prepared once on the write pool (OpenSQLite): database/sql
// keeps them prepared on its one connection, and each group's transaction reuses them
// (Tx.StmtContext) instead of parsing the SQL again.
const (
	sqlAppendGet        = `SELECT seq, msg_count, updated_at FROM sessions WHERE id = ?`
	sqlAppendMsg        = `INSERT INTO messages (session_id, pos, data) VALUES (?, ?, ?)`
	sqlAppendEvent      = `INSERT INTO events (session_id, seq, data) VALUES (?, ?, ?)`
	sqlAppendUpdate     = `UPDATE sessions SET updated_at = ?, ` + sqlAppendUpdateSet
	sqlAppendUpdateKeep = `UPDATE sessions SET ` + sqlAppendUpdateSet // updated_at as it is
	sqlAppendUpdateSet  = `seq = ?, msg_count = ?,
		page_url = coalesce(?, page_url), page_title = coalesce(?, page_title),
		active_turn = coalesce(?, active_turn) WHERE id = ?`
)

// touchEvery is how stale an append may leave a session's updated_at. Every append set it,
// which moved the session's entries in both indexes on updated_at (sessions_by_update,
// sessions_by_origin): two more pages written into the log for each session of each group
// commit, and again by each checkpoint, for the five or six appends of one turn. What reads
// updated_at (expiry after SessionTTL, the console's newest-first lists) needs it to the
// second, not to the append.
const touchEvery = time.Second

// appendStmts are the append statements on the write pool.
type appendStmts struct {
	get, message, event, update, updateKeep *sql.Stmt
	eventRows                               [maxEventRows + 1]*sql.Stmt // inserts of n ≥ 2 events
}

// prepareAppend prepares the append statements on the write pool.
func prepareAppend(ctx context.Context, w *sql.DB) (*appendStmts, error) {
	var a appendStmts
	for _, p := range []struct {
		st **sql.Stmt
		q  string
	}{{&a.get, sqlAppendGet}, {&a.message, sqlAppendMsg}, {&a.event, sqlAppendEvent}, {&a.update, sqlAppendUpdate}, {&a.updateKeep, sqlAppendUpdateKeep}} {
		st, err := w.PrepareContext(ctx, p.q)
		if err != nil {
			a.close()
			return nil, err
		}
		*p.st = st
	}
	// Prepared here, not on first use: the write pool's one connection is then busy with
	// the transaction that would need it.
	for n := 2; n <= maxEventRows; n++ {
		q := sqlAppendEvent + strings.Repeat(`, (?, ?, ?)`, n-1)
		st, err := w.PrepareContext(ctx, q)
		if err != nil {
			a.close()
			return nil, err
		}
		a.eventRows[n] = st
	}
	return &a, nil
}

// close closes the statements.
func (a *appendStmts) close() {
	for _, st := range append([]*sql.Stmt{a.get, a.message, a.event, a.update, a.updateKeep}, a.eventRows[:]...) {
		if st != nil {
			_ = st.Close()
		}
	}
}

// maxEventRows is the most events one insert statement writes.
const maxEventRows = 16

// txStmts are the append statements bound to one transaction, each bound on first use.
type txStmts struct {
	a                                       *appendStmts
	tx                                      *sql.Tx
	get, message, event, update, updateKeep *sql.Stmt
	eventRows                               [maxEventRows + 1]*sql.Stmt // inserts of n events (n ≥ 2)
}

// events returns the insert of n events bound to the transaction.
func (t *txStmts) events(ctx context.Context, n int) *sql.Stmt {
	if n == 1 {
		return t.bind(ctx, &t.event, t.a.event)
	}
	return t.bind(ctx, &t.eventRows[n], t.a.eventRows[n])
}

// bind returns the statement st bound to the transaction, binding it into *bound once.
func (t *txStmts) bind(ctx context.Context, bound **sql.Stmt, st *sql.Stmt) *sql.Stmt {
	if *bound == nil {
		*bound = t.tx.StmtContext(ctx, st)
	}
	return *bound
}

func (s *sqliteStore) EventsAfter(ctx context.Context, id string, after int64, limit int) ([]Event, error) {
	if s.closed.Load() {
		return nil, ErrClosed
	}
	if limit <= 0 {
		limit = -1 // SQLite: no limit
	}
	rows, err := s.reads.events.QueryContext(ctx, id, after, limit)
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
		err := s.reads.exists.QueryRowContext(ctx, id).Scan(&one)
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
	s.ck.kick()
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
	s.ck.kick()
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
	if ok {
		s.ck.kick()
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

// RenewClaims is Claim for each id, renewChunk sessions a statement (and a transaction).
func (s *sqliteStore) RenewClaims(ctx context.Context, ids []string, owner string, ttl time.Duration) error {
	if err := checkClaim(owner, ttl); err != nil {
		return err
	}
	return inRenewChunks(ids, &s.closed, func(chunk []string) error {
		list, err := json.Marshal(chunk)
		if err != nil {
			return err
		}
		now := s.now()
		// The conflict's WHERE is claim's rule: the owner renews its own claim, or takes
		// one that has expired.
		if _, err := s.w.ExecContext(ctx, `INSERT INTO claims (session_id, owner, expires_at)
			SELECT id, ?2, ?3 FROM sessions WHERE id IN (SELECT value FROM json_each(?1))
			ON CONFLICT (session_id) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at
			WHERE claims.owner = excluded.owner OR claims.expires_at <= ?4`,
			string(list), owner, nanos(now.Add(ttl)), nanos(now)); err != nil {
			return s.fail("renew claims", err)
		}
		s.ck.kick()
		return nil
	})
}

func (s *sqliteStore) Release(ctx context.Context, id, owner string) error {
	if s.closed.Load() {
		return ErrClosed
	}
	if _, err := s.w.ExecContext(ctx, `DELETE FROM claims WHERE session_id = ? AND owner = ?`, id, owner); err != nil {
		return s.fail("release", err)
	}
	s.ck.kick()
	return nil
}

func (s *sqliteStore) Close() error {
	if s.closed.Swap(true) {
		return nil
	}
	s.commits.close()
	s.stmts.close()
	s.reads.close()
	return errors.Join(s.ck.close(), s.r.Close(), s.w.Close())
}
