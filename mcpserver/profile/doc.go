// Package profile names the tool profiles of braid's MCP server: a profile
// is the set of tools a server offers (mcpserver.Options.Tools, braid
// serve --tools). Every tool listed costs an agent context on every turn,
// so the default, core, offers the everyday few. A seed profile offers
// exactly the tool names of one system braid was designed from, so a
// client written for that system works unchanged; where braid has the
// seed's tool under another name it is offered under the seed's name (an
// alias, mcpserver's alias_tools.go and seed_tools.go), with the seed's
// argument names where they differ (Set.Args).
//
// Seed tools braid cannot provide are left out, not faked (and listed,
// with why, in mcpserver/testdata/seed_tools.json, which the tests check tools/list
// against):
//   - amalfa (github.com/pjsvis/amalfa, src/mcp/index.ts and docs/MCP-TOOLS.md): none.
//   - yams (github.com/trvon/yams, src/mcp/mcp_server.cpp before its
//     February 2026 "code mode" folded the tools into query, execute and
//     session; docs/api/mcp_tools.md): mcp.echo (a protocol test). Its
//     sessions are mcpserver's session_tools.go.
//   - ks (github.com/knowledgestack/ks-mcp, src/ks_mcp/tools/): none.
//   - alloy (github.com/periplon/alloy v0.2.0, src/mcp/server.rs, the
//     version braid was designed from; later versions added dozens of
//     tools for backups, ACLs, webhooks and GTD): none; configure is named
//     for when braid has it.
package profile
