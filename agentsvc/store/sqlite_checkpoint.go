package store

// The write-ahead log is copied back into the database file by a goroutine of its own, not
// by the commit that happens to cross SQLite's threshold, and the log file is kept small.

import (
	"context"
	"database/sql"
	"os"
	"sync"
	"time"
)

// checkpointEvery is the shortest time between two checkpoints while writes go on: a
// checkpoint copies every frame written since the last one, so spacing them bounds the
// work and the log alike (a few hundred commits at most, at the highest rates measured).
const checkpointEvery = 250 * time.Millisecond

// walLimit bounds the write-ahead log file: a checkpoint that finds it larger empties it
// (TRUNCATE), and the write connection's journal_size_limit cuts it back to this size each
// time the writer starts the log over. While writes go on, the file stays under walLimit
// plus what checkpointEvery of writes add; once they pause, it is emptied.
const walLimit = 16 << 20

// checkpointWait bounds how long a TRUNCATE checkpoint waits for the write lock and for the
// readers of older snapshots (reads take milliseconds; appends queue meanwhile). One that
// runs out has still copied what it could, and the next checkpoint tries again.
const checkpointWait = time.Second

// quietTries is how many times, checkpointEvery apart, the checkpointer tries to empty the
// log once writes paused when it finds the log busy (another process reading or
// checkpointing) before it ends anyway; the next write starts it again.
const quietTries = 8

// checkpointer runs SQLite's WAL checkpoints off the commit path, and bounds the log file.
//
// By default the commit that makes the log reach 1,000 pages runs the checkpoint itself,
// holding the write connection for tens of milliseconds while every other session's append
// waits: under the realistic bench it doubled the turns' p99 (bench/PERFORMANCE.md). The
// write connection has wal_autocheckpoint=0 instead, and each commit kicks this
// checkpointer, which runs a PASSIVE checkpoint on a connection of its own at most every
// checkpointEvery. A PASSIVE checkpoint neither waits for nor blocks the writer or the
// readers, so it does not bound the log on its own: the writer starts the log over (from
// the beginning of the file) only when, as a write begins, every frame has been copied and
// no reader still uses the log, and under continuous writes a commit always lands while the
// checkpoint copies, so the log was never started over and its file grew by every frame
// ever written (100 MiB for 1,000 one-turn conversations against a 3 MiB database, with no
// reader at all; and a file never shrinks without journal_size_limit). So a checkpoint
// that finds the file past walLimit goes on with a TRUNCATE checkpoint: it takes the write
// lock (appends wait: it runs on the write connection), copies the few frames written since the PASSIVE one, waits (at most
// checkpointWait) for the readers still on older snapshots, which take milliseconds, and
// empties the file. Once writes pause for checkpointEvery, the same empties the log.
// Closing the store runs the last checkpoint (SQLite's own, when the last connection
// closes).
//
// The goroutine runs while commits come and ends when none came for checkpointEvery (like
// the group committer), so an idle store has none. Lock order: mu is a leaf.
type checkpointer struct {
	db  *sql.DB // one connection, closed when unused for readerIdle: PASSIVE checkpoints
	w   *sql.DB // the store's write connection: TRUNCATE checkpoints
	wal string  // the log file's path

	mu        sync.Mutex
	kicked    bool // a commit came since the running goroutine's last checkpoint
	running   bool
	closed    bool
	done      chan struct{} // closed when the running goroutine ends (nil when none runs)
	stop      chan struct{} // closed by close
	runs      int           // PASSIVE checkpoints run (tests)
	truncates int           // TRUNCATE checkpoints that emptied the log (tests)
}

func newCheckpointer(db, w *sql.DB, wal string) *checkpointer {
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	db.SetConnMaxIdleTime(readerIdle)
	return &checkpointer{db: db, w: w, wal: wal, stop: make(chan struct{})}
}

// kick says a commit wrote to the log: a checkpoint follows within checkpointEvery.
func (c *checkpointer) kick() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return
	}
	c.kicked = true
	if !c.running {
		c.running = true
		c.done = make(chan struct{})
		go c.run(c.done)
	}
}

func (c *checkpointer) run(done chan struct{}) {
	defer close(done)
	t := time.NewTimer(checkpointEvery)
	defer t.Stop()
	tries := 0 // attempts to empty the log since writes paused
	for {
		select {
		case <-t.C:
		case <-c.stop:
		}
		c.mu.Lock()
		if c.closed {
			c.running = false
			c.mu.Unlock()
			return
		}
		kicked := c.kicked
		c.kicked = false
		if kicked {
			c.runs++
		}
		c.mu.Unlock()
		// A failure (the file busy with another process's checkpoint, a full disk) leaves
		// the frames in the log, where the next checkpoint copies them; the commits that
		// wrote them are durable either way.
		if kicked {
			tries = 0
			c.checkpoint("PASSIVE")
			if c.walSize() > walLimit {
				c.checkpoint("TRUNCATE")
			}
		} else if tries++; c.walSize() == 0 || c.checkpoint("TRUNCATE") || tries >= quietTries {
			c.mu.Lock()
			if !c.kicked { // else a commit came meanwhile: go on
				c.running = false
				c.mu.Unlock()
				return
			}
			c.mu.Unlock()
		}
		t.Reset(checkpointEvery)
	}
}

// checkpoint runs a checkpoint of mode and reports whether it completed (for TRUNCATE: the
// log is empty).
//
// A TRUNCATE checkpoint runs on the write connection, between two group commits: on a
// connection of its own it waited for the write lock by polling (SQLite's busy handler)
// and, under continuous appends, the group committer took the lock back between two polls
// nearly every time.
func (c *checkpointer) checkpoint(mode string) bool {
	ctx, db := context.Background(), c.db
	if mode != "PASSIVE" {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, checkpointWait)
		defer cancel()
		db = c.w
	}
	var busy, log, copied int64
	if err := db.QueryRowContext(ctx, `PRAGMA wal_checkpoint(`+mode+`)`).Scan(&busy, &log, &copied); err != nil || busy != 0 {
		return false
	}
	if mode == "TRUNCATE" {
		c.mu.Lock()
		c.truncates++
		c.mu.Unlock()
	}
	return true
}

// walSize is the size of the log file (0 when there is none, or it cannot be read).
func (c *checkpointer) walSize() int64 {
	fi, err := os.Stat(c.wal)
	if err != nil {
		return 0
	}
	return fi.Size()
}

// close waits for a running checkpoint and closes the connection.
func (c *checkpointer) close() error {
	c.mu.Lock()
	if !c.closed {
		c.closed = true
		close(c.stop)
	}
	done := c.done
	c.mu.Unlock()
	if done != nil {
		<-done
	}
	return c.db.Close()
}
