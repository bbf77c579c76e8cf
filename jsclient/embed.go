// Package jsclient embeds the browser client (plain ES modules, no Node build step) so the Go
// binary can serve it at /byomcp/, bundled and minified by esbuild's Go API when it starts.
package jsclient

import "embed"

// FS holds the client's modules.
//
//go:embed *.js
var FS embed.FS
