package serveload

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"mime"
	"slices"
	"strconv"
	"strings"
	"time"
)

// outcome is one request's fate.
type outcome struct {
	status     int           // HTTP status; 0 when no answer came
	latency    time.Duration // from sending to the whole answer read
	retryAfter bool          // a 429 or 503 carried a valid Retry-After
	wait       time.Duration // that Retry-After
	err        error         // anything but a good answer (a refusal counted apart)
	hits       []string      // the source ids of the answer's hits
	warning    string        // the search's warning
}

// Stats aggregate a phase's requests.
type Stats struct {
	Requests   int     `json:"requests"`
	Seconds    float64 `json:"seconds"`
	PerSecond  float64 `json:"per_second"` // requests answered 200, per second
	OK         int     `json:"ok"`
	Errors     int     `json:"errors"`      // failures that are not a 429 or 503 refusal
	Refused429 int     `json:"refused_429"` // rate limit
	Refused503 int     `json:"refused_503"` // busy
	// RetryAfter is how many of the refusals carried a valid Retry-After.
	RetryAfter int `json:"retry_after"`
	// Percentiles of the requests answered 200, in milliseconds.
	P50 float64 `json:"p50_ms"`
	P95 float64 `json:"p95_ms"`
	P99 float64 `json:"p99_ms"`
	Max float64 `json:"max_ms"`
	// FirstError is one error, to say what failed.
	FirstError string `json:"first_error,omitempty"`
}

// RefusedShare is the share of the requests refused 429 or 503.
func (s Stats) RefusedShare() float64 {
	if s.Requests == 0 {
		return 0
	}
	return float64(s.Refused429+s.Refused503) / float64(s.Requests)
}

// aggregate sums outcomes over a phase that lasted d.
func aggregate(outs []outcome, d time.Duration) Stats {
	s := Stats{Requests: len(outs), Seconds: d.Seconds()}
	var lat []time.Duration
	for _, o := range outs {
		switch {
		case o.err == nil:
			s.OK++
			lat = append(lat, o.latency)
		case o.status == 429 || o.status == 503:
			if o.status == 429 {
				s.Refused429++
			} else {
				s.Refused503++
			}
			if o.retryAfter {
				s.RetryAfter++
			}
		default:
			s.Errors++
			if s.FirstError == "" {
				s.FirstError = o.err.Error()
			}
		}
	}
	if d > 0 {
		s.PerSecond = float64(s.OK) / d.Seconds()
	}
	slices.Sort(lat)
	s.P50, s.P95, s.P99 = ms(percentile(lat, 50)), ms(percentile(lat, 95)), ms(percentile(lat, 99))
	if len(lat) > 0 {
		s.Max = ms(lat[len(lat)-1])
	}
	return s
}

// percentile is the nearest-rank p-th percentile of sorted; 0 of none.
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(math.Ceil(p/100*float64(len(sorted)))) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

func ms(d time.Duration) float64 { return math.Round(float64(d.Microseconds())/10) / 100 }

// errRefused marks a 429 or 503 refusal: the limits at work, not a fault.
var errRefused = errors.New("refused")

// validRetryAfter says whether v is a Retry-After of whole seconds, 1 or more.
func validRetryAfter(v string) bool {
	n, err := strconv.Atoi(strings.TrimSpace(v))
	return err == nil && n >= 1
}

// searchAnswer is what the search tool's answer holds that the harness
// checks.
type searchAnswer struct {
	Results []struct {
		SourceID string `json:"source_id"`
	} `json:"results"`
	Warning string `json:"warning"`
}

