// Package remote serves a braid MCP server (mcpserver.Server) to many
// users over MCP's Streamable HTTP transport: `braid serve --http`.
//
// One endpoint, /mcp, answers POST requests with JSON or a per-request SSE
// stream, for both protocol eras at once (mcp-go decides per request):
// 2026-07-28 clients are stateless (server/discover; the Mcp-Method and
// Mcp-Name headers must match the body, else 400; GET and DELETE are 405),
// and 2025-11-25 clients keep their initialize handshake and session id.
// A session id is bound to the signed-in user and signed with
// Options.SessionKey, so any server holding the key accepts it for that
// user alone (another user's id is answered 404, as an unknown session);
// no session store is shared and a load balancer needs no stickiness.
// For the same reason no server can end a session: a DELETE is 405, as the
// transport allows a server that does not let clients end sessions.
// There is no standalone GET stream (405): it would tie a client to one
// server. Every user shares the one engine the mcpserver.Server holds.
//
// Around /mcp, in order: the Origin check (a present Origin that is not
// the public URL's or an allowed one is 403; none is fine), sign-in
// (auth.Middleware: 401 with WWW-Authenticate naming the RFC 9728
// metadata, 403 for a missing scope), the user's rate (429 with
// Retry-After), a free slot among MaxInFlight (503 with Retry-After,
// never a queue), the body bound (413), and a deadline on the request.
// The signed-in auth.Principal reaches the tools in their context
// (auth.From). /healthz needs no sign-in and says 200 only once the index
// is open; /metrics is Prometheus text behind the same sign-in as /mcp;
// /.well-known/oauth-protected-resource is the metadata. A tool middleware
// counts and times every call and writes the audit log (Entry).
//
// Serve never sets a write timeout (it would cut SSE streams): a header
// read timeout, a body read timeout and the per-request deadline bound a
// slow client instead. Shutdown stops accepting, drains the requests under
// way within Options.Drain, then closes the engine.
//
//	srv := mcpserver.New(open, &mcpserver.Options{Log: os.Stderr})
//	rs, err := remote.New(srv, &remote.Options{
//		PublicURL:      "https://braid.example.com",
//		Authenticators: []auth.Authenticator{tokens},
//		Log:            os.Stderr,
//	})
//	if err != nil { ... }
//	ln, _ := net.Listen("tcp", ":8080")
//	err = rs.Serve(ctx, ln) // until ctx ends
//
// Caveats: a session id cannot be revoked (revoke the user's token: every
// request is signed in on its own); the rate limit and the slots are per
// process, so N servers behind a balancer allow N times as much.
package remote
