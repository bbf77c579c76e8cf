package toolserver

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver (pure Go, no cgo)
)

// Note is one saved note.
type Note struct {
	ID      int64  `json:"id"`
	Title   string `json:"title,omitempty"`
	Text    string `json:"text"`
	Created string `json:"created" jsonschema:"when the note was saved, RFC 3339 UTC"`
}

const notesSchema = `CREATE TABLE IF NOT EXISTS notes (
	id      INTEGER PRIMARY KEY AUTOINCREMENT,
	title   TEXT NOT NULL DEFAULT '',
	text    TEXT NOT NULL,
	created TEXT NOT NULL
)`

// notebook keeps notes in the `notes` table of one SQLite file. The file is opened for
// each operation and closed after it, so nothing is left open when the server stops, a
// restart sees every note, and several processes may share the file (busy timeout).
type notebook struct {
	path string
	now  func() time.Time
}

func (n *notebook) open(ctx context.Context) (*sql.DB, error) {
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(5000)")
	q.Add("_txlock", "immediate")
	db, err := sql.Open("sqlite", n.path+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("notes: opening %s: %w", n.path, err)
	}
	if _, err := db.ExecContext(ctx, notesSchema); err != nil {
		db.Close()
		return nil, fmt.Errorf("notes: preparing %s: %w", n.path, err)
	}
	return db, nil
}

// check opens the file once so a bad path is reported when the server is built.
func (n *notebook) check(ctx context.Context) error {
	db, err := n.open(ctx)
	if err != nil {
		return err
	}
	return db.Close()
}

func (n *notebook) add(ctx context.Context, title, text string) (Note, error) {
	db, err := n.open(ctx)
	if err != nil {
		return Note{}, err
	}
	defer db.Close()
	note := Note{Title: title, Text: text, Created: n.now().UTC().Format(time.RFC3339)}
	res, err := db.ExecContext(ctx, `INSERT INTO notes (title, text, created) VALUES (?, ?, ?)`,
		note.Title, note.Text, note.Created)
	if err != nil {
		return Note{}, fmt.Errorf("notes: saving: %w", err)
	}
	if note.ID, err = res.LastInsertId(); err != nil {
		return Note{}, fmt.Errorf("notes: saving: %w", err)
	}
	return note, nil
}

func (n *notebook) list(ctx context.Context) (_ []Note, err error) {
	db, err := n.open(ctx)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, `SELECT id, title, text, created FROM notes ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("notes: listing: %w", err)
	}
	defer func() { err = errors.Join(err, rows.Close()) }()
	notes := []Note{}
	for rows.Next() {
		var note Note
		if err := rows.Scan(&note.ID, &note.Title, &note.Text, &note.Created); err != nil {
			return nil, fmt.Errorf("notes: listing: %w", err)
		}
		notes = append(notes, note)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("notes: listing: %w", err)
	}
	return notes, nil
}
