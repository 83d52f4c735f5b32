// Package scratchpad keeps the full text of the MCP server's tool outputs
// too long for one reply, for the session to read page by page
// (scratchpad_read): a bounded LRU of entries, safe for concurrent use.
package scratchpad
