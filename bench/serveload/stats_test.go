package serveload

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestAggregate(t *testing.T) {
	var outs []outcome
	for i := 1; i <= 100; i++ { // 1 ms … 100 ms
		outs = append(outs, outcome{status: 200, latency: time.Duration(i) * time.Millisecond})
	}
	outs = append(outs,
		outcome{status: 429, err: errRefused, retryAfter: true, latency: time.Hour},
		outcome{status: 503, err: errRefused, latency: time.Hour}, // no Retry-After
		outcome{status: 500, err: errors.New("HTTP 500: boom"), latency: time.Hour},
		outcome{err: errors.New("connection refused")},
	)
	got := aggregate(outs, 2*time.Second)
	want := Stats{Requests: 104, Seconds: 2, PerSecond: 50, OK: 100, Errors: 2, Refused429: 1, Refused503: 1, RetryAfter: 1,
		P50: 50, P95: 95, P99: 99, Max: 100, FirstError: "HTTP 500: boom"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("aggregate (-want +got):\n%s", diff)
	}
	if s := got.RefusedShare(); s != 2.0/104 {
		t.Errorf("RefusedShare = %v, want 2/104", s)
	}
	if z := aggregate(nil, 0); z.P99 != 0 || z.PerSecond != 0 {
		t.Errorf("aggregate of nothing = %+v, want zeros", z)
	}
}

func TestPercentile(t *testing.T) {
	one := []time.Duration{7}
	for _, p := range []float64{0, 50, 99, 100} {
		if got := percentile(one, p); got != 7 {
			t.Errorf("percentile(one, %v) = %v, want 7", p, got)
		}
	}
	ten := []time.Duration{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	for p, want := range map[float64]time.Duration{50: 5, 90: 9, 91: 10, 99: 10, 100: 10} {
		if got := percentile(ten, p); got != want {
			t.Errorf("percentile(ten, %v) = %v, want %v", p, got, want)
		}
	}
}

// toolAnswer is a tools/call answer whose text is the search result r.
func toolAnswer(t *testing.T, isError bool, text string) string {
	t.Helper()
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 3, "result": map[string]any{
		"isError": isError, "content": []any{map[string]any{"type": "text", "text": text}}}})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestParseAnswer(t *testing.T) {
	hits := `{"results":[{"path":"a.md","source_id":"s1"},{"path":"b.md","source_id":"s2"}],"total":2,"warning":"lexical only"}`
	for _, tc := range []struct {
		name, contentType, body string
		want                    []string
		warning, err            string
	}{
		{name: "json", contentType: "application/json", body: toolAnswer(t, false, hits), want: []string{"s1", "s2"}, warning: "lexical only"},
		{name: "sse, a notification first", contentType: "text/event-stream",
			body: "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\"}\n\nevent: message\ndata: " + toolAnswer(t, false, hits) + "\n\n",
			want: []string{"s1", "s2"}, warning: "lexical only"},
		{name: "sse without a blank line at the end", contentType: "text/event-stream; charset=utf-8",
			body: "data: " + toolAnswer(t, false, `{"results":[]}`), want: []string{}},
		{name: "no hits", contentType: "application/json", body: toolAnswer(t, false, `{"results":[],"total":0}`), want: []string{}},
		{name: "tool error", contentType: "application/json", body: toolAnswer(t, true, "search: no source \"x\""), err: "tool error: search: no source"},
		{name: "rpc error", contentType: "application/json", body: `{"jsonrpc":"2.0","id":1,"error":{"code":-32020,"message":"header mismatch"}}`, err: "JSON-RPC error -32020: header mismatch"},
		{name: "not json", contentType: "application/json", body: "busy", err: "answer is not JSON-RPC"},
		{name: "text not a search", contentType: "application/json", body: toolAnswer(t, false, "hello"), err: "search result is not JSON"},
		{name: "empty sse", contentType: "text/event-stream", body: ": ping\n\n", err: "SSE answer without data"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, warning, err := parseAnswer(tc.contentType, []byte(tc.body))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" || warning != tc.warning {
				t.Errorf("sources (-want +got):\n%s\nwarning %q, want %q", diff, warning, tc.warning)
			}
		})
	}
}

