package llm

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/ssestream"
)

// requestFailure classifies an error that happened before the stream began: an HTTP
// status, a connection error, or the context ending.
func (m *OpenAI) requestFailure(ctx context.Context, err error, res *http.Response) *failure {
	if q, _ := ctx.Value(queueNoteKey{}).(*queueNote); q != nil && q.size.Load() > 0 && errors.Is(context.Cause(ctx), errRequestTimeout) {
		// Its whole time went in the queue (Transport): the model is busy, not slow to
		// answer this call. (The SDK returns the context's error, not the transport's.)
		return &failure{err: &Error{
			Message: fmt.Sprintf("the model is busy: all %d connections to it stayed in use for %s (BYOMCP_MODEL_CONNS)",
				q.size.Load(), m.opts.RequestTimeout),
			Retryable: true,
			Err:       &QueueError{Size: int(q.size.Load()), Err: err},
		}}
	}
	if f := m.ctxFailure(ctx, err); f != nil {
		return f
	}
	var apiErr *openai.Error
	if errors.As(err, &apiErr) {
		f := m.statusFailure(apiErr.StatusCode, apiErr.Code, apiErr.Message, err)
		if apiErr.Response != nil {
			f.retryAfter, f.hasRetryAfter = retryAfter(apiErr.Response.Header, time.Now())
		}
		return f
	}
	if res != nil && res.StatusCode >= 400 {
		// An error body the SDK could not decode (an HTML page from a proxy, plain text).
		f := m.statusFailure(res.StatusCode, "", "", err)
		f.retryAfter, f.hasRetryAfter = retryAfter(res.Header, time.Now())
		return f
	}
	var urlErr *url.Error
	if errors.As(err, &urlErr) {
		if isCertError(err) {
			return &failure{err: &Error{Message: "the model API's TLS certificate was not accepted", Err: err}}
		}
		return &failure{connect: isConnectError(err), err: &Error{
			Message:   fmt.Sprintf("cannot reach the model API at %s", m.host()),
			Retryable: true,
			Err:       err,
		}}
	}
	return &failure{err: &Error{Message: "the model request could not be made: " + err.Error(), Err: err}}
}

// streamFailure classifies an error that ended a stream that had begun.
func (m *OpenAI) streamFailure(ctx context.Context, err error) *failure {
	if f := m.ctxFailure(ctx, err); f != nil {
		return f
	}
	var se *ssestream.StreamError
	if errors.As(err, &se) {
		// An error event in the stream, as OpenRouter and OpenAI send when generation fails.
		var ev struct {
			Error struct {
				Message string `json:"message"`
				Code    any    `json:"code"`
				Status  any    `json:"status"`
			} `json:"error"`
		}
		_ = json.Unmarshal(se.Event.Data, &ev)
		msg := ev.Error.Message
		status := 0
		if c, ok := ev.Error.Code.(float64); ok {
			status = int(c)
		} else if s, ok := ev.Error.Status.(float64); ok {
			status = int(s)
		}
		text := "the model API failed in the middle of the answer"
		if msg != "" {
			text += ": " + clip(msg)
		}
		retryable := status == 0 || isRetryableStatus(status)
		if status < 100 || status > 599 {
			status = 0
		}
		return &failure{err: &Error{Status: status, Message: text, Retryable: retryable, Err: err}}
	}
	return &failure{err: &Error{Message: "the model stream broke off", Retryable: true, Err: err}}
}

// ctxFailure describes an attempt ended by its context: the idle timer, the request
// timeout or the caller. It returns nil when the context is live.
func (m *OpenAI) ctxFailure(ctx context.Context, err error) *failure {
	if ctx.Err() == nil {
		return nil
	}
	switch cause := context.Cause(ctx); {
	case errors.Is(cause, errStalled):
		return &failure{err: &Error{
			Message:   fmt.Sprintf("the model stream stalled (no data for %s)", m.opts.IdleTimeout),
			Retryable: true,
			Err:       err,
		}}
	case errors.Is(cause, errRequestTimeout):
		return &failure{err: &Error{
			Message:   fmt.Sprintf("the model call took longer than %s", m.opts.RequestTimeout),
			Retryable: true,
			Err:       context.DeadlineExceeded,
		}}
	default:
		return &failure{err: &Error{Message: "the model call was cancelled", Err: cause}}
	}
}

// statusFailure maps an HTTP error status to a plain message. The provider's own message
// is kept where it helps and cannot carry a secret (never for 401/403, whose messages
// may quote part of the key).
func (m *OpenAI) statusFailure(status int, code, providerMsg string, err error) *failure {
	e := &Error{Status: status, Retryable: isRetryableStatus(status), Err: err}
	withDetail := func(s string) string {
		if providerMsg == "" {
			return s
		}
		return s + ": " + clip(providerMsg)
	}
	switch {
	case status == http.StatusUnauthorized:
		e.Message = "the model API rejected the key"
	case status == http.StatusForbidden:
		e.Message = "the model API refused access with this key"
	case status == http.StatusNotFound:
		e.Message = fmt.Sprintf("model not found: %q at %s", m.opts.Model, m.host())
	case status == http.StatusRequestEntityTooLarge:
		e.Message = "the conversation is too large for the model API"
	case status == http.StatusTooManyRequests && code == "insufficient_quota":
		e.Message = "the model API account has no quota left"
		e.Retryable = false
	case status == http.StatusTooManyRequests:
		e.Message = withDetail("the model API is rate limiting requests")
	case status == http.StatusRequestTimeout:
		e.Message = "the model API timed out"
	case status >= 500:
		e.Message = withDetail("the model API is unavailable")
	case status >= 400:
		e.Message = withDetail("the model API rejected the request")
	default:
		e.Message = fmt.Sprintf("the model API answered with HTTP status %d", status)
	}
	return &failure{err: e}
}

// isRetryableStatus says whether a request that got status may succeed if sent again.
func isRetryableStatus(status int) bool {
	return status == http.StatusRequestTimeout || status == http.StatusConflict ||
		status == http.StatusTooManyRequests || status >= 500
}

// retryAfter reads how long the server asks to wait: retry-after-ms, then Retry-After in
// seconds or as an HTTP date.
func retryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	if v := h.Get("Retry-After-Ms"); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms >= 0 {
			return time.Duration(ms * float64(time.Millisecond)), true
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil && s >= 0 {
		return time.Duration(s * float64(time.Second)), true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}

// isConnectError says whether err means that no answer came because the connection could
// not be made or was dropped before anything was read: refused, reset, closed at once (a
// server whose accept queue overflowed does each of these). Such a request never reached
// the model, so sending it again at once is safe.
func isConnectError(err error) bool {
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return true
	}
	return errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.EPIPE) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
}

func isCertError(err error) bool {
	var (
		unknown  x509.UnknownAuthorityError
		invalid  x509.CertificateInvalidError
		hostname x509.HostnameError
		verify   *tls.CertificateVerificationError
	)
	return errors.As(err, &unknown) || errors.As(err, &invalid) ||
		errors.As(err, &hostname) || errors.As(err, &verify)
}

// host returns the host of the base URL, for messages (the URL itself could hold a key).
func (m *OpenAI) host() string {
	u, err := url.Parse(m.opts.BaseURL)
	if err != nil || u.Host == "" {
		return "the configured base URL"
	}
	return u.Host
}

func clip(s string) string {
	s = strings.TrimSpace(s)
	if len(s) <= maxProviderMessage {
		return s
	}
	cut := maxProviderMessage
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}
