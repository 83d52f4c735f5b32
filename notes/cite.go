package notes

import (
	"context"
	"fmt"
	"path"
	"strings"

	"github.com/braidsearch/braid/index"
)

// Citation is everything needed to cite a chunk.
type Citation struct {
	ChunkID     string   `json:"chunk_id"`
	Document    string   `json:"document"` // its id
	Title       string   `json:"title"`
	Path        string   `json:"path"`           // relative to its source
	File        string   `json:"file,omitempty"` // absolute; for an S3 object, its s3:// URL
	HeadingPath []string `json:"heading_path,omitempty"`
	// StartLine and EndLine are the chunk's lines in File (for a BEIR
	// document, the line of its record in the corpus).
	StartLine int    `json:"start_line"`
	EndLine   int    `json:"end_line"`
	Snippet   string `json:"snippet"` // the chunk's text, white space collapsed, cut to about 300 bytes at a word
	// Page is the page of a paged document (a PDF) the chunk is on; 0 for
	// others. Its Tag then links path#page=N and reads "Title, p. N".
	Page int `json:"page,omitempty"`
	// Tag is a ready-to-paste markdown link, [Title](path#L12-L30): the
	// line anchor of GitHub and most editors; a one-line chunk is #L12.
	Tag string `json:"tag"`
}

// Cite returns the citation of a chunk (the chunk_id of a search hit).
func (r *Reader) Cite(ctx context.Context, chunkID string) (*Citation, error) {
	if err := r.sync(); err != nil {
		return nil, err
	}
	c, err := r.chunk(ctx, chunkID)
	if err != nil {
		return nil, err
	}
	if c == nil {
		return nil, fmt.Errorf("%w: no chunk %q (chunk ids come from the chunk_id of a search hit; the document may have been re-indexed since, so search again)", index.ErrNotFound, chunkID)
	}
	d, err := r.st.Doc(c.DocID)
	if err != nil {
		return nil, err
	}
	if d == nil {
		return nil, fmt.Errorf("%w: document %s of chunk %s is gone; run braid doctor", index.ErrNotFound, c.DocID, c.ID)
	}
	s, err := r.st.Source(d.SourceID)
	if err != nil {
		return nil, err
	}
	ct := &Citation{ChunkID: c.ID, Document: d.ID, Title: d.Title, Path: d.Path, HeadingPath: c.HeadingPath,
		StartLine: c.StartLine, EndLine: c.EndLine, Snippet: TrimWords(c.Text, 300)}
	file := d.Path
	if s != nil {
		ct.File = s.File(d.Path)
		switch s.Kind {
		case index.SourceJSONL:
			ct.File = s.Path
			ct.StartLine, ct.EndLine = d.Line, d.Line
			file, _, _ = strings.Cut(d.Path, "#")
		case index.SourceS3:
			file = ct.File
		}
	}
	ct.Tag = citeTag(d.Title, file, ct.StartLine, ct.EndLine)
	if len(d.Pages) > 0 {
		ct.Page = d.Page(c.StartLine) // = c.Page, which a cluster's copy lacks
		ct.Tag = pageTag(d.Title, file, ct.Page)
	}
	return ct, nil
}

// pageTag writes [title, p. N](path#page=N), escaped for markdown: the
// page anchor PDF viewers and browsers open a PDF at.
func pageTag(title, file string, page int) string {
	return link(citeTitle(title, file)+fmt.Sprintf(", p. %d", page), file, fmt.Sprintf("#page=%d", page))
}

// citeTag writes [title](path#Lstart-Lend), escaped for markdown.
func citeTag(title, file string, start, end int) string {
	anchor := fmt.Sprintf("#L%d", start)
	if end > start {
		anchor += fmt.Sprintf("-L%d", end)
	}
	return link(citeTitle(title, file), file, anchor)
}

// citeTitle is the title a citation shows: the document's, else its file
// name.
func citeTitle(title, file string) string {
	if title == "" {
		return path.Base(file)
	}
	return title
}

// link writes [text](file+anchor), text and file escaped for markdown.
func link(text, file, anchor string) string {
	text = strings.NewReplacer(`\`, `\\`, "[", `\[`, "]", `\]`, "\n", " ").Replace(text)
	dest := strings.NewReplacer("%", "%25", " ", "%20", "(", "%28", ")", "%29", "#", "%23", "<", "%3C", ">", "%3E").Replace(file)
	return fmt.Sprintf("[%s](%s%s)", text, dest, anchor)
}
