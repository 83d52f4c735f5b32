package notes

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/braidsearch/braid/bucket"
	"github.com/braidsearch/braid/extract"
	"github.com/braidsearch/braid/index"
	"github.com/braidsearch/braid/internal/confine"
)

// Document resolves a name to a document. A name is a document id, a path
// relative to its source (with or without the extension), its content hash
// or the hash's first 8 or more hex digits (see DocumentByHash), or an
// exact title or alias (case-insensitive when no title matches exactly).
func (r *Reader) Document(name string) (*index.Document, error) {
	if err := r.sync(); err != nil {
		return nil, err
	}
	if name == "" {
		return nil, fmt.Errorf("%w: empty document name", index.ErrBadOption)
	}
	if d, err := r.st.Doc(name); err != nil || d != nil {
		return d, err
	}
	srcs, err := r.st.Sources()
	if err != nil {
		return nil, err
	}
	rel := strings.TrimPrefix(filepath.ToSlash(name), "./")
	var byPath []*index.Document
	for _, s := range srcs {
		for _, p := range []string{rel, rel + ".md", strings.TrimPrefix(rel, s.Name+"/")} {
			if d, err := r.st.DocByPath(s.ID, p); err != nil {
				return nil, err
			} else if d != nil {
				byPath = append(byPath, d)
				break
			}
		}
	}
	if len(byPath) == 0 && bucket.IsURL(name) {
		// An object of an S3 source: s3://bucket/key.
		for _, s := range srcs {
			rel, ok := strings.CutPrefix(name, s.Path+"/")
			if s.Kind != index.SourceS3 || !ok {
				continue
			}
			if d, err := r.st.DocByPath(s.ID, rel); err != nil {
				return nil, err
			} else if d != nil {
				byPath = append(byPath, d)
			}
		}
	}
	if len(byPath) == 0 {
		// An absolute or cwd-relative path to the file itself.
		if abs, err := filepath.Abs(name); err == nil {
			for _, s := range srcs {
				if rel, err := filepath.Rel(s.Path, abs); err == nil && !strings.HasPrefix(rel, "..") {
					if s.Kind != "dir" {
						rel = filepath.Base(abs)
					}
					if d, err := r.st.DocByPath(s.ID, filepath.ToSlash(rel)); err != nil {
						return nil, err
					} else if d != nil {
						byPath = append(byPath, d)
					}
				}
			}
		}
	}
	if len(byPath) > 0 {
		return one(name, byPath)
	}
	if base, ok := pageAnchor(name); ok {
		// A search hit's path in a PDF: paper.pdf#page=7.
		if d, err := r.Document(base); err == nil {
			return d, nil
		}
	}
	if d, ok, err := r.byHash(name); ok { // a content hash or its first 8+ hex digits (hash.go)
		return d, err
	}
	// Titles, file names and aliases, from the names Find keeps (find.go):
	// only the documents that match are decoded.
	all, err := r.names.get(r.st)
	if err != nil {
		return nil, err
	}
	var exact, folded []string
	for _, d := range all {
		names := append([]string{d.Title, strings.TrimSuffix(path.Base(d.Path), path.Ext(d.Path))}, d.Aliases...)
		for i, n := range names {
			if n == name && i != 1 {
				exact = append(exact, d.ID)
				break
			}
			if strings.EqualFold(n, name) {
				folded = append(folded, d.ID)
				break
			}
		}
	}
	for _, ids := range [][]string{exact, folded} {
		if len(ids) == 0 {
			continue
		}
		ds := make([]*index.Document, 0, len(ids))
		for _, id := range ids {
			d, err := r.st.Doc(id)
			if err != nil {
				return nil, err
			}
			if d != nil {
				ds = append(ds, d)
			}
		}
		if len(ds) > 0 {
			return one(name, ds)
		}
	}
	return nil, fmt.Errorf("%w: no document is named %q (tried id, path and title); braid search can find it", index.ErrNotFound, name)
}

