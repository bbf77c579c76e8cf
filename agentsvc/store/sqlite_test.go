package store_test

import (
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/byomcp/byomcp/agentsvc/chat"
	"github.com/byomcp/byomcp/agentsvc/store"
)

// rawSQLite opens the file at path without the store, to look at what it wrote.
func rawSQLite(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+(&url.URL{Path: path}).EscapedPath())
	if err != nil {
		t.Fatalf("sql.Open: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func queryInt(t *testing.T, db *sql.DB, q string, args ...any) int64 {
	t.Helper()
	var n int64
	if err := db.QueryRowContext(t.Context(), q, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

func TestSQLiteSchema(t *testing.T) {
	path := filepath.Join(t.TempDir(), "dir with space?#%", "byomcp.db")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	s := openSQLite(t, path, nil)
	if err := s.Create(t.Context(), &store.Session{ID: "s1"}); err != nil {
		t.Fatalf("Create: %v", err)
	}
	raw := rawSQLite(t, path)
	if got := queryInt(t, raw, "PRAGMA user_version"); got != int64(store.Migrations) {
		t.Errorf("user_version: got %d, want %d", got, store.Migrations)
	}
	var mode string
	if err := raw.QueryRowContext(t.Context(), "PRAGMA journal_mode").Scan(&mode); err != nil || mode != "wal" {
		t.Errorf("journal_mode: got %q, %v; want wal", mode, err)
	}
	if got := queryInt(t, raw, "SELECT count(*) FROM sessions WHERE id = 's1'"); got != 1 {
		t.Errorf("got %d rows for s1 in the file at %q, want 1", got, path)
	}
	s.Close()

	// Opening the file again migrates nothing and keeps the data.
	s = openSQLite(t, path, nil)
	if _, err := s.Load(t.Context(), "s1"); err != nil {
		t.Errorf("Load after reopening: %v", err)
	}
	s.Close()

	// A file from a newer program is refused, not damaged.
	if _, err := raw.ExecContext(t.Context(), fmt.Sprintf("PRAGMA user_version = %d", store.Migrations+1)); err != nil {
		t.Fatal(err)
	}
	_, err := store.OpenSQLite(t.Context(), path)
	if err == nil || !strings.Contains(err.Error(), "newer") {
		t.Errorf("OpenSQLite of a newer schema: got %v, want an error saying it is newer", err)
	}
	if got := queryInt(t, raw, "SELECT count(*) FROM sessions"); got != 1 {
		t.Errorf("after the refused open: got %d sessions, want 1", got)
	}
}

func TestSQLiteNotAFile(t *testing.T) {
	for _, path := range []string{"", ":memory:", "file::memory:"} {
		if s, err := store.OpenSQLite(t.Context(), path); err == nil {
			s.Close()
			t.Errorf("OpenSQLite(%q): got nil error, want one", path)
		}
	}
	blocked := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(blocked, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if s, err := store.OpenSQLite(t.Context(), filepath.Join(blocked, "byomcp.db")); err == nil {
		s.Close()
		t.Errorf("OpenSQLite under a regular file: got nil error, want one")
	}
}

// TestSQLiteCascade checks that deleting and expiring sessions removes their rows (the
// foreign keys are on).
func TestSQLiteCascade(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "byomcp.db")
	c := newFakeClock()
	s := openSQLite(t, path, c)
	long := time.Now().Add(-2 * time.Hour)
	for _, id := range []string{"gone", "idle", "kept"} {
		if err := s.Create(ctx, &store.Session{ID: id, Origin: "o", CreatedAt: long}); err != nil {
			t.Fatalf("Create: %v", err)
		}
	}
	c.Advance(-3 * time.Hour) // appends to "idle" leave it idle
	for _, id := range []string{"gone", "idle"} {
		b := store.Batch{Messages: []chat.Message{{Role: chat.RoleUser, Content: "hi"}}, Events: []store.Event{{Seq: 1, Data: []byte(`{"seq":1}`)}}}
		if err := s.Append(ctx, id, b); err != nil {
			t.Fatalf("Append: %v", err)
		}
		if ok, _, err := s.Claim(ctx, id, "a", time.Hour); !ok || err != nil {
			t.Fatalf("Claim: %v %v", ok, err)
		}
	}
	if err := s.Delete(ctx, "gone"); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	if n, err := s.ExpireIdle(ctx, time.Now().Add(-time.Hour)); n != 3-1 || err != nil {
		t.Fatalf("ExpireIdle: got %d, %v; want 2 (idle and kept were created long ago)", n, err)
	}
	raw := rawSQLite(t, path)
	for _, table := range []string{"sessions", "messages", "events", "claims"} {
		if got := queryInt(t, raw, "SELECT count(*) FROM "+table); got != 0 {
			t.Errorf("%s: got %d rows left, want 0", table, got)
		}
	}
}

// The child process of TestSQLiteTwoProcesses runs TestSQLiteChildAppender with these set.
const (
	childDBEnv  = "BYOMCP_STORE_CHILD_DB"
	childTagEnv = "BYOMCP_STORE_CHILD_TAG"
)

// appendTagged appends n batches of one message and one event tagged tag to session id,
// each at the seq after the one it last loaded, retrying on conflicts a bounded number of
// times.
func appendTagged(t *testing.T, s store.Store, id, tag string, n int) {
	t.Helper()
	ctx := t.Context()
	for i := range n {
		for attempt := 0; ; attempt++ {
			if attempt == 1000 {
				t.Fatalf("%s: batch %d: still conflicting after 1000 attempts", tag, i)
			}
			sess, err := s.Load(ctx, id)
			if err != nil {
				t.Fatalf("%s: Load: %v", tag, err)
			}
			seq := sess.Seq + 1
			err = s.Append(ctx, id, store.Batch{
				Messages: []chat.Message{{Role: chat.RoleAssistant, Content: tag}},
				Events:   []store.Event{{Seq: seq, Data: []byte(fmt.Sprintf(`{"seq":%d,"delta":%q}`, seq, tag))}},
			})
			if err == nil {
				break
			}
			if !errors.Is(err, store.ErrSeqConflict) {
				t.Fatalf("%s: Append: %v", tag, err)
			}
		}
	}
}

const perProcess = 60

func TestSQLiteChildAppender(t *testing.T) {
	path := os.Getenv(childDBEnv)
	if path == "" {
		t.Skip("runs only as the child process of TestSQLiteTwoProcesses")
	}
	appendTagged(t, openSQLite(t, path, nil), "s1", os.Getenv(childTagEnv), perProcess)
}

// TestSQLiteTwoProcesses has this process and a child process append to one session of one
// file at the same time: every batch lands whole, once, at its own seq.
func TestSQLiteTwoProcesses(t *testing.T) {
	if os.Getenv(childDBEnv) != "" {
		t.Skip("this is the child process")
	}
	path := filepath.Join(t.TempDir(), "byomcp.db")
	s := openSQLite(t, path, nil)
	if err := s.Create(t.Context(), &store.Session{ID: "s1", Origin: "o"}); err != nil {
		t.Fatalf("Create: %v", err)
	}
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestSQLiteChildAppender$", "-test.count=1")
	cmd.Env = append(os.Environ(), childDBEnv+"="+path, childTagEnv+"=child")
	out := make(chan error, 1)
	var output []byte
	go func() {
		var err error
		output, err = cmd.CombinedOutput()
		out <- err
	}()
	// Start appending once the child has: both then write while the other does.
	for i := 0; ; i++ {
		sess, err := s.Load(t.Context(), "s1")
		if err != nil {
			t.Fatalf("Load: %v", err)
		}
		if sess.Seq > 0 {
			break
		}
		select {
		case err := <-out:
			t.Fatalf("child process ended before appending: %v\n%s", err, output)
		case <-time.After(5 * time.Millisecond):
		}
		if i == 2000 {
			t.Fatal("the child process appended nothing in 2000 polls")
		}
	}
	appendTagged(t, s, "s1", "parent", perProcess)
	if err := <-out; err != nil {
		t.Fatalf("child process: %v\n%s", err, output)
	}

	sess, err := s.Load(t.Context(), "s1")
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	evs, err := s.EventsAfter(t.Context(), "s1", 0, 0)
	if err != nil {
		t.Fatalf("EventsAfter: %v", err)
	}
	if sess.Seq != 2*perProcess || len(evs) != 2*perProcess || len(sess.Messages) != 2*perProcess {
		t.Fatalf("got seq %d, %d events, %d messages; want %d of each", sess.Seq, len(evs), len(sess.Messages), 2*perProcess)
	}
	count := map[string]int{}
	for i, ev := range evs {
		want := `{"seq":` + strconv.Itoa(i+1) + `,"delta":"` + sess.Messages[i].Content + `"}`
		if ev.Seq != int64(i+1) || string(ev.Data) != want {
			t.Errorf("event %d: got %d %s, want %d %s", i, ev.Seq, ev.Data, i+1, want)
		}
		count[sess.Messages[i].Content]++
	}
	if count["parent"] != perProcess || count["child"] != perProcess {
		t.Errorf("got %v batches per writer, want %d each", count, perProcess)
	}
}

// An append moves a session's updated_at (and its two index entries) only when it is a
// second old or more: the appends of one turn leave it alone; List and expiry still see
// the session as updated to the second.
func TestSQLiteTouchesUpdatedAtOncePerSecond(t *testing.T) {
	path := filepath.Join(t.TempDir(), "byomcp.db")
	s, err := store.OpenSQLite(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	store.SetClock(s, func() time.Time { return now })
	if err := s.Create(t.Context(), &store.Session{ID: "s1", Origin: "https://shop.example", CreatedAt: now}); err != nil {
		t.Fatal(err)
	}
	seq := int64(0)
	appendAt := func(at time.Time) time.Time {
		t.Helper()
		now = at
		seq++
		if err := s.Append(t.Context(), "s1", store.Batch{Events: []store.Event{{Seq: seq, Data: []byte(`{"type":"text_delta"}`)}}}); err != nil {
			t.Fatal(err)
		}
		got, err := s.Load(t.Context(), "s1")
		if err != nil {
			t.Fatal(err)
		}
		if got.Seq != seq {
			t.Fatalf("seq %d after the append, want %d", got.Seq, seq)
		}
		return got.UpdatedAt
	}
	t0 := now
	if got := appendAt(t0.Add(300 * time.Millisecond)); !got.Equal(t0) {
		t.Errorf("0.3 s after the last touch: updated %v, want %v kept", got, t0)
	}
	if got := appendAt(t0.Add(999 * time.Millisecond)); !got.Equal(t0) {
		t.Errorf("0.999 s after: updated %v, want %v kept", got, t0)
	}
	t1 := t0.Add(1500 * time.Millisecond)
	if got := appendAt(t1); !got.Equal(t1) {
		t.Errorf("1.5 s after: updated %v, want %v", got, t1)
	}
	t2 := t1.Add(-time.Minute) // a clock that went back: the append touches it
	if got := appendAt(t2); !got.Equal(t2) {
		t.Errorf("after the clock went back: updated %v, want %v", got, t2)
	}
	if n, err := s.ExpireIdle(t.Context(), t2.Add(time.Second)); err != nil || n != 1 {
		t.Errorf("ExpireIdle after the last touch: got %d %v, want the session expired", n, err)
	}
}
