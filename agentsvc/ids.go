// Small leaves the package's files share: random ids, and a close frame's reason cut to fit.

package agentsvc

import (
	"crypto/rand"
	"encoding/hex"
)

// randomID is n random bytes in hex: session, socket and link ids.
func randomID(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return hex.EncodeToString(b)
}

// truncateReason cuts s to what a WebSocket close frame's reason can carry.
func truncateReason(s string) string {
	if len(s) > 120 { // a close frame's reason must fit in 123 bytes
		return s[:120]
	}
	return s
}
