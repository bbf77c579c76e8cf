package wsrpc

import (
	"errors"
	"fmt"
	"io"
	"net"
	"testing"
	"testing/synctest"
	"time"
)

func TestPipe(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a, b := Pipe()
		buf := []byte("hello")
		done := make(chan struct{})
		go func() {
			defer close(done)
			if err := a.WriteMessage(buf); err != nil {
				t.Errorf("write: %v", err)
			}
			copy(buf, "XXXXX") // the reader must not see this
		}()
		got, err := b.ReadMessage()
		<-done
		if err != nil || string(got) != "hello" {
			t.Errorf("read: got %q, %v, want \"hello\", nil", got, err)
		}

		// A write waits for the reader; Close releases it.
		werr := make(chan error, 1)
		go func() { werr <- a.WriteMessage([]byte("never read")) }()
		synctest.Wait()
		select {
		case err := <-werr:
			t.Fatalf("write returned before a read: %v", err)
		default:
		}
		if err := a.Close(); err != nil {
			t.Fatal(err)
		}
		if err := a.Close(); err != nil {
			t.Errorf("second Close: got %v, want nil", err)
		}
		if err := <-werr; !errors.Is(err, net.ErrClosed) {
			t.Errorf("blocked write after Close: got %v, want net.ErrClosed", err)
		}
		tests := []struct {
			name string
			op   func() error
			want error
		}{
			{"local read", func() error { _, err := a.ReadMessage(); return err }, net.ErrClosed},
			{"local write", func() error { return a.WriteMessage(nil) }, net.ErrClosed},
			{"remote read", func() error { _, err := b.ReadMessage(); return err }, io.EOF},
			{"remote write", func() error { return b.WriteMessage(nil) }, io.ErrClosedPipe},
		}
		for _, tt := range tests {
			if err := tt.op(); !errors.Is(err, tt.want) {
				t.Errorf("%s: got %v, want %v", tt.name, err, tt.want)
			}
		}
	})
}

func TestTokenBucket(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := newTokenBucket(2, 3, time.Now())
		var got []bool
		for range 4 {
			ok, _ := b.allow(time.Now())
			got = append(got, ok)
		}
		if want := []bool{true, true, true, false}; fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("burst: got %v, want %v", got, want)
		}
		time.Sleep(500 * time.Millisecond) // one token at 2/s
		if ok, calm := b.allow(time.Now()); !ok || calm {
			t.Errorf("after 0.5 s: got ok=%v calm=%v, want true false", ok, calm)
		}
		if ok, _ := b.allow(time.Now()); ok {
			t.Error("second message after 0.5 s: got allowed, want refused")
		}
		time.Sleep(time.Hour) // never more than the burst
		for i := range 4 {
			ok, calm := b.allow(time.Now())
			if want := i < 3; ok != want {
				t.Errorf("after an hour, message %d: got %v, want %v", i, ok, want)
			}
			if want := i == 0; calm != want {
				t.Errorf("after an hour, message %d: calm got %v, want %v", i, calm, want)
			}
		}
	})
}