func TestRetryAfter(t *testing.T) {
	for v, want := range map[string]bool{"1": true, " 30 ": true, "0": false, "": false, "-2": false, "Wed, 21 Oct 2015 07:28:00 GMT": false} {
		if got := validRetryAfter(v); got != want {
			t.Errorf("validRetryAfter(%q) = %v, want %v", v, got, want)
		}
	}
}

func TestProcAndMetrics(t *testing.T) {
	kib, err := rssKiB(strings.NewReader("Name:\tbraid\nVmPeak:\t  900000 kB\nVmRSS:\t  123456 kB\nThreads:\t7\n"))
	if err != nil || kib != 123456 {
		t.Errorf("rssKiB = %d, %v; want 123456", kib, err)
	}
	if _, err := rssKiB(strings.NewReader("Name:\tzombie\n")); err == nil {
		t.Error("rssKiB of a status without VmRSS: no error")
	}
	text := "# HELP go_goroutines Number of goroutines.\n# TYPE go_goroutines gauge\ngo_goroutines_total 9\ngo_goroutines 42\n"
	if g, err := metricValue(strings.NewReader(text), "go_goroutines"); err != nil || g != 42 {
		t.Errorf("metricValue = %v, %v; want 42", g, err)
	}
	if _, err := metricValue(strings.NewReader("up 1\n"), "go_goroutines"); err == nil {
		t.Error("metricValue of a missing metric: no error")
	}
}

func TestMemory(t *testing.T) {
	// A 40 s phase sampled from 1 s: windows of 10 s; RSS 100 MiB the first, 108 MiB the last.
	var samples []Sample
	for at := 1; at <= 40; at++ {
		rss := 104.0
		switch {
		case at <= 11:
			rss = 100
		case at >= 30:
			rss = 108
		}
		samples = append(samples, Sample{At: float64(at), RSSMiB: rss, Goroutines: 20 + at%3})
	}
	m := memory(samples, 40*time.Second)
	if m.Window != 10 || m.RSSFirst != 100 || m.RSSLast != 108 || !m.Flat || m.RSSMinMiB != 100 || m.RSSMaxMiB != 108 || m.Goroutines != [2]int{20, 22} {
		t.Errorf("memory = %+v, want first 100, last 108, flat, goroutines 20–22", m)
	}
	samples[len(samples)-1].RSSMiB = 300 // the last window's mean: (10*108+192)/11 > 110
	if m := memory(samples, 40*time.Second); m.Flat {
		t.Errorf("memory = %+v: flat, want not (drift %.3f)", m, m.Drift)
	}
	// A soak of 10 minutes compares whole minutes.
	if m := memory([]Sample{{At: 1, RSSMiB: 1}}, 10*time.Minute); m.Window != 60 {
		t.Errorf("window of a 10-minute phase = %v s, want 60", m.Window)
	}
	// Samples that came late (a busy server) still fill the first window.
	late := []Sample{{At: 3.5, RSSMiB: 50}, {At: 5, RSSMiB: 52}, {At: 6.5, RSSMiB: 54}, {At: 8, RSSMiB: 55}}
	if m := memory(late, 8*time.Second); m.RSSFirst != 51 || m.RSSLast != 54.5 || !m.Flat {
		t.Errorf("memory of late samples = %+v, want first 51, last 54.5, flat", m)
	}
}

func TestNewCall(t *testing.T) {
	c := newCall(2, 9, "jj as escape", 0)
	var got struct {
		Method string `json:"method"`
		ID     int    `json:"id"`
		Params struct {
			Name      string         `json:"name"`
			Arguments map[string]any `json:"arguments"`
			Meta      map[string]any `json:"_meta"`
		} `json:"params"`
	}
	if err := json.Unmarshal(c.body, &got); err != nil {
		t.Fatal(err)
	}
	if c.user != 2 || got.Method != "tools/call" || got.ID != 9 || got.Params.Name != "search" ||
		got.Params.Arguments["query"] != "jj as escape" || got.Params.Arguments["vector_weight"] != 0.0 ||
		got.Params.Meta["io.modelcontextprotocol/protocolVersion"] != protocolVersion {
		t.Errorf("newCall = %s", c.body)
	}
}
