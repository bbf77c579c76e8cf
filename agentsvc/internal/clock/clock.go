// Package clock waits on a context: the one Sleep the model client's retries and the load
// generator share.
package clock

import (
	"context"
	"time"
)

// Sleep waits d, or until ctx ends: then it returns why (context.Cause). A d of zero or less
// does not wait; it returns ctx's cause if ctx has ended already.
func Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}
