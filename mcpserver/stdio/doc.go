// Package stdio carries MCP's JSON-RPC messages over a process's standard
// input and output, one message a line, for braid serve: Listen runs
// mcp-go's stdio server behind a filter that answers the lines mcp-go
// should not see (not JSON, batches, ids it would not echo as sent, lines
// over a bound) and passes the rest on unchanged.
package stdio
