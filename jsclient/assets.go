package jsclient

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"math/bits"
	"net/http"
	"path"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/andybalholm/brotli"
	"github.com/evanw/esbuild/pkg/api"
)

// Assets serves the client's scripts as esbuild (its Go API, in this binary) builds them from
// the plain ES modules of this directory, once, when the server starts:
//
//   - bundled and minified, the modules that load only later (boot.js behind widget.js's
//     launcher, foreign.js on a page with another WebMCP implementation, frames.js on a page
//     with frames, confirm-card.js at the first confirmation, mcp-app.js at the first MCP App)
//     split into their own
//     files and the code they share into chunks, so that a first visit takes a handful of
//     requests instead of one per module;
//   - the stable URLs a site embeds (`/byomcp/widget.js`, `/byomcp/preload.js`) are revalidated
//     with a strong ETag (a 304 of a few hundred bytes); every other file esbuild makes is named
//     after the hash of its content (`boot-4KQ2…js`) and served as immutable, so the second
//     page of a visit takes them from the cache;
//   - an entry also imports, at its end, the chunks that the modules it imports dynamically
//     import statically, so that the browser fetches them all as soon as the entry has run
//     instead of one level at a time (what Vite's preload of dynamic imports does); what those
//     modules import dynamically in turn is not fetched ahead (foreign.js: only a page with
//     another WebMCP implementation needs it);
//   - compressed once (brotli and gzip, chosen by Accept-Encoding), never per request: from
//     the start in the background (Handler), or from the first request on (NewAssets);
//   - with their source maps (`widget.js.map`, revalidated: the sources are in them), which a
//     browser fetches only when its developer tools are open.
type Assets struct {
	files   map[string]*asset
	entries []string  // the stable names, compressed first
	warm    sync.Once // the first request compresses every script in the background
}

type asset struct {
	body      []byte
	gz, br    func() []byte // body compressed, each computed once, on its first request
	hash      string        // hex sha256 of body, shortened: the ETag
	ctype     string
	immutable bool // the name carries the hash of the content: cached for a year
}

// A Build is one esbuild build of some of the client's scripts.
type Build struct {
	// Entries are served under their own names (the stable URLs); the chunks and the
	// dynamically imported modules of a bundle under content-hashed names.
	Entries []string
	// Script says the entries are classic scripts (preload.js, for the page's <head>): each is
	// minified alone, for the older syntax (ES2015) that any browser parses, nothing bundled.
	Script bool
}

// Client is how the embedded client is built.
var Client = []Build{
	{Entries: []string{"widget.js"}},
	{Entries: []string{"preload.js"}, Script: true},
	// byomcp's document.modelContext for a page without the widget (the WebMCP conformance
	// page): a build of its own, so that its entries do not split the widget's chunks further.
	{Entries: []string{"tools.js", "modelcontext.js"}},
}

// hashLen is how many hex digits of the sha256 name an ETag (48 bits: no collisions among
// the versions of a few dozen files).
const hashLen = 12

// outdir is where esbuild is told it writes (it writes nothing: the files stay in memory):
// the path the files are served under, which the source maps' relative paths start from.
const outdir = "/byomcp"

// NewAssets builds the .js files at the top of fsys as builds say. An import of a file that
// is not there, a syntax error, or two builds making different files of one name is an error.
func NewAssets(fsys fs.FS, builds ...Build) (*Assets, error) {
	s := &Assets{files: map[string]*asset{}}
	for _, b := range builds {
		out, err := b.run(fsys)
		if err != nil {
			return nil, err
		}
		for name, a := range out {
			if prev := s.files[name]; prev != nil && !bytes.Equal(prev.body, a.body) {
				return nil, fmt.Errorf("jsclient: two builds make different %s", name)
			}
			s.files[name] = a
		}
		s.entries = append(s.entries, b.Entries...)
	}
	return s, nil
}

