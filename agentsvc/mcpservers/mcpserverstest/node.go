// Package mcpserverstest finds the Node programs that tests run as real MCP peers (the
// npm dev packages at the repository root), skipping a test when they are missing.
package mcpserverstest

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// Root is the repository root (where package.json and node_modules are).
func Root() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..")
}

// RequireNode returns the node binary after checking that the npm package pkg (for example
// "@modelcontextprotocol/sdk") is installed. When either is missing the test is skipped with
// the reason, or fails when BYOMCP_REQUIRE_NODE=1 (as in CI).
func RequireNode(t testing.TB, pkg string) string {
	t.Helper()
	missing := func(what string) {
		if os.Getenv("BYOMCP_REQUIRE_NODE") == "1" {
			t.Fatalf("%s (BYOMCP_REQUIRE_NODE=1)", what)
		}
		t.Skipf("skipping: %s", what)
	}
	if _, err := os.Stat(filepath.Join(Root(), "node_modules", pkg)); err != nil {
		missing("node_modules/" + pkg + " is not installed; run `npm ci` at the repository root")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		missing("node is not on PATH")
	}
	return node
}

// Everything returns node and the entry point of @modelcontextprotocol/server-everything,
// the reference MCP server (run it with "stdio" or "streamableHttp").
func Everything(t testing.TB) (node, entry string) {
	t.Helper()
	const pkg = "@modelcontextprotocol/server-everything"
	node = RequireNode(t, pkg)
	return node, filepath.Join(Root(), "node_modules", pkg, "dist", "index.js")
}
