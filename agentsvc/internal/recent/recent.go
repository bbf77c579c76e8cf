// Package recent remembers ids for a while: a bounded set whose members expire.
package recent

import (
	"sync"
	"time"
)

// IDs remembers ids (in agentsvc: the conversations an operator deleted, here or through
// another replica) for Keep, the latest Max of them; a copy of one that this replica
// loaded meanwhile (a tab resuming it between the word and the store's delete) and that then
// finds its session gone from the store is known as deleted, not lost.
type IDs struct {
	mu    sync.Mutex
	at    map[string]time.Time
	order []string // ids by time added; the oldest first
}

// How long an id is remembered, and how many at most (the oldest go first).
const (
	Keep = 10 * time.Minute
	Max  = 4096
)

// Add remembers id from now.
func (d *IDs) Add(id string, now time.Time) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.at == nil {
		d.at = map[string]time.Time{}
	}
	if _, ok := d.at[id]; !ok {
		d.order = append(d.order, id)
	}
	d.at[id] = now
	for len(d.order) > 0 && (len(d.order) > Max || now.Sub(d.at[d.order[0]]) > Keep) {
		delete(d.at, d.order[0])
		d.order = d.order[1:]
	}
	if len(d.order) == 0 {
		d.at, d.order = nil, nil // none: nothing held
	}
}

// Has tells whether id was added within Keep before now.
func (d *IDs) Has(id string, now time.Time) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	at, ok := d.at[id]
	return ok && now.Sub(at) <= Keep
}
