package pagemcp

import (
	"crypto/sha256"
	"encoding/json"
	"sync"

	"github.com/byomcp/byomcp/agentsvc/tools"
)

// SchemaCache compiles each distinct schema once; pages with the same tools share them.
//
// Lock order: mu is a leaf.
type SchemaCache struct {
	mu  sync.Mutex
	max int
	m   map[[32]byte]schemaEntry
}

type schemaEntry struct {
	s   *tools.Schema
	err error
}

// NewSchemaCache returns a cache of at most max schemas.
func NewSchemaCache(max int) *SchemaCache {
	return &SchemaCache{max: max, m: map[[32]byte]schemaEntry{}}
}

// Compile returns the compiled schema of raw, or why it cannot be used.
func (c *SchemaCache) Compile(raw json.RawMessage) (*tools.Schema, error) {
	key := sha256.Sum256(raw)
	c.mu.Lock()
	e, ok := c.m[key]
	c.mu.Unlock()
	if ok {
		return e.s, e.err
	}
	s, err := tools.CompileSchema(raw)
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.m[key]; ok { // compiled meanwhile by another page: keep one
		return e.s, e.err
	}
	if len(c.m) >= c.max {
		for k := range c.m { // drop an arbitrary entry: simple and bounded
			delete(c.m, k)
			break
		}
	}
	c.m[key] = schemaEntry{s, err}
	return s, err
}
