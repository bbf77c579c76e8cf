package toolserver

import (
	"bufio"
	"encoding/json"
	"io"
	"path/filepath"
	"slices"
	"testing"

	"go.uber.org/zap/zaptest"
)

// A line that is not a JSON-RPC message is answered with an error whose id is null
// (JSON-RPC 2.0, section 5.1: -32700 Parse error, -32600 Invalid Request) and the server
// goes on to answer the requests after it.
func TestStdioAnswersMalformedLines(t *testing.T) {
	s, err := New(Options{NotesPath: filepath.Join(t.TempDir(), "notes.db")})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- s.Run(t.Context(), newStdioTransport(inR, outW, zaptest.NewLogger(t))) }()
	defer func() {
		inW.Close()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	}()
	go func() {
		io.WriteString(inW, "garbage\n\n42\n{\"foo\":1}\n[]\n{\"jsonrpc\":\n"+
			`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`+"\n"+
			`{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\nnot json either\n"+
			`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`+"\n")
	}()

	type response struct {
		ID     json.RawMessage
		Result map[string]json.RawMessage
		Error  *struct{ Code int }
	}
	// The answers to requests come when they are done, so only the order of the errors
	// among themselves is known.
	out := bufio.NewScanner(outR)
	out.Buffer(nil, 1<<20)
	var codes []int
	results := map[string]map[string]json.RawMessage{}
	for i := range 8 {
		if !out.Scan() {
			t.Fatalf("response %d: output ended (%v)", i, out.Err())
		}
		var r response
		if err := json.Unmarshal(out.Bytes(), &r); err != nil {
			t.Fatalf("response %d %s: %v", i, out.Bytes(), err)
		}
		if r.Error != nil {
			if string(r.ID) != "null" {
				t.Errorf("response %d = %s, want id null", i, out.Bytes())
			}
			codes = append(codes, r.Error.Code)
			continue
		}
		results[string(r.ID)] = r.Result
	}
	if want := []int{-32700, -32600, -32600, -32600, -32700, -32700}; !slices.Equal(codes, want) {
		t.Errorf("error codes %v, want %v", codes, want)
	}
	if _, ok := results["1"]["serverInfo"]; !ok {
		t.Errorf("initialize result = %s, want one with serverInfo", results["1"])
	}
	var list []struct{ Name string }
	if err := json.Unmarshal(results["2"]["tools"], &list); err != nil || len(list) != 4 {
		t.Errorf("tools/list result = %s, want 4 tools", results["2"])
	}
	go io.Copy(io.Discard, outR) // whatever the server writes while it stops
}
