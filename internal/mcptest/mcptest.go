// Package mcptest connects mcp-go's Streamable HTTP client to a braid
// serve --http in the tests, as a signed-in user.
package mcptest

import (
	"context"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/braidsearch/braid/internal/testenv"
)

// Dial connects to url's /mcp (url is http://host:port) with token as the
// bearer and initializes the client; legacy keeps it on the 2025-11-25
// handshake (a session), else it speaks 2026-07-28 (stateless). It
// returns the transport too, for its session id.
func Dial(url, token string, legacy bool) (*client.Client, *transport.StreamableHTTP, error) {
	tr, err := transport.NewStreamableHTTP(url+"/mcp", transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + token}))
	if err != nil {
		return nil, nil, err
	}
	var opts []client.ClientOption
	if legacy {
		opts = append(opts, client.WithProtocolVersion(mcp.LATEST_LEGACY_PROTOCOL_VERSION))
	}
	c := client.NewClient(tr, opts...)
	ctx, cancel := context.WithTimeout(context.Background(), testenv.Guard)
	defer cancel()
	if err := c.Start(ctx); err != nil {
		return nil, nil, err
	}
	var init mcp.InitializeRequest
	init.Params.ClientInfo = mcp.Implementation{Name: "braid-test", Version: "1"}
	if legacy {
		init.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
	}
	if _, err := c.Initialize(ctx, init); err != nil {
		c.Close()
		return nil, nil, err
	}
	return c, tr, nil
}
