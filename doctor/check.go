package doctor

import "fmt"

// Check is one finding of a health check.
type Check struct {
	Name   string `json:"name"`
	OK     bool   `json:"ok"`
	Detail string `json:"detail"`
	// Warning marks a finding that does not make the index unhealthy but
	// limits it, such as no embedding model: search is BM25 only.
	Warning bool `json:"warning,omitempty"`
	// Latency is the reranker latency check's measurement (RerankLatency).
	Latency *Latency `json:"latency,omitempty"`
}

// String is the finding on one line: "ok", "warn" or "FAIL", its name and
// what it found.
func (c Check) String() string {
	mark := "ok  "
	switch {
	case !c.OK:
		mark = "FAIL"
	case c.Warning:
		mark = "warn"
	}
	return fmt.Sprintf("%s %-8s %s", mark, c.Name, c.Detail)
}
