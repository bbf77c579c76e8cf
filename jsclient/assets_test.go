package jsclient

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/andybalholm/brotli"
)

func get(t *testing.T, h http.Handler, target string, header map[string]string) *http.Response {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, target, nil)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Result()
}

func readAll(t *testing.T, r io.Reader) []byte {
	t.Helper()
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

var (
	// staticRE finds the files a minified script imports statically (`from"./x.js"`,
	// `import"./x.js"`); dynamicRE those it imports dynamically (`import("./x.js")`).
	staticRE  = regexp.MustCompile(`(?:\bfrom\s*|\bimport\s*)"\./([^"]+)"`)
	dynamicRE = regexp.MustCompile(`\bimport\("\./([^"]+)"\)`)
	// aheadRE finds the files an entry imports at its end (importAhead).
	aheadRE = regexp.MustCompile(`for\(const u of\[([^\]]*)\]\)import\(u\)`)
)

func matches(re *regexp.Regexp, text []byte) []string {
	var out []string
	for _, m := range re.FindAllSubmatch(text, -1) {
		out = append(out, string(m[1]))
	}
	return out
}

// ahead lists the files name's text imports at its end.
func ahead(text []byte) []string {
	m := aheadRE.FindSubmatch(text)
	if m == nil {
		return nil
	}
	var out []string
	for _, q := range strings.Split(string(m[1]), ",") {
		out = append(out, strings.TrimPrefix(strings.Trim(q, `"`), "./"))
	}
	return out
}

// sources lists the modules a served file was built from, as its source map says.
func sources(t *testing.T, a *Assets, name string) []string {
	t.Helper()
	var m struct {
		Sources []string `json:"sources"`
	}
	if err := json.Unmarshal(a.Source(name+".map"), &m); err != nil {
		t.Fatalf("%s.map: %v", name, err)
	}
	var out []string
	for _, s := range m.Sources {
		out = append(out, strings.TrimPrefix(s, "../jsclient/"))
	}
	return out
}

var hashedRE = regexp.MustCompile(`^[a-z-]+-[A-Z0-9]{8}\.js$`)

// The embedded client builds. widget.js imports nothing statically (it shows the launcher as
// soon as it runs) and imports boot's file dynamically; it also imports at once the files that
// boot's file imports, so the first page asks for the whole widget as soon as widget.js has
// run; those files hold every module but foreign.js (only for a page with another WebMCP
// implementation) and frames.js (only for a page with frames, or in one), which one of them
// imports dynamically.
func TestEmbeddedAssets(t *testing.T) {
	a, err := NewAssets(FS, Client...)
	if err != nil {
		t.Fatalf("NewAssets(FS, Client...): %v", err)
	}
	widget := a.Source("widget.js")
	if m := matches(staticRE, widget); len(m) > 0 {
		t.Errorf("widget.js imports %v statically: the launcher would wait for them", m)
	}
	dyn := matches(dynamicRE, widget)
	if len(dyn) != 1 || !strings.HasPrefix(dyn[0], "boot-") || !hashedRE.MatchString(dyn[0]) || a.Source(dyn[0]) == nil {
		t.Fatalf("widget.js imports %v dynamically, want boot's file (content-hashed, served)", dyn)
	}
	boot := dyn[0]
	needs := matches(staticRE, a.Source(boot))
	if got := ahead(widget); len(needs) == 0 || !slices.Equal(got, slices.Sorted(slices.Values(needs))) {
		t.Errorf("widget.js imports %v at once, want what %s imports: %v", got, boot, needs)
	}
	first := slices.Concat([]string{"widget.js", boot}, needs)
	var built []string
	lazy := map[string]int{"foreign": 0, "frames": 0, "confirm-card": 0, "mcp-app": 0}
	for _, n := range first {
		if n != "widget.js" && !hashedRE.MatchString(n) {
			t.Errorf("%s: a file of the first page without a content hash in its name", n)
		}
		if m := matches(staticRE, a.Source(n)); n != boot && len(m) > 0 {
			t.Errorf("%s imports %v statically: the browser finds them one level later", n, m)
		}
		built = append(built, sources(t, a, n)...)
		for _, d := range matches(dynamicRE, a.Source(n)) {
			for l := range lazy {
				if strings.HasPrefix(d, l+"-") && a.Source(d) != nil {
					lazy[l]++
				}
			}
		}
	}
	all, _ := fs.Glob(FS, "*.js")
	want := slices.DeleteFunc(all, func(n string) bool {
		return n == "foreign.js" || n == "frames.js" || n == "confirm-card.js" || n == "mcp-app.js" || n == "preload.js"
	})
	slices.Sort(built)
	if !slices.Equal(slices.Compact(built), want) {
		t.Errorf("the first page's files are built from\n%v\nwant every module but foreign.js, frames.js, confirm-card.js, mcp-app.js and preload.js:\n%v", built, want)
	}
	for l, n := range lazy {
		if n != 1 {
			t.Errorf("the first page's files import %s.js's file %d times dynamically, want once (by the module that needs it, when it does)", l, n)
		}
	}
	// The entries of a page that uses byomcp's document.modelContext without the widget.
	for _, n := range []string{"preload.js", "tools.js", "modelcontext.js"} {
		if a.Source(n) == nil {
			t.Errorf("%s is not served", n)
		}
	}
	// A module is UTF-8 whatever its type says; the classic preload.js would be decoded in the
	// page's encoding without a charset.
	for name, want := range map[string]string{"widget.js": "text/javascript", boot: "text/javascript", "preload.js": "text/javascript; charset=utf-8", "widget.js.map": "application/json"} {
		if got := get(t, a, "/"+name, nil).Header.Get("Content-Type"); got != want {
			t.Errorf("%s: Content-Type %q, want %q", name, got, want)
		}
	}
}

// A dynamic import gets a content-hashed file, and what it imports statically is imported
// at once by the entry (less what the entry loads itself); a change deep in that graph gives
// the entry new text, so its ETag changes and a revalidation fetches it.
func TestAssetsSplitting(t *testing.T) {
	fsys := fstest.MapFS{
		"entry.js":  {Data: []byte("import { s } from './small.js';\nimport('./big.js').then((m) => m.run(s()));\n")},
		"small.js":  {Data: []byte("export function s() { return document.title; }\n")},
		"big.js":    {Data: []byte("import { h } from './helper.js';\nimport { s } from './small.js';\nexport function run(x) { return h(x) + s(); }\nexport function later() { return import('./lazy.js'); }\n")},
		"helper.js": {Data: []byte("import { d } from './deep.js';\nexport const h = (x) => x + d;\nexport const also = () => import('./lazy.js');\n")},
		"deep.js":   {Data: []byte("export const d = 2;\n")},
		"lazy.js":   {Data: []byte("import { h } from './helper.js';\nexport const l = h(3);\n")},
	}
	as, err := NewAssets(fsys, Build{Entries: []string{"entry.js"}})
	if err != nil {
		t.Fatal(err)
	}
	entry := as.Source("entry.js")
	dyn := matches(dynamicRE, entry)
	if len(dyn) != 1 || !strings.HasPrefix(dyn[0], "big-") || as.Source(dyn[0]) == nil {
		t.Fatalf("entry.js imports %v dynamically, want big's file:\n%s", dyn, entry)
	}
	needs := matches(staticRE, as.Source(dyn[0]))
	if len(needs) == 0 {
		t.Fatalf("%s imports nothing statically: helper.js and deep.js are shared with lazy.js, want a chunk:\n%s", dyn[0], as.Source(dyn[0]))
	}
	want := slices.DeleteFunc(slices.Clone(needs), func(n string) bool { return slices.Contains(matches(staticRE, entry), n) })
	if got := ahead(entry); len(want) == 0 || !slices.Equal(got, slices.Sorted(slices.Values(want))) {
		t.Errorf("entry.js imports %v at once, want %v (what %s imports, less what entry.js imports):\n%s", got, want, dyn[0], entry)
	}
	for _, n := range ahead(entry) {
		if slices.Contains(matches(staticRE, entry), n) {
			t.Errorf("entry.js imports %s statically and again at once", n)
		}
		if strings.HasPrefix(n, "lazy-") || strings.HasPrefix(n, "big-") {
			t.Errorf("entry.js imports %s at once: only the static imports of what it imports dynamically", n)
		}
	}
	if !bytes.HasSuffix(entry, []byte("\n//# sourceMappingURL=entry.js.map\n")) {
		t.Errorf("entry.js does not end with its source map's URL:\n%s", entry)
	}
	fsys["deep.js"] = &fstest.MapFile{Data: []byte("export const d = 3;\n")}
	as2, err := NewAssets(fsys, Build{Entries: []string{"entry.js"}})
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(as2.Source("entry.js"), entry) {
		t.Error("entry.js is the same after deep.js changed: a revalidation would keep the old graph")
	}
}

// The files of a build are served compressed, the entries revalidated and the rest immutable,
// with their source maps.
func TestAssetsServing(t *testing.T) {
	fsys := fstest.MapFS{
		"a.js":   {Data: []byte("import { b } from './b.js';\nexport const a = b() + 1;\nexport const later = () => import('./c.js');\n")},
		"b.js":   {Data: []byte("export function b() { return document.title.length; } // a comment\n")},
		"c.js":   {Data: []byte("import { b } from './b.js';\nexport const c = b() + 2;\n")},
		"s.js":   {Data: []byte("(function () {\n  var greeting = 'héllo';\n  console.log(greeting);\n})();\n")},
		"x.json": {Data: []byte("{}")},
	}
	as, err := NewAssets(fsys, Build{Entries: []string{"a.js"}}, Build{Entries: []string{"s.js"}, Script: true})
	if err != nil {
		t.Fatal(err)
	}
	a := string(as.Source("a.js"))
	if strings.Contains(a, "comment") || strings.Contains(a, "\n  ") {
		t.Errorf("a.js is not minified:\n%s", a)
	}
	lazy := matches(dynamicRE, []byte(a))
	if len(lazy) != 1 || !hashedRE.MatchString(lazy[0]) {
		t.Fatalf("a.js imports %v dynamically, want c's content-hashed file:\n%s", lazy, a)
	}
	chunk := matches(staticRE, []byte(a))
	if len(chunk) != 1 || !hashedRE.MatchString(chunk[0]) {
		t.Fatalf("a.js imports %v statically, want the chunk it shares with c.js:\n%s", chunk, a)
	}
	if s := string(as.Source("s.js")); !strings.Contains(s, "héllo") || strings.Contains(s, "import") || strings.Contains(s, "export") {
		t.Errorf("s.js: want a classic script, UTF-8 and not bundled:\n%s", s)
	}
	if as.Source("x.json") != nil || as.Source("b.js") != nil {
		t.Error("a file that is not an entry is served under its own name")
	}

	t.Run("brotli", func(t *testing.T) {
		res := get(t, as, "/a.js", map[string]string{"Accept-Encoding": "gzip, deflate, br"})
		if got := res.Header.Get("Content-Encoding"); got != "br" {
			t.Fatalf("Content-Encoding %q, want br", got)
		}
		if got := readAll(t, brotli.NewReader(res.Body)); string(got) != a {
			t.Errorf("decoded body %q, want %q", got, a)
		}
		if got := res.Header.Get("Cache-Control"); got != "no-cache" {
			t.Errorf("an entry's Cache-Control %q, want no-cache", got)
		}
		if res.Header.Get("Vary") != "Accept-Encoding" || res.Header.Get("Access-Control-Allow-Origin") != "*" {
			t.Errorf("headers %v: want Vary and CORS", res.Header)
		}
	})
	t.Run("gzip", func(t *testing.T) {
		res := get(t, as, "/a.js", map[string]string{"Accept-Encoding": "gzip, br;q=0"})
		if got := res.Header.Get("Content-Encoding"); got != "gzip" {
			t.Fatalf("Content-Encoding %q, want gzip", got)
		}
		zr, err := gzip.NewReader(res.Body)
		if err != nil {
			t.Fatal(err)
		}
		if got := readAll(t, zr); string(got) != a {
			t.Errorf("decoded body %q, want %q", got, a)
		}
	})
	t.Run("identity", func(t *testing.T) {
		res := get(t, as, "/a.js", nil)
		if res.Header.Get("Content-Encoding") != "" {
			t.Fatalf("Content-Encoding %q, want none", res.Header.Get("Content-Encoding"))
		}
		if got := readAll(t, res.Body); string(got) != a {
			t.Errorf("body %q, want %q", got, a)
		}
		if ct := res.Header.Get("Content-Type"); ct != "text/javascript" {
			t.Errorf("Content-Type %q, want text/javascript", ct)
		}
		if ct := get(t, as, "/s.js", nil).Header.Get("Content-Type"); ct != "text/javascript; charset=utf-8" {
			t.Errorf("a classic script's Content-Type %q, want its charset", ct)
		}
	})
	t.Run("revalidation", func(t *testing.T) {
		first := get(t, as, "/a.js", map[string]string{"Accept-Encoding": "br"})
		etag := first.Header.Get("ETag")
		if !regexp.MustCompile(`^"[0-9a-f]{12}-br"$`).MatchString(etag) {
			t.Fatalf("ETag %q, want the content hash and the encoding", etag)
		}
		res := get(t, as, "/a.js", map[string]string{"Accept-Encoding": "br", "If-None-Match": etag})
		if res.StatusCode != http.StatusNotModified {
			t.Fatalf("status %d, want 304", res.StatusCode)
		}
		if n := len(readAll(t, res.Body)); n != 0 {
			t.Errorf("304 with %d body bytes", n)
		}
		// Another encoding is another representation: its ETag differs.
		res = get(t, as, "/a.js", map[string]string{"Accept-Encoding": "gzip", "If-None-Match": etag})
		if res.StatusCode != http.StatusOK {
			t.Errorf("status %d for another encoding, want 200", res.StatusCode)
		}
	})
	t.Run("immutable", func(t *testing.T) {
		for _, n := range []string{chunk[0], lazy[0]} {
			res := get(t, as, "/"+n, map[string]string{"Accept-Encoding": "br", "If-None-Match": "*"})
			if res.StatusCode != http.StatusOK {
				t.Errorf("%s: status %d, want 200 (never revalidated)", n, res.StatusCode)
			}
			if got := res.Header.Get("Cache-Control"); got != "public, max-age=31536000, immutable" {
				t.Errorf("%s: Cache-Control %q, want immutable", n, got)
			}
			if got := res.Header.Get("ETag"); got != "" {
				t.Errorf("%s: ETag %q, want none (never revalidated)", n, got)
			}
		}
	})
	t.Run("source maps", func(t *testing.T) {
		for _, n := range []string{"a.js", chunk[0], lazy[0], "s.js"} {
			if want := "//# sourceMappingURL=" + n + ".map\n"; !strings.HasSuffix(string(as.Source(n)), want) {
				t.Errorf("%s does not end with %q", n, want)
			}
			res := get(t, as, "/"+n+".map", nil)
			if res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != "application/json" {
				t.Fatalf("%s.map: %d %q, want 200 application/json", n, res.StatusCode, res.Header.Get("Content-Type"))
			}
			// A map is revalidated: its file's name does not change when only a comment does.
			if res.Header.Get("Cache-Control") != "no-cache" || res.Header.Get("ETag") == "" {
				t.Errorf("%s.map: Cache-Control %q, ETag %q, want no-cache and an ETag", n, res.Header.Get("Cache-Control"), res.Header.Get("ETag"))
			}
			var m struct {
				Sources        []string `json:"sources"`
				SourcesContent []string `json:"sourcesContent"`
			}
			if err := json.Unmarshal(readAll(t, res.Body), &m); err != nil {
				t.Fatalf("%s.map: %v", n, err)
			}
			if len(m.Sources) == 0 || len(m.Sources) != len(m.SourcesContent) {
				t.Fatalf("%s.map: sources %v, %d contents", n, m.Sources, len(m.SourcesContent))
			}
			for i, src := range m.Sources {
				name, ok := strings.CutPrefix(src, "../jsclient/")
				if f := fsys[name]; !ok || f == nil || string(f.Data) != m.SourcesContent[i] {
					t.Errorf("%s.map: source %q is not ../jsclient/ and one of the modules, with its text", n, src)
				}
			}
		}
	})
	t.Run("not found", func(t *testing.T) {
		for _, p := range []string{"/nope.js", "/x.json", "/b.js", "/../a.js", "/"} {
			if res := get(t, as, p, nil); res.StatusCode != http.StatusNotFound {
				t.Errorf("%s: status %d, want 404", p, res.StatusCode)
			}
		}
	})
	t.Run("method", func(t *testing.T) {
		rec := httptest.NewRecorder()
		as.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/a.js", nil))
		if rec.Code != http.StatusMethodNotAllowed {
			t.Errorf("POST: status %d, want 405", rec.Code)
		}
	})
}

// Bad sources are refused with an error that names the file, not served half built.
func TestAssetsErrors(t *testing.T) {
	for _, tc := range []struct {
		name  string
		fsys  fstest.MapFS
		build []Build
		want  string
	}{
		{"missing import", fstest.MapFS{"a.js": {Data: []byte("import './gone.js';\n")}}, nil, "gone.js is not there"},
		{"missing dynamic import", fstest.MapFS{"a.js": {Data: []byte("import('./gone.js');\n")}}, nil, "gone.js is not there"},
		{"outside the directory", fstest.MapFS{"a.js": {Data: []byte("import '../../etc/passwd.js';\n")}}, nil, "passwd.js is not there"},
		{"a package", fstest.MapFS{"a.js": {Data: []byte("import 'left-pad';\n")}}, nil, "only relative imports"},
		{"syntax error", fstest.MapFS{"a.js": {Data: []byte("export const = 1;\n")}}, nil, "a.js:1:"},
		{"missing entry", fstest.MapFS{"b.js": {Data: []byte("export {};\n")}}, nil, "a.js is not there"},
		{"two builds, two different files of one name", fstest.MapFS{"a.js": {Data: []byte("export const a = 1;\n")}}, []Build{{Entries: []string{"a.js"}}, {Entries: []string{"a.js"}, Script: true}}, "two builds make different a.js"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			builds := tc.build
			if builds == nil {
				builds = []Build{{Entries: []string{"a.js"}}}
			}
			_, err := NewAssets(tc.fsys, builds...)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("NewAssets: error %v, want one that says %q", err, tc.want)
			}
		})
	}
}

