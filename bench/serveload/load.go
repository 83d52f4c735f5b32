package serveload

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// protocolVersion is the stateless revision of MCP the requests speak.
const protocolVersion = "2026-07-28"

// call is one search to send: who, and the request's body.
type call struct {
	user int // index in users
	body []byte
}

// newCall is a tools/call search request of user for query at weight, in
// the 2026-07-28 form: the body's _meta names the protocol version, which
// the Mcp-Protocol-Version header repeats (client.go sets the headers).
func newCall(user int, id int64, query string, weight float64) call {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": map[string]any{
		"name":      "search",
		"arguments": map[string]any{"query": query, "vector_weight": weight, "rerank": false, "limit": 10},
		"_meta": map[string]any{
			"io.modelcontextprotocol/protocolVersion":    protocolVersion,
			"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "braid-servebench", "version": "1"},
			"io.modelcontextprotocol/clientCapabilities": map[string]any{},
		},
	}})
	return call{user: user, body: b}
}

// client sends calls to one server as its users.
type client struct {
	url    string   // …/mcp
	tokens []string // by user
	http   *http.Client
	// polite makes do wait out a refusal's Retry-After and send the call
	// again, as a client that honours it does; retried counts them.
	polite  bool
	retried atomic.Int64
}

func newClient(base string, tokens []string, conns int) *client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConns, tr.MaxIdleConnsPerHost = conns, conns
	return &client{url: base + "/mcp", tokens: tokens, http: &http.Client{Transport: tr, Timeout: time.Minute}}
}

// do sends c and reads the whole answer; a polite client sends it again
// after a refusal's Retry-After (up to 10 times).
func (cl *client) do(ctx context.Context, c call) outcome {
	for try := 0; ; try++ {
		o := cl.once(ctx, c)
		if !cl.polite || !errors.Is(o.err, errRefused) || !o.retryAfter || try == 10 {
			return o
		}
		cl.retried.Add(1)
		t := time.NewTimer(o.wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return o
		case <-t.C:
		}
	}
}

// once sends c and reads the whole answer.
func (cl *client) once(ctx context.Context, c call) outcome {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, cl.url, bytes.NewReader(c.body))
	if err != nil {
		return outcome{err: err}
	}
	h := req.Header
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "application/json, text/event-stream")
	h.Set("Authorization", "Bearer "+cl.tokens[c.user])
	h.Set("Mcp-Protocol-Version", protocolVersion)
	h.Set("Mcp-Method", "tools/call")
	h.Set("Mcp-Name", "search")
	t0 := time.Now()
	res, err := cl.http.Do(req)
	if err != nil {
		return outcome{latency: time.Since(t0), err: err}
	}
	body, err := io.ReadAll(res.Body)
	res.Body.Close()
	o := outcome{status: res.StatusCode, latency: time.Since(t0)}
	switch {
	case err != nil:
		o.err = fmt.Errorf("reading the answer: %w", err)
	case res.StatusCode == http.StatusTooManyRequests || res.StatusCode == http.StatusServiceUnavailable:
		o.err, o.retryAfter = errRefused, validRetryAfter(res.Header.Get("Retry-After"))
		if o.retryAfter {
			n, _ := strconv.Atoi(strings.TrimSpace(res.Header.Get("Retry-After")))
			o.wait = time.Duration(n) * time.Second
		}
	case res.StatusCode != http.StatusOK:
		o.err = fmt.Errorf("HTTP %d: %.200s", res.StatusCode, body)
	default:
		o.hits, o.warning, o.err = parseAnswer(res.Header.Get("Content-Type"), body)
	}
	return o
}

