package ingest

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/braidsearch/braid/blob"
	"github.com/braidsearch/braid/chunk"
	"github.com/braidsearch/braid/extract"
	"github.com/braidsearch/braid/internal/confine"
	"github.com/braidsearch/braid/markdown"

	"github.com/braidsearch/braid/index"
)

// ErrTooManyChunks means a document would be split into more chunks than
// its source allows (Source.MaxChunks); it was not indexed.
var ErrTooManyChunks = errors.New("index: document needs too many chunks")

// ErrBadName means a file's path within its source is not valid UTF-8: it
// could not be stored, searched for or shown as written, so the file was
// not indexed.
var ErrBadName = errors.New("index: file name is not valid UTF-8")

// ErrTooManyFiles means a directory source holds more files than it allows
// (Source.MaxFiles); the files past the limit were not indexed.
var ErrTooManyFiles = errors.New("index: too many files in the source")

// Options tunes ingest. The zero value means the documented defaults.
type Options struct {
	Workers int // parallel readers/parsers; zero means the number of CPUs
	// BatchDocs is how many changed documents go into one commit; zero means
	// 256. Each commit is crash-safe on its own.
	BatchDocs int
}

// Progress reports how far an index run is.
type Progress struct {
	Phase  string // "" while reading files, "list" while listing a bucket, "embed" while computing embeddings
	Source string // source name
	Done   int    // files (or JSONL lines) looked at so far in this source
	Total  int    // files in this source; 0 while unknown
}

// FileError is a file (or JSONL line) that could not be indexed; the run
// went on without it.
type FileError struct {
	Path string `json:"path"`
	Line int    `json:"line,omitempty"`
	Err  string `json:"error"`
}

func (e FileError) String() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.Path, e.Line, e.Err)
	}
	return e.Path + ": " + e.Err
}

// Summary is what an index run did.
type Summary struct {
	Sources   int         `json:"sources"`
	Seen      int         `json:"seen"` // files and JSONL documents looked at
	Added     int         `json:"added"`
	Updated   int         `json:"updated"`
	Unchanged int         `json:"unchanged"`
	Removed   int         `json:"removed"`
	Chunks    int         `json:"chunks"`                 // chunks written by this run
	Embedded  int         `json:"embedded"`               // chunk texts sent to the embedding model by this run
	EmbedMS   int64       `json:"embed_ms"`               // time the model took for them
	Tokens    int64       `json:"embed_tokens,omitempty"` // tokens of those texts (without padding)
	Bytes     int64       `json:"bytes"`                  // bytes read and indexed by this run
	Skipped   Skips       `json:"skipped"`
	Errors    []FileError `json:"errors,omitempty"`
	TookMS    int64       `json:"took_ms"`
	// PeakRSS is the process's peak resident memory when the run ended,
	// where the caller measures it (braid index does).
	PeakRSS int64 `json:"peak_rss_bytes,omitempty"`
	// Capped lists the documents this run indexed without what went past
	// the caps per document of markdown.Parse (MaxTags, MaxLinks,
	// MaxHeadings, MaxAliases, MaxText), each saying what was left out.
	// Such a document is indexed, not skipped: its text stays searchable,
	// and its first tags, links, headings and aliases are kept.
	Capped []FileError `json:"capped,omitempty"`
	// Warnings lists the documents this run indexed with a part it could
	// not read, such as frontmatter whose YAML is broken (the note is
	// indexed without it), each saying what.
	Warnings []FileError `json:"warnings,omitempty"`
	// NotExtracted lists the files of a format braid extracts (PDF, HTML,
	// DOCX, ODT) that it skipped, each saying why: encrypted, no text
	// layer, damaged or over a limit (counted in Skipped too). They are
	// not errors: the run succeeds without them.
	NotExtracted []FileError `json:"not_extracted,omitempty"`
	// Paths is how many changed paths the run looked at instead of
	// walking the whole source (Indexer.IndexPaths, what a watch runs);
	// zero for a walk.
	Paths int `json:"changed_paths,omitempty"`
	// Walked says why a run given changed paths walked the whole source
	// all the same ("a .gitignore changed"); empty otherwise.
	Walked string `json:"walked,omitempty"`
}

