package llm_test

import (
	"crypto/tls"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/byomcp/byomcp/agentsvc/chat"
	"github.com/byomcp/byomcp/agentsvc/llm"
	"github.com/byomcp/byomcp/agentsvc/llm/llmtest"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
)

// tlsModel is a fake model behind HTTPS with HTTP/1.1 keep-alive, like a provider, that
// counts the TCP connections and TLS handshakes it accepts and the requests it serves at once.
type tlsModel struct {
	srv                  *httptest.Server
	conns, handshakes    atomic.Int64
	inFlight, peak, reqs atomic.Int64
}

func newTLSModel(t *testing.T) *tlsModel {
	t.Helper()
	fake := llmtest.NewInMemory(llmtest.Repeat(llmtest.Step{Text: "Three red cars match."}), llmtest.NoRecording())
	m := &tlsModel{}
	m.srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := m.inFlight.Add(1)
		defer m.inFlight.Add(-1)
		for p := m.peak.Load(); n > p && !m.peak.CompareAndSwap(p, n); p = m.peak.Load() {
		}
		m.reqs.Add(1)
		fake.ServeHTTP(w, r)
	}))
	m.srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			m.conns.Add(1)
		}
	}
	m.srv.TLS = &tls.Config{GetConfigForClient: func(*tls.ClientHelloInfo) (*tls.Config, error) {
		m.handshakes.Add(1)
		return nil, nil
	}}
	m.srv.StartTLS()
	t.Cleanup(func() {
		m.srv.Close()
		fake.Close()
	})
	return m
}

// TestTransportReusesConnections: 100 sessions calling the model at once over HTTPS open
// at most MaxConns connections (one TLS handshake each) and have at most MaxConns requests
// in flight; every later call reuses a kept-alive connection.
func TestTransportReusesConnections(t *testing.T) {
	const maxConns, sessions, callsEach = 8, 100, 3
	m := newTLSModel(t)
	rt := llm.NewTransport(llm.TransportOptions{
		MaxConns: maxConns,
		TLS:      m.srv.Client().Transport.(*http.Transport).TLSClientConfig,
	})
	if h := rt.HTTP(); h.MaxIdleConnsPerHost != maxConns || h.MaxConnsPerHost != maxConns || h.MaxIdleConns < maxConns {
		t.Errorf("pool: got idle/host %d, conns/host %d, idle %d, want %d, %d, ≥ %d",
			h.MaxIdleConnsPerHost, h.MaxConnsPerHost, h.MaxIdleConns, maxConns, maxConns, maxConns)
	}
	core, logs := observer.New(zap.WarnLevel)
	model := llm.NewOpenAI(llm.Options{BaseURL: m.srv.URL + "/v1", APIKey: "k", Model: "m",
		HTTPClient: &http.Client{Transport: rt}, Logger: zap.New(core)})
	req := llm.Request{Messages: []chat.Message{{Role: chat.RoleUser, Content: "Red cars?"}}}
	var wg sync.WaitGroup
	for range sessions {
		wg.Go(func() {
			for range callsEach {
				if _, err := model.Stream(t.Context(), req, nil); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if got := m.reqs.Load(); got != sessions*callsEach {
		t.Fatalf("model calls: got %d, want %d", got, sessions*callsEach)
	}
	// A call that failed (a TLS handshake past its 10 s on a starved machine) lost its
	// connection and was retried on a new one: that one is not a pool that is too small.
	retried := logs.FilterMessage("model call failed, retrying")
	for _, e := range retried.All() {
		t.Logf("retried: %v", e.ContextMap())
	}
	lost := int64(retried.Len())
	if got := m.conns.Load(); got < 1 || got > maxConns+lost {
		t.Errorf("new connections for %d calls (%d retried): got %d, want 1 to %d", sessions*callsEach, lost, got, maxConns+lost)
	}
	if got := m.handshakes.Load(); got < 1 || got > maxConns+lost {
		t.Errorf("TLS handshakes (%d calls retried): got %d, want 1 to %d", lost, got, maxConns+lost)
	}
	if got := m.peak.Load(); got > maxConns {
		t.Errorf("requests in flight at once: got %d, want at most %d", got, maxConns)
	}
	if u, w := rt.Limiter().InUse(), rt.Limiter().Waiting(); u != 0 || w != 0 {
		t.Errorf("after the calls: %d slots held, %d waiting, want 0 and 0 (a body that did not give its slot back)", u, w)
	}
}
