package jsclient

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
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

// The embedded client builds; widget.js imports nothing statically (it shows the launcher as
// soon as it runs), imports boot.js dynamically, and starts at once the import of every module
// the widget needs, each with a hashed URL that the handler serves as immutable.
func TestEmbeddedAssets(t *testing.T) {
	a, err := NewAssets(FS)
	if err != nil {
		t.Fatalf("NewAssets(FS): %v", err)
	}
	widget := string(a.Source("widget.js"))
	if m := importRE.FindString(widget); m != "" {
		t.Errorf("widget.js has a static import (%s): the launcher would wait for it", m)
	}
	if want := "import('./boot.js?v=" + a.Version("boot.js") + "')"; !strings.Contains(widget, want) {
		t.Errorf("widget.js does not import boot.js dynamically: want %s", want)
	}
	for _, dep := range []string{"boot.js", "tools.js", "agent.js", "chat-element.js", "wsrpc.js", "protocol.js", "markdown.js", "strings.js", "modelcontext.js"} {
		want := "'./" + dep + "?v=" + a.Version(dep) + "'"
		if a.Version(dep) == "" || !strings.Contains(widget, want) {
			t.Errorf("widget.js does not fetch %s at once: want %s in\n%s", dep, want, widget)
		}
	}
	if a.Version("preload.js") == "" {
		t.Error("preload.js is not served")
	}
	// foreign.js only when the page has another WebMCP implementation, frames.js only when it
	// has frames or is one: not fetched ahead.
	for _, lazy := range []string{"foreign.js", "frames.js"} {
		for n, want := range map[string]int{"widget.js": 0, "boot.js": 0, "modelcontext.js": 1} {
			if got := strings.Count(string(a.Source(n)), lazy); got != want {
				t.Errorf("%s names %s %d times, want %d (its own import only):\n%s", n, lazy, got, want, a.Source(n))
			}
		}
		if !strings.Contains(string(a.Source("modelcontext.js")), "import('./"+lazy+"?v="+a.Version(lazy)+"')") {
			t.Errorf("modelcontext.js does not import %s (versioned) when it needs it", lazy)
		}
	}
	// A module is UTF-8 whatever its type says; the classic preload.js would be decoded in the
	// page's encoding without a charset.
	for name, want := range map[string]string{"widget.js": "text/javascript", "agent.js": "text/javascript", "preload.js": "text/javascript; charset=utf-8"} {
		if got := get(t, a, "/"+name, nil).Header.Get("Content-Type"); got != want {
			t.Errorf("%s: Content-Type %q, want %q", name, got, want)
		}
	}
}

// A dynamic import is versioned like a static one, and its module's graph is imported at once
// by the importer (less what the importer loads statically).
func TestAssetsDynamicImport(t *testing.T) {
	fsys := fstest.MapFS{
		"entry.js":  {Data: []byte("import { s } from './small.js';\nimport(\"./big.js\").then((m) => m.run(s));\n")},
		"small.js":  {Data: []byte("export const s = 1;\n")},
		"big.js":    {Data: []byte("import { h } from './helper.js';\nimport './small.js';\nexport function run(x) { return h(x); }\n")},
		"helper.js": {Data: []byte("import { d } from './deep.js';\nexport const h = (x) => x + d;\n")},
		"deep.js":   {Data: []byte("export const d = 2;\n")},
	}
	as, err := NewAssets(fsys)
	if err != nil {
		t.Fatal(err)
	}
	entry := string(as.Source("entry.js"))
	if want := `import("./big.js?v=` + as.Version("big.js") + `")`; !strings.Contains(entry, want) {
		t.Errorf("entry.js: dynamic import not versioned: want %s in\n%s", want, entry)
	}
	want := "for (const u of ['./big.js?v=" + as.Version("big.js") + "', './deep.js?v=" + as.Version("deep.js") + "', './helper.js?v=" + as.Version("helper.js") + "']) import(u).catch(() => {});"
	if !strings.Contains(entry, want) {
		t.Errorf("entry.js: want the dynamic graph imported at once:\n%s\nin\n%s", want, entry)
	}
	// A change deep in the dynamic graph changes the importer's URL too.
	fsys["deep.js"] = &fstest.MapFile{Data: []byte("export const d = 3;\n")}
	as2, err := NewAssets(fsys)
	if err != nil {
		t.Fatal(err)
	}
	if as2.Version("entry.js") == as.Version("entry.js") {
		t.Error("entry.js keeps its version after deep.js changed")
	}
	if _, err := NewAssets(fstest.MapFS{"a.js": {Data: []byte("import('./gone.js');\n")}}); err == nil {
		t.Error("a dynamic import of a missing module: no error")
	}
}