// pageAnchor cuts a page anchor (#page=7) off a name.
func pageAnchor(name string) (string, bool) {
	i := strings.LastIndex(name, "#page=")
	if i <= 0 {
		return "", false
	}
	if _, err := strconv.Atoi(name[i+len("#page="):]); err != nil {
		return "", false
	}
	return name[:i], true
}

// PageAnchor writes the path of a place in a paged document as search hits
// and citations name it: "paper.pdf#page=7"; path alone for page 0.
func PageAnchor(path string, page int) string {
	if page <= 0 {
		return path
	}
	return path + "#page=" + strconv.Itoa(page)
}

func one(name string, ds []*index.Document) (*index.Document, error) {
	if len(ds) == 1 {
		return ds[0], nil
	}
	sort.Slice(ds, func(i, j int) bool { return ds[i].Path < ds[j].Path })
	var names []string
	for i, d := range ds {
		if i == 5 {
			names = append(names, "…")
			break
		}
		names = append(names, fmt.Sprintf("%s (id %s)", d.Path, d.ID))
	}
	return nil, fmt.Errorf("%w: %q matches %d documents: %s; name one by id", index.ErrAmbiguous, name, len(ds), strings.Join(names, ", "))
}

// Content is a document as it is on disk now.
type Content struct {
	Doc  *index.Document
	File string // absolute path of the file read; for an S3 object, its s3:// URL
	Data []byte
	// Raw is the file's own bytes when Data is text braid made of it: the
	// text extracted from a PDF, HTML, DOCX or ODT document, or the text
	// an image was indexed by; nil otherwise.
	Raw []byte
	// Changed is true when the file differs from what was indexed: the
	// index is stale for it until the next braid index.
	Changed bool
}

// Get reads a document's current content from disk (not a stored copy). For
// a BEIR document it is the title and text of its JSONL line; for an S3
// object, the content indexed, kept in the index's blob store (the bucket
// is not asked, so Changed is false). A file whose
// real path, symbolic links followed, leaves its source is refused with
// ErrOutside.
func (r *Reader) Get(ctx context.Context, name string) (*Content, error) {
	if err := r.sync(); err != nil {
		return nil, err
	}
	d, err := r.Document(name)
	if err != nil {
		return nil, err
	}
	src, err := r.st.Source(d.SourceID)
	if err != nil {
		return nil, err
	}
	if src == nil {
		return nil, fmt.Errorf("%w: source %s of document %s is gone; run braid doctor", index.ErrNotFound, d.SourceID, d.ID)
	}
	c := &Content{Doc: d}
	if err := src.Usable(); err != nil {
		return nil, err
	}
	switch src.Kind {
	case "jsonl":
		c.File = src.Path
		c.Data, c.Changed, err = readBEIR(src.Path, d)
		return c, err
	case "file":
		c.File = src.Path
	case index.SourceStore:
		if r.cfg.ReadStored == nil {
			return nil, fmt.Errorf("%w: %s is a stored document, and this reader has no document store", index.ErrNotFound, d.Path)
		}
		if c.Data, c.File, err = r.cfg.ReadStored(d); err != nil {
			return nil, err
		}
		return c, nil
	case index.SourceS3:
		c.File = index.ObjectURL(src, d.Path)
		if c.Data, err = r.blobs.Get(d.Hash); err != nil {
			return nil, fmt.Errorf("read %s: its indexed content is missing from the blob store (%w); run braid index to download it again", c.File, err)
		}
		return c, c.extract(ctx)
	default:
		c.File = filepath.Join(src.Path, filepath.FromSlash(d.Path))
		if err := inside(src.Path, c.File); err != nil && !src.FollowLinks {
			return nil, err
		}
	}
	switch {
	case src.Kind == index.SourceDir && !src.FollowLinks:
		// The check above, made again as the file opens beneath the source.
		var d *confine.Dir
		if d, err = confine.OpenDir(src.Path); err == nil {
			c.Data, err = d.ReadFile(c.File, 0)
			d.Close()
		}
	case src.Kind == index.SourceFile:
		c.Data, err = confine.ReadFile(src.Path, c.File, 0) // just that file, not a link
	default:
		c.Data, err = confine.ReadFile("", c.File, 0) // links followed, as the source asks
	}
	if errors.Is(err, confine.ErrOutside) {
		return nil, fmt.Errorf("%w: %s leads outside its source %s; braid reads only files inside a source", ErrOutside, c.File, src.Path)
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w; run braid index to drop documents whose files are gone", c.File, err)
	}
	if d.Kind == index.KindImage {
		// An image's hash covers the text around it too; its text is
		// what its chunks hold.
		return c, r.imageText(ctx, c)
	}
	sum := sha256.Sum256(c.Data)
	c.Changed = hex.EncodeToString(sum[:]) != d.Hash
	return c, c.extract(ctx)
}

