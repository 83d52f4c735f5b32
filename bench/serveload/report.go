package serveload

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
)

// Targets are issue 46's: BM25-only at least 300 searches a second at a
// p99 of 50 ms or less with 16 clients; RSS within 10% over the soak.
const (
	TargetPerSecond = 300
	TargetP99MS     = 50
)

// Markdown writes the report as markdown tables.
func (r *Report) Markdown(w io.Writer) {
	fmt.Fprintf(w, "server: `%s`\n\n", r.Command)
	var src []string
	for _, n := range slices.Sorted(maps.Keys(r.Sources)) {
		src = append(src, fmt.Sprintf("%s %d docs", n, r.Sources[n]))
	}
	fmt.Fprintf(w, "sources: %s; %s\n\n", strings.Join(src, ", "), r.Pinned)
	fmt.Fprintf(w, "| search | clients | searches/s | p50 ms | p95 ms | p99 ms | errors | 429/503 | RSS MiB min–max | RSS first→last | goroutines |\n")
	fmt.Fprintf(w, "|---|---:|---:|---:|---:|---:|---:|---:|---|---|---|\n")
	for _, m := range r.Modes {
		if m.Skipped != "" {
			fmt.Fprintf(w, "| %s | skipped: %s ||||||||||\n", m.Name, m.Skipped)
			continue
		}
		l, mem := m.Load, m.Memory
		fmt.Fprintf(w, "| %s (weight %g) | %d | %.0f | %.1f | %.1f | %.1f | %d of %d | %d | %.0f–%.0f | %.0f→%.0f (%+.1f%%, %s) | %d–%d |\n",
			m.Name, m.VectorWeight, r.Clients, l.PerSecond, l.P50, l.P95, l.P99, l.Errors, l.Requests, l.Refused429+l.Refused503,
			mem.RSSMinMiB, mem.RSSMaxMiB, mem.RSSFirst, mem.RSSLast, 100*mem.Drift, flat(mem), mem.Goroutines[0], mem.Goroutines[1])
	}
	for _, m := range r.Modes {
		if p := m.Paced; m.PacedRate > 0 {
			fmt.Fprintf(w, "\n%s at a steady %.0f a second from %d clients (latency from each send's due time): %d sent, %d answered 200, %d refused, %d errors; p50 %.1f ms, p95 %.1f ms, p99 %.1f ms, max %.1f ms\n",
				m.Name, m.PacedRate, r.Clients, p.Requests, p.OK, p.Refused429+p.Refused503, p.Errors, p.P50, p.P95, p.P99, p.Max)
		}
	}
	fmt.Fprintf(w, "\n| search at 2× | server limits | offered/s | sent | answered 200 | 429 | 503 | with Retry-After | errors | p99 of the 200s ms | generator short |\n")
	fmt.Fprintf(w, "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, m := range r.Modes {
		if m.Skipped != "" || m.OverloadRate == 0 {
			continue
		}
		for i, o := range []Stats{m.Overload, m.RateLimited, m.Lagged} {
			limits := "--max-inflight only"
			switch i {
			case 1:
				limits = fmt.Sprintf("--rate %g (×%d users)", m.RatePerUser, len(users))
			case 2:
				limits = fmt.Sprintf("--max-lag %v", MaxLag)
			}
			fmt.Fprintf(w, "| %s | %s | %.0f | %d | %d | %d | %d | %d of %d | %d | %.1f | %d |\n",
				m.Name, limits, m.OverloadRate, o.Requests, o.OK, o.Refused429, o.Refused503, o.RetryAfter, o.Refused429+o.Refused503, o.Errors, o.P99, m.Dropped[i])
		}
	}
	c := r.Correctness
	fmt.Fprintf(w, "\ncorrectness: %d mixed calls of %d users (%d hybrid): %d errors, %d cross-user hits, %d refusals waited out and sent again; hits by user:", c.Calls, len(users), c.Hybrid, c.Errors, c.CrossUser, c.Retried)
	for _, u := range users {
		fmt.Fprintf(w, " %s %d", u.name, c.Hits[u.name])
	}
	fmt.Fprintln(w)
	for _, m := range r.Modes {
		if m.Load.FirstError != "" {
			fmt.Fprintf(w, "\n%s: first error: %s\n", m.Name, m.Load.FirstError)
		}
	}
	if c.First != "" {
		fmt.Fprintf(w, "\ncorrectness: first error: %s\n", c.First)
	}
	fmt.Fprintf(w, "\n%s\n", strings.Join(r.Verdicts(), "; "))
}

// Verdicts say, for each of the targets, whether this run met it.
func (r *Report) Verdicts() []string {
	var v []string
	for _, m := range r.Modes {
		if m.Name == "bm25" && m.Skipped == "" {
			met := m.Load.PerSecond >= TargetPerSecond && m.Load.P99 <= TargetP99MS && m.Load.Errors+m.Load.Refused429+m.Load.Refused503 == 0
			v = append(v, fmt.Sprintf("BM25 closed loop ≥ %d/s at p99 ≤ %d ms, no errors: %s", TargetPerSecond, TargetP99MS, yes(met)))
			if p := m.Paced; m.PacedRate > 0 {
				met := p.Requests > 0 && p.P99 <= TargetP99MS && p.Errors+p.Refused429+p.Refused503 == 0
				v = append(v, fmt.Sprintf("BM25 at a steady %d/s, p99 ≤ %d ms, none refused or failed: %s", TargetPerSecond, TargetP99MS, yes(met)))
			}
		}
		if m.Skipped == "" {
			v = append(v, fmt.Sprintf("%s RSS flat (±10%%): %s", m.Name, yes(m.Memory.Flat)))
		}
	}
	c := r.Correctness
	v = append(v, fmt.Sprintf("%d mixed calls, no errors, no cross-user hits: %s", c.Calls, yes(c.Calls > 0 && c.Errors == 0 && c.CrossUser == 0)))
	return v
}

func yes(ok bool) string {
	if ok {
		return "met"
	}
	return "NOT met"
}

func flat(m Memory) string {
	if m.Flat {
		return "flat"
	}
	return "not flat"
}