func TestAccepts(t *testing.T) {
	for _, tc := range []struct {
		header, coding string
		want           bool
	}{
		{"gzip, deflate, br, zstd", "br", true},
		{"gzip", "br", false},
		{"br;q=0", "br", false},
		{"br; q=0.0", "br", false},
		{"br;q=0.5", "br", true},
		{"*", "gzip", true},
		{"*;q=0", "gzip", false},
		{"*, gzip;q=0", "gzip", false},
		{"", "gzip", false},
	} {
		if got := accepts(tc.header, tc.coding); got != tc.want {
			t.Errorf("accepts(%q, %q) = %v, want %v", tc.header, tc.coding, got, tc.want)
		}
	}
}

// Every served script parses (node --check): the modules as modules, preload.js as the classic
// script it is in a page's <head>.
func TestServedScriptsParse(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: cannot parse the served scripts")
	}
	a, err := NewAssets(FS, Client...)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir() // outside the repository: no package.json makes a .js file a module
	for _, n := range a.Names() {
		if strings.HasSuffix(n, ".map") {
			continue
		}
		p := filepath.Join(dir, strings.TrimSuffix(n, ".js")+".mjs")
		if n == "preload.js" {
			p = filepath.Join(dir, n)
		}
		if err := os.WriteFile(p, a.Source(n), 0o600); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command(node, "--check", p).CombinedOutput(); err != nil {
			t.Errorf("%s does not parse: %v\n%s", n, err, out)
		}
	}
}

