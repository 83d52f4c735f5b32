package mcpserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/braidsearch/braid"
	"github.com/braidsearch/braid/mcpserver"
)

// A server over a pair of pipes, as braid serve runs over stdin and
// stdout, and an mcp-go client that indexes a folder and searches it.
func Example() {
	notes, _ := os.MkdirTemp("", "notes")
	defer os.RemoveAll(notes)
	os.WriteFile(filepath.Join(notes, "Tea.md"), []byte("# Tea\n\nGreen tea is steeped at 80 degrees.\n"), 0o644)
	os.WriteFile(filepath.Join(notes, "Coffee.md"), []byte("# Coffee\n\nEspresso is brewed under pressure.\n"), 0o644)

	srv := mcpserver.New(func() (*braid.Engine, func(), error) {
		e, err := braid.Open(filepath.Join(notes, ".braid"), nil)
		if err != nil {
			return nil, nil, err
		}
		return e, func() { e.Close() }, nil
	}, &mcpserver.Options{Allow: []string{notes}, Tools: "core,index_path"}) // the core tools and index_path, for paths under notes
	toServer, fromClient := io.Pipe()
	toClient, fromServer := io.Pipe()
	done := make(chan error)
	go func() {
		done <- srv.Serve(context.Background(), toServer, fromServer)
		fromServer.Close()
	}()

	ctx := context.Background()
	c := client.NewClient(transport.NewIO(toClient, fromClient, io.NopCloser(strings.NewReader(""))))
	c.Start(ctx)
	var init mcp.InitializeRequest
	init.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
	c.Initialize(ctx, init)
	callTool := func(name string, args map[string]any) string {
		var req mcp.CallToolRequest
		req.Params.Name, req.Params.Arguments = name, args
		res, err := c.CallTool(ctx, req)
		if err != nil {
			return err.Error()
		}
		return res.Content[0].(mcp.TextContent).Text
	}
	callTool("index_path", map[string]any{"path": notes})
	var found struct {
		Results []struct{ Path, Title, Source, Snippet string }
	}
	json.Unmarshal([]byte(callTool("search_keyword", map[string]any{"query": "green tea", "limit": 1})), &found)
	h := found.Results[0]
	fmt.Printf("%s (%s, %s): %s\n", h.Title, h.Path, h.Source, h.Snippet)
	fmt.Println(callTool("search", map[string]any{"query": "tea", "vector_weight": 2}))
	c.Close()
	<-done
	// Output:
	// Tea (Tea.md, lexical): # Tea  Green tea is steeped at 80 degrees.
	// search: invalid option: vector_weight "2" is out of range; want a number from 0 (keywords only) to 1 (meaning only)
}