// parseAnswer reads a tools/call answer, JSON or an SSE stream (by its
// Content-Type), and returns the source ids of its hits and its warning.
// A JSON-RPC error, a tool error or an answer that is not the search
// tool's is an error.
func parseAnswer(contentType string, body []byte) (sources []string, warning string, err error) {
	mt, _, _ := mime.ParseMediaType(contentType)
	msg := body
	if mt == "text/event-stream" {
		if msg, err = lastEvent(body); err != nil {
			return nil, "", err
		}
	}
	var rpc struct {
		Result *struct {
			IsError bool `json:"isError"`
			Content []struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"content"`
		} `json:"result"`
		Error *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(msg, &rpc); err != nil {
		return nil, "", fmt.Errorf("answer is not JSON-RPC: %w: %.200s", err, msg)
	}
	if rpc.Error != nil {
		return nil, "", fmt.Errorf("JSON-RPC error %d: %s", rpc.Error.Code, rpc.Error.Message)
	}
	if rpc.Result == nil || len(rpc.Result.Content) == 0 {
		return nil, "", fmt.Errorf("answer without a result: %.200s", msg)
	}
	text := rpc.Result.Content[0].Text
	if rpc.Result.IsError {
		return nil, "", fmt.Errorf("tool error: %.200s", text)
	}
	var a searchAnswer
	if err := json.Unmarshal([]byte(text), &a); err != nil {
		return nil, "", fmt.Errorf("search result is not JSON: %w: %.200s", err, text)
	}
	sources = make([]string, len(a.Results))
	for i, h := range a.Results {
		sources[i] = h.SourceID
	}
	return sources, a.Warning, nil
}

// lastEvent returns the data of an SSE stream's last event: the answer
// (notifications, if any, come before it).
func lastEvent(body []byte) ([]byte, error) {
	var last, cur []byte
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(nil, len(body)+1)
	for sc.Scan() {
		line := sc.Bytes()
		switch {
		case len(line) == 0:
			if cur != nil {
				last, cur = cur, nil
			}
		case bytes.HasPrefix(line, []byte("data:")):
			d := bytes.TrimPrefix(bytes.TrimPrefix(line, []byte("data:")), []byte(" "))
			if cur != nil {
				cur = append(cur, '\n')
			}
			cur = append(cur, d...)
		}
	}
	if cur != nil {
		last = cur
	}
	if last == nil {
		return nil, fmt.Errorf("SSE answer without data: %.200s", body)
	}
	return last, nil
}

// rssKiB reads VmRSS from a /proc/PID/status file.
func rssKiB(status io.Reader) (int64, error) {
	sc := bufio.NewScanner(status)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			f := strings.Fields(v)
			if len(f) == 0 {
				break
			}
			return strconv.ParseInt(f[0], 10, 64)
		}
	}
	return 0, errors.New("no VmRSS line")
}

// metricValue reads an unlabelled gauge (go_goroutines) from Prometheus
// text.
func metricValue(text io.Reader, name string) (float64, error) {
	sc := bufio.NewScanner(text)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) >= 2 && f[0] == name {
			return strconv.ParseFloat(f[1], 64)
		}
	}
	return 0, fmt.Errorf("no %s in /metrics", name)
}

// Sample is the server's memory and goroutines at one moment of a phase.
type Sample struct {
	At         float64 `json:"at_s"` // seconds since the phase began
	RSSMiB     float64 `json:"rss_mib"`
	Goroutines int     `json:"goroutines"`
}

// Memory sums a phase's samples.
type Memory struct {
	Samples    int     `json:"samples"`
	RSSMinMiB  float64 `json:"rss_min_mib"`
	RSSMaxMiB  float64 `json:"rss_max_mib"`
	Goroutines [2]int  `json:"goroutines"` // min, max
	// RSSFirst and RSSLast are the mean RSS over the first and the last
	// Window of the samples (a minute, or a quarter of a shorter phase).
	Window   float64 `json:"window_s"`
	RSSFirst float64 `json:"rss_first_mib"`
	RSSLast  float64 `json:"rss_last_mib"`
	// Drift is RSSLast / RSSFirst - 1; Flat says |Drift| <= 10%.
	Drift float64 `json:"drift"`
	Flat  bool    `json:"flat"`
}

// memory sums samples over a phase of length d.
func memory(samples []Sample, d time.Duration) Memory {
	m := Memory{Samples: len(samples), Window: min(60, d.Seconds()/4)}
	if len(samples) == 0 {
		return m
	}
	m.RSSMinMiB, m.Goroutines[0] = math.Inf(1), math.MaxInt
	// The windows start at the first sample and end at the last (a sample
	// can come late from a busy server).
	var first, last []float64
	start, end := samples[0].At, samples[len(samples)-1].At
	for _, s := range samples {
		m.RSSMinMiB, m.RSSMaxMiB = min(m.RSSMinMiB, s.RSSMiB), max(m.RSSMaxMiB, s.RSSMiB)
		m.Goroutines = [2]int{min(m.Goroutines[0], s.Goroutines), max(m.Goroutines[1], s.Goroutines)}
		if s.At <= start+m.Window {
			first = append(first, s.RSSMiB)
		}
		if s.At >= end-m.Window {
			last = append(last, s.RSSMiB)
		}
	}
	m.RSSFirst, m.RSSLast = mean(first), mean(last)
	if m.RSSFirst > 0 && len(last) > 0 {
		m.Drift = m.RSSLast/m.RSSFirst - 1
		m.Flat = math.Abs(m.Drift) <= 0.10
	}
	return m
}

func mean(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	t := 0.0
	for _, x := range xs {
		t += x
	}
	return t / float64(len(xs))
}
