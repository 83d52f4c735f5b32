package ingest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/braidsearch/braid/blob"
	"github.com/braidsearch/braid/extract"
	"github.com/braidsearch/braid/index"
	"github.com/braidsearch/braid/internal/confine"
	"github.com/braidsearch/braid/lexical"
)

// The pipeline, for one source (Indexer.Index):
//
//	list     the source's files: the walk of a folder (walk.go: hidden
//	         entries, .gitignore, globs, size and link rules; paths.go
//	         looks at a watch's changed paths only), a file source's one
//	         file, a bucket's listing (s3ingest.go), the document store's
//	         records (storeingest.go) or a BEIR corpus's lines (jsonl.go);
//	         capFiles keeps the first MaxFiles
//	read     each file, confined to its source (prepareOne), or download
//	         each object whose ETag changed (fetchOne)
//	compare  its sha256 with what the target holds; an unchanged file
//	         stops here (prepareContent); a file whose status is the one
//	         recorded when its indexed content was read stops before
//	         the read (filestat.go)
//	extract  a PDF, HTML, DOCX or ODT file into markdown, under the run's
//	         ctx (parse.go, package extract)
//	parse    the markdown: title, frontmatter, tags, links, headings
//	         (package markdown)
//	chunk    by headings within the source's token budget (package chunk),
//	         a paged document's chunks cut at page ends
//	record   the file's outcome in the Summary, and queue its change in
//	         the batch (record)
//	commit   each batch of changes (as many as hold the memory budget's
//	         share of chunk text, memory.go, or BatchDocs when set):
//	         the store, then the lexical index (index.Commit, crash-safe)
//	         and beside it the chunks' embeddings, computed for the texts
//	         the store has none for, into the HNSW graph (embed.go); the
//	         graph links a batch in while the next one is committed
//	         (Vectors.insert), and the run waits for the last before it
//	         returns (settle)
//
// Files and S3 objects share every step from compare to record
// (prepareContent, record). A window of files (about a commit's bytes,
// or BatchDocs files) is read and parsed on Workers goroutines at a time
// (inOrder), one window ahead of the one recorded in order and committed
// (pipeline), so parsing runs beside the commit; the run stops between
// windows, and reads no further file, once its ctx is done. A folder's images come last, as text gathered from the notes
// that embed them (image.go).

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
	// BatchDocs, when set, is how many changed documents go into one
	// commit; zero means as many as the memory budget's share for a
	// commit holds (batchBytes of chunk text: 1 MiB to 8 MiB). Each
	// commit is crash-safe on its own.
	BatchDocs int
	// Memory is the budget a run keeps within, in bytes (memory.go):
	// it sizes commits and bounds the heap's growth and the index
	// files' pages the process holds mapped. Zero means the process's
	// soft memory limit (runtime/debug.SetMemoryLimit, which braid's
	// --memory sets), or half the machine's memory when that is off.
	Memory int64
}

