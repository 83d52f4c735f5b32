package ingest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/braidsearch/braid/chunk"
	"github.com/braidsearch/braid/extract"
	"github.com/braidsearch/braid/index"
	"github.com/braidsearch/braid/markdown"
)

// parse turns a document's content into a document and its chunks.
func (ix *Indexer) parse(ctx context.Context, src *index.Source, f file, data []byte, hash string, mod time.Time) (p prepared) {
	p.f = f
	defer func() {
		if r := recover(); r != nil {
			p.doc, p.err = nil, fmt.Errorf("internal error while parsing (please report): %v", r)
		}
	}()
	p.f.size = int64(len(data))
	if format := extract.Format(f.rel); format != "" {
		return ix.parseExtracted(ctx, src, f, format, data, hash, mod)
	}
	switch {
	case bytes.IndexByte(data[:min(len(data), 8000)], 0) >= 0:
		p.skip = "binary"
		return p
	case !utf8.Valid(data):
		p.skip = "not_utf8"
		return p
	}
	d := document(src, f.rel, "", hash, int64(len(data)), bytes.Count(data, []byte{'\n'})+1, mod)
	var pieces []chunk.Chunk
	if isMarkdown(f.rel) {
		md := markdown.Parse(filepath.Base(f.rel), data)
		d.Kind = index.KindMarkdown
		d.Frontmatter = md.Frontmatter
		d.Aliases = md.Aliases
		fill(d, md)
		p.capped = capped(md)
		p.warnings = md.Warnings
		pieces = chunk.Markdown(data, md, chunkOptions(src))
	} else {
		d.Kind = index.KindText
		d.Title = filepath.Base(f.rel)
		pieces = chunk.Text(data, chunkOptions(src))
	}
	if err := checkChunks(src, len(pieces)); err != nil {
		p.skip, p.err = "too_many_chunks", err
		return p
	}
	p.doc = d
	p.chunks = toChunks(d, pieces)
	return p
}

// unextracted reports whether the indexed document of e, a file of a format
// package extract reads, was indexed before braid extracted that format
// (an HTML file as plain text, say): its content is unchanged, and it is
// parsed again all the same. A Remote target's documents are not checked.
func (ix *Indexer) unextracted(e index.Entry, rel string) bool {
	if ix.Remote != nil || extract.Format(rel) == "" {
		return false
	}
	d, err := ix.Store.Doc(e.DocID)
	return err == nil && d != nil && !d.Kind.Extracted()
}

// parseExtracted turns a PDF, HTML, DOCX or ODT file into a document
// through package extract: its markdown is parsed and chunked as a note's,
// and a paged document's chunks are cut at page ends, each naming its page.
// A file extract refuses is skipped with the reason (p.skip) and why (p.err).
func (ix *Indexer) parseExtracted(ctx context.Context, src *index.Source, f file, format string, data []byte, hash string, mod time.Time) (p prepared) {
	p.f = f
	p.f.size = int64(len(data))
	x, err := extract.File(ctx, f.rel, data, ix.Extract)
	if err != nil {
		p.err = err
		switch {
		case errors.Is(err, extract.ErrEncrypted):
			p.skip = "encrypted"
		case errors.Is(err, extract.ErrNoText):
			p.skip = "no_text_layer"
		case errors.Is(err, extract.ErrDamaged):
			p.skip = "damaged"
		case errors.Is(err, extract.ErrOverLimit):
			p.skip = "over_limit"
		}
		return p
	}
	d := document(src, f.rel, index.DocKind(format), hash, int64(len(data)), bytes.Count(x.Text, []byte{'\n'})+1, mod)
	d.Pages = x.Pages
	md := markdown.Parse(filepath.Base(f.rel), x.Text)
	fill(d, md)
	if x.Title != "" {
		d.Title = x.Title
	}
	p.capped = capped(md)
	pieces := chunk.Markdown(x.Text, md, chunkOptions(src))
	if len(x.Pages) > 0 {
		pieces = byPage(pieces, x.Pages)
	}
	if err := checkChunks(src, len(pieces)); err != nil {
		p.skip, p.err = "too_many_chunks", err
		return p
	}
	p.doc = d
	p.chunks = toChunks(d, pieces)
	for i := range p.chunks {
		p.chunks[i].Page = d.Page(p.chunks[i].StartLine)
	}
	return p
}

// document is the record of the document of the file at rel, indexed
// now, before its title, links and chunks are known.
func document(src *index.Source, rel string, kind index.DocKind, hash string, size int64, lines int, mod time.Time) *index.Document {
	return &index.Document{ID: index.DocID(src.ID, rel), SourceID: src.ID, Path: rel, Kind: kind, Hash: hash,
		Size: size, IndexedAt: time.Now().UTC(), Lines: lines, ModTime: mod}
}

