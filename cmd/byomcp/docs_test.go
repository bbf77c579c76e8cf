package main

import (
	"bytes"
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// otherToolsFlags are the --flags the docs name that belong to other programs, each with the
// program: anything else the docs name as --flag must be a flag of byomcp.
var otherToolsFlags = map[string]string{
	"test":             "node --test",
	"test-concurrency": "node --test",
	"enable-features":  "chromium",
	"check":            "bench/capture-demo-tools.mjs",
}

// TestDocsNameOnlyRealFlagsAndVariables: every --flag that the docs (docFiles) name is a
// flag of a byomcp command (its -h lists it) or one of otherToolsFlags, every BYOMCP_*
// variable they name is read by the binary (named in its help or in its non-test source) or
// by the tests; and every flag of every command is named in the docs.
func TestDocsNameOnlyRealFlagsAndVariables(t *testing.T) {
	var help bytes.Buffer
	flags := map[string]string{} // flag → command
	for _, cmd := range []string{"serve", "chat", "tools", "bench"} {
		var out bytes.Buffer
		_ = run(context.Background(), []string{cmd, "-h"}, strings.NewReader(""), &out, &out, func(string) string { return "" })
		help.Write(out.Bytes())
		for _, m := range regexp.MustCompile(`(?m)^\s+-([a-z][a-z0-9-]*)`).FindAllStringSubmatch(out.String(), -1) {
			flags[m[1]] = cmd
		}
		if len(out.String()) == 0 {
			t.Fatalf("byomcp %s -h printed nothing", cmd)
		}
	}
	flags["help"] = "every" // the flag package's own (-h, --help)
	if flags["addr"] != "serve" {
		t.Fatalf("serve -h does not list --addr; the help's shape changed: %s", help.String())
	}

	// Variables the binary reads (its help, its source) and the tests' own.
	known := map[string]bool{}
	varRE := regexp.MustCompile(`BYOMCP_[A-Z0-9_]*[A-Z0-9]`)
	for _, v := range varRE.FindAllString(help.String(), -1) {
		known[v] = true
	}
	err := filepath.WalkDir("../..", func(path string, d os.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && (d.Name() == "node_modules" || d.Name() == ".git"):
			return filepath.SkipDir
		case d.IsDir() || path == "../../cmd/byomcp/docs_test.go":
			return nil
		}
		if ext := filepath.Ext(path); ext == ".go" || ext == ".sh" || ext == ".mjs" || ext == ".js" {
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			for _, v := range varRE.FindAllString(string(b), -1) {
				known[v] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}

	docs := docFiles(t)
	flagRE := regexp.MustCompile(`(^|[^A-Za-z0-9_-])--([a-z][a-z0-9-]*)`)
	named := map[string]bool{}
	for _, doc := range docs {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		name := strings.TrimPrefix(doc, "../../")
		for _, m := range flagRE.FindAllStringSubmatch(string(b), -1) {
			f := m[2]
			named[f] = true
			switch {
			case strings.HasPrefix(f, "byomcp-"): // a CSS custom property of the widget's theme
			case flags[f] != "", otherToolsFlags[f] != "":
			default:
				t.Errorf("%s names --%s, which no byomcp command has (byomcp serve|chat|tools|bench -h)", name, f)
			}
		}
		for _, v := range varRE.FindAllString(string(b), -1) {
			if !known[v] {
				t.Errorf("%s names %s, which nothing reads", name, v)
			}
		}
	}
	var undocumented []string
	for f, cmd := range flags {
		if !named[f] {
			undocumented = append(undocumented, cmd+" --"+f)
		}
	}
	slices.Sort(undocumented)
	for _, f := range undocumented {
		t.Errorf("byomcp %s is in no doc (README.md, docs/**/*.md, bench/PERFORMANCE.md)", f)
	}
}

// docFiles are the docs a newcomer reads: README.md, every .md under docs/ (the guides, at any
// depth) and bench/PERFORMANCE.md, as paths relative to this package's directory.
func docFiles(t *testing.T) []string {
	t.Helper()
	docs := []string{"../../README.md", "../../bench/PERFORMANCE.md"}
	err := filepath.WalkDir("../../docs", func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".md") {
			docs = append(docs, path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) < 8 {
		t.Fatalf("found only %v: the guides moved?", docs)
	}
	return docs
}

var (
	fenceRE      = regexp.MustCompile("(?ms)^\\s*```.*?^\\s*```[^\\n]*$")
	codeSpanRE   = regexp.MustCompile("`[^`\\n]*`")
	mdLinkRE     = regexp.MustCompile(`!?\[[^\]\n]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)
	htmlLinkRE   = regexp.MustCompile(`<(?:img|a)\s[^>]*?(?:src|href)="([^"]+)"`)
	headingRE    = regexp.MustCompile(`(?m)^#{1,6}\s+(.+?)\s*#*\s*$`)
	htmlAnchorRE = regexp.MustCompile(`<a\s[^>]*?(?:name|id)="([^"]+)"`)
)

// docLinks returns the targets of the Markdown links ([text](target), ![alt](target)) and of
// the <img src>/<a href> tags of a Markdown text, outside code blocks and code spans.
func docLinks(md string) []string {
	md = fenceRE.ReplaceAllString(md, "")
	md = codeSpanRE.ReplaceAllString(md, "")
	var links []string
	for _, re := range []*regexp.Regexp{mdLinkRE, htmlLinkRE} {
		for _, m := range re.FindAllStringSubmatch(md, -1) {
			links = append(links, m[1])
		}
	}
	return links
}

// docAnchors returns the anchors GitHub gives a Markdown text's headings (lower case, the
// punctuation but '-' and '_' dropped, each space a '-', "-1", "-2"… for repeats) and its
// explicit <a name|id> anchors.
func docAnchors(md string) map[string]bool {
	md = fenceRE.ReplaceAllString(md, "")
	anchors := map[string]bool{}
	seen := map[string]int{}
	for _, m := range headingRE.FindAllStringSubmatch(md, -1) {
		var b strings.Builder
		for _, r := range strings.ToLower(m[1]) {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				b.WriteRune(r)
			}
		}
		slug := b.String()
		if n := seen[slug]; n > 0 {
			anchors[fmt.Sprintf("%s-%d", slug, n)] = true
		} else {
			anchors[slug] = true
		}
		seen[slug]++
	}
	for _, m := range htmlAnchorRE.FindAllStringSubmatch(md, -1) {
		anchors[m[1]] = true
	}
	return anchors
}

// checkDocLinks reports each relative link of the doc at path whose file or directory does not
// exist, or whose #anchor names no heading of the Markdown file it points to. read reads a file
// (the tests give it the tree or a fake).
func checkDocLinks(path string, read func(string) (string, error), exists func(string) bool) []string {
	md, err := read(path)
	if err != nil {
		return []string{err.Error()}
	}
	var bad []string
	for _, link := range docLinks(md) {
		if u, err := url.Parse(link); err != nil || u.Scheme != "" || strings.HasPrefix(link, "//") {
			continue // http(s), mailto: not checked here
		}
		file, anchor, _ := strings.Cut(link, "#")
		target := path
		if file != "" {
			target = filepath.Join(filepath.Dir(path), filepath.FromSlash(file))
			if !exists(target) {
				bad = append(bad, fmt.Sprintf("%s links to %s, which does not exist", path, link))
				continue
			}
		}
		if anchor == "" || !strings.HasSuffix(target, ".md") {
			continue
		}
		text, err := read(target)
		if err != nil {
			bad = append(bad, fmt.Sprintf("%s links to %s: %v", path, link, err))
			continue
		}
		if !docAnchors(text)[anchor] {
			bad = append(bad, fmt.Sprintf("%s links to %s, but %s has no heading #%s", path, link, target, anchor))
		}
	}
	return bad
}

// TestDocsLinksResolve: every relative link of README.md and the guides reaches a file or
// directory of the repository, and every #anchor a heading of the file it names.
func TestDocsLinksResolve(t *testing.T) {
	read := func(p string) (string, error) {
		b, err := os.ReadFile(p)
		return string(b), err
	}
	exists := func(p string) bool {
		_, err := os.Stat(p)
		return err == nil
	}
	links := 0
	for _, doc := range docFiles(t) {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		links += len(docLinks(string(b)))
		for _, e := range checkDocLinks(doc, read, exists) {
			t.Error(strings.TrimPrefix(e, "../../"))
		}
	}
	if links < 50 {
		t.Errorf("found %d links in the docs, want at least 50: the link pattern no longer matches?", links)
	}
}

// TestCheckDocLinks: the link check fails a link to a missing file or a missing heading, and
// passes good ones, links in code, and links to other sites.
func TestCheckDocLinks(t *testing.T) {
	files := map[string]string{
		"docs/a.md": "# Guide A\n\n## Restarts, even `kill -9`\n\n## Protocol (version 1)\n\n## Notes\n\n## Notes\n",
		"README.md": "",
	}
	dirs := map[string]bool{"docs/deploy": true}
	read := func(p string) (string, error) {
		if s, ok := files[filepath.ToSlash(p)]; ok {
			return s, nil
		}
		return "", fmt.Errorf("open %s: no such file", p)
	}
	exists := func(p string) bool {
		_, ok := files[filepath.ToSlash(p)]
		return ok || dirs[filepath.ToSlash(p)]
	}
	for _, tc := range []struct {
		doc  string
		want int // bad links
	}{
		{"see [A](docs/a.md) and ![x](docs/a.md#guide-a)", 0},
		{"[k](docs/a.md#restarts-even-kill--9) [p](docs/a.md#protocol-version-1) [n](docs/a.md#notes-1)", 0},
		{"[web](https://example.com/missing.md) [mail](mailto:a@b.c) [dir](docs/deploy/)", 0},
		{"```\n[no](missing.md)\n```\nand `[no](missing.md)` in code", 0},
		{"[gone](docs/missing.md)", 1},
		{`<img alt="x" src="docs/screenshots/missing.png" width="10">`, 1},
		{"[anchor](docs/a.md#no-such-heading)", 1},
		{"[self](#nothing-here)", 1},
		{"[n2](docs/a.md#notes-2)", 1},
	} {
		files["README.md"] = tc.doc
		if got := checkDocLinks("README.md", read, exists); len(got) != tc.want {
			t.Errorf("%q: got %d bad links %v, want %d", tc.doc, len(got), got, tc.want)
		}
	}
}

// TestDocsNameOnlyRealMetrics: every byomcp_* metric the docs name is registered by the
// binary's source (a Name: "byomcp_…" of a collector; _bucket, _count and _sum are a
// histogram's series).
func TestDocsNameOnlyRealMetrics(t *testing.T) {
	defined := map[string]bool{}
	nameRE := regexp.MustCompile(`Name:\s*"(byomcp_[a-z0-9_]+)"`)
	err := filepath.WalkDir("../..", func(path string, d os.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && (d.Name() == "node_modules" || d.Name() == ".git"):
			return filepath.SkipDir
		case d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go"):
			return nil
		}
		b, err := os.ReadFile(path)
		for _, m := range nameRE.FindAllStringSubmatch(string(b), -1) {
			defined[m[1]] = true
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if !defined["byomcp_turns_total"] {
		t.Fatalf("no byomcp_turns_total among the metrics found in the source (%d): the pattern no longer matches?", len(defined))
	}
	metricRE := regexp.MustCompile(`\bbyomcp_[a-z][a-z0-9_]*[a-z0-9]`)
	for _, doc := range docFiles(t) {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range metricRE.FindAllString(string(b), -1) {
			base := m
			for _, suffix := range []string{"_bucket", "_count", "_sum"} {
				base = strings.TrimSuffix(base, suffix)
			}
			if !defined[m] && !defined[base] {
				t.Errorf("%s names the metric %s, which the binary does not have", strings.TrimPrefix(doc, "../../"), m)
			}
		}
	}
}
