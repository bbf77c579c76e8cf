package store

// The write-ahead log is copied back into the database file by a goroutine of its own, not
// by the commit that happens to cross SQLite's threshold.

import (
	"context"
	"database/sql"
	"sync"
	"time"
)

// checkpointEvery is the shortest time between two checkpoints while writes go on: a
// checkpoint copies every frame written since the last one, so spacing them bounds the
// work and the log alike (a few hundred commits at most, at the highest rates measured).
const checkpointEvery = 250 * time.Millisecond

// checkpointer runs SQLite's WAL checkpoints off the commit path. By default the commit
// that makes the log reach 1,000 pages runs the checkpoint itself, holding the write
// connection for tens of milliseconds while every other session's append waits: under the
// realistic bench it doubled the turns' p99 (bench/PERFORMANCE.md). The write connection has
// wal_autocheckpoint=0 instead, and each commit kicks this checkpointer, which runs a
// PASSIVE checkpoint on a connection of its own at most every checkpointEvery. A PASSIVE
// checkpoint neither waits for nor blocks the writer or the readers; the writer starts the
// log over once a checkpoint has copied all of it and no reader still needs it, as with
// automatic checkpoints. Closing the store runs the last checkpoint (SQLite's own, when
// the last connection closes).
//
// The goroutine runs while commits come and ends when none came for checkpointEvery (like
// the group committer), so an idle store has none. Lock order: mu is a leaf.
type checkpointer struct {
	db *sql.DB // one connection, closed when unused for readerIdle

	mu      sync.Mutex
	kicked  bool // a commit came since the running goroutine's last checkpoint
	running bool
	closed  bool
	done    chan struct{} // closed when the running goroutine ends (nil when none runs)
	stop    chan struct{} // closed by close
	runs    int           // checkpoints run (tests)
}

func newCheckpointer(db *sql.DB) *checkpointer {
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	db.SetConnMaxIdleTime(readerIdle)
	return &checkpointer{db: db, stop: make(chan struct{})}
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
	for {
		select {
		case <-t.C:
		case <-c.stop:
		}
		c.mu.Lock()
		if !c.kicked || c.closed {
			c.running = false
			c.mu.Unlock()
			return
		}
		c.kicked = false
		c.runs++
		c.mu.Unlock()
		// A failure (the file busy with another process's checkpoint, a full disk) leaves
		// the frames in the log, where the next checkpoint copies them; the commits that
		// wrote them are durable either way.
		_, _ = c.db.ExecContext(context.Background(), `PRAGMA wal_checkpoint(PASSIVE)`)
		t.Reset(checkpointEvery)
	}
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
