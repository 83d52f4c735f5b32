package mcpserver_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/braidsearch/braid"
	"github.com/braidsearch/braid/internal/formattest"
	"github.com/braidsearch/braid/internal/testenv"
	"github.com/braidsearch/braid/mcpserver"
)

// TestViewChunkImage finds an image by the text around its embed and gets
// its bytes back as image content; a PDF chunk gives its page rendered; a
// text chunk is refused with an error naming read and cite.
func TestViewChunkImage(t *testing.T) {
	vault := t.TempDir()
	pngData := formattest.PNG(8, 8)
	testenv.Must(t, os.WriteFile(filepath.Join(vault, "diagram.png"), pngData, 0o644))
	testenv.Must(t, os.WriteFile(filepath.Join(vault, "design.md"), []byte("# Design\n\n## Overview\n\nThe architecture diagram shows the parts.\n\n![[diagram.png]]\n\nPlain words about zebras.\n"), 0o644))
	testenv.Must(t, os.WriteFile(filepath.Join(vault, "paper.pdf"), formattest.Paper(3, map[int]string{2: "Quokkas live on page two."}), 0o644))
	idx := filepath.Join(t.TempDir(), "idx")
	e, err := braid.Open(idx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Index(context.Background(), []braid.SourceSpec{{Path: vault}}, nil); err != nil {
		t.Fatal(err)
	}
	hit := func(q string) braid.Hit {
		r, err := e.Search(context.Background(), q, braid.SearchOptions{Keyword: true})
		if err != nil || len(r.Results) == 0 {
			t.Fatalf("search %q: %v, %v", q, r, err)
		}
		return r.Results[0]
	}
	img, pdf, text := hit("architecture diagram parts"), hit("quokkas"), hit("zebras")
	// What get and read show of an image is the text it was indexed by.
	if c, err := e.Notes().Get(t.Context(), "diagram.png"); err != nil || !strings.Contains(string(c.Data), "architecture diagram") || !bytes.Equal(c.Raw, pngData) {
		t.Errorf("Get(diagram.png) = %v; want its text as Data and the PNG as Raw", err)
	}
	e.Close()
	if img.Path != "diagram.png" || pdf.Path != "paper.pdf#page=2" {
		t.Fatalf("hits %s and %s, want diagram.png and paper.pdf#page=2", img.Path, pdf.Path)
	}
	opt := trusting(t)
	opt.Tools = "ks"
	c := connect(t, mcpserver.New(opener(idx, nil), opt))
	view := func(chunkID string) *mcp.CallToolResult {
		ctx, cancel := context.WithTimeout(context.Background(), testenv.Guard)
		defer cancel()
		var req mcp.CallToolRequest
		req.Params.Name = "view_chunk_image"
		req.Params.Arguments = map[string]any{"chunk_id": chunkID}
		res, err := c.CallTool(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	image := func(res *mcp.CallToolResult) (string, []byte) {
		for _, ct := range res.Content {
			if im, ok := mcp.AsImageContent(ct); ok {
				b, err := base64.StdEncoding.DecodeString(im.Data)
				if err != nil {
					t.Fatal(err)
				}
				return im.MIMEType, b
			}
		}
		t.Fatalf("no image content in %+v", res)
		return "", nil
	}
	if mime, b := image(view(img.ChunkID)); mime != "image/png" || !bytes.Equal(b, pngData) {
		t.Errorf("image chunk: %s, %d bytes; want the PNG file", mime, len(b))
	}
	mime, b := image(view(pdf.ChunkID))
	if mime != "image/png" {
		t.Errorf("PDF chunk: %s, want a PNG", mime)
	}
	if p, err := png.Decode(bytes.NewReader(b)); err != nil || p.Bounds().Dx() < 500 {
		t.Errorf("PDF page render: %v, %v; want an A4 page at 100 dpi", p, err)
	}
	res := view(text.ChunkID)
	var msg strings.Builder
	for _, ct := range res.Content {
		if tc, ok := mcp.AsTextContent(ct); ok {
			msg.WriteString(tc.Text)
		}
	}
	if !res.IsError || !strings.Contains(msg.String(), "read") || !strings.Contains(msg.String(), "cite") {
		t.Errorf("text chunk: error %v %q; want an error naming read and cite", res.IsError, msg.String())
	}
}

// TestReadByPage: read takes a PDF's page (or pages) as hits name them,
// and returns only that text; a note has no pages, and a page
// past the end is refused saying how many there are.
func TestReadByPage(t *testing.T) {
	vault := t.TempDir()
	testenv.Must(t, os.WriteFile(filepath.Join(vault, "paper.pdf"), formattest.Paper(3, map[int]string{2: "Quokkas live on page two."}), 0o644))
	testenv.Must(t, os.WriteFile(filepath.Join(vault, "note.md"), []byte("# Note\n\nNo pages here.\n"), 0o644))
	c := connect(t, mcpserver.New(opener(indexDir(t, vault), nil), trusting(t)))

	page2 := ok(t, c, "read", map[string]any{"id": "paper.pdf", "page": "2"})
	if !strings.Contains(page2, "Quokkas") || strings.Contains(page2, "page 1 of") || strings.Contains(page2, "page 3 of") {
		t.Errorf("read page 2 = %q; want page 2's text alone", page2)
	}
	both := ok(t, c, "read", map[string]any{"id": "paper.pdf", "page": "2-3"})
	if !strings.Contains(both, "Quokkas") || !strings.Contains(both, "page 3 of") || strings.Contains(both, "page 1 of") {
		t.Errorf("read pages 2-3 = %q", both)
	}
	for _, bad := range []map[string]any{{"id": "paper.pdf", "page": "4"}, {"id": "note.md", "page": "1"}, {"id": "paper.pdf", "page": "two"}} {
		r := call(t, c, "read", bad)
		if !r.IsError || !strings.Contains(r.Text, "page") {
			t.Errorf("read %v = %q (error %v); want a refusal naming the page", bad, r.Text, r.IsError)
		}
	}
	if r := call(t, c, "read", map[string]any{"id": "paper.pdf", "page": "4"}); !strings.Contains(r.Text, "3 pages") {
		t.Errorf("read page 4 of 3: %q; want it to say the paper has 3 pages", r.Text)
	}
}
