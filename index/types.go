package index

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/braidsearch/braid/extract"
	"github.com/braidsearch/braid/internal/confine"
)

// SourceKind says how a source's path is read.
type SourceKind string

const (
	SourceDir   SourceKind = "dir"   // a directory walked for text files
	SourceFile  SourceKind = "file"  // a single text or markdown file
	SourceJSONL SourceKind = "jsonl" // a BEIR corpus: one {"_id","title","text"} document per line
	// SourceS3 is the objects under an s3://bucket/prefix URL (its Path);
	// their content is kept in the index's blob store (see package ingest).
	SourceS3 SourceKind = "s3"
)

// Source is a registered place documents come from. Its ID is derived from
// the absolute path, so registering the same path again finds the same source.
type Source struct {
	ID          string     `json:"id"`
	Name        string     `json:"name"`
	Path        string     `json:"path"` // absolute; for an S3 source, its s3://bucket/prefix URL
	Kind        SourceKind `json:"kind"`
	Patterns    []string   `json:"patterns,omitempty"` // include globs; empty means every text file
	Excludes    []string   `json:"excludes,omitempty"`
	NoRecursive bool       `json:"no_recursive,omitempty"`
	MaxFileSize int64      `json:"max_file_size,omitempty"` // zero means ingest.DefaultMaxFileSize; for a BEIR corpus, the limit per line
	// MaxFiles bounds the files indexed from a directory source; zero means
	// ingest.DefaultMaxFiles. Files past it are skipped and reported.
	MaxFiles int `json:"max_files,omitempty"`
	// MaxChunks bounds the chunks of one document; zero means
	// ingest.DefaultMaxChunks. A document that needs more is skipped and reported.
	MaxChunks int `json:"max_chunks,omitempty"`
	// ChunkTokens and ChunkOverlap size the chunks, as in chunk.Options:
	// zero means the default (512 and 64), a negative overlap means none.
	ChunkTokens  int `json:"chunk_tokens,omitempty"`
	ChunkOverlap int `json:"chunk_overlap,omitempty"`
	// KeepVersions is how many versions of each document's content
	// (the current one included) are copied into the index's blob store
	// when they are indexed, so older versions can be read and compared
	// after the files change; zero keeps none.
	KeepVersions int `json:"keep_versions,omitempty"`
	// FollowLinks makes the walk follow symbolic links to files outside
	// the source; by default they are skipped and counted (ingest.Skips.LinkOutside).
	FollowLinks bool `json:"follow_links,omitempty"`
	// Files is how many files the last walk of a folder source listed
	// (before MaxFiles), kept up to date by each changed-paths run
	// (ingest.Indexer.IndexPaths) as an upper bound: a file it lists that the
	// index does not hold counts as new, though the walk may have listed
	// it (a binary file) already. Zero means not counted yet.
	Files int `json:"files,omitempty"`
	// Endpoint is an S3 source's S3-compatible store (http://host:port),
	// kept so a later run reaches the same store; empty means the AWS
	// configuration's endpoint, else Amazon S3.
	Endpoint  string    `json:"endpoint,omitempty"`
	AddedAt   time.Time `json:"added_at"`
	IndexedAt time.Time `json:"indexed_at,omitzero"`
	// Seal authenticates the record: an HMAC, under the key of the user
	// who registered the source (package userkey), of what it grants (its
	// id, path, kind, links rule and endpoint). Store.PutSource writes it.
	Seal string `json:"seal,omitempty"`
	// Untrusted, set by the Store that read the record, says why its
	// files must not be read: the record's seal does not verify under this
	// user's key (an index copied, cloned or edited). Empty means trusted.
	Untrusted string `json:"-"`
}

// ErrUntrusted is the error of a source whose record this user did not
// make on this machine (see Source.Untrusted).
var ErrUntrusted = errors.New("index: source not trusted")

// ErrMoved is the error of a source whose path now passes through a
// symbolic link: it was a real folder or file when it was registered, and
// a link has since taken its place or its folder's.
var ErrMoved = errors.New("index: source moved")

// Usable returns nil when the source's files may be read: an error
// wrapping ErrUntrusted when this user did not make its record, or
// ErrMoved when its path (the real one, when it was registered) now
// passes through a symbolic link, each naming the source and the fix.
func (s *Source) Usable() error {
	if s.Untrusted != "" {
		return fmt.Errorf("%w: source %s (%s) %s; braid reads none of its files. If you made it, run braid sources trust %s", ErrUntrusted, s.Name, s.Path, s.Untrusted, s.Name)
	}
	var err error
	switch s.Kind {
	case SourceDir:
		var d *confine.Dir
		if d, err = confine.OpenDir(s.Path); err == nil {
			d.Close()
		}
	case SourceFile, SourceJSONL:
		var d *confine.Dir
		if d, err = confine.OpenDir(filepath.Dir(s.Path)); err == nil {
			if m, serr := d.Stat(filepath.Base(s.Path)); serr == nil && m&fs.ModeSymlink != 0 {
				err = confine.ErrMoved
			}
			d.Close()
		}
	}
	if errors.Is(err, confine.ErrMoved) {
		return fmt.Errorf("%w: source %s: %s now passes through a symbolic link (it had none when it was registered), and braid does not follow it there; if the move is yours, run braid sources rm %s, then braid index the new place", ErrMoved, s.Name, s.Path, s.Name)
	}
	return nil
}

