package jsclient

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"math/bits"
	"net/http"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/andybalholm/brotli"
)

// Assets serves the client's scripts the way a visit of several pages wants them:
//
//   - compressed once (brotli and gzip, chosen by Accept-Encoding), never per request: from
//     the start in the background (Handler), or from the first request on (NewAssets);
//   - every relative import rewritten to a content-hashed URL (`./wsrpc.js?v=3f2a…`) that is
//     served as immutable, so the second page of a visit takes the modules from the cache;
//   - each module also imports, at its end, every module it needs indirectly, so the browser
//     fetches the whole graph as soon as the entry script is parsed instead of one level of
//     imports at a time (no build step: the files stay the plain modules in this directory);
//   - a module that imports another one dynamically (widget.js shows the launcher at once and
//     then imports the rest) also starts, at its end, the import of every module the dynamic
//     one needs, so that graph too is fetched at once and not level by level (except the lazy
//     modules, which only some pages import);
//   - the stable URLs a site embeds (`/byomcp/widget.js`, `/byomcp/preload.js`) are revalidated
//     with a strong ETag (a 304 of a few hundred bytes).
type Assets struct {
	files map[string]*asset
	warm  sync.Once // the first request compresses every script in the background
}

type asset struct {
	body   []byte
	gz, br func() []byte // body compressed, each computed once, on its first request
	hash   string        // hex sha256 of body (after the rewrite), shortened
	ctype  string
}

// importRE finds the relative module specifiers of static imports and re-exports:
// `from './x.js'` and `import './x.js'`; dynamicRE those of dynamic imports: `import('./x.js')`.
var (
	importRE  = regexp.MustCompile(`(?m)(\bfrom\s*|^\s*import\s*)(['"])(\./[A-Za-z0-9_.-]+\.js)(['"])`)
	dynamicRE = regexp.MustCompile(`(\bimport\(\s*)(['"])(\./[A-Za-z0-9_.-]+\.js)(['"])`)
)

// hashLen is how many hex digits of the sha256 name a version (48 bits: no collisions among
// the versions of a few dozen files).
const hashLen = 12

// NewAssets reads every .js file at the top of fsys, rewrites its imports and compresses it.
// A relative import of a file that is not there, or an import cycle, is an error.
func NewAssets(fsys fs.FS) (*Assets, error) {
	names, err := fs.Glob(fsys, "*.js")
	if err != nil {
		return nil, fmt.Errorf("jsclient: listing scripts: %w", err)
	}
	src := make(map[string][]byte, len(names))
	for _, n := range names {
		b, err := fs.ReadFile(fsys, n)
		if err != nil {
			return nil, fmt.Errorf("jsclient: reading %s: %w", n, err)
		}
		src[n] = b
	}
	b := &builder{src: src, done: map[string]*asset{}, visiting: map[string]bool{}, deps: map[string][]string{}}
	for _, n := range names {
		if _, err := b.build(n); err != nil {
			return nil, err
		}
	}
	return &Assets{files: b.done}, nil
}

// builder rewrites modules depth first: a module's URL carries the hash of its rewritten text,
// which holds the hashed URLs of its imports.
type builder struct {
	src      map[string][]byte
	done     map[string]*asset
	visiting map[string]bool
	deps     map[string][]string // direct imports, by module
}

