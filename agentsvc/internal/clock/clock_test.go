package clock

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"
)

func TestSleep(t *testing.T) {
	stop := errors.New("stopped")
	tests := []struct {
		name   string
		d      time.Duration
		cancel time.Duration // when ctx is cancelled with stop; 0: never, <0: before the call
		want   error
		at     time.Duration // fake time when Sleep returns
	}{
		{"waits d", 3 * time.Second, 0, nil, 3 * time.Second},
		{"ends with ctx, saying why", 3 * time.Second, time.Second, stop, time.Second},
		{"no wait for zero", 0, 0, nil, 0},
		{"no wait for negative", -time.Second, 0, nil, 0},
		{"ended ctx, zero d", 0, -1, stop, 0},
		{"ended ctx", time.Second, -1, stop, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx, cancel := context.WithCancelCause(context.Background())
				defer cancel(nil)
				switch {
				case tt.cancel < 0:
					cancel(stop)
				case tt.cancel > 0:
					time.AfterFunc(tt.cancel, func() { cancel(stop) })
				}
				start := time.Now()
				if err := Sleep(ctx, tt.d); !errors.Is(err, tt.want) || (tt.want == nil && err != nil) {
					t.Errorf("got %v, want %v", err, tt.want)
				}
				if got := time.Since(start); got != tt.at {
					t.Errorf("returned after %v of fake time, want %v", got, tt.at)
				}
			})
		})
	}
}