// run builds b's entries and returns the files made, by name.
func (b Build) run(fsys fs.FS) (map[string]*asset, error) {
	opts := api.BuildOptions{
		EntryPoints:       b.Entries,
		Bundle:            true,
		Splitting:         true,
		Format:            api.FormatESModule,
		Target:            api.ES2022, // the sources' own syntax (private fields): nothing lowered
		MinifyWhitespace:  true,
		MinifyIdentifiers: true,
		MinifySyntax:      true,
		Charset:           api.CharsetUTF8, // every served script is UTF-8: no \u escapes
		LegalComments:     api.LegalCommentsNone,
		Sourcemap:         api.SourceMapLinked,
		EntryNames:        "[name]",
		ChunkNames:        "[name]-[hash]",
		Outdir:            outdir,
		AbsWorkingDir:     "/",
		Metafile:          true,
		Write:             false,
		LogLevel:          api.LogLevelSilent,
		Plugins:           []api.Plugin{fromFS(fsys)},
	}
	ctype := "text/javascript"
	if b.Script {
		opts.Bundle, opts.Splitting, opts.Format, opts.Target = false, false, api.FormatDefault, api.ES2015
		// A classic script is decoded in the page's encoding unless its response names its
		// own; a module script is UTF-8 whatever its type says (HTML, "fetch a single module
		// script"), so the others go without: 15 bytes less on each request of a first visit.
		ctype += "; charset=utf-8"
	}
	res := api.Build(opts)
	if len(res.Errors) > 0 {
		var msgs []string
		for _, m := range res.Errors {
			if l := m.Location; l != nil {
				msgs = append(msgs, fmt.Sprintf("%s:%d:%d: %s", strings.TrimPrefix(l.File, "jsclient/"), l.Line, l.Column, m.Text))
			} else {
				msgs = append(msgs, m.Text)
			}
		}
		return nil, fmt.Errorf("jsclient: building %s: %s", strings.Join(b.Entries, ", "), strings.Join(msgs, "; "))
	}
	var meta metafile
	if err := json.Unmarshal([]byte(res.Metafile), &meta); err != nil {
		return nil, fmt.Errorf("jsclient: building %s: reading esbuild's metafile: %w", strings.Join(b.Entries, ", "), err)
	}
	bodies := map[string][]byte{}
	for _, f := range res.OutputFiles {
		bodies[path.Base(f.Path)] = f.Contents
	}
	for _, e := range b.Entries {
		if ahead := meta.ahead(e); len(ahead) > 0 {
			bodies[e] = importAhead(bodies[e], ahead)
		}
	}
	out := make(map[string]*asset, len(bodies))
	for name, body := range bodies {
		switch {
		case strings.HasSuffix(name, ".map"):
			out[name] = newAsset(body, "application/json", false)
		default:
			out[name] = newAsset(body, ctype, !slices.Contains(b.Entries, name))
		}
	}
	return out, nil
}

// fromFS is an esbuild plugin that reads the modules from fsys (the embedded files): an entry
// is a file at its top, an import a relative path among those files. Their paths are given as
// /jsclient/NAME, so that a source map names them as ../jsclient/NAME (its sources are in it).
func fromFS(fsys fs.FS) api.Plugin {
	const dir = "/jsclient/"
	return api.Plugin{Name: "jsclient", Setup: func(pb api.PluginBuild) {
		pb.OnResolve(api.OnResolveOptions{Filter: ".*"}, func(args api.OnResolveArgs) (api.OnResolveResult, error) {
			p := dir + args.Path
			if args.Kind != api.ResolveEntryPoint {
				if !strings.HasPrefix(args.Path, "./") && !strings.HasPrefix(args.Path, "../") {
					return api.OnResolveResult{}, fmt.Errorf("%q: only relative imports of the client's own modules", args.Path)
				}
				p = path.Join(path.Dir(args.Importer), args.Path)
			}
			name, ok := strings.CutPrefix(path.Clean(p), dir)
			if !ok || !fs.ValidPath(name) {
				return api.OnResolveResult{}, fmt.Errorf("%s is not there", args.Path)
			}
			if _, err := fs.Stat(fsys, name); err != nil {
				return api.OnResolveResult{}, fmt.Errorf("%s is not there", args.Path)
			}
			return api.OnResolveResult{Path: dir + name, Namespace: "file"}, nil
		})
		pb.OnLoad(api.OnLoadOptions{Filter: ".*"}, func(args api.OnLoadArgs) (api.OnLoadResult, error) {
			src, err := fs.ReadFile(fsys, strings.TrimPrefix(args.Path, dir))
			if err != nil {
				return api.OnLoadResult{}, err
			}
			text := string(src)
			if slices.Contains(styleModules, path.Base(args.Path)) {
				text = dedent(text)
			}
			return api.OnLoadResult{Contents: &text, Loader: api.LoaderJS, ResolveDir: dir}, nil
		})
	}}
}

// styleModules hold the widget's style sheets and markup in template literals, which esbuild
// keeps as written: their lines go out without their indentation (dedent), which CSS and the
// markup's whitespace between tags do not read, so the first page carries fewer bytes.
// widget.js's launcher style is the start of chat-style.js's, and must stay so.
var styleModules = []string{"chat-style.js", "widget.js"}

// dedent drops the spaces and tabs that start each line of src.
func dedent(src string) string {
	lines := strings.Split(src, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimLeft(l, " \t")
	}
	return strings.Join(lines, "\n")
}

// metafile is the part of esbuild's metafile (https://esbuild.github.io/api/#metafile) read
// here: each output's imports of other outputs.
type metafile struct {
	Outputs map[string]struct {
		Imports []struct {
			Path string `json:"path"`
			Kind string `json:"kind"` // "import-statement" or "dynamic-import" between outputs
		} `json:"imports"`
	} `json:"outputs"`
}

