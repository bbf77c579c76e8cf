package store

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"
)

// TestSQLiteCheckpointsOffTheCommitPath: commits never run a checkpoint themselves (the
// write connection has wal_autocheckpoint=0), and the checkpointer copies the log back
// soon after writes, so the log does not grow without bound: after five rounds of ~6 MB of
// events each (the log takes ~16 MB a round, far past SQLite's 1,000-page threshold), with
// pauses in between, the log file holds about one round, not five.
func TestSQLiteCheckpointsOffTheCommitPath(t *testing.T) {
	s := openSQLiteForTest(t)
	ctx := context.Background()
	var auto int
	if err := s.w.QueryRowContext(ctx, `PRAGMA wal_autocheckpoint`).Scan(&auto); err != nil {
		t.Fatal(err)
	}
	if auto != 0 {
		t.Errorf("the write connection's wal_autocheckpoint is %d: its commits would checkpoint", auto)
	}
	if err := s.Create(ctx, &Session{ID: "s"}); err != nil {
		t.Fatal(err)
	}
	text, _ := json.Marshal(map[string]string{"delta": strings.Repeat("a car for the family ", 150)}) // ~3 KiB
	const perRound = 2000
	seq := int64(0)
	walSize := func() int64 {
		fi, err := os.Stat(s.path + "-wal")
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}
	var first, largest int64
	for round := range 5 {
		for range perRound / 10 {
			b := Batch{}
			for range 10 {
				seq++
				b.Events = append(b.Events, Event{Seq: seq, Data: text})
			}
			if err := s.Append(ctx, "s", b); err != nil {
				t.Fatalf("round %d: Append: %v", round, err)
			}
		}
		// Wait (bounded) for the checkpoint that follows the round's last commit.
		s.ck.mu.Lock()
		want := s.ck.runs + 1
		s.ck.mu.Unlock()
		for deadline := time.Now().Add(10 * time.Second); ; {
			s.ck.mu.Lock()
			runs, running := s.ck.runs, s.ck.running
			s.ck.mu.Unlock()
			if runs >= want && !running {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("round %d: no checkpoint within 10 s of the writes (%d run)", round, runs)
			}
			time.Sleep(20 * time.Millisecond)
		}
		if round == 0 {
			first = walSize()
		}
		largest = max(largest, walSize())
	}
	if largest > first*3/2 {
		t.Errorf("the log grew to %d KiB over five rounds of %d KiB each: the checkpoints did not keep up", largest>>10, first>>10)
	}
	var n int64
	if err := s.r.QueryRowContext(ctx, `SELECT count(*) FROM events WHERE session_id = 's'`).Scan(&n); err != nil || n != seq {
		t.Errorf("events stored: %d, %v; want %d", n, err, seq)
	}
}
