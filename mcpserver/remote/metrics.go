package remote

import (
	"context"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/braidsearch/braid"
	"github.com/braidsearch/braid/mcpserver"
)

// metrics are what /metrics shows, in a registry of the server's own (two
// servers in one process do not share counters).
type metrics struct {
	reg      *prometheus.Registry
	calls    *prometheus.CounterVec   // tool calls by tool and status
	latency  *prometheus.HistogramVec // tool call seconds by tool
	inFlight prometheus.Gauge         // HTTP requests on /mcp being answered
	rejected *prometheus.CounterVec   // /mcp requests refused, by reason
}

// Rejection reasons, the rejected counter's reason label.
const (
	rejectOrigin = "origin"
	rejectAuth   = "sign_in"
	rejectRate   = "rate"
	rejectBusy   = "busy"
	rejectLag    = "lag"
	rejectBody   = "body"
)

func newMetrics(srv *mcpserver.Server) *metrics {
	m := &metrics{
		reg: prometheus.NewRegistry(),
		calls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "braid_tool_calls_total",
			Help: "MCP tool calls answered, by tool and status (ok, error: a tool error result, failed: a protocol error).",
		}, []string{"tool", "status"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "braid_tool_call_seconds",
			Help:    "How long MCP tool calls took, by tool.",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60},
		}, []string{"tool"}),
		inFlight: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "braid_http_in_flight",
			Help: "MCP HTTP requests being answered now.",
		}),
		rejected: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "braid_http_rejected_total",
			Help: "MCP HTTP requests refused before reaching a tool, by reason (origin, sign_in, rate, busy, lag, body).",
		}, []string{"reason"}),
	}
	for _, r := range []string{rejectOrigin, rejectAuth, rejectRate, rejectBusy, rejectLag, rejectBody} {
		m.rejected.WithLabelValues(r) // every reason shows, at 0
	}
	m.reg.MustRegister(m.calls, m.latency, m.inFlight, m.rejected, &indexSize{srv: srv},
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// indexSize reports the open index's documents, chunks and bytes;
// nothing while the index is still opening. Counting walks every document
// record (seconds at a million), so a count is kept for sizeTTL and
// scrapes within it read that.
type indexSize struct {
	srv *mcpserver.Server
	mu  sync.Mutex
	at  time.Time // when st was counted
	st  *braid.Stats
}

// sizeTTL is how long a count of the index's size serves scrapes.
const sizeTTL = 15 * time.Second

var (
	docsDesc   = prometheus.NewDesc("braid_index_documents", "Documents in the index.", nil, nil)
	chunksDesc = prometheus.NewDesc("braid_index_chunks", "Chunks in the index.", nil, nil)
	bytesDesc  = prometheus.NewDesc("braid_index_content_bytes", "Bytes of indexed content.", nil, nil)
)

func (c *indexSize) Describe(ch chan<- *prometheus.Desc) {
	ch <- docsDesc
	ch <- chunksDesc
	ch <- bytesDesc
}

func (c *indexSize) Collect(ch chan<- prometheus.Metric) {
	if !c.srv.Ready() {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.st == nil || time.Since(c.at) >= sizeTTL {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		e, release, err := c.srv.Lend(ctx, false)
		if err != nil {
			return
		}
		st, err := e.Stats(ctx)
		release()
		if err != nil {
			return
		}
		c.st, c.at = st, time.Now()
	}
	st := c.st
	ch <- prometheus.MustNewConstMetric(docsDesc, prometheus.GaugeValue, float64(st.Documents))
	ch <- prometheus.MustNewConstMetric(chunksDesc, prometheus.GaugeValue, float64(st.Chunks))
	ch <- prometheus.MustNewConstMetric(bytesDesc, prometheus.GaugeValue, float64(st.Bytes))
}
