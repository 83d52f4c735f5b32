package index

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
	"github.com/braidsearch/braid/lexical"
	"github.com/braidsearch/braid/markdown"
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
	Store    *Store
	Lexical  *lexical.Index
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
	Entries(ctx context.Context, sourceID string) (map[string]Entry, error)
	// Commit applies a batch of changes: each Change either replaces a
	// document and its chunks or deletes one (DeleteID). A batch that
	// fails part way is applied again whole by the next run, so it must
	// be safe to repeat.
	Commit(ctx context.Context, changes []Change) error
}

// embedded is the default Target: the store, the lexical index and the
// vectors of one index directory.
type embedded struct{ ix *Indexer }

func (t embedded) Entries(_ context.Context, sourceID string) (map[string]Entry, error) {
	return t.ix.Store.Entries(sourceID)
}

func (t embedded) Commit(ctx context.Context, changes []Change) error {
	return t.ix.commit(ctx, changes)
}

// target is where this run writes.
func (ix *Indexer) target() Target {
	if ix.Remote != nil {
		return ix.Remote
	}
	return embedded{ix}
}

// Recover finishes the lexical side of a commit that a crash interrupted,
// so the store and the lexical index agree again. Call it after opening both
// for writing and before any Commit.
func Recover(s *Store, l *lexical.Index) error {
	p, err := s.PendingWork()
	if err != nil || p == nil {
		return err
	}
	lg, err := l.Gen()
	if err != nil {
		return err
	}
	// A commit whose lexical batch is in but whose BM25 counts are not
	// (the crash came between the two) is indexed again, which changes
	// nothing in the lexical index and gives the counts.
	if lg < p.Gen || lg == p.Gen && s.BM25Totals().At(p.Gen-1) {
		chunks, err := s.Chunks(p.Add)
		if err != nil {
			return err
		}
		live := chunks[:0]
		for _, c := range chunks {
			if c != nil {
				live = append(live, c)
			}
		}
		counts, err := l.Apply(p.Gen, p.Delete, lexChunks(live), storeMeta(s))
		if err != nil {
			return fmt.Errorf("recover interrupted commit %d: %w", p.Gen, err)
		}
		err = s.clearPending(p.Gen, counts)
	} else {
		err = s.ClearPending(p.Gen)
	}
	if err != nil {
		return err
	}
	return keepStats(s, l)
}

func storeMeta(s *Store) func(string) lexical.ChunkMeta {
	cache := map[string]lexical.ChunkMeta{}
	return func(id string) lexical.ChunkMeta {
		if m, ok := cache[id]; ok {
			return m
		}
		var m lexical.ChunkMeta
		if d, _ := s.Doc(id); d != nil {
			m = lexical.ChunkMeta{Title: d.Title, Summary: d.Summary(), SourceID: d.SourceID, Path: d.Path, Tags: d.Tags, Record: d.Kind == KindBEIR}
		}
		cache[id] = m
		return m
	}
}

// commit writes changes to the store, then to the lexical index, then (in
// memory) to the vector index.
func (ix *Indexer) commit(ctx context.Context, changes []Change) error {
	if len(changes) == 0 {
		return nil
	}
	p, err := ix.Store.Commit(changes)
	if err != nil {
		return err
	}
	meta := map[string]lexical.ChunkMeta{}
	var adds []*Chunk
	for i := range changes {
		d := changes[i].Doc
		if d == nil {
			continue
		}
		meta[d.ID] = lexical.ChunkMeta{Title: d.Title, Summary: d.Summary(), SourceID: d.SourceID, Path: d.Path, Tags: d.Tags, Record: d.Kind == KindBEIR}
		for j := range changes[i].Chunks {
			adds = append(adds, &changes[i].Chunks[j])
		}
	}
	counts, err := ix.Lexical.Apply(p.Gen, p.Delete, lexChunks(adds), func(id string) lexical.ChunkMeta { return meta[id] })
	if err != nil {
		return err
	}
	if err := ix.Store.clearPending(p.Gen, counts); err != nil {
		return err
	}
	if err := keepStats(ix.Store, ix.Lexical); err != nil {
		return err
	}
	if ix.Vectors == nil {
		return nil
	}
	return ix.Vectors.sync(ctx, ix.Store, p.Delete, adds, func(id string) (string, string, error) { return meta[id].Title, meta[id].Summary, nil })
}