// sealFields are what a source's seal covers.
func (s *Source) sealFields() []string {
	return []string{"braid source v1", s.ID, s.Path, string(s.Kind), fmt.Sprint(s.FollowLinks), s.Endpoint}
}

// File is the file that holds the document at rel (slash-separated,
// relative to the source) as a path usable outside the index: the file
// below a folder source, a file source's own file, an S3 object's s3://
// URL (ObjectURL). It is "" for the kinds whose documents have no file of
// their own (a BEIR corpus's lines, stored documents).
func (s *Source) File(rel string) string {
	switch s.Kind {
	case SourceDir:
		return filepath.Join(s.Path, filepath.FromSlash(rel))
	case SourceFile:
		return s.Path
	case SourceS3:
		return ObjectURL(s, rel)
	}
	return ""
}

// ObjectURL is the s3:// URL of the object at rel in an S3 source.
func ObjectURL(src *Source, rel string) string {
	return strings.TrimSuffix(src.Path, "/") + "/" + rel
}

// SourceID derives a source's stable id from its absolute path.
func SourceID(abs string) string {
	h := sha256.Sum256([]byte(abs))
	return hex.EncodeToString(h[:4])
}

func docID(sourceID, rel string) string {
	h := sha256.Sum256([]byte(sourceID + "\x00" + rel))
	return hex.EncodeToString(h[:6])
}

// DocKind is the format a document was parsed as.
type DocKind string

const (
	KindMarkdown DocKind = "markdown"
	KindText     DocKind = "text"
	KindBEIR     DocKind = "beir"
	// A file package extract turned into markdown: its format.
	KindPDF  DocKind = "pdf"
	KindHTML DocKind = "html"
	KindDOCX DocKind = "docx"
	KindODT  DocKind = "odt"
	// KindImage is an image file (PNG, JPEG, GIF, WebP, SVG) indexed by the
	// text around the notes' embeds of it and its file name.
	KindImage DocKind = "image"
)

// Extracted reports whether a document of kind k is read through package
// extract: its text is the file's extraction, not its bytes.
func (k DocKind) Extracted() bool {
	return k == KindPDF || k == KindHTML || k == KindDOCX || k == KindODT
}

// Document is one indexed file (or one line of a BEIR corpus) with what
// ingest extracted from it. Links and tags are kept so the link graph can be
// built without parsing the file again.
type Document struct {
	ID          string         `json:"id"`
	SourceID    string         `json:"source_id"`
	Path        string         `json:"path"` // relative to the source, slash-separated, as on disk
	Kind        DocKind        `json:"kind"`
	Title       string         `json:"title"`
	Hash        string         `json:"hash"` // sha256 of the content, hex
	Size        int64          `json:"size"`
	ModTime     time.Time      `json:"mod_time,omitzero"`
	IndexedAt   time.Time      `json:"indexed_at"`
	Lines       int            `json:"lines"`
	Frontmatter map[string]any `json:"frontmatter,omitempty"`
	Aliases     []string       `json:"aliases,omitempty"`
	Tags        []string       `json:"tags,omitempty"`
	Headings    []Heading      `json:"headings,omitempty"`
	Links       []Link         `json:"links,omitempty"`
	ChunkIDs    []string       `json:"chunk_ids"`
	// Offset is the byte offset of a BEIR document's line in its JSONL file,
	// and Line its 1-based line number; both are zero for files.
	Offset int64 `json:"offset,omitempty"`
	Line   int   `json:"line,omitempty"`
	// ETag is an S3 object's ETag when it was downloaded (empty for
	// files): an object listed with the same ETag is not downloaded again.
	ETag string `json:"etag,omitempty"`
	// Pages holds, for a paged document (a PDF), the line of its extracted
	// text each page starts on: Pages[0] is page 1's (extract.Doc.Pages).
	Pages []int `json:"pages,omitempty"`
}

// Page is the 1-based page that line of d's text is on; 0 for a document
// without pages.
func (d *Document) Page(line int) int { return extract.PageOf(d.Pages, line) }

// PageLines is the first and last line of page p (1-based) of d's text,
// given its lines; ok is false for a page d does not have.
func (d *Document) PageLines(p int) (from, to int, ok bool) {
	if p < 1 || p > len(d.Pages) {
		return 0, 0, false
	}
	from, to = d.Pages[p-1], d.Lines
	if p < len(d.Pages) {
		to = d.Pages[p] - 1
	}
	return from, max(to, from), true
}

