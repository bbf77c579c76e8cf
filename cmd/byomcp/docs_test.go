package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// otherToolsFlags are the --flags the docs name that belong to other programs, each with the
// program: anything else the docs name as --flag must be a flag of byomcp.
var otherToolsFlags = map[string]string{
	"test":             "node --test",
	"test-concurrency": "node --test",
	"enable-features":  "chromium",
}

// TestDocsNameOnlyRealFlagsAndVariables: every --flag that README.md and docs/*.md name is a
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

	docs, _ := filepath.Glob("../../docs/*.md")
	docs = append([]string{"../../README.md"}, docs...)
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
		t.Errorf("byomcp %s is in no doc (README.md, docs/*.md)", f)
	}
}
