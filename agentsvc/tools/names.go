package tools

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"strings"
	"sync"
)

// MaxModelName is the longest model-facing name (OpenAI and Gemini accept 64).
const MaxModelName = 64

var (
	pageNameRE  = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,128}$`)
	modelNameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]{0,63}$`)
)

// ValidPageName reports whether name follows WebMCP's rule: 1–128 of [A-Za-z0-9_.-].
func ValidPageName(name string) bool { return pageNameRE.MatchString(name) }

// ValidModelName reports whether name is acceptable to the model APIs.
func ValidModelName(name string) bool { return modelNameRE.MatchString(name) }

// ModelName maps any tool name to one that matches ^[A-Za-z_][A-Za-z0-9_-]{0,63}$:
// unknown characters become '_', a leading digit or '-' gets a '_' prefix, and a name that
// had to be cut gets a short hash of the original so two long names stay apart.
func ModelName(original string) string {
	if ValidModelName(original) {
		return original
	}
	var b strings.Builder
	for _, r := range original {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	s := b.String()
	if s == "" || !(s[0] == '_' || (s[0]|0x20 >= 'a' && s[0]|0x20 <= 'z')) {
		s = "_" + s
	}
	if len(s) > MaxModelName {
		s = s[:MaxModelName-9] + "_" + shortHash(original)
	}
	return s
}

func shortHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:4])
}

// Namer keeps a reversible map between original tool names and model-facing names for one
// conversation. A name keeps the model name it was first given, so a conversation's history
// stays meaningful when tools come and go. Safe for concurrent use.
//
// Every open conversation has one, and most name the handful of tools of a page or two: the
// names are a list looked through in order (two maps were ~0.8 KiB of each idle tab) until
// there are more than maxListedNames, then maps.
type Namer struct {
	mu      sync.Mutex
	names   []namePair        // while at most maxListedNames
	toModel map[string]string // then these
	toOrig  map[string]string
}

type namePair struct{ original, model string }

const maxListedNames = 32

// NewNamer returns an empty Namer.
func NewNamer() *Namer { return &Namer{} }

// Assign returns the model name for original, choosing one the first time: ModelName(original),
// or, when another original already has it, the name with a short hash of original.
func (n *Namer) Assign(original string) string { return n.AssignAs(original, original) }

// AssignAs is Assign with the model name derived from preferred instead of original (for an
// original that is an internal key, such as a server tool's).
func (n *Namer) AssignAs(original, preferred string) string {
	n.mu.Lock()
	defer n.mu.Unlock()
	if m, ok := n.modelOf(original); ok {
		return m
	}
	m := ModelName(preferred)
	if other, taken := n.originalOf(m); taken && other != original {
		h := shortHash(original)
		if len(m) > MaxModelName-len(h)-1 {
			m = m[:MaxModelName-len(h)-1]
		}
		m = m + "_" + h
		for i := 0; ; i++ { // a hash collision on top of a name collision: extremely rare
			if o, taken := n.originalOf(m); !taken || o == original {
				break
			}
			m = m[:len(m)-1] + string(rune('a'+i%26))
		}
	}
	n.add(original, m)
	return m
}

// Original returns the original name behind a model name.
func (n *Namer) Original(model string) (string, bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.originalOf(model)
}

// modelOf and originalOf look a name up; add records a new pair. n.mu is held.
func (n *Namer) modelOf(original string) (string, bool) {
	if n.toModel != nil {
		m, ok := n.toModel[original]
		return m, ok
	}
	for _, p := range n.names {
		if p.original == original {
			return p.model, true
		}
	}
	return "", false
}

func (n *Namer) originalOf(model string) (string, bool) {
	if n.toOrig != nil {
		o, ok := n.toOrig[model]
		return o, ok
	}
	for _, p := range n.names {
		if p.model == model {
			return p.original, true
		}
	}
	return "", false
}

func (n *Namer) add(original, model string) {
	if n.toModel == nil && len(n.names) < maxListedNames {
		n.names = append(n.names, namePair{original, model})
		return
	}
	if n.toModel == nil {
		n.toModel, n.toOrig = make(map[string]string, 2*maxListedNames), make(map[string]string, 2*maxListedNames)
		for _, p := range n.names {
			n.toModel[p.original], n.toOrig[p.model] = p.model, p.original
		}
		n.names = nil
	}
	n.toModel[original], n.toOrig[model] = model, original
}
