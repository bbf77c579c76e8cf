package agentsvc

import (
	"strings"
	"testing"
)

// TestParseOriginPatternTrailingSlash: an allowed origin written as a browser's address bar
// shows it (https://shop.example/) is taken without the slash; a real path is refused with an
// error that says so.
func TestParseOriginPatternTrailingSlash(t *testing.T) {
	for _, tc := range []struct {
		in, want, err string
	}{
		{in: "https://shop.example/", want: "https shop.example "},
		{in: "https://Shop.example:8443/", want: "https shop.example 8443"},
		{in: "http://localhost:*/", want: "http localhost *"},
		{in: "https://shop.example", want: "https shop.example "},
		{in: "https://shop.example/app", err: "has a path, query or fragment"},
		{in: "https://shop.example//", err: "has a path, query or fragment"},
		{in: "https://shop.example/?a=1", err: "has a path, query or fragment"},
		{in: "https:///", err: "must look like https://host[:port]"},
		{in: "shop.example/", err: "must look like https://host[:port]"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := parseOriginPattern(tc.in)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("got %+v, %v; want an error saying %q", got, err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("got error %v, want %q", err, tc.want)
			}
			if s := got.scheme + " " + got.host + " " + got.port; s != tc.want {
				t.Errorf("got %q, want %q", s, tc.want)
			}
		})
	}
}
