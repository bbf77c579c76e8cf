package tools

import (
	"encoding/json"
	"fmt"
)

// Bounds on the tool definitions of one page as they reach the model: every model call sends
// them all, so a page must not be able to make each request megabytes long (64 pages of
// tools/list, one tool each with a 900 KB description, made one 59 MB request).
const (
	// MaxTools is the most page tools offered to the model (DESIGN.md).
	MaxTools = 128
	// MaxDescription is the longest description sent to the model; a longer one is cut.
	MaxDescription = 4 << 10
	// MaxDefsBytes is the total size of a page's tool definitions (names, descriptions after
	// the cut, schemas) sent to the model. The demo's largest page uses 1.5 KiB.
	MaxDefsBytes = 256 << 10
)

// DefBudget admits a page's tools one by one, in the page's order, while they fit. It is
// used for one listing by one goroutine.
type DefBudget struct {
	maxTools int
	tools    int
	bytes    int
}

// NewDefBudget returns the budget of one listing; maxTools <= 0 means MaxTools.
func NewDefBudget(maxTools int) *DefBudget {
	if maxTools <= 0 || maxTools > MaxTools {
		maxTools = MaxTools
	}
	return &DefBudget{maxTools: maxTools}
}

// Admit charges a tool's definition to the budget. It returns the description the model
// gets (cut to MaxDescription with a note), or, when the tool does not fit, why: MaxTools
// already admitted, a schema over MaxSchemaBytes, or the total past MaxDefsBytes (a later,
// smaller tool may still fit). Admit is called before the schema is compiled, so a listing
// compiles at most MaxTools schemas and MaxDefsBytes of them.
func (b *DefBudget) Admit(name, description string, schema json.RawMessage) (desc, reason string) {
	if b.tools >= b.maxTools {
		return "", fmt.Sprintf("more than %d tools: only the first %d reach the model", b.maxTools, b.maxTools)
	}
	if len(schema) > MaxSchemaBytes {
		return "", fmt.Sprintf("inputSchema too large: %d bytes, more than the %d allowed", len(schema), MaxSchemaBytes)
	}
	desc = description
	if len(desc) > MaxDescription {
		desc = Truncate(desc, MaxDescription) + fmt.Sprintf(" [description cut: %d of %d bytes]", MaxDescription, len(description))
	}
	size := len(name) + len(desc) + len(schema)
	if b.bytes+size > MaxDefsBytes {
		return "", fmt.Sprintf("tool definitions over %d bytes in all: this one (%d bytes) does not fit after %d bytes", MaxDefsBytes, size, b.bytes)
	}
	b.tools++
	b.bytes += size
	return desc, ""
}