func (b *builder) build(name string) (*asset, error) {
	if a := b.done[name]; a != nil {
		return a, nil
	}
	if b.visiting[name] {
		return nil, fmt.Errorf("jsclient: import cycle through %s", name)
	}
	b.visiting[name] = true
	defer delete(b.visiting, name)

	text := stripJS(b.src[name])
	specs := func(re *regexp.Regexp) ([]string, error) {
		var deps []string
		for _, m := range re.FindAllSubmatch(text, -1) {
			dep := path.Clean(string(m[3]))
			if _, ok := b.src[dep]; !ok {
				return nil, fmt.Errorf("jsclient: %s imports %s, which is not there", name, m[3])
			}
			if !slices.Contains(deps, dep) {
				deps = append(deps, dep)
			}
		}
		return deps, nil
	}
	direct, err := specs(importRE)
	if err != nil {
		return nil, err
	}
	dynamic, err := specs(dynamicRE)
	if err != nil {
		return nil, err
	}
	b.deps[name] = direct
	hashes := map[string]string{}
	for _, dep := range append(slices.Clone(direct), dynamic...) {
		a, err := b.build(dep)
		if err != nil {
			return nil, err
		}
		hashes[dep] = a.hash
	}
	version := func(re *regexp.Regexp) func([]byte) []byte {
		return func(m []byte) []byte {
			s := re.FindSubmatch(m)
			dep := path.Clean(string(s[3]))
			return fmt.Appendf(nil, "%s%s%s?v=%s%s", s[1], s[2], s[3], hashes[dep], s[4])
		}
	}
	out := importRE.ReplaceAllFunc(text, version(importRE))
	out = dynamicRE.ReplaceAllFunc(out, version(dynamicRE))
	// The modules it needs only indirectly, imported here too so they load in parallel.
	// Imports are hoisted and these modules are already in the graph, so the order in which
	// modules run does not change.
	var extra []string
	for _, dep := range b.closure(name) {
		if !slices.Contains(direct, dep) {
			extra = append(extra, dep)
		}
	}
	if len(extra) > 0 {
		var tail bytes.Buffer
		tail.WriteString("\n// Added by the server so the browser fetches the whole module graph at once.\n")
		for _, dep := range extra {
			fmt.Fprintf(&tail, "import './%s?v=%s';\n", dep, b.done[dep].hash)
		}
		out = append(bytes.TrimRight(out, "\n"), tail.Bytes()...)
		out = append(out, '\n')
	}
	// What the dynamic imports need, imported at once too (the modules are evaluated in their
	// import order all the same; those already loaded cost nothing).
	if later := b.later(name, dynamic); len(later) > 0 {
		var tail bytes.Buffer
		tail.WriteString("\n// Added by the server: the modules this one imports dynamically, and theirs, fetched at once.\n")
		tail.WriteString("for (const u of [")
		for i, dep := range later {
			if i > 0 {
				tail.WriteString(", ")
			}
			fmt.Fprintf(&tail, "'./%s?v=%s'", dep, b.done[dep].hash)
		}
		tail.WriteString("]) import(u).catch(() => {});\n")
		out = append(bytes.TrimRight(out, "\n"), tail.Bytes()...)
		out = append(out, '\n')
	}
	// A module script is decoded as UTF-8 whatever its type says (HTML, "fetch a single module
	// script"), so only the classic preload.js names its charset: 15 bytes less on the wire for
	// each of the other requests of a first visit.
	ctype := "text/javascript"
	if name == "preload.js" {
		ctype += "; charset=utf-8"
	}
	a := newAsset(out, ctype)
	b.done[name] = a
	return a, nil
}

// lazy are the modules imported dynamically that are not fetched ahead with their importer:
// only some pages need them (foreign.js reads another WebMCP implementation's tools, frames.js
// the tools of a page's same-origin frames), and the others would pay for them on every first
// visit.
var lazy = map[string]bool{"foreign.js": true, "frames.js": true}

// later lists the modules that name's dynamic imports load: each of them and the modules it
// reaches through its static imports, less those name loads statically, sorted. Lazy modules
// are left out.
func (b *builder) later(name string, dynamic []string) []string {
	if len(dynamic) == 0 {
		return nil
	}
	now := b.closure(name)
	var out []string
	for _, d := range dynamic {
		if lazy[d] {
			continue
		}
		for _, m := range append(b.closure(d), d) {
			if m != name && !slices.Contains(now, m) && !slices.Contains(out, m) {
				out = append(out, m)
			}
		}
	}
	slices.Sort(out)
	return out
}

// closure lists every module name reaches through its imports (itself excluded), sorted.
func (b *builder) closure(name string) []string {
	seen := map[string]bool{}
	var walk func(string)
	walk = func(n string) {
		for _, d := range b.deps[n] {
			if !seen[d] {
				seen[d] = true
				walk(d)
			}
		}
	}
	walk(name)
	out := make([]string, 0, len(seen))
	for d := range seen {
		out = append(out, d)
	}
	slices.Sort(out)
	return out
}

// newAsset serves body. Its brotli and gzip forms (at their best, slow levels: about a second
// for the whole client, several under the race detector) are made once, when first asked for
// (Handler asks for all of them in the background from the start), so starting never waits
// for them.
func newAsset(body []byte, ctype string) *asset {
	sum := sha256.Sum256(body)
	return &asset{
		body:  body,
		hash:  hex.EncodeToString(sum[:])[:hashLen],
		ctype: ctype,
		gz: sync.OnceValue(func() []byte {
			var buf bytes.Buffer
			zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression) // a valid level: no error
			_, _ = zw.Write(body)                                    // into memory: no error
			_ = zw.Close()
			return buf.Bytes()
		}),
		br: sync.OnceValue(func() []byte {
			var buf bytes.Buffer
			// A window no bigger than the script: at the default (4 MiB) the encoder's
			// buffers made ~50 MB of garbage per process that an idle agent kept until
			// its first collection, hours later on a quiet site; the output is the same.
			bw := brotli.NewWriterOptions(&buf, brotli.WriterOptions{Quality: brotli.BestCompression, LGWin: brotliWindow(len(body))})
			_, _ = bw.Write(body) // into memory: no error
			_ = bw.Close()
			return buf.Bytes()
		}),
	}
}

// brotliWindow is the base-2 logarithm of the smallest window brotli accepts (2^10 to
// 2^24 bytes) that holds n bytes.
func brotliWindow(n int) int {
	return min(max(bits.Len(uint(n)), 10), 24)
}