// batch gathers changes and commits them whenever limit are waiting.
type batch struct {
	ctx     context.Context
	ix      *Indexer
	limit   int
	changes []Change
}

func (b *batch) add(c Change) error {
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
func (b *batch) drop(entries map[string]Entry, seen map[string]bool, later []file, sum *Summary) error {
	keep := make(map[string]bool, len(later))
	for _, f := range later {
		keep[f.rel] = true
	}
	for rel, e := range entries {
		if !seen[rel] && !keep[rel] {
			sum.Removed++
			if err := b.add(Change{DeleteID: e.DocID}); err != nil {
				return err
			}
			delete(entries, rel)
		}
	}
	return nil
}

// finish removes the documents of entries that this run did not see, and
// commits what is left.
func (b *batch) finish(entries map[string]Entry, seen map[string]bool, sum *Summary) error {
	for rel, e := range entries {
		if !seen[rel] {
			sum.Removed++
			if err := b.add(Change{DeleteID: e.DocID}); err != nil {
				return err
			}
		}
	}
	return b.flush()
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

// Index indexes one source: new and changed documents are (re)indexed,
// unchanged ones skipped, vanished ones removed. Problems with single files
// are collected in the summary; the error return is for failures that stop
// the run (the index stays consistent either way).
func (ix *Indexer) Index(ctx context.Context, src *Source, sum *Summary) error {
	sum.Sources++
	if ix.Remote != nil && src.Kind != SourceDir && src.Kind != SourceFile && src.Kind != SourceJSONL {
		return fmt.Errorf("index %s: %w: %s sources are indexed into the embedded index only", src.Path, ErrRemoteKind, src.Kind)
	}
	var err error
	switch src.Kind {
	case SourceJSONL:
		err = ix.indexJSONL(ctx, src, sum)
	case SourceStore:
		err = ix.indexStored(ctx, src, sum)
	case SourceS3:
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
func (ix *Indexer) RemoveSource(id string) (int, error) {
	src, err := ix.Store.Source(id)
	if err != nil {
		return 0, err
	}
	entries, err := ix.Store.Entries(id)
	if err != nil {
		return 0, err
	}
	b := &batch{ctx: context.Background(), ix: ix, limit: ix.batchDocs()}
	if err := b.finish(entries, nil, &Summary{}); err != nil {
		return 0, err
	}
	if err := ix.Store.DeleteSourceRecord(id); err != nil {
		return len(entries), err
	}
	if src != nil && src.Kind == SourceS3 && ix.Blobs != nil {
		if err := ix.Store.putSkippedObjects(id, nil); err != nil {
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
	doc      *Document
	chunks   []Chunk
	same     bool   // unchanged since the last run
	skip     string // why the file was not indexed: "binary", "not_utf8" or "too_many_chunks" (with err)
	err      error
	capped   string   // what the document was indexed without (see Summary.Capped); "" for most
	warnings []string // parts of the document the parser could not read (see Summary.Warnings)
}

func (ix *Indexer) indexFiles(ctx context.Context, src *Source, sum *Summary) error {
	var files []file
	if src.Kind == SourceFile {
		info, err := os.Stat(src.Path)
		if err != nil {
			return fmt.Errorf("index %s: %w", src.Path, err)
		}
		if !info.Mode().IsRegular() {
			return fmt.Errorf("index: %s is %s; braid indexes folders and regular files", src.Path, confine.Kind(info.Mode()))
		}
		max := fileLimit(src, filepath.Base(src.Path))
		if info.Size() > max {
			return fmt.Errorf("index: %s is %s, over the %s limit; raise it with SourceSpec.MaxFileSize", src.Path, FormatBytes(info.Size()), FormatBytes(max))
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
		if limit := maxFiles(src); len(files) > limit {
			sum.Skipped.OverFileLimit += len(files) - limit
			sum.Errors = append(sum.Errors, FileError{Path: src.Path, Err: fmt.Errorf(
				"%w: %d files, over the %d-file limit; the first %d in path order are indexed and the rest skipped; narrow the source with --pattern, --exclude or a .gitignore",
				ErrTooManyFiles, len(files), limit, limit).Error()})
			files = files[:limit]
		}
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
func (ix *Indexer) images(src *Source, files []file) (notes, imgs []file) {
	if src.Kind != SourceDir || ix.Remote != nil {
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
func (ix *Indexer) ingest(ctx context.Context, src *Source, files []file, more int, entries map[string]Entry, seen map[string]bool, sum *Summary, b *batch) error {
	window := ix.batchDocs()
	for start := 0; start < len(files); start += window {
		if err := ctx.Err(); err != nil {
			return err
		}
		end := min(start+window, len(files))
		for _, p := range ix.prepare(src, files[start:end], entries) {
			seen[p.f.rel] = true
			sum.Seen++
			switch {
			case p.skip == "too_many_chunks":
				if src.Kind == SourceFile {
					return fmt.Errorf("index %s: %w", p.f.abs, p.err)
				}
				sum.Skipped.TooManyChunks++
				sum.Errors = append(sum.Errors, FileError{Path: p.f.abs, Err: p.err.Error()})
				seen[p.f.rel] = false
			case p.err != nil && p.skip != "":
				if src.Kind == SourceFile {
					return fmt.Errorf("index %s: %w", p.f.abs, p.err)
				}
				sum.Skipped.add(p.skip)
				sum.NotExtracted = append(sum.NotExtracted, FileError{Path: p.f.abs, Err: p.err.Error()})
				seen[p.f.rel] = false
			case p.err != nil:
				if src.Kind == SourceFile {
					return fmt.Errorf("index %s: %w", p.f.abs, p.err)
				}
				sum.Errors = append(sum.Errors, FileError{Path: p.f.abs, Err: p.err.Error()})
				seen[p.f.rel] = false
			case p.skip != "":
				if src.Kind == SourceFile {
					return fmt.Errorf("index %s: %w (it is %s); braid indexes UTF-8 text files only", p.f.abs, ErrNotText, strings.ReplaceAll(p.skip, "_", " "))
				}
				sum.Skipped.add(p.skip)
				seen[p.f.rel] = false
			case p.same:
				sum.Unchanged++
			default:
				if _, ok := entries[p.f.rel]; ok {
					sum.Updated++
				} else {
					sum.Added++
				}
				sum.Chunks += len(p.chunks)
				sum.Bytes += p.f.size
				if p.capped != "" {
					sum.Capped = append(sum.Capped, FileError{Path: p.f.abs, Err: p.capped})
				}
				if len(p.warnings) > 0 {
					sum.Warnings = append(sum.Warnings, FileError{Path: p.f.abs, Err: strings.Join(p.warnings, "; ")})
				}
				if err := b.add(Change{Doc: p.doc, Chunks: p.chunks, KeepVersions: src.KeepVersions}); err != nil {
					return err
				}
			}
		}
		if ix.Progress != nil {
			ix.Progress(Progress{Source: src.Name, Done: end, Total: len(files) + more})
		}
	}
	return nil
}

// prepare reads, hashes, parses and chunks files in parallel, in order.
func (ix *Indexer) prepare(src *Source, files []file, entries map[string]Entry) []prepared {
	out := make([]prepared, len(files))
	var wg sync.WaitGroup
	next := make(chan int)
	for range min(ix.workers(), len(files)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				out[i] = ix.prepareOne(src, files[i], entries)
			}
		}()
	}
	for i := range files {
		next <- i
	}
	close(next)
	wg.Wait()
	return out
}

func (ix *Indexer) prepareOne(src *Source, f file, entries map[string]Entry) (p prepared) {
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
	p.f.size = int64(len(data))
	sum := sha256.Sum256(data)
	hash := hex.EncodeToString(sum[:])
	if e, ok := entries[f.rel]; ok && e.Hash == hash && !ix.Force && !ix.unextracted(e, f.rel) {
		p.same = true
		return p
	}
	var mod time.Time
	if info, _ := os.Stat(f.abs); info != nil {
		mod = info.ModTime().UTC()
	}
	p = ix.parse(src, f, data, hash, mod)
	if p.doc != nil && src.KeepVersions > 0 && ix.Blobs != nil {
		// The blob goes first: the version that names it is committed later.
		if _, _, err := ix.Blobs.Put(data); err != nil {
			p.doc, p.err = nil, fmt.Errorf("keep a version: %w", err)
		}
	}
	return p
}

// unextracted reports whether the indexed document of e, a file of a format
// package extract reads, was indexed before braid extracted that format
// (an HTML file as plain text, say): its content is unchanged, and it is
// parsed again all the same. A Remote target's documents are not checked.
func (ix *Indexer) unextracted(e Entry, rel string) bool {
	if ix.Remote != nil || extract.Format(rel) == "" {
		return false
	}
	d, err := ix.Store.Doc(e.DocID)
	return err == nil && d != nil && !d.Kind.Extracted()
}

// parse turns a document's content into a document and its chunks.
func (ix *Indexer) parse(src *Source, f file, data []byte, hash string, mod time.Time) (p prepared) {
	p.f = f
	defer func() {
		if r := recover(); r != nil {
			p.doc, p.err = nil, fmt.Errorf("internal error while parsing (please report): %v", r)
		}
	}()
	p.f.size = int64(len(data))
	if format := extract.Format(f.rel); format != "" {
		return ix.parseExtracted(src, f, format, data, hash, mod)
	}
	switch {
	case bytes.IndexByte(data[:min(len(data), 8000)], 0) >= 0:
		p.skip = "binary"
		return p
	case !utf8.Valid(data):
		p.skip = "not_utf8"
		return p
	}
	d := &Document{
		ID:        docID(src.ID, f.rel),
		SourceID:  src.ID,
		Path:      f.rel,
		Hash:      hash,
		Size:      int64(len(data)),
		IndexedAt: time.Now().UTC(),
		Lines:     bytes.Count(data, []byte{'\n'}) + 1,
		ModTime:   mod,
	}
	var pieces []chunk.Chunk
	if isMarkdown(f.rel) {
		md := markdown.Parse(filepath.Base(f.rel), data)
		d.Kind = KindMarkdown
		d.Frontmatter = md.Frontmatter
		d.Aliases = md.Aliases
		d.fill(md)
		p.capped = capped(md)
		p.warnings = md.Warnings
		pieces = chunk.Markdown(data, md, chunkOptions(src))
	} else {
		d.Kind = KindText
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
func (ix *Indexer) parseExtracted(src *Source, f file, format string, data []byte, hash string, mod time.Time) (p prepared) {
	p.f = f
	p.f.size = int64(len(data))
	x, err := extract.File(context.Background(), f.rel, data, ix.Extract)
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
	d := &Document{
		ID:        docID(src.ID, f.rel),
		SourceID:  src.ID,
		Path:      f.rel,
		Kind:      DocKind(format),
		Hash:      hash,
		Size:      int64(len(data)),
		IndexedAt: time.Now().UTC(),
		Lines:     bytes.Count(x.Text, []byte{'\n'}) + 1,
		ModTime:   mod,
		Pages:     x.Pages,
	}
	md := markdown.Parse(filepath.Base(f.rel), x.Text)
	d.fill(md)
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

// fill gives d the title, tags, headings and links markdown found.
func (d *Document) fill(md *markdown.Doc) {
	d.Title = md.Title
	d.Tags = md.Tags
	for _, h := range md.Headings {
		d.Headings = append(d.Headings, Heading{Level: h.Level, Text: h.Text, Line: h.Line})
	}
	for _, l := range md.Links {
		d.Links = append(d.Links, Link{Kind: string(l.Kind), Target: l.Target, Alt: l.Alt, Heading: l.Heading, Text: l.Text, Key: l.Key, Line: l.Line})
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

func chunkOptions(src *Source) chunk.Options {
	return chunk.Options{MaxTokens: src.ChunkTokens, Overlap: src.ChunkOverlap}
}

func maxFiles(src *Source) int {
	if src.MaxFiles > 0 {
		return src.MaxFiles
	}
	return DefaultMaxFiles
}

func maxFileSize(src *Source) int64 {
	if src.MaxFileSize > 0 {
		return src.MaxFileSize
	}
	return DefaultMaxFileSize
}

// checkChunks refuses a document split into more chunks than its source allows.
func checkChunks(src *Source, n int) error {
	limit := src.MaxChunks
	if limit <= 0 {
		limit = DefaultMaxChunks
	}
	if n <= limit {
		return nil
	}
	return fmt.Errorf("%w: %d chunks, over the %d-chunk limit per document; split the document or raise SourceSpec.ChunkTokens", ErrTooManyChunks, n, limit)
}

func toChunks(d *Document, pieces []chunk.Chunk) []Chunk {
	out := make([]Chunk, len(pieces))
	for i, c := range pieces {
		out[i] = Chunk{
			ID:          ChunkID(d.ID, d.Hash, i),
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

func (ix *Indexer) indexJSONL(ctx context.Context, src *Source, sum *Summary) error {
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
			bad(fmt.Sprintf("line is %s, over the %s limit per document; raise it with --max-file-size", FormatBytes(int64(len(trimmed))), FormatBytes(limit)))
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
		d := &Document{
			ID: id, SourceID: src.ID, Path: rel, Kind: KindBEIR, Title: cutTitle(l.Title), Hash: hash,
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
		if err := b.add(Change{Doc: d, Chunks: chunks}); err != nil {
			return err
		}
	}
	return b.finish(entries, seen, sum)
}

// ChunkID names the i-th chunk of a document version: the document id, then
// "#", the first 8 hex digits of the content hash and the position.
func ChunkID(docID, hash string, i int) string {
	return fmt.Sprintf("%s#%s.%d", docID, hash[:8], i)
}

// ChunkDocID returns the document id a chunk id starts with.
func ChunkDocID(chunkID string) string {
	if i := strings.LastIndexByte(chunkID, '#'); i >= 0 {
		return chunkID[:i]
	}
	return chunkID
}

// RebuildLexical fills an empty lexical index with every chunk in the
// store, at the store's commit, so a lost or damaged lexical index can be
// rebuilt without reading the sources again. The BM25 counts start again
// with it.
func RebuildLexical(s *Store, l *lexical.Index) error {
	g, err := s.Gen()
	if err != nil {
		return err
	}
	if err := s.resetCounts(lexical.ZeroTotals(g)); err != nil {
		return err
	}
	after := ""
	for {
		page, err := s.chunkPage(after, 1000)
		if err != nil {
			return err
		}
		counts, err := l.Apply(g, nil, lexChunks(page), storeMeta(s))
		if err != nil {
			return err
		}
		if err := s.keepCounts(g, g, counts); err != nil {
			return err
		}
		if len(page) == 0 {
			break
		}
		after = page[len(page)-1].ID
	}
	return keepStats(s, l)
}

// keepStats hands l the BM25 statistics the store keeps of it, after a
// change. When the store's counts are missing or out of step (an index
// an older braid wrote) it counts them once (seedCounts), unless such a
// count found them differing from the lexical index before; then l
// counts the statistics as it always did.
func keepStats(s *Store, l *lexical.Index) error {
	gen, err := l.Gen()
	if err != nil {
		return err
	}
	n, err := l.DocCount()
	if err != nil {
		return err
	}
	t := s.BM25Totals()
	if st := t.StatsAt(gen, n); st != nil {
		l.SetStats(gen, st, true)
		return nil
	}
	if t.HasFailed() {
		return nil
	}
	return seedCounts(s, l)
}
