package llm

import (
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Default bounds of a provider's connections and model requests in flight, when
// Options.MaxConns is not set (env BYOMCP_MODEL_CONNS): DefaultLocalMaxConns for a server
// on a loopback address (Ollama, llama.cpp, LM Studio and the like serve a few requests at
// once, often behind a small listen queue), DefaultMaxConns for the others.
const (
	DefaultMaxConns      = 64
	DefaultLocalMaxConns = 8
)

// isLoopback reports whether a base URL names this machine.
func isLoopback(base string) bool {
	u, err := url.Parse(base)
	if err != nil {
		return false
	}
	h := u.Hostname()
	if strings.EqualFold(h, "localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// TransportOptions sizes the HTTP transport of one provider.
type TransportOptions struct {
	// MaxConns bounds the connections to the provider, the idle ones kept for reuse, and
	// the requests in flight (the others wait in arrival order). Default DefaultMaxConns.
	MaxConns int
	// TLS is the client's TLS configuration (e.g. a private CA); nil: the system's roots.
	TLS *tls.Config
}

// Transport is the http.RoundTripper of one provider: HTTP keep-alive with an idle pool as
// large as the connection bound (net/http's default keeps only 2 idle connections per host,
// so under concurrency most model calls would open a new connection and TLS handshake), at
// most MaxConns connections, and at most MaxConns requests in flight. A request holds its
// slot until its response body is read to the end or closed; requests past the bound queue
// fairly (FIFO) in a Limiter, so a burst of turns never floods a small server's accept queue.
type Transport struct {
	base *http.Transport
	lim  *Limiter
}

// NewTransport returns the transport for one provider.
func NewTransport(o TransportOptions) *Transport {
	n := o.MaxConns
	if n <= 0 {
		n = DefaultMaxConns
	}
	dialer := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}
	base := &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           dialer.DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          max(n, 100),
		MaxIdleConnsPerHost:   n,
		MaxConnsPerHost:       n,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: time.Second,
		TLSClientConfig:       o.TLS,
	}
	return &Transport{base: base, lim: NewLimiter(n)}
}

// MaxConns is the connection and request bound.
func (t *Transport) MaxConns() int { return t.lim.Size() }

// Limiter is the queue of requests in flight.
func (t *Transport) Limiter() *Limiter { return t.lim }

// HTTP returns the underlying transport (its pool sizes).
func (t *Transport) HTTP() *http.Transport { return t.base }

// RoundTrip waits for a slot, then sends req.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	if err := t.lim.Acquire(req.Context()); err != nil {
		if req.Body != nil {
			_ = req.Body.Close()
		}
		if q, _ := req.Context().Value(queueNoteKey{}).(*queueNote); q != nil {
			q.size.Store(int64(t.lim.Size()))
		}
		return nil, &QueueError{Size: t.lim.Size(), Err: err}
	}
	res, err := t.base.RoundTrip(req)
	if err != nil {
		t.lim.Release()
		return nil, err
	}
	res.Body = &slotBody{ReadCloser: res.Body, release: sync.OnceFunc(t.lim.Release)}
	return res, nil
}

// CloseIdleConnections closes the idle pool (http.Client.CloseIdleConnections calls it).
func (t *Transport) CloseIdleConnections() { t.base.CloseIdleConnections() }

// QueueError is a request that ended while it waited for a free connection to the model:
// all Size of them were in use (by long answers, or a model that streams for ever).
type QueueError struct {
	Size int
	Err  error
}

func (e *QueueError) Error() string {
	return fmt.Sprintf("waiting for one of the %d connections to the model: %v", e.Size, e.Err)
}

func (e *QueueError) Unwrap() error { return e.Err }

// queueNote, in a request's context (an OpenAI attempt's), is set when the request ended in
// the queue: the SDK returns the context's error, not the QueueError.
type queueNote struct{ size atomic.Int64 }

type queueNoteKey struct{}

// slotBody gives the request's slot back at the end of the body or when it is closed.
type slotBody struct {
	io.ReadCloser
	release func()
}

func (b *slotBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil {
		b.release()
	}
	return n, err
}

func (b *slotBody) Close() error {
	err := b.ReadCloser.Close()
	b.release()
	return err
}