// Indexer brings the store and the lexical index in step with sources.
type Indexer struct {
	Store    *index.Store
	Lexical  *index.Lexical
	Opt      Options
	Progress func(Progress) // optional; called from the indexing goroutine
	// Force re-indexes every document even when its content is unchanged,
	// for example because the source's chunk settings changed.
	Force bool
	// Vectors, when set, keeps an HNSW graph of chunk embeddings in step.
	Vectors *Vectors
	// Refresh names documents of the store source (by path) to re-index
	// even though their content did not change (their tags did).
	Refresh map[string]bool
	// Blobs is the index's blob store: the content of the store source's
	// documents and of S3 objects, and kept versions of source files. Nil
	// means none.
	Blobs *blob.Store
	// AWS loads the AWS configuration (credentials, region, endpoint) that
	// S3 sources are read with, when one is indexed; nil means S3 sources
	// cannot be indexed (ErrNoAWS).
	AWS func(ctx context.Context) (aws.Config, error)
	// Remote, when set, is where the run's changes go instead of Store,
	// Lexical and Vectors (which are then unused): an index kept in a
	// cluster. Folder, file and BEIR sources only.
	Remote Target
	// Extract bounds the extraction of PDF, HTML, DOCX and ODT files; nil
	// means package extract's defaults.
	Extract *extract.Options
}

// Target is what an index run writes to: the embedded index (Store,
// Lexical and Vectors, the default) or an Indexer's Remote.
type Target interface {
	// Entries returns what the target holds of a source, keyed by path
	// (Entry.Path, DocID and Hash), for change detection.
	Entries(ctx context.Context, sourceID string) (map[string]index.Entry, error)
	// Commit applies a batch of changes: each Change either replaces a
	// document and its chunks or deletes one (DeleteID). A batch that
	// fails part way is applied again whole by the next run, so it must
	// be safe to repeat.
	Commit(ctx context.Context, changes []index.Change) error
}

// embedded is the default Target: the store, the lexical index and the
// vectors of one index directory.
type embedded struct{ ix *Indexer }

func (t embedded) Entries(_ context.Context, sourceID string) (map[string]index.Entry, error) {
	return t.ix.Store.Entries(sourceID)
}

func (t embedded) Commit(ctx context.Context, changes []index.Change) error {
	return t.ix.commit(ctx, changes)
}

// target is where this run writes.
func (ix *Indexer) target() Target {
	if ix.Remote != nil {
		return ix.Remote
	}
	return embedded{ix}
}

// commit writes changes to the store and the lexical index
// (index.Commit), then (in memory) to the vector index.
func (ix *Indexer) commit(ctx context.Context, changes []index.Change) error {
	deleted, added, err := index.Commit(ix.Store, ix.Lexical, changes)
	if err != nil || ix.Vectors == nil {
		return err
	}
	return ix.Vectors.sync(ctx, ix.Store, deleted, added, changeTitles(changes))
}

// changeTitles looks up the title and summary of the documents changes
// write.
func changeTitles(changes []index.Change) titles {
	type ts struct{ title, summary string }
	docs := map[string]ts{}
	for _, c := range changes {
		if d := c.Doc; d != nil {
			docs[d.ID] = ts{d.Title, d.Summary()}
		}
	}
	return func(id string) (string, string, error) { return docs[id].title, docs[id].summary, nil }
}

// batch gathers changes and commits them whenever limit are waiting.
type batch struct {
	ctx     context.Context
	ix      *Indexer
	limit   int
	changes []index.Change
}

func (b *batch) add(c index.Change) error {
	b.changes = append(b.changes, c)
	if len(b.changes) < b.limit {
		return nil
	}
	return b.flush()
}

func (b *batch) flush() error {
	err := b.ix.target().Commit(b.ctx, b.changes)
	b.changes = nil
	return err
}

// drop removes the documents of entries that this run did not see and
// that are not among later (files still to come), and forgets them. The
// documents of vanished notes go before images are indexed, which read
// the notes around them from the store.
func (b *batch) drop(entries map[string]index.Entry, seen map[string]bool, later []file, sum *Summary) error {
	keep := make(map[string]bool, len(later))
	for _, f := range later {
		keep[f.rel] = true
	}
	for rel, e := range entries {
		if !seen[rel] && !keep[rel] {
			sum.Removed++
			if err := b.add(index.Change{DeleteID: e.DocID}); err != nil {
				return err
			}
			delete(entries, rel)
		}
	}
	return nil
}