// Version is the content hash in the URLs of name (e.g. "widget.js"), or "" when there is no
// such script.
func (s *Assets) Version(name string) string {
	if a := s.files[name]; a != nil {
		return a.hash
	}
	return ""
}

// Source is the text served for name, after the import rewrite (nil when absent).
func (s *Assets) Source(name string) []byte {
	if a := s.files[name]; a != nil {
		return a.body
	}
	return nil
}

// ServeHTTP serves one script; the request path is the file name (mount it with
// http.StripPrefix). `?v=` equal to the file's hash makes the answer immutable.
func (s *Assets) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	a := s.files[strings.TrimPrefix(r.URL.Path, "/")]
	if a == nil {
		http.NotFound(w, r)
		return
	}
	// The first script asked for is followed by the rest of the client at once: compress them
	// all now (unless Handler already started), so those requests find them ready.
	s.warm.Do(func() { go s.compressAll(accepts(r.Header.Get("Accept-Encoding"), "br")) })
	h := w.Header()
	h.Set("Access-Control-Allow-Origin", "*")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Type", a.ctype)
	h.Set("Vary", "Accept-Encoding")
	versioned := r.URL.Query().Get("v") == a.hash
	if versioned {
		h.Set("Cache-Control", "public, max-age=31536000, immutable")
	} else {
		h.Set("Cache-Control", "no-cache")
	}
	body, enc := a.body, ""
	switch {
	case accepts(r.Header.Get("Accept-Encoding"), "br"):
		body, enc = a.br(), "br"
	case accepts(r.Header.Get("Accept-Encoding"), "gzip"):
		body, enc = a.gz(), "gzip"
	}
	etag := `"` + a.hash + `"`
	if enc != "" {
		h.Set("Content-Encoding", enc)
		etag = `"` + a.hash + "-" + enc + `"`
	}
	// An immutable answer is never revalidated (its URL changes with its content), so it goes
	// without an ETag: 26 bytes less on each module of a first visit.
	if !versioned {
		h.Set("ETag", etag)
	}
	if !versioned && etagMatches(r.Header.Get("If-None-Match"), etag) {
		h.Del("Content-Type")
		w.WriteHeader(http.StatusNotModified)
		return
	}
	h.Set("Content-Length", fmt.Sprint(len(body)))
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = w.Write(body)
	}
}

// accepts reports whether an Accept-Encoding header allows coding (RFC 9110, 12.5.3: a q of 0
// refuses it; "*" stands for any coding not named).
func accepts(header, coding string) bool {
	star := false
	for part := range strings.SplitSeq(header, ",") {
		name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		name = strings.ToLower(strings.TrimSpace(name))
		if name != coding && name != "*" {
			continue
		}
		ok := true
		if k, v, found := strings.Cut(strings.TrimSpace(params), "="); found && strings.EqualFold(strings.TrimSpace(k), "q") {
			q, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			ok = err == nil && q > 0
		}
		if name == coding {
			return ok
		}
		star = ok
	}
	return star
}

// etagMatches applies If-None-Match's weak comparison (RFC 9110, 13.1.2) to one strong tag.
func etagMatches(header, etag string) bool {
	if header == "" {
		return false
	}
	for part := range strings.SplitSeq(header, ",") {
		t := strings.TrimPrefix(strings.TrimSpace(part), "W/")
		if t == "*" || t == etag {
			return true
		}
	}
	return false
}

// compressAll compresses every script (brotli when br, else gzip; then the other one),
// the launcher's scripts first.
func (s *Assets) compressAll(br bool) {
	names := make([]string, 0, len(s.files))
	for n := range s.files {
		names = append(names, n)
	}
	first := func(n string) bool { return n == "widget.js" || n == "preload.js" }
	slices.SortFunc(names, func(a, b string) int {
		if first(a) != first(b) {
			if first(a) {
				return -1
			}
			return 1
		}
		return strings.Compare(a, b)
	})
	for _, pass := range []bool{br, !br} {
		for _, n := range names {
			if pass {
				s.files[n].br()
			} else {
				s.files[n].gz()
			}
		}
	}
}

// Handler serves the embedded scripts (FS) with NewAssets, and starts compressing them at once
// in the background (about a second of one core at brotli's best level), so that the first
// visitor does not wait for it. The embedded files are fixed at build time and
// TestEmbeddedAssets builds them, so an error here is a build defect: every request then
// answers 500 with the reason instead of taking the process down.
// The handlers of one process share one Assets (the embedded files are the same), so the
// scripts are compressed once per process however many servers it starts.
func Handler() http.Handler {
	a, err := embedded()
	if err != nil {
		return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			http.Error(w, err.Error(), http.StatusInternalServerError)
		})
	}
	a.warm.Do(func() { go a.compressAll(true) })
	return a
}

var embedded = sync.OnceValues(func() (*Assets, error) { return NewAssets(FS) })
