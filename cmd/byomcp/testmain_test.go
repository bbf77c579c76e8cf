package main

import (
	"os"
	"testing"
)

// TestMain runs main instead of the tests when BYOMCP_TEST_MAIN=1, so that tests can start
// this test binary as `byomcp` (e.g. the `byomcp tools` child of `byomcp chat`).
func TestMain(m *testing.M) {
	if os.Getenv("BYOMCP_TEST_MAIN") == "1" {
		main()
		return
	}
	os.Exit(m.Run())
}