// finish removes the documents of entries that this run did not see, and
// commits what is left.
func (b *batch) finish(entries map[string]index.Entry, seen map[string]bool, sum *Summary) error {
	for rel, e := range entries {
		if !seen[rel] {
			sum.Removed++
			if err := b.add(index.Change{DeleteID: e.DocID}); err != nil {
				return err
			}
		}
	}
	return b.flush()
}

// Index indexes one source: new and changed documents are (re)indexed,
// unchanged ones skipped, vanished ones removed. Problems with single files
// are collected in the summary; the error return is for failures that stop
// the run (the index stays consistent either way).
func (ix *Indexer) Index(ctx context.Context, src *index.Source, sum *Summary) error {
	sum.Sources++
	if ix.Remote != nil && src.Kind != index.SourceDir && src.Kind != index.SourceFile && src.Kind != index.SourceJSONL {
		return fmt.Errorf("index %s: %w: %s sources are indexed into the embedded index only", src.Path, ErrRemoteKind, src.Kind)
	}
	var err error
	switch src.Kind {
	case index.SourceJSONL:
		err = ix.indexJSONL(ctx, src, sum)
	case index.SourceStore:
		err = ix.indexStored(ctx, src, sum)
	case index.SourceS3:
		err = ix.indexS3(ctx, src, sum)
	default:
		err = ix.indexFiles(ctx, src, sum)
	}
	if err != nil {
		return err
	}
	src.IndexedAt = time.Now().UTC()
	if ix.Remote != nil {
		return nil // the caller records the source where the chunks went
	}
	return ix.Store.PutSource(src)
}

// ErrRemoteKind is wrapped by Index when a source of a kind that only the
// embedded index can hold (the document store, S3) is sent to a Remote.
var ErrRemoteKind = errors.New("not supported by this backend")

// RemoveSource deletes a source and all its documents, and for an S3
// source the content it kept in the blob store that nothing else uses.
func (ix *Indexer) RemoveSource(ctx context.Context, id string) (int, error) {
	src, err := ix.Store.Source(id)
	if err != nil {
		return 0, err
	}
	entries, err := ix.Store.Entries(id)
	if err != nil {
		return 0, err
	}
	b := &batch{ctx: ctx, ix: ix, limit: ix.batchDocs()}
	if err := b.finish(entries, nil, &Summary{}); err != nil {
		return 0, err
	}
	if err := ix.Store.DeleteSourceRecord(id); err != nil {
		return len(entries), err
	}
	if src != nil && src.Kind == index.SourceS3 && ix.Blobs != nil {
		if err := ix.Store.PutSkippedObjects(id, nil); err != nil {
			return len(entries), err
		}
		hashes := make([]string, 0, len(entries))
		for _, e := range entries {
			hashes = append(hashes, e.Hash)
		}
		return len(entries), ix.dropBlobs(hashes)
	}
	return len(entries), nil
}

func (ix *Indexer) batchDocs() int {
	if ix.Opt.BatchDocs > 0 {
		return ix.Opt.BatchDocs
	}
	return 256
}

func (ix *Indexer) workers() int {
	if ix.Opt.Workers > 0 {
		return ix.Opt.Workers
	}
	return runtime.NumCPU()
}

// prepared is a file after reading, hashing, parsing and chunking.
type prepared struct {
	f        file
	doc      *index.Document
	chunks   []index.Chunk
	same     bool   // unchanged since the last run
	retag    bool   // same content, its record written again (an S3 object's new ETag or lost blob)
	skip     string // why the file was not indexed: "binary", "not_utf8" or "too_many_chunks" (with err)
	err      error
	capped   string   // what the document was indexed without (see Summary.Capped); "" for most
	warnings []string // parts of the document the parser could not read (see Summary.Warnings)
}