// imageText makes an image document's Content its indexed text (its file
// name and the text around its embeds, from its chunks), the image's bytes
// going to Raw: what get, read and grep show of an image is text.
func (r *Reader) imageText(ctx context.Context, c *Content) error {
	chunks, err := r.Chunks(ctx, c.Doc.ChunkIDs)
	if err != nil {
		return err
	}
	lines := make([]string, c.Doc.Lines)
	for _, ch := range chunks {
		if ch == nil {
			continue
		}
		for i, l := range strings.Split(ch.Text, "\n") {
			if n := ch.StartLine - 1 + i; n >= 0 && n < len(lines) {
				lines[n] = l
			}
		}
	}
	c.Raw, c.Data = c.Data, []byte(strings.Join(lines, "\n"))
	return nil
}

// extract replaces a PDF's, HTML page's, DOCX's or ODT's bytes with the
// text braid indexed of it (package extract), whose lines chunks and
// pages refer to.
func (c *Content) extract(ctx context.Context) error {
	if !c.Doc.Kind.Extracted() {
		return nil
	}
	x, err := extract.File(ctx, c.Doc.Path, c.Data, nil)
	if err != nil {
		return fmt.Errorf("read %s: %w", c.File, err)
	}
	c.Raw, c.Data = c.Data, x.Text
	return nil
}

// inside refuses a file whose real path, symbolic links followed, is not
// within the directory root: a link in a source may point anywhere, or have
// been pointed elsewhere since indexing.
func inside(root, file string) error {
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return fmt.Errorf("read %s: %w; run braid index to drop documents whose files are gone", file, err)
	}
	real, err := filepath.EvalSymlinks(file)
	if err != nil {
		return fmt.Errorf("read %s: %w; run braid index to drop documents whose files are gone", file, err)
	}
	if rel, err := filepath.Rel(realRoot, real); err != nil || !filepath.IsLocal(rel) {
		return fmt.Errorf("%w: %s leads outside its source %s; braid reads only files inside a source", ErrOutside, file, root)
	}
	return nil
}

func readBEIR(file string, d *index.Document) ([]byte, bool, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, false, fmt.Errorf("read %s: %w", file, err)
	}
	defer f.Close()
	if _, err := f.Seek(d.Offset, io.SeekStart); err != nil {
		return nil, false, err
	}
	line, err := bufio.NewReaderSize(f, 64<<10).ReadBytes('\n')
	if err != nil && err != io.EOF {
		return nil, false, err
	}
	line = []byte(strings.TrimSpace(string(line)))
	sum := sha256.Sum256(line)
	var l struct {
		ID    string `json:"_id"`
		Title string `json:"title"`
		Text  string `json:"text"`
	}
	if json.Unmarshal(line, &l) != nil || l.ID != d.ID {
		return nil, true, fmt.Errorf("%s changed since indexing and document %s is no longer at line %d; run braid index", file, d.ID, d.Line)
	}
	return []byte(l.Title + "\n\n" + l.Text + "\n"), hex.EncodeToString(sum[:]) != d.Hash, nil
}
