// Package jsclient embeds the browser client (plain ES modules, no build step) so the Go
// binary can serve it at /byomcp/.
package jsclient

import "embed"

// FS holds the client's modules.
//
//go:embed *.js
var FS embed.FS