func (ix *Indexer) indexFiles(ctx context.Context, src *index.Source, sum *Summary) error {
	var files []file
	if src.Kind == index.SourceFile {
		info, err := os.Stat(src.Path)
		if err != nil {
			return fmt.Errorf("index %s: %w", src.Path, err)
		}
		if !info.Mode().IsRegular() {
			return fmt.Errorf("index: %s is %s; braid indexes folders and regular files", src.Path, confine.Kind(info.Mode()))
		}
		max := fileLimit(src, filepath.Base(src.Path))
		if info.Size() > max {
			return fmt.Errorf("index: %s is %s, over the %s limit; raise it with SourceSpec.MaxFileSize", src.Path, index.FormatBytes(info.Size()), index.FormatBytes(max))
		}
		files = []file{{abs: src.Path, rel: filepath.Base(src.Path), size: info.Size()}}
	} else {
		var err error
		files, err = walk(src, &sum.Skipped, func(err error) {
			sum.Errors = append(sum.Errors, FileError{Path: src.Path, Err: err.Error()})
		})
		if err != nil {
			return err
		}
		src.Files = len(files)
		files = files[:capFiles(src, len(files), sum)]
	}
	files, imgs := ix.images(src, files)
	entries, err := ix.target().Entries(ctx, src.ID)
	if err != nil {
		return err
	}
	seen := make(map[string]bool, len(files))
	b := &batch{ctx: ctx, ix: ix, limit: ix.batchDocs()}
	if err := ix.ingest(ctx, src, files, len(imgs), entries, seen, sum, b); err != nil {
		return err
	}
	if len(imgs) > 0 {
		if err := b.drop(entries, seen, imgs, sum); err != nil {
			return err
		}
	}
	all := make([]string, len(imgs))
	for i, f := range imgs {
		all[i] = f.rel
	}
	if err := ix.indexImages(src, imgs, all, entries, seen, sum, b); err != nil {
		return err
	}
	if len(imgs) > 0 && ix.Progress != nil {
		ix.Progress(Progress{Source: src.Name, Done: len(files) + len(imgs), Total: len(files) + len(imgs)})
	}
	return b.finish(entries, seen, sum)
}

// images takes the image files of a folder source out of files: they are
// indexed last, by the text of the notes around them. Other sources and a
// Remote target have none.
func (ix *Indexer) images(src *index.Source, files []file) (notes, imgs []file) {
	if src.Kind != index.SourceDir || ix.Remote != nil {
		return files, nil
	}
	notes = files[:0:0]
	for _, f := range files {
		if IsImage(f.rel) && utf8.ValidString(f.rel) {
			imgs = append(imgs, f)
		} else {
			notes = append(notes, f)
		}
	}
	return notes, imgs
}

// ingest indexes files (no images; more, the images to come, only counts
// in the progress) against entries, what the target holds of them,
// marking in seen each one whose document is kept; b commits.
func (ix *Indexer) ingest(ctx context.Context, src *index.Source, files []file, more int, entries map[string]index.Entry, seen map[string]bool, sum *Summary, b *batch) error {
	window := ix.batchDocs()
	for start := 0; start < len(files); start += window {
		if err := ctx.Err(); err != nil {
			return err
		}
		end := min(start+window, len(files))
		prepared := ix.prepare(ctx, src, files[start:end], entries)
		if err := ctx.Err(); err != nil {
			return err // what this window read goes uncommitted
		}
		for _, p := range prepared {
			sum.Seen++
			_, known := entries[p.f.rel]
			out, err := ix.record(src, &p, p.f.abs, known, sum, b)
			if err != nil {
				return err
			}
			seen[p.f.rel] = out == unchanged || out == written
		}
		if ix.Progress != nil {
			ix.Progress(Progress{Source: src.Name, Done: end, Total: len(files) + more})
		}
	}
	return nil
}

// outcome is what became of one file (or S3 object) a run looked at.
type outcome int

const (
	unchanged outcome = iota // the index holds its content already
	written                  // its document goes into the index
	skipped                  // not indexed, for a reason Summary.Skipped counts
	failed                   // not indexed: an error, in Summary.Errors
)