// fill gives d the title, tags, headings and links markdown found.
func fill(d *index.Document, md *markdown.Doc) {
	d.Title = md.Title
	d.Tags = md.Tags
	for _, h := range md.Headings {
		d.Headings = append(d.Headings, index.Heading{Level: h.Level, Text: h.Text, Line: h.Line})
	}
	for _, l := range md.Links {
		d.Links = append(d.Links, index.Link{Kind: string(l.Kind), Target: l.Target, Alt: l.Alt, Heading: l.Heading, Text: l.Text, Key: l.Key, Line: l.Line})
	}
}

// byPage cuts the chunks that cross a page start (pages: the line each
// page starts on) at it, so that no chunk spans two pages.
func byPage(pieces []chunk.Chunk, pages []int) []chunk.Chunk {
	var out []chunk.Chunk
	for _, c := range pieces {
		lines := strings.Split(c.Text, "\n")
		if extract.PageOf(pages, c.StartLine) == extract.PageOf(pages, c.EndLine) || len(lines) > c.EndLine-c.StartLine+1 {
			out = append(out, c)
			continue
		}
		for len(lines) < c.EndLine-c.StartLine+1 {
			lines = append(lines, "") // the blank lines Text ends without
		}
		for c.StartLine <= c.EndLine {
			end := c.EndLine
			if next := extract.PageOf(pages, c.StartLine); next < len(pages) && pages[next]-1 < end {
				end = pages[next] - 1
			}
			n := end - c.StartLine + 1
			piece := c
			piece.EndLine = end
			piece.Text = strings.TrimRight(strings.Join(lines[:n], "\n"), " \t\n")
			lines = lines[n:]
			c.StartLine = end + 1
			if strings.TrimSpace(piece.Text) == "" {
				continue
			}
			if k := len(out) - 1; k >= 0 && out[k].StartLine <= piece.StartLine && piece.EndLine <= out[k].EndLine {
				continue // the overlap with the chunk before, which holds it
			}
			piece.Tokens = chunk.Count(piece.Text)
			out = append(out, piece)
		}
	}
	return out
}

// capped says what Parse left out of md past its caps, or "" when nothing.
func capped(md *markdown.Doc) string {
	var parts []string
	for _, c := range []struct {
		kept, dropped, limit int
		what, whats          string
	}{
		{len(md.Tags), md.Dropped.Tags, markdown.MaxTags, "tag", "tags"},
		{len(md.Links), md.Dropped.Links, markdown.MaxLinks, "link", "links"},
		{len(md.Headings), md.Dropped.Headings, markdown.MaxHeadings, "heading", "headings"},
		{len(md.Aliases), md.Dropped.Aliases, markdown.MaxAliases, "alias", "aliases"},
	} {
		if c.dropped > 0 {
			parts = append(parts, fmt.Sprintf("%d %s, over the %d-%s cap", c.kept+c.dropped, c.whats, c.limit, c.what))
		}
	}
	if parts != nil {
		parts[len(parts)-1] += "; the first ones in document order are indexed, the rest are not"
	}
	if n := md.Dropped.Cut; n > 0 {
		parts = append(parts, fmt.Sprintf("%d title, heading or link text(s) over %d bytes, indexed cut to that length", n, markdown.MaxText))
	}
	if parts == nil {
		return ""
	}
	return "index: document over a per-document cap: " + strings.Join(parts, "; ")
}

func chunkOptions(src *index.Source) chunk.Options {
	return chunk.Options{MaxTokens: src.ChunkTokens, Overlap: src.ChunkOverlap}
}

// checkChunks refuses a document split into more chunks than its source allows.
func checkChunks(src *index.Source, n int) error {
	limit := src.MaxChunks
	if limit <= 0 {
		limit = DefaultMaxChunks
	}
	if n <= limit {
		return nil
	}
	return fmt.Errorf("%w: %d chunks, over the %d-chunk limit per document; split the document or raise SourceSpec.ChunkTokens", ErrTooManyChunks, n, limit)
}

func toChunks(d *index.Document, pieces []chunk.Chunk) []index.Chunk {
	out := make([]index.Chunk, len(pieces))
	for i, c := range pieces {
		out[i] = index.Chunk{
			ID:          chunk.ID(d.ID, d.Hash, i),
			DocID:       d.ID,
			Ord:         i,
			Text:        c.Text,
			HeadingPath: c.HeadingPath,
			StartLine:   c.StartLine,
			EndLine:     c.EndLine,
			Tokens:      c.Tokens,
		}
	}
	return out
}