// The unit tests of jsclient/test pass against the modules as esbuild builds them (minified,
// bundled, split, with the served options: each module an entry here, so that the tests can
// import it), not only against their source: the build keeps what the code does.
func TestBuiltModulesPassTheUnitTests(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}
	if _, err := os.Stat("../node_modules/ws"); err != nil {
		t.Skip("npm packages not installed (npm ci): the unit tests need ws")
	}
	names, _ := fs.Glob(FS, "*.js")
	modules := slices.DeleteFunc(slices.Clone(names), func(n string) bool { return n == "preload.js" })
	a, err := NewAssets(FS, Build{Entries: modules}, Build{Entries: []string{"preload.js"}, Script: true})
	if err != nil {
		t.Fatal(err)
	}
	// Beside jsclient, so that the tests' relative paths (../../e2e, ../../agentsvc) and the
	// repository's node_modules are found as from jsclient/test.
	dir, err := os.MkdirTemp("..", ".built-jsclient-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	for _, n := range a.Names() {
		if err := os.WriteFile(filepath.Join(dir, n), a.Source(n), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, n := range names {
		if src, _ := fs.ReadFile(FS, n); bytes.Equal(src, a.Source(n)) {
			t.Errorf("%s is served as its source: not built", n)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "test"), 0o700); err != nil {
		t.Fatal(err)
	}
	tests, _ := filepath.Glob("test/*.js")
	for _, p := range tests {
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "test", filepath.Base(p)), src, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, node, "--test", filepath.Join(dir, "test")).CombinedOutput()
	if err != nil {
		t.Fatalf("the unit tests fail against the built modules: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "# fail 0") {
		t.Fatalf("no test summary:\n%s", out)
	}
}

// The servers of one process share the embedded scripts, built and compressed once.
func TestHandlerShared(t *testing.T) {
	h1, h2 := Handler(), Handler()
	var bodies [][]byte
	for _, h := range []http.Handler{h1, h2} {
		res := get(t, h, "/widget.js", map[string]string{"Accept-Encoding": "br"})
		if res.StatusCode != http.StatusOK || res.Header.Get("Content-Encoding") != "br" {
			t.Fatalf("GET /widget.js: %d %q, want 200 br", res.StatusCode, res.Header.Get("Content-Encoding"))
		}
		bodies = append(bodies, readAll(t, res.Body))
	}
	a1, err1 := embedded()
	a2, err2 := embedded()
	if err1 != nil || err2 != nil || a1 != a2 {
		t.Fatalf("embedded() twice: %p %v and %p %v, want one *Assets", a1, err1, a2, err2)
	}
	if br := a1.files["widget.js"].br(); !bytes.Equal(bodies[0], br) || !bytes.Equal(bodies[1], br) {
		t.Error("the two handlers do not serve the one Assets' compressed widget.js")
	}
	prepare() // waits for the background compression: the next test measures the heap
}

// Once built and compressed, the client leaves no garbage in the process's memory: the memory
// the build and the compression used and freed is given back to the system (an idle agent
// otherwise holds some 13 MB more than its baseline for minutes). Measured against a forced
// collection right after, not against a fixed figure: without settle's collection that one
// gives back 5 MB under -race and 13 MB without; with it, nothing.
func TestSettleGivesTheBuildsMemoryBack(t *testing.T) {
	a, err := NewAssets(FS, Client...)
	if err != nil {
		t.Fatal(err)
	}
	a.settle()
	// What the heap holds from the system after settle, and then after a forced collection
	// that gives back all it can: settle should have left it nothing to give.
	held := func() uint64 {
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapSys - m.HeapReleased
	}
	after := held()
	debug.FreeOSMemory()
	left := held()
	t.Logf("after settle %d KiB, after another collection %d KiB", after>>10, left>>10)
	if after > left+2<<20 {
		t.Errorf("after settle the heap holds %d KiB from the system; a collection then gives back %d KiB of it, want < 2048 KiB", after>>10, (after-left)>>10)
	}
	for _, n := range a.Names() {
		if strings.HasSuffix(n, ".js") && len(a.files[n].br()) == 0 {
			t.Errorf("%s is not compressed", n)
		}
	}
}

// TestBrotliWindowFitsTheScript: a script is compressed with a window that fits it, not
// brotli's default 4 MiB one (whose buffers made ~50 MB of garbage per process that an idle
// agent kept until its first collection): the stream's header says the window (RFC 7932,
// 9.1), and the result still decodes to the script.
func TestBrotliWindowFitsTheScript(t *testing.T) {
	body := []byte(strings.Repeat("export function f(x) { return x * 2; }\n", 2000)) // ~80 KB
	out := newAsset(body, "text/javascript", true).br()
	if got := brotliWBits(out); got != 17 {
		t.Errorf("the brotli stream of an 80 KB script has a window of 2^%d bytes, want 2^17", got)
	}
	back, err := io.ReadAll(brotli.NewReader(bytes.NewReader(out)))
	if err != nil || !bytes.Equal(back, body) {
		t.Errorf("the brotli form does not decode to the script: %v", err)
	}
	for n, want := range map[int]int{0: 10, 1000: 10, 80_000: 17, 1 << 20: 21, 1 << 30: 24} {
		if got := brotliWindow(n); got != want {
			t.Errorf("brotliWindow(%d) = %d, want %d", n, got, want)
		}
	}
}

// brotliWBits reads WBITS from the start of a brotli stream (bits taken from the low end).
func brotliWBits(stream []byte) int {
	var v uint32
	for i := 0; i < 4 && i < len(stream); i++ {
		v |= uint32(stream[i]) << (8 * i)
	}
	if v&1 == 0 {
		return 16
	}
	if n := (v >> 1) & 7; n != 0 {
		return 17 + int(n)
	}
	if m := (v >> 4) & 7; m != 0 {
		return 8 + int(m)
	}
	return 17
}

// BenchmarkNewAssets is what building the embedded client adds to a server's start.
func BenchmarkNewAssets(b *testing.B) {
	for b.Loop() {
		if _, err := NewAssets(FS, Client...); err != nil {
			b.Fatal(err)
		}
	}
}

// The style sheet goes out without its source's indentation (chat-style.js is dedented on
// load), and the widget built from it still has its rules.
func TestStyleSheetShipsDedented(t *testing.T) {
	a, err := NewAssets(FS, Client...)
	if err != nil {
		t.Fatalf("NewAssets(FS, Client...): %v", err)
	}
	boot := matches(dynamicRE, a.Source("widget.js"))[0]
	var text string
	for _, n := range slices.Concat([]string{boot}, matches(staticRE, a.Source(boot))) {
		if s := string(a.Source(n)); strings.Contains(s, ":host {") {
			text = s
		}
	}
	if text == "" {
		t.Fatal("no first-page file carries the style sheet (:host {)")
	}
	sheet := text[strings.Index(text, ":host {"):]
	if !strings.Contains(sheet, "\nall: initial;") {
		t.Errorf("the style sheet's rules went out indented (or lost): %.120q", sheet)
	}
	if got := dedent("a {\n  b: c;\n\t}\n"); got != "a {\nb: c;\n}\n" {
		t.Errorf("dedent: %q", got)
	}
}
