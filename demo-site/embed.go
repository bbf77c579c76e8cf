// Package demosite embeds the car-shopping demo site so the Go binary serves it at /.
package demosite

import "embed"

// FS holds the demo's pages, styles, scripts and data.
//
//go:embed *
var FS embed.FS
