// Package serveload is the load and soak harness of braid serve --http
// (make bench-serve, tools/servebench): it is a benchmark, never run by
// go test.
//
// Run indexes the two shared markdown vaults (silverbullet and dendron)
// with the braid binary it is given, adds four users to a token file and
// grants each different sources, then starts
//
//	taskset -c 1 braid --index DIR serve --http 127.0.0.1:0 --auth-tokens FILE --policy FILE
//
// as a separate process and drives it, from this process pinned to
// another core, with MCP tools/call search requests over Streamable HTTP
// in the stateless 2026-07-28 form (one POST each, with the
// Mcp-Protocol-Version, Mcp-Method and Mcp-Name headers and the _meta the
// body must carry). For BM25-only search (vector_weight 0) and hybrid
// search (vector_weight 0.5, when the server has its embedding model) it
// measures, with Clients closed-loop clients over Duration: throughput,
// latency percentiles, errors, and the server's RSS (/proc) and
// goroutines (/metrics) sampled each second; for BM25, the target
// rate (300 a second) sent steadily by the same clients, each latency
// counted from when its send was due; then, open-loop at twice the
// throughput it found, against three servers (--max-inflight alone, the
// users' --rate adding up to that throughput, --max-lag 50ms), the share
// of requests refused 429 or 503 (and with Retry-After) and the latency
// of the accepted ones. Last comes the
// correctness pass: Calls searches of the four users, mixed, where any
// error or any hit from a source outside its user's grants counts.
//
// The load generator is its own, small one rather than a library such as
// vegeta: every answer is read whole (its hits' sources are checked in the
// correctness pass, its Retry-After in the overload), and percentiles are
// exact, from every latency kept.
//
// Caveats: the figures are those of the machine and the moment; on a
// shared machine, other processes take time from both cores. Pinning needs
// Linux and two or more CPUs; without them the run is unpinned and the
// report says so.
package serveload