// record counts one prepared file (where names it to people; known says
// whether the index holds it) in sum and queues its document in b. The
// only file of a file source fails the run when it cannot be indexed.
func (ix *Indexer) record(src *index.Source, p *prepared, where string, known bool, sum *Summary, b *batch) (outcome, error) {
	if src.Kind == index.SourceFile && (p.err != nil || p.skip != "") {
		if p.err == nil {
			return failed, fmt.Errorf("index %s: %w (it is %s); braid indexes UTF-8 text files only", where, ErrNotText, strings.ReplaceAll(p.skip, "_", " "))
		}
		return failed, fmt.Errorf("index %s: %w", where, p.err)
	}
	switch {
	case p.skip == "too_many_chunks":
		sum.Skipped.TooManyChunks++
		sum.Errors = append(sum.Errors, FileError{Path: where, Err: p.err.Error()})
		return skipped, nil
	case p.err != nil && p.skip != "":
		sum.Skipped.add(p.skip)
		sum.NotExtracted = append(sum.NotExtracted, FileError{Path: where, Err: p.err.Error()})
		return skipped, nil
	case p.err != nil:
		sum.Errors = append(sum.Errors, FileError{Path: where, Err: p.err.Error()})
		return failed, nil
	case p.skip != "":
		sum.Skipped.add(p.skip)
		return skipped, nil
	case p.same:
		sum.Unchanged++
		return unchanged, nil
	case p.retag:
		sum.Unchanged++
		return unchanged, b.add(index.Change{Doc: p.doc, Chunks: p.chunks, KeepVersions: src.KeepVersions})
	}
	if known {
		sum.Updated++
	} else {
		sum.Added++
	}
	sum.Chunks += len(p.chunks)
	sum.Bytes += p.f.size
	if p.capped != "" {
		sum.Capped = append(sum.Capped, FileError{Path: where, Err: p.capped})
	}
	if len(p.warnings) > 0 {
		sum.Warnings = append(sum.Warnings, FileError{Path: where, Err: strings.Join(p.warnings, "; ")})
	}
	return written, b.add(index.Change{Doc: p.doc, Chunks: p.chunks, KeepVersions: src.KeepVersions})
}

