// Package mcpserver is braid's Model Context Protocol server: the tools an
// agent uses to search, grep and read an index, walk its link graph, add
// and remove sources, tag notes, and page through long outputs, served
// over stdio with mcp-go (behind package stdio's line filter).
//
// Every tool is a thin adapter over one engine call: it decodes and checks
// its arguments (unknown names are refused), waits for the engine, calls
// it and renders the answer as JSON or, for grep, read_node_content and
// list_directory_structure, plain text. A failure an agent can act on (a bad argument, an unknown id,
// a missing file, an invalid regular expression) is a tool result with
// isError set whose text names the tool, the argument and the fix; only
// protocol faults are JSON-RPC errors.
//
//	srv := mcpserver.New(func() (*braid.Engine, func(), error) {
//		e, err := braid.Open(".braid", nil)
//		if err != nil {
//			return nil, nil, err
//		}
//		return e, func() { e.Close() }, nil
//	}, nil)
//	err := srv.Serve(ctx, os.Stdin, os.Stdout)
//
// Outputs longer than Options.MaxOutput are cut; the whole text goes to a
// scratchpad (package scratchpad, an LRU of the session's long outputs) and the reply ends
// with the id and offset to read on from with scratchpad_read. A search
// answer is cut at a whole result, so it stays valid JSON.
//
// Server's documentation says how the engine is locked and how models
// load without delaying initialize.
//
// Prompts (prompts/list, prompts/get) come from package prompts: the
// built-ins and the PROMPT-*.md files of Options.Prompts, read again on
// every request and never waiting for the engine. A prompt's bad or
// missing argument, or an unknown name, is a JSON-RPC error (mcp-go gives
// it code -32603) whose message names the fix. A few tools are aliases
// under the names other knowledge-base servers use (search_documents,
// search_knowledge, read, get_current_datetime, status, graph; see
// alias_tools.go and seed_tools.go).
//
// Options.Tools picks a tool profile (package profile): core by default, all,
// one per seed system (amalfa, yams, ks, alloy) offering exactly its tool
// names, or a list. tools/list offers only those; a call of another braid
// tool is a JSON-RPC error (-32600) naming the profile and how to widen it.
//
// Caveats: mcp-go's stdio transport keeps its session in a package
// variable, so one process serves one stdio session at a time. Serve
// writes only protocol messages to its output; logs go to Options.Log.
// When its input ends, Serve cancels the calls still running (as mcp-go
// does): a client reads its answers before it closes stdin.
package mcpserver