func TestAssetsRewriteAndCaching(t *testing.T) {
	fsys := fstest.MapFS{
		"a.js":   {Data: []byte("import { b } from './b.js';\nexport const a = b + 1;\n")},
		"b.js":   {Data: []byte("import {\n  c,\n} from \"./c.js\";\nexport const b = c;\n")},
		"c.js":   {Data: []byte("export const c = 1; // from './nowhere' is text, not an import\n")},
		"x.json": {Data: []byte("{}")},
	}
	as, err := NewAssets(fsys)
	if err != nil {
		t.Fatal(err)
	}
	a := string(as.Source("a.js"))
	if !strings.Contains(a, "from './b.js?v="+as.Version("b.js")+"'") {
		t.Errorf("a.js: direct import not versioned:\n%s", a)
	}
	if !strings.Contains(a, "import './c.js?v="+as.Version("c.js")+"';") {
		t.Errorf("a.js: indirect import not added:\n%s", a)
	}
	if b := string(as.Source("b.js")); !strings.Contains(b, `from "./c.js?v=`+as.Version("c.js")+`"`) {
		t.Errorf("b.js: double-quoted import not versioned:\n%s", b)
	}
	if as.Source("x.json") != nil {
		t.Error("x.json is served; want scripts only")
	}
	if ok, _ := regexp.MatchString(`^[0-9a-f]{12}$`, as.Version("a.js")); !ok {
		t.Errorf("version %q: want 12 hex digits", as.Version("a.js"))
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
			t.Errorf("unversioned Cache-Control %q, want no-cache", got)
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
		if got := readAll(t, res.Body); !bytes.Equal(got, []byte(a)) {
			t.Errorf("body %q, want %q", got, a)
		}
		if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/javascript") {
			t.Errorf("Content-Type %q, want text/javascript", ct)
		}
	})
	t.Run("revalidation", func(t *testing.T) {
		first := get(t, as, "/a.js", map[string]string{"Accept-Encoding": "br"})
		etag := first.Header.Get("ETag")
		if !strings.HasPrefix(etag, `"`+as.Version("a.js")) {
			t.Fatalf("ETag %q, want the content hash", etag)
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
		res := get(t, as, "/b.js?v="+as.Version("b.js"), nil)
		if got := res.Header.Get("Cache-Control"); got != "public, max-age=31536000, immutable" {
			t.Errorf("versioned Cache-Control %q, want immutable", got)
		}
		if got := res.Header.Get("ETag"); got != "" {
			t.Errorf("versioned ETag %q, want none (never revalidated)", got)
		}
		res = get(t, as, "/b.js?v=000000000000", nil)
		if got := res.Header.Get("Cache-Control"); got != "no-cache" {
			t.Errorf("stale version Cache-Control %q, want no-cache", got)
		}
		if got := res.Header.Get("ETag"); got == "" {
			t.Error("stale version without an ETag: it is revalidated")
		}
	})
	t.Run("not found", func(t *testing.T) {
		for _, p := range []string{"/nope.js", "/x.json", "/../a.js", "/"} {
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

func TestAssetsErrors(t *testing.T) {
	for name, fsys := range map[string]fstest.MapFS{
		"missing import": {"a.js": {Data: []byte("import './gone.js';\n")}},
		"cycle": {
			"a.js": {Data: []byte("import './b.js';\n")},
			"b.js": {Data: []byte("import './a.js';\n")},
		},
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := NewAssets(fsys); err == nil {
				t.Error("NewAssets: no error")
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

func TestStripJS(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"comments and indentation", "// head\n/**\n * doc\n */\nexport function f(a) {\n    return a; // tail\n}\n", "export function f(a) {return a;}\n"},
		{"line breaks after { ; , go", "const o = {\n  a: 1,\n  b: [2,\n 3],\n};\nlet x = 1;\nf(x)\n", "const o = {a: 1,b: [2,3],};let x = 1;f(x)\n"},
		{"line breaks that ASI needs stay", "let a = b\n++c\nreturn\nx\nconst s = `${a,\nb}`\n", "let a = b\n++c\nreturn\nx\nconst s = `${a,b}`\n"},
		{"inside a template the text stays", "const css = `a {\n  b;\n}`;\n", "const css = `a {\n  b;\n}`;\n"},
		{"strings keep their slashes", "const u = 'http://x/*y*/'; const v = \"a // b\";\n", "const u = 'http://x/*y*/'; const v = \"a // b\";\n"},
		{"template with nested substitution", "const s = `a // ${ b ? `/* ${c} */` : '}' } z`; // c\n", "const s = `a // ${ b ? `/* ${c} */` : '}' } z`;\n"},
		{"template keeps its lines", "const css = `\n  .a { color: red; }\n  /* kept */\n`;\n", "const css = `\n  .a { color: red; }\n  /* kept */\n`;\n"},
		{"regex literals", "const r = /[/]\\/*x/g; if (/a\\/\\/b/.test(s)) x = s.replace(/'/g, '\"');\n", "const r = /[/]\\/*x/g; if (/a\\/\\/b/.test(s)) x = s.replace(/'/g, '\"');\n"},
		{"division is not a regex", "const q = a / b / c; const w = (x) / 2; // /not regex/\n", "const q = a / b / c; const w = (x) / 2;\n"},
		{"regex after return", "return /x\\/*/.test(s); /* c */\n", "return /x\\/*/.test(s);\n"},
		{"line breaks kept for ASI", "let a = 1\n\n\n/* multi\nline */\nlet b = 2\n", "let a = 1\nlet b = 2\n"},
		{"unterminated string served as is", "const s = 'oops\n", "const s = 'oops\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := string(stripJS([]byte(tc.in))); got != tc.want {
				t.Errorf("stripJS(%q)\n got %q\nwant %q", tc.in, got, tc.want)
			}
		})
	}
}

// Every served module is still valid JavaScript (node --check parses it) and is smaller.
func TestStripEmbedded(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: cannot parse the stripped modules")
	}
	a, err := NewAssets(FS)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	names, _ := fs.Glob(FS, "*.js")
	for _, n := range names {
		orig, _ := fs.ReadFile(FS, n)
		served := a.Source(n)
		if len(served) >= len(orig) {
			t.Errorf("%s: served %d bytes, source %d", n, len(served), len(orig))
		}
		p := filepath.Join(dir, strings.TrimSuffix(n, ".js")+".mjs")
		if n == "preload.js" {
			p = filepath.Join(dir, n) // a classic script
		}
		if err := os.WriteFile(p, served, 0o600); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command(node, "--check", p).CombinedOutput(); err != nil {
			t.Errorf("%s does not parse after stripping: %v\n%s", n, err, out)
		}
	}
}

// The unit tests of jsclient/test pass against the stripped modules, not only against their
// source: stripping keeps what the code does, not only that it parses.
func TestStrippedModulesPassTheUnitTests(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}
	if _, err := os.Stat("../node_modules/ws"); err != nil {
		t.Skip("npm packages not installed (npm ci): the unit tests need ws")
	}
	// Beside jsclient, so that the tests' relative paths (../../e2e, ../../agentsvc) and the
	// repository's node_modules are found as from jsclient/test.
	dir, err := os.MkdirTemp("..", ".stripped-jsclient-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	// Stripped only: the served text also versions its imports (./x.js?v=…), which would make
	// the tests' own imports (../x.js) second copies of the modules.
	names, _ := fs.Glob(FS, "*.js")
	for _, n := range names {
		src, _ := fs.ReadFile(FS, n)
		if err := os.WriteFile(filepath.Join(dir, n), stripJS(src), 0o600); err != nil {
			t.Fatal(err)
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
		t.Fatalf("the unit tests fail against the served modules: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "# fail 0") {
		t.Fatalf("no test summary:\n%s", out)
	}
}

// The servers of one process share the embedded scripts, compressed once.
func TestHandlerShared(t *testing.T) {
	h1, h2 := Handler(), Handler()
	a1, ok1 := h1.(*Assets)
	a2, ok2 := h2.(*Assets)
	if !ok1 || !ok2 || a1 != a2 {
		t.Fatalf("Handler() twice: %T %p and %T %p, want one *Assets", h1, h1, h2, h2)
	}
	res := get(t, h1, "/widget.js", map[string]string{"Accept-Encoding": "br"})
	if res.StatusCode != http.StatusOK || res.Header.Get("Content-Encoding") != "br" {
		t.Errorf("GET /widget.js: %d %q, want 200 br", res.StatusCode, res.Header.Get("Content-Encoding"))
	}
}

// TestBrotliWindowFitsTheScript: a script is compressed with a window that fits it, not
// brotli's default 4 MiB one (whose buffers made ~50 MB of garbage per process that an idle
// agent kept until its first collection): the stream's header says the window (RFC 7932,
// 9.1), and the result still decodes to the script.
func TestBrotliWindowFitsTheScript(t *testing.T) {
	body := []byte(strings.Repeat("export function f(x) { return x * 2; }\n", 2000)) // ~80 KB
	out := newAsset(body, "text/javascript").br()
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