// Indexer brings the store and the lexical index in step with sources.
type Indexer struct {
	Store    *index.Store
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

	mem *budget // the budget of the run under way (Index)
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

// Entries is the store's entries of the source, each with the file status
// recorded beside its content (index.Store.EntriesWithStats).
func (t embedded) Entries(_ context.Context, sourceID string) (map[string]index.Entry, error) {
	return t.ix.Store.EntriesWithStats(sourceID)
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

// commit writes changes to the store, then to the lexical index and (in
// memory) to the vector index side by side (index.Commit). The embedded
// text of the chunks the changes replace is read first: a new chunk that
// repeats one takes its vector from the graph.
func (ix *Indexer) commit(ctx context.Context, changes []index.Change) error {
	var prev map[string]string
	if ix.Vectors != nil {
		ids := make([]string, 0, len(changes))
		for _, c := range changes {
			if c.Doc != nil {
				ids = append(ids, c.Doc.ID)
			} else {
				ids = append(ids, c.DeleteID)
			}
		}
		var err error
		if prev, err = ix.Store.EmbedHashes(ids); err != nil {
			return err
		}
	}
	var beside func([]string, []*index.Chunk) error
	if ix.Vectors != nil {
		title := changeTitles(changes)
		beside = func(deleted []string, added []*index.Chunk) error {
			return ix.Vectors.sync(ctx, ix.Store, deleted, added, title, prev)
		}
	}
	_, _, err := index.Commit(ix.Store, ix.Lexical, changes, beside)
	return err
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

// batch gathers changes and commits them whenever limit are waiting
// (when limit is set), or once they hold maxBytes (changeBytes).
type batch struct {
	ctx      context.Context
	ix       *Indexer
	limit    int
	maxBytes int64
	changes  []index.Change
	bytes    int64
}

// newBatch starts a batch of the run's size (Options.BatchDocs, else the
// budget's batchBytes); scale multiplies it (a BEIR corpus's records are
// small).
func (ix *Indexer) newBatch(ctx context.Context, scale int) *batch {
	b := &batch{ctx: ctx, ix: ix, limit: scale * ix.Opt.BatchDocs}
	if b.limit == 0 {
		b.maxBytes = batchBytes(4 << 30) // a removal outside a run
		if ix.mem != nil {
			b.maxBytes = ix.mem.batch
		}
		b.maxBytes *= int64(scale)
	}
	return b
}

func (b *batch) add(c index.Change) error {
	b.changes = append(b.changes, c)
	b.bytes += changeBytes(c)
	if b.limit > 0 && len(b.changes) < b.limit || b.limit == 0 && b.bytes < b.maxBytes {
		return nil
	}
	return b.flush()
}

func (b *batch) flush() error {
	n := len(b.changes)
	err := b.ix.target().Commit(b.ctx, b.changes)
	b.changes, b.bytes = nil, 0
	if err == nil && n > 0 && b.ix.Remote == nil {
		b.ix.mem.committed(b.ix.Store)
	}
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
func (ix *Indexer) Index(ctx context.Context, src *index.Source, sum *Summary) (err error) {
	defer ix.settle(&err)
	sum.Sources++
	ix.mem = ix.startBudget()
	defer func() { ix.mem.stop(); ix.mem = nil }()
	if ix.Remote != nil && src.Kind != index.SourceDir && src.Kind != index.SourceFile && src.Kind != index.SourceJSONL {
		return fmt.Errorf("index %s: %w: %s sources are indexed into the embedded index only", src.Path, ErrRemoteKind, src.Kind)
	}
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

// settle waits for the graph's last batch (Vectors.Wait), so the graph
// holds what the run committed when it returns, and adds its error to
// *err.
func (ix *Indexer) settle(err *error) {
	if werr := ix.Vectors.Wait(); *err == nil {
		*err = werr
	}
}

// ErrRemoteKind is wrapped by Index when a source of a kind that only the
// embedded index can hold (the document store, S3) is sent to a Remote.
var ErrRemoteKind = errors.New("not supported by this backend")

// RemoveSource deletes a source and all its documents, and for an S3
// source the content it kept in the blob store that nothing else uses.
func (ix *Indexer) RemoveSource(ctx context.Context, id string) (n int, err error) {
	defer ix.settle(&err)
	src, err := ix.Store.Source(id)
	if err != nil {
		return 0, err
	}
	entries, err := ix.Store.Entries(id)
	if err != nil {
		return 0, err
	}
	b := ix.newBatch(ctx, 1)
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
	hash     string // the content's (blob.Hash); "" when it was not read
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
		files = []file{listed(src.Path, filepath.Base(src.Path), info, time.Now())}
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
	rd := openReader(src)
	defer rd.close()
	b := ix.newBatch(ctx, 1)
	var stats []index.StatRecord
	if err := ix.ingest(ctx, src, rd, files, len(imgs), entries, seen, sum, b, &stats); err != nil {
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
	if err := ix.indexImages(src, rd, imgs, all, entries, seen, sum, b); err != nil {
		return err
	}
	if len(imgs) > 0 && ix.Progress != nil {
		ix.Progress(Progress{Source: src.Name, Done: len(files) + len(imgs), Total: len(files) + len(imgs)})
	}
	if err := b.finish(entries, seen, sum); err != nil {
		return err
	}
	// After the commits, which forget the status of each path they replace.
	if ix.Remote != nil {
		return nil
	}
	return ix.Store.PutStats(src.ID, stats)
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
// marking in seen each one whose document is kept; b commits. It adds to
// stats the file status to record of each file it read (statRecord).
func (ix *Indexer) ingest(ctx context.Context, src *index.Source, rd *reader, files []file, more int, entries map[string]index.Entry, seen map[string]bool, sum *Summary, b *batch, stats *[]index.StatRecord) error {
	size := batchBytes(4 << 30)
	if ix.mem != nil {
		size = ix.mem.batch
	}
	next, stop := ix.pipeline(ctx, src, rd, files, entries, size)
	defer stop()
	for w := range next {
		if err := ctx.Err(); err != nil {
			return err // what this window read goes uncommitted
		}
		for _, p := range w.prepared {
			sum.Seen++
			e, known := entries[p.f.rel]
			out, err := ix.record(src, &p, p.f.abs, known, sum, b)
			if err != nil {
				return err
			}
			seen[p.f.rel] = out == unchanged || out == written
			if r, ok := statRecord(p.f, e, p.hash); ok && seen[p.f.rel] && stats != nil {
				*stats = append(*stats, r)
			}
		}
		if ix.Progress != nil {
			ix.Progress(Progress{Source: src.Name, Done: w.end, Total: len(files) + more})
		}
	}
	return ctx.Err()
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
func (ix *Indexer) prepare(ctx context.Context, src *index.Source, rd *reader, files []file, entries map[string]index.Entry) []prepared {
	return inOrder(len(files), ix.workers(), func(i int) prepared {
		if err := ctx.Err(); err != nil {
			return prepared{f: files[i], err: err}
		}
		return ix.prepareOne(ctx, src, rd, files[i], entries)
	})
}

// prepareOne reads a listed file, then takes it through the steps every
// file and object shares (prepareContent).
func (ix *Indexer) prepareOne(ctx context.Context, src *index.Source, rd *reader, f file, entries map[string]index.Entry) (p prepared) {
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
	e, known := entries[f.rel]
	if known && unread(f, e) && !ix.Force && !ix.unextracted(e, f.rel) {
		p.same = true // its status is the one its content was read at (filestat.go)
		return p
	}
	// The walk checked the file; confine checks again as it opens it, in
	// case a link or a FIFO took its place since.
	data, err := readFile(rd, f.abs)
	if err != nil {
		p.err = err
		return p
	}
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
	p.hash = hash
	retag := false
	if known && e.Hash == hash && !ix.Force && !ix.unextracted(e, c.f.rel) {
		if e.ETag == c.etag && (src.Kind != index.SourceS3 || ix.Blobs.Has(hash)) {
			p.same = true
			return p
		}
		retag = true
	}
	p = ix.parse(ctx, src, c.f, c.data, hash, c.mod())
	p.retag, p.hash = retag, hash
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