// inOrder runs do for 0..n-1 on up to workers goroutines and returns the
// results in order.
func inOrder[R any](n, workers int, do func(i int) R) []R {
	out := make([]R, n)
	var wg sync.WaitGroup
	next := make(chan int)
	for range min(workers, n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				out[i] = do(i)
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	return out
}

// prepare reads, hashes, parses and chunks files in parallel, in order.
// Once ctx is done the files not yet started are not read.
func (ix *Indexer) prepare(ctx context.Context, src *index.Source, files []file, entries map[string]index.Entry) []prepared {
	return inOrder(len(files), ix.workers(), func(i int) prepared {
		if err := ctx.Err(); err != nil {
			return prepared{f: files[i], err: err}
		}
		return ix.prepareOne(ctx, src, files[i], entries)
	})
}

// prepareOne reads a listed file, then takes it through the steps every
// file and object shares (prepareContent).
func (ix *Indexer) prepareOne(ctx context.Context, src *index.Source, f file, entries map[string]index.Entry) (p prepared) {
	p.f = f
	defer func() {
		if r := recover(); r != nil {
			p.err = fmt.Errorf("internal error while parsing (please report): %v", r)
		}
	}()
	if !utf8.ValidString(f.rel) {
		p.err = fmt.Errorf("%w; rename the file to index it", ErrBadName)
		return p
	}
	// The walk checked the file; confine checks again as it opens it, in
	// case a link or a FIFO took its place since.
	root, limit := readRoot(src, f)
	data, err := readFile(root, f.abs, limit)
	if err != nil {
		p.err = err
		return p
	}
	e, known := entries[f.rel]
	return ix.prepareContent(ctx, src, content{f: f, data: data, mod: func() time.Time {
		if info, _ := os.Stat(f.abs); info != nil {
			return info.ModTime().UTC()
		}
		return time.Time{}
	}}, e, known)
}

// content is a file's or an S3 object's bytes as read, before the steps
// they share.
type content struct {
	f    file
	data []byte
	etag string           // an S3 object's ETag; "" for a file
	mod  func() time.Time // its modification time, asked only when it is parsed
}

// prepareContent takes what was read through the steps every file and S3
// object shares: its content is hashed and compared with what the index
// holds of it (e, when known), and unless unchanged it is parsed and
// chunked (extracted first, for the formats package extract reads). Its
// bytes go into the blob store before its document is committed: an S3
// object's always (its only copy), a file's when its source keeps
// versions. An S3 object whose content is unchanged under a new ETag, or
// whose blob was lost, is parsed again to write its record (retag).
func (ix *Indexer) prepareContent(ctx context.Context, src *index.Source, c content, e index.Entry, known bool) (p prepared) {
	p.f = c.f
	p.f.size = int64(len(c.data))
	hash := blob.Hash(c.data)
	retag := false
	if known && e.Hash == hash && !ix.Force && !ix.unextracted(e, c.f.rel) {
		if e.ETag == c.etag && (src.Kind != index.SourceS3 || ix.Blobs.Has(hash)) {
			p.same = true
			return p
		}
		retag = true
	}
	p = ix.parse(ctx, src, c.f, c.data, hash, c.mod())
	p.retag = retag
	if p.doc == nil {
		return p
	}
	keep := ""
	switch {
	case src.Kind == index.SourceS3:
		p.doc.ETag = c.etag
		keep = "keep its content"
	case src.KeepVersions > 0 && ix.Blobs != nil:
		keep = "keep a version"
	}
	if keep != "" {
		// The blob goes first: the document that names it is committed later.
		if _, _, err := ix.Blobs.Put(c.data); err != nil {
			p.doc, p.err = nil, fmt.Errorf("%s: %w", keep, err)
		}
	}
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

// capFiles keeps the first MaxFiles of the n files (or S3 objects) a
// source lists, in path order: it counts the others as skipped, says so
// in sum, and returns how many are kept.
func capFiles(src *index.Source, n int, sum *Summary) int {
	limit := maxFiles(src)
	if n <= limit {
		return n
	}
	what, order, narrow := "files", "path", "--pattern, --exclude or a .gitignore"
	if src.Kind == index.SourceS3 {
		what, order, narrow = "objects", "key", "--pattern or --exclude"
	}
	sum.Skipped.OverFileLimit += n - limit
	sum.Errors = append(sum.Errors, FileError{Path: src.Path, Err: fmt.Errorf(
		"%w: %d %s, over the %d-file limit; the first %d in %s order are indexed and the rest skipped; narrow the source with %s",
		ErrTooManyFiles, n, what, limit, limit, order, narrow).Error()})
	return limit
}

func maxFiles(src *index.Source) int {
	if src.MaxFiles > 0 {
		return src.MaxFiles
	}
	return DefaultMaxFiles
}

func maxFileSize(src *index.Source) int64 {
	if src.MaxFileSize > 0 {
		return src.MaxFileSize
	}
	return DefaultMaxFileSize
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
			ID:          index.ChunkID(d.ID, d.Hash, i),
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

// beirLine is one document of a BEIR corpus.
type beirLine struct {
	ID    *string `json:"_id"`
	Title string  `json:"title"`
	Text  string  `json:"text"`
}

// beirRecord decodes one line of a BEIR corpus, without its line ending.
// A line that is not a document gives an error naming the file and line.
func beirRecord(path string, lineNo int, line []byte) (beirDoc, *FileError) {
	bad := func(msg string) (beirDoc, *FileError) {
		return beirDoc{}, &FileError{Path: path, Line: lineNo, Err: msg}
	}
	if !utf8.Valid(line) {
		return bad("line is not valid UTF-8")
	}
	var l beirLine
	if err := json.Unmarshal(line, &l); err != nil {
		return bad("not a JSON object: " + err.Error())
	}
	if l.ID == nil || *l.ID == "" {
		return bad(`missing "_id"`)
	}
	return beirDoc{ID: *l.ID, Title: l.Title, Text: l.Text}, nil
}

// cutTitle cuts a corpus record's title, which is indexed with every chunk
// of the record, to markdown.MaxText bytes as markdown titles are cut.
func cutTitle(t string) string {
	if len(t) <= markdown.MaxText {
		return t
	}
	n := markdown.MaxText - len("…")
	for n > 0 && !utf8.RuneStart(t[n]) {
		n--
	}
	return strings.TrimSpace(t[:n]) + "…"
}

// beirDoc is a decoded document of a BEIR corpus.
type beirDoc struct {
	ID, Title, Text string
}

// IsJSONL reports whether path looks like a BEIR corpus: a .jsonl file whose
// first line is a JSON object with an "_id".
func IsJSONL(path string) bool {
	if !strings.EqualFold(filepath.Ext(path), ".jsonl") {
		return false
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	line, err := bufio.NewReader(f).ReadBytes('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return false
	}
	var l beirLine
	return json.Unmarshal(line, &l) == nil && l.ID != nil
}

func (ix *Indexer) indexJSONL(ctx context.Context, src *index.Source, sum *Summary) error {
	f, err := os.Open(src.Path)
	if err != nil {
		return fmt.Errorf("index %s: %w", src.Path, err)
	}
	defer f.Close()
	entries, err := ix.target().Entries(ctx, src.ID)
	if err != nil {
		return err
	}
	base := filepath.Base(src.Path)
	seen := make(map[string]bool, len(entries))
	b := &batch{ctx: ctx, ix: ix, limit: 4 * ix.batchDocs()}
	r := bufio.NewReaderSize(f, 1<<20)
	var offset int64
	for lineNo := 1; ; lineNo++ {
		if lineNo%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
			if ix.Progress != nil {
				ix.Progress(Progress{Source: src.Name, Done: lineNo})
			}
		}
		line, err := r.ReadBytes('\n')
		if len(line) == 0 && err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return fmt.Errorf("read %s: %w", src.Path, err)
		}
		start := offset
		offset += int64(len(line))
		trimmed := bytes.TrimSpace(line)
		if len(trimmed) == 0 {
			continue
		}
		sum.Seen++
		bad := func(msg string) {
			sum.Errors = append(sum.Errors, FileError{Path: src.Path, Line: lineNo, Err: msg})
		}
		if limit := maxFileSize(src); int64(len(trimmed)) > limit {
			sum.Skipped.Oversized++
			bad(fmt.Sprintf("line is %s, over the %s limit per document; raise it with --max-file-size", index.FormatBytes(int64(len(trimmed))), index.FormatBytes(limit)))
			continue
		}
		l, ferr := beirRecord(src.Path, lineNo, trimmed)
		if ferr != nil {
			sum.Errors = append(sum.Errors, *ferr)
			continue
		}
		id := l.ID
		rel := base + "#" + id
		if seen[rel] {
			bad(fmt.Sprintf("duplicate _id %q; the first one is kept", id))
			continue
		}
		seen[rel] = true
		h := sha256.Sum256(trimmed)
		hash := hex.EncodeToString(h[:])
		e, known := entries[rel]
		if known && e.Hash == hash && !ix.Force {
			sum.Unchanged++
			continue
		}
		if !known && ix.Remote == nil {
			if other, err := ix.Store.Doc(id); err != nil {
				return err
			} else if other != nil && other.SourceID != src.ID {
				bad(fmt.Sprintf("_id %q is already used by %s in another source; document ids must be unique", id, other.Path))
				delete(seen, rel)
				continue
			}
		}
		pieces := chunk.Text([]byte(l.Text), chunkOptions(src))
		if err := checkChunks(src, len(pieces)); err != nil {
			sum.Skipped.TooManyChunks++
			bad(err.Error())
			delete(seen, rel)
			continue
		}
		d := &index.Document{
			ID: id, SourceID: src.ID, Path: rel, Kind: index.KindBEIR, Title: cutTitle(l.Title), Hash: hash,
			Size: int64(len(trimmed)), IndexedAt: time.Now().UTC(), Offset: start, Line: lineNo,
			Lines: strings.Count(l.Text, "\n") + 1,
		}
		if d.Title == "" {
			d.Title = id
		}
		chunks := toChunks(d, pieces)
		if known {
			sum.Updated++
		} else {
			sum.Added++
		}
		sum.Chunks += len(chunks)
		sum.Bytes += d.Size
		if err := b.add(index.Change{Doc: d, Chunks: chunks}); err != nil {
			return err
		}
	}
	return b.finish(entries, seen, sum)
}
