package pagemcp

import (
	"crypto/sha256"
	"encoding/json"
	"sync"

	"github.com/byomcp/byomcp/agentsvc/wire"
)

// DefCache interns the pages' tool definitions: each distinct definition (the bytes of one
// element of a tools/list result) is decoded once, and the thousands of tabs open on the
// same page share its name, description and schema instead of holding a copy each.
// A definition is never changed once interned.
//
// Lock order: mu is a leaf.
type DefCache struct {
	mu  sync.Mutex
	max int
	m   map[[32]byte]*wire.PageTool
}

// NewDefCache returns a cache of at most max definitions.
func NewDefCache(max int) *DefCache {
	return &DefCache{max: max, m: map[[32]byte]*wire.PageTool{}}
}

// Decode returns the definition raw holds: the interned one when the same bytes were seen
// before. The result is shared and must not be modified.
func (c *DefCache) Decode(raw json.RawMessage) (*wire.PageTool, error) {
	key := sha256.Sum256(raw)
	c.mu.Lock()
	t, ok := c.m[key]
	c.mu.Unlock()
	if ok {
		return t, nil
	}
	t = new(wire.PageTool)
	if err := json.Unmarshal(raw, t); err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.m[key]; ok { // decoded meanwhile by another page: keep one copy
		return old, nil
	}
	if len(c.m) >= c.max {
		for k := range c.m { // drop an arbitrary entry: simple and bounded
			delete(c.m, k)
			break
		}
	}
	c.m[key] = t
	return t, nil
}

// Len reports how many definitions are interned.
func (c *DefCache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m)
}
