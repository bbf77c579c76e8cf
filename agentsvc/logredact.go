package agentsvc

// Logs never hold a full session id: the socket's Debug bodies are redacted.

import (
	"regexp"
	"strings"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// redactSessionIDs makes a logger shorten the session ids inside the message bodies that a
// socket's peer logs at Debug, so that no log line holds a full id.
var redactSessionIDs = zap.WrapCore(func(c zapcore.Core) zapcore.Core { return redactingCore{c} })

// sessionIDInJSON matches a "sessionId" member of a logged message body.
var sessionIDInJSON = regexp.MustCompile(`("sessionId"\s*:\s*"[^"]{0,8})[^"]*"`)

type redactingCore struct{ zapcore.Core }

func (r redactingCore) With(fields []zapcore.Field) zapcore.Core {
	return redactingCore{r.Core.With(redactFields(fields))}
}

func (r redactingCore) Check(e zapcore.Entry, ce *zapcore.CheckedEntry) *zapcore.CheckedEntry {
	if r.Enabled(e.Level) {
		return ce.AddCore(e, r)
	}
	return ce
}

func (r redactingCore) Write(e zapcore.Entry, fields []zapcore.Field) error {
	return r.Core.Write(e, redactFields(fields))
}

// redactFields shortens session ids in string fields. Byte strings are copied either way:
// the peer reuses a body's buffer once it is written, and a core may keep fields longer.
func redactFields(fields []zapcore.Field) []zapcore.Field {
	out := fields
	for i, f := range fields {
		var b []byte
		switch f.Type {
		case zapcore.ByteStringType:
			b, _ = f.Interface.([]byte)
		case zapcore.StringType:
			if !strings.Contains(f.String, `"sessionId"`) {
				continue
			}
			b = []byte(f.String)
		default:
			continue
		}
		if &out[0] == &fields[0] {
			out = append([]zapcore.Field(nil), fields...)
		}
		out[i] = zap.ByteString(f.Key, sessionIDInJSON.ReplaceAll(b, []byte("${1}…\"")))
	}
	return out
}
