//go:build !linux

package wsrpc

import "errors"

// arm reports that this platform has no idle-socket poller: an idle socket keeps its
// reading goroutine, blocked in Go's own poller.
func (c *corkConn) arm() error { return errors.ErrUnsupported }

// disarm does nothing without a poller.
func (c *corkConn) disarm() {}