// closedLoop runs clients workers, each sending next() as soon as its
// previous answer is in, until d passes or n calls were sent (n > 0).
// check, when not nil, sees each call with its outcome.
func closedLoop(ctx context.Context, cl *client, clients int, d time.Duration, n int, next func() call, check func(call, outcome)) ([]outcome, time.Duration) {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	var (
		mu   sync.Mutex
		outs []outcome
		sent atomic.Int64
		wg   sync.WaitGroup
	)
	t0 := time.Now()
	for range clients {
		wg.Go(func() {
			for ctx.Err() == nil && (n <= 0 || sent.Add(1) <= int64(n)) {
				c := next()
				o := cl.do(ctx, c)
				if ctx.Err() != nil && o.err != nil {
					return // cut by the phase's end, not the server
				}
				if check != nil {
					check(c, o)
				}
				o.hits = nil
				mu.Lock()
				outs = append(outs, o)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return outs, time.Since(t0)
}

// schedule calls send at rate a second, each with the time it was due,
// until ctx ends, and says how long that took.
func schedule(ctx context.Context, rate float64, send func(due time.Time)) time.Duration {
	t0 := time.Now()
	interval := time.Duration(float64(time.Second) / rate)
	for i := 0; ; i++ {
		at := t0.Add(time.Duration(i) * interval)
		if w := time.Until(at); w > 0 {
			select {
			case <-ctx.Done():
			case <-time.After(w):
			}
		}
		if ctx.Err() != nil {
			return time.Since(t0)
		}
		send(at)
	}
}

// pacedLoop sends next() at rate a second for d from clients workers, as
// clients that share a steady load: a send due while all are busy waits
// for one, and every latency is counted from when its send was due, not
// from when it went out, so a server that falls behind shows it in the
// percentiles rather than in fewer sends.
func pacedLoop(ctx context.Context, cl *client, rate float64, clients int, d time.Duration, next func() call) ([]outcome, time.Duration) {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	type send struct {
		c   call
		due time.Time
	}
	var (
		mu   sync.Mutex
		outs []outcome
		wg   sync.WaitGroup
		due  = make(chan send, int(rate*d.Seconds())+1)
	)
	for range clients {
		wg.Go(func() {
			for s := range due {
				// The phase's end cuts no request: it runs on the parent context.
				o := cl.do(context.WithoutCancel(ctx), s.c)
				o.latency, o.hits = time.Since(s.due), nil
				mu.Lock()
				outs = append(outs, o)
				mu.Unlock()
			}
		})
	}
	took := schedule(ctx, rate, func(at time.Time) { due <- send{next(), at} })
	close(due)
	wg.Wait()
	return outs, took
}

// openLoop sends next() at rate a second for d, whatever the answers
// take, from up to maxWorkers requests in flight; a send due when all are
// busy is counted in dropped (the generator, not the server, fell short).
func openLoop(ctx context.Context, cl *client, rate float64, maxWorkers int, d time.Duration, next func() call) (outs []outcome, took time.Duration, dropped int) {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	var (
		mu  sync.Mutex
		wg  sync.WaitGroup
		due = make(chan call)
	)
	workers := 0
	worker := func() {
		for c := range due {
			// The phase's end cuts no request: it runs on the parent context.
			o := cl.do(context.WithoutCancel(ctx), c)
			o.hits = nil
			mu.Lock()
			outs = append(outs, o)
			mu.Unlock()
		}
	}
	took = schedule(ctx, rate, func(time.Time) {
		c := next()
		select {
		case due <- c:
			return
		default:
		}
		if workers < maxWorkers {
			workers++
			wg.Go(worker)
			due <- c
			return
		}
		dropped++
	})
	close(due)
	wg.Wait()
	return outs, took, dropped
}

// sampler reads the server's RSS and goroutines each second until stop
// is called, which returns the samples.
func sampler(cl *client, pid int) (stop func() []Sample) {
	var samples []Sample
	done, finished := make(chan struct{}), make(chan struct{})
	t0 := time.Now()
	go func() {
		defer close(finished)
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
			}
			at := time.Since(t0).Seconds()
			if s, err := sample(cl, pid); err == nil {
				s.At = at
				samples = append(samples, s)
			}
		}
	}()
	return func() []Sample {
		close(done)
		<-finished
		return samples
	}
}

func sample(cl *client, pid int) (Sample, error) {
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return Sample{}, err
	}
	kib, err := rssKiB(f)
	f.Close()
	if err != nil {
		return Sample{}, err
	}
	s := Sample{RSSMiB: float64(kib) / 1024}
	req, err := http.NewRequest(http.MethodGet, cl.url[:len(cl.url)-len("/mcp")]+"/metrics", nil)
	if err != nil {
		return s, err
	}
	req.Header.Set("Authorization", "Bearer "+cl.tokens[0])
	res, err := cl.http.Do(req)
	if err != nil {
		return s, err
	}
	defer res.Body.Close()
	g, err := metricValue(res.Body, "go_goroutines")
	s.Goroutines = int(g)
	return s, err
}
