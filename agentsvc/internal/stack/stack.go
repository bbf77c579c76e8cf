// Package stack sizes a new goroutine's stack for the deep work it is about to do.
package stack

// frame is how much stack Grow asks for. With what the goroutine already uses, the stack
// becomes 16 KiB: enough for a tool call's path (schema validation, JSON-RPC encoding, the
// page's answer decoded), and the largest stack the runtime keeps in its per-P caches.
const frame = 12 << 10

// Grow makes the calling goroutine's stack 16 KiB, in one step.
//
// A goroutine starts with a small stack that the runtime doubles whenever a call would
// overflow it, copying the stack and adjusting every frame on it; deep in a tool call that
// is a dozen frames, again at each doubling, for every new goroutine. Called first thing in
// such a goroutine, Grow triggers that growth while the stack holds one frame, so it costs
// a copy of almost nothing. At saturation this growth had been about 7% of the agent's CPU.
//
//go:noinline
func Grow() {
	var b [frame]byte
	sink(b[:])
}

//go:noinline
func sink(b []byte) {
	if len(b) > 0 && b[0] != 0 {
		panic("stack: unreachable")
	}
}