// PageRange is the first and last line of pages "P" or "P-Q" (1-based,
// inclusive) of a paged document (a PDF's extracted text); an error that
// says why when pages does not parse, the document has no pages, or it
// has fewer. The errors do not name the argument: the CLI's --page and
// MCP's page prefix them with their own.
func (d *Document) PageRange(pages string) (from, to int, err error) {
	a, b, ranged := strings.Cut(pages, "-")
	p, err1 := strconv.Atoi(strings.TrimSpace(a))
	q := p
	var err2 error
	if ranged {
		q, err2 = strconv.Atoi(strings.TrimSpace(b))
	}
	if err1 != nil || err2 != nil || p < 1 || q < p {
		return 0, 0, errors.New("want a page number P or a range P-Q, from 1")
	}
	if len(d.Pages) == 0 {
		return 0, 0, fmt.Errorf("%s has no pages (only PDFs do); read it by lines", d.Path)
	}
	from, _, ok := d.PageLines(p)
	_, to, ok2 := d.PageLines(q)
	if !ok || !ok2 {
		return 0, 0, fmt.Errorf("%s has %d pages", d.Path, len(d.Pages))
	}
	return from, to, nil
}

// summaryKeys are the frontmatter keys notes keep a one-line summary
// under: description (SilverBullet, Hugo, Jekyll, Obsidian Publish), desc
// (Dendron) and summary.
var summaryKeys = []string{"description", "desc", "summary"}

// maxSummary caps the summary searched with a document's title: a
// summary longer than a paragraph is a body, not a summary.
const maxSummary = 1024

// Summary is the document's own summary of itself, from its frontmatter
// (summaryKeys, the first that is a non-empty string), cut at maxSummary
// bytes on a word; "" when it has none. BM25 searches it with the title
// (lexical/index.go), since a note's description is often the only place
// the words a question uses for it appear.
func (d *Document) Summary() string {
	for _, k := range summaryKeys {
		s, _ := d.Frontmatter[k].(string)
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		if len(s) > maxSummary {
			s = s[:maxSummary]
			if i := strings.LastIndexAny(s, " \t\n"); i > 0 {
				s = s[:i]
			}
			s = strings.ToValidUTF8(s, "")
		}
		return s
	}
	return ""
}

// Heading is a markdown heading and the line it is on.
type Heading struct {
	Level int    `json:"level"`
	Text  string `json:"text"`
	Line  int    `json:"line"`
}

// Link is a link found in a document, unresolved: the graph resolves targets
// against the documents it knows.
type Link struct {
	Kind    string `json:"kind"` // wikilink, embed, markdown, frontmatter
	Target  string `json:"target"`
	Alt     string `json:"alt,omitempty"` // the other side of [[a|b]]
	Heading string `json:"heading,omitempty"`
	Text    string `json:"text,omitempty"`
	Key     string `json:"key,omitempty"` // frontmatter key
	Line    int    `json:"line"`
}

// Chunk is a piece of a document sized for retrieval, with where it came from.
type Chunk struct {
	ID          string   `json:"id"`
	DocID       string   `json:"doc_id"`
	Ord         int      `json:"ord"` // position within the document, from 0
	Text        string   `json:"text"`
	HeadingPath []string `json:"heading_path,omitempty"`
	StartLine   int      `json:"start_line"`
	EndLine     int      `json:"end_line"`
	Tokens      int      `json:"tokens"`
	// Page is the 1-based page of a paged document (a PDF) the chunk is
	// on; a chunk never spans pages. Zero for other documents.
	Page int `json:"page,omitempty"`
}

// FormatMeta writes metadata on one line, keys sorted: "k=v k2=v2", or
// "none".
func FormatMeta(m map[string]string) string {
	if len(m) == 0 {
		return "none"
	}
	keys := slices.Sorted(maps.Keys(m))
	for i, k := range keys {
		keys[i] = k + "=" + m[k]
	}
	return strings.Join(keys, " ")
}

// EmbedInput is the text a chunk is embedded as: its document's title and
// heading path, then its text, so a section's vector knows what it is
// about. The title is left out when the text already starts with it. The
// document's first chunk carries its summary (Document.Summary) after the
// title, as BM25 searches it there (ContentText).
func EmbedInput(title, summary string, c *Chunk) string {
	var b strings.Builder
	t := strings.TrimSpace(title)
	body := strings.TrimLeft(c.Text, "# \n")
	if t != "" && !strings.HasPrefix(body, t) {
		b.WriteString(t)
		b.WriteByte('\n')
	}
	if summary != "" && c.Ord == 0 {
		b.WriteString(summary)
		b.WriteByte('\n')
	}
	if n := len(c.HeadingPath); n > 1 || (n == 1 && c.HeadingPath[0] != t) {
		heads := c.HeadingPath
		if heads[0] == t {
			heads = heads[1:]
		}
		if len(heads) > 1 { // the last heading opens the text itself
			b.WriteString(strings.Join(heads[:len(heads)-1], " > "))
			b.WriteByte('\n')
		}
	}
	b.WriteString(c.Text)
	return b.String()
}
