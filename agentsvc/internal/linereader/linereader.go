// Package linereader reads the newline-delimited lines of a stdio JSON-RPC stream, each
// bounded in length, as the MCP SDK's stdio transport does.
package linereader

import (
	"bufio"
	"fmt"
)

// Read appends to buf[:0] the next line of r with its newline, or what is left before r's
// error (io.EOF at the end). A line longer than max bytes is an error.
func Read(r *bufio.Reader, buf []byte, max int) ([]byte, error) {
	buf = buf[:0]
	for {
		chunk, err := r.ReadSlice('\n')
		if len(buf)+len(chunk) > max+1 {
			return nil, fmt.Errorf("a line is longer than %d bytes", max)
		}
		buf = append(buf, chunk...)
		if err != bufio.ErrBufferFull {
			return buf, err
		}
	}
}