// imports lists the outputs that the output named name imports with kind, by name.
func (m metafile) imports(name, kind string) []string {
	var out []string
	for _, im := range m.Outputs[strings.TrimPrefix(outdir, "/")+"/"+name].Imports {
		if im.Kind == kind {
			out = append(out, path.Base(im.Path))
		}
	}
	return out
}

// closure lists every output name reaches through its static imports (itself excluded).
func (m metafile) closure(name string) []string {
	var out []string
	var walk func(string)
	walk = func(n string) {
		for _, d := range m.imports(n, "import-statement") {
			if !slices.Contains(out, d) {
				out = append(out, d)
				walk(d)
			}
		}
	}
	walk(name)
	return out
}

// ahead lists, sorted, the files that entry's dynamic imports import statically and entry
// itself does not: what the browser would otherwise find only once the dynamically imported
// file has arrived. The dynamically imported files themselves are not in it: the entry asks
// for them itself.
func (m metafile) ahead(entry string) []string {
	now := m.closure(entry)
	var out []string
	for _, d := range m.imports(entry, "dynamic-import") {
		for _, c := range m.closure(d) {
			if c != entry && !slices.Contains(now, c) && !slices.Contains(out, c) {
				out = append(out, c)
			}
		}
	}
	slices.Sort(out)
	return out
}

// importAhead adds to an entry's text the import of each file in ahead (evaluated in their
// import order all the same: modules run once), before its source map comment.
func importAhead(body []byte, ahead []string) []byte {
	var line bytes.Buffer
	line.WriteString("for(const u of[")
	for i, f := range ahead {
		if i > 0 {
			line.WriteByte(',')
		}
		line.WriteString(strconv.Quote("./" + f))
	}
	line.WriteString("])import(u).catch(()=>{});\n")
	at := bytes.LastIndex(body, []byte("//# sourceMappingURL="))
	if at < 0 {
		at = len(body)
	}
	return slices.Concat(body[:at], line.Bytes(), body[at:])
}

// newAsset serves body. Its brotli and gzip forms (at their best, slow levels) are made once,
// when first asked for (Handler asks for those of the scripts in the background from the
// start), so starting never waits for them.
func newAsset(body []byte, ctype string, immutable bool) *asset {
	sum := sha256.Sum256(body)
	return &asset{
		body:      body,
		hash:      hex.EncodeToString(sum[:])[:hashLen],
		ctype:     ctype,
		immutable: immutable,
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

// Names lists the files served, sorted.
func (s *Assets) Names() []string {
	names := make([]string, 0, len(s.files))
	for n := range s.files {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Source is the text served for name (nil when absent).
func (s *Assets) Source(name string) []byte {
	if a := s.files[name]; a != nil {
		return a.body
	}
	return nil
}

// ServeHTTP serves one file; the request path is its name (mount it with http.StripPrefix).
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
	if a.immutable {
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
	// without an ETag: 26 bytes less on each file of a first visit.
	if !a.immutable {
		h.Set("ETag", etag)
		if etagMatches(r.Header.Get("If-None-Match"), etag) {
			h.Del("Content-Type")
			w.WriteHeader(http.StatusNotModified)
			return
		}
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

// compressAll compresses every script (brotli when br, else gzip; then the other one), the
// entries first. The source maps (most of the bytes, asked for only by developer tools) are
// compressed when first asked for.
func (s *Assets) compressAll(br bool) {
	var names []string
	for _, n := range s.Names() {
		if !strings.HasSuffix(n, ".map") && !slices.Contains(s.entries, n) {
			names = append(names, n)
		}
	}
	names = slices.Concat(s.entries, names)
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

// Handler serves the embedded scripts (FS) built with NewAssets(FS, Client...). It returns at
// once: the build (~100 ms of CPU, `go test -bench NewAssets ./jsclient/`) runs in the
// background, then the compression of the scripts, so that neither delays the server's start
// nor the first visitor; a request that comes before the build is done waits for it. The
// embedded files are fixed at build time and TestEmbeddedAssets builds them, so an error here
// is a build defect: every request then answers 500 with the reason instead of taking the
// process down. The handlers of one process share one Assets (the embedded files are the
// same), so the scripts are built and compressed once per process however many servers it
// starts.
func Handler() http.Handler {
	go prepare()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a, err := embedded()
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		a.ServeHTTP(w, r)
	})
}

var embedded = sync.OnceValues(func() (*Assets, error) { return NewAssets(FS, Client...) })

// prepare builds the embedded scripts and settles them, once per process.
var prepare = sync.OnceFunc(func() {
	if a, err := embedded(); err == nil {
		a.settle()
	}
})

// settle compresses every script (unless a request started it already: then it waits for
// it), and gives the garbage of the build and the compression back to the system: some 13 MB
// (esbuild's syntax trees and source maps) that an idle agent would otherwise hold for
// minutes, on top of its 10 MB (docs/operating.md, "Memory"). It costs one collection of a small
// heap, once.
func (s *Assets) settle() {
	s.warm.Do(func() {})
	s.compressAll(true)
	debug.FreeOSMemory()
}
