package wsrpc

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"
)

// toolCall is a typical tools/call: the page answers with one text content.
type toolCall struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

type toolResult struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	IsError bool `json:"isError,omitempty"`
}

func handleToolsCall(p *Peer) {
	reply := json.RawMessage(`{"content":[{"type":"text","text":"3 cars match: Zoe, Clio, Megane"}]}`)
	p.Handle("tools/call", func(ctx context.Context, req *Request) (any, error) { return reply, nil })
}

// benchCalls measures round trips of client.Call and reports the median and 99th percentile.
func benchCalls(b *testing.B, client *Peer) {
	ctx := context.Background()
	params := toolCall{Name: "filter_cars", Arguments: json.RawMessage(`{"maxPrice":20000,"fuel":"electric"}`)}
	lat := make([]time.Duration, 0, 1<<16)
	b.ReportAllocs()
	for b.Loop() {
		start := time.Now()
		var res toolResult
		if err := client.Call(ctx, "tools/call", params, &res); err != nil || len(res.Content) != 1 {
			b.Fatalf("got %v, %v", res, err)
		}
		if len(lat) < cap(lat) {
			lat = append(lat, time.Since(start))
		}
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds()), "p50-ns")
	b.ReportMetric(float64(lat[len(lat)*99/100].Nanoseconds()), "p99-ns")
}

func BenchmarkCallPipe(b *testing.B) {
	ca, cb := Pipe()
	client, server := NewPeer(ca, Options{}), NewPeer(cb, Options{})
	handleToolsCall(server)
	client.Start()
	server.Start()
	defer func() {
		client.Close(nil)
		server.Wait()
	}()
	benchCalls(b, client)
}

func BenchmarkCallWebSocket(b *testing.B) {
	url, peers := wsServer(b, WSOptions{}, Options{}, handleToolsCall)
	client := NewPeer(NewWebSocketConn(dial(b, url), WSOptions{}), Options{})
	client.Start()
	defer func() {
		client.Close(nil)
		client.Wait()
	}()
	recvPeer(b, peers)
	benchCalls(b, client)
}
