package braid

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/braidsearch/braid/cluster"
	"github.com/braidsearch/braid/docstore"
	"github.com/braidsearch/braid/doctor"
	"github.com/braidsearch/braid/embedded"
	"github.com/braidsearch/braid/index"
	"github.com/braidsearch/braid/indexdir"
	"github.com/braidsearch/braid/ingest"
	"github.com/braidsearch/braid/internal/userkey"
	"github.com/braidsearch/braid/lexical"
	"github.com/braidsearch/braid/notes"
	"github.com/braidsearch/braid/query"
	"github.com/braidsearch/braid/rerank"
	"github.com/braidsearch/braid/sessions"
	"github.com/braidsearch/braid/settings"
	"github.com/braidsearch/braid/vector"
)

// Errors callers can test for with errors.Is.
var (
	// ErrNoIndex means the index directory holds no index yet.
	ErrNoIndex = indexdir.ErrNoIndex
	// ErrEmptyIndex means the index holds no documents, so there is
	// nothing to search: a new index, or one whose --index path has a
	// typo. Search and Ask wrap it with the index directory and the fix
	// (emptyIndex).
	ErrEmptyIndex = errors.New("no documents indexed yet")
	// ErrNotFound means a named document, source or chunk does not exist.
	ErrNotFound = index.ErrNotFound
	// ErrAmbiguous means a document name matched more than one document.
	ErrAmbiguous = index.ErrAmbiguous
	// ErrReadOnly means a write was attempted on an engine opened read-only.
	ErrReadOnly = index.ErrReadOnly
	// ErrBadOption means a search or index option is out of range.
	ErrBadOption = index.ErrBadOption
	// ErrBackend means an operation needs the embedded index (an index
	// directory) and the engine keeps its index in an OpenSearch cluster.
	ErrBackend = index.ErrBackend
	// The index directory's and query parsing's (indexdir, query).
	ErrLocked        = indexdir.ErrLocked
	ErrSchemaVersion = indexdir.ErrSchemaVersion
	ErrEmptyQuery    = query.ErrEmptyQuery
	ErrQueryTooLong  = query.ErrQueryTooLong
)

// Shared types, defined beside the package that makes them.
type (
	Lines     = notes.Lines
	Excerpt   = notes.Excerpt
	Source    = index.Source
	Document  = index.Document
	Chunk     = index.Chunk
	Heading   = index.Heading
	Summary   = ingest.Summary
	Progress  = ingest.Progress
	FileError = ingest.FileError
)

// VectorOptions tunes the HNSW graph (Options.Vector).
type VectorOptions = vector.Options

// Source kinds (Source.Kind).
const (
	SourceS3    = index.SourceS3
	SourceStore = index.SourceStore
)

// DefaultMaxFileSize is the largest file a source indexes unless it says
// otherwise (SourceSpec.MaxFileSize).
const DefaultMaxFileSize = ingest.DefaultMaxFileSize

// FormatBytes writes a byte count for people: "512 B", "1.5 MB".
func FormatBytes(n int64) string { return index.FormatBytes(n) }

// ParseSize reads a size such as 512KB, 20MB or 8KiB (index.ParseSize).
func ParseSize(s string) (int64, error) { return index.ParseSize(s) }

// Options configures an Engine. The zero value (or nil) opens the index for
// reading and writing with default chunking.
type Options struct {
	// ReadOnly opens the index for search, get, grep and stats only. Other
	// readers may share it; a writer is refused while it is open.
	ReadOnly bool
	// Workers bounds parallel file parsing; zero means the number of CPUs.
	Workers int
	// BatchDocs is how many changed documents go into one commit; zero
	// means as many as the memory budget's share holds (ingest.Options).
	BatchDocs int
	// Purpose names this process in the lock file (e.g. "braid index"), so a
	// refused writer can say who holds the index.
	Purpose string
	// Embedder computes embeddings for vector search; nil means lexical only.
	Embedder Embedder
	// Model names the embedding model: its embeddings are cached and its
	// HNSW graph kept under this name. Required with Embedder.
	Model string
	// Vector tunes the HNSW graph (degree, search breadth).
	Vector vector.Options
	// NoVectors says why Embedder is nil (for example "ONNX Runtime not
	// found: run make ort"); searches that ask for vectors repeat it.
	NoVectors string
	// VectorsOff says the user turned vectors off (--model none): stored
	// embeddings that go unsearched are then not a fault.
	VectorsOff bool
	// Reranker reorders the best fused candidates with a cross-encoder;
	// nil means no reranking.
	Reranker *rerank.Reranker
	// RerankTop is how many fused candidates the reranker OpenWithModels
	// loads reads (rerank.Options.Top); zero means DefaultRerankTop (50).
	// A Reranker given here reads its own Top.
	RerankTop int
	// NoRerank says why Reranker is nil when reranking was wanted, in a
	// short clause (for example "no cross-encoder installed; braid models
	// pull … adds it"). Capabilities always has it. Searches say it only
	// when the user asked for the cross-encoder: RerankNamed, or
	// SearchOptions.Rerank; then the first search that would rerank says
	// it in its warning, and later ones do not repeat it. The default
	// cross-encoder's absence is left to braid doctor and braid stats,
	// since every search would repeat what the user did not ask about.
	NoRerank string
	// Device says where the models run and why, as plain data for
	// Capabilities (model.Loaded.Device); the engine does not use it.
	Device string
	// RerankNamed says the cross-encoder was named (a --reranker flag,
	// Models.Reranker), so NoRerank is about something the user asked for.
	RerankNamed bool
	// RerankBudget, when not zero, is the cross-encoder's time per search
	// whatever the index's settings say (a command-line flag); negative
	// means no limit.
	RerankBudget time.Duration
	// AWS loads the AWS configuration (credentials, region, endpoint)
	// that s3:// sources are indexed with; it is called only when one is.
	// package cli loads it from the standard AWS environment variables and
	// files (config.LoadDefaultConfig). Nil means s3:// sources cannot be
	// indexed; their indexed documents stay readable either way.
	AWS func(ctx context.Context) (aws.Config, error)

	// KeyFile is this user's key (package userkey), which seals the
	// source records this engine registers and tells the records of an
	// index made elsewhere (copied, cloned, edited): their files are not
	// read until the user runs braid sources trust. Empty means
	// braid/key in the user's config folder, created on first use.
	KeyFile string

	// Backend, when its URL is set, keeps the index in an OpenSearch
	// cluster instead of the directory (package cluster): search, index,
	// sources and stats then work on the cluster, and the operations that
	// need the embedded index return an error wrapping ErrBackend.
	Backend Backend

	recovering bool // a reader's second open after finishing a crashed commit
}

// Engine is an open index directory. Its methods are safe for concurrent
// use, except that Index, Sources().Remove and Tag (which re-indexes) must
// not run concurrently with each other.
type Engine struct {
	dir     string
	realDir string // dir with its links followed when it was opened: the blob store's root
	opt     Options
	lock    *indexdir.Lock
	st      *index.Store
	ret     retriever        // where searches find candidates: an embedded.Retriever or cl
	cl      *cluster.Cluster // the OpenSearch backend; nil for the embedded index

	vec *vector.Index // nil without an embedder
	// vecDamaged says the model's graph file was missing or damaged and
	// what the graph searched lacks (vecstore.Load); "" when it was sound,
	// or once an index run saved a whole graph.
	vecDamaged atomic.Pointer[string]

	strandedOnce sync.Once
	stranded     string // see strandedEmbeddings

	closed    atomic.Bool
	created   string      // the directories Open created, "" when dir existed
	tightened string      // see Capabilities.Tightened
	discard   atomic.Bool // remove created on Close: the first Index failed before writing

	docs *docstore.Store // the document store (docstore.go); see Store
	sess *sessions.Store // the sessions; see Sources().Sessions()

	lexOnce sync.Once
	lex     *lexical.Index // opened on first use: grep, get and stats never need it
	lexErr  error

	nt *notes.Reader // reads documents: Notes

	models *LoadedModels // closed with the engine (OpenWithModels); nil when the caller owns them

	settingsMu   sync.RWMutex
	settings     *Settings   // settings.go
	toldNoRerank atomic.Bool // a search has warned that it is not reranked (rerank.go)
}

// Open opens the index in dir, creating it unless opt.ReadOnly. A commit
// that a crash interrupted is completed before Open returns. The index is
// the user's alone (folder 0700, files 0600): a writer tightens an older
// one (Capabilities().Tightened says so), a reader never. When Open
// fails, or the first Index of an index it created fails before writing
// anything (it returns no Summary), the directories it created are
// removed (on Close in the second case), so a failed first run leaves no
// empty index behind.
func Open(dir string, opt *Options) (*Engine, error) {
	if opt == nil {
		opt = &Options{}
	}
	if opt.Backend.URL != "" {
		return openCluster(*opt)
	}
	created, err := indexdir.Prepare(dir, opt.ReadOnly)
	if err != nil {
		return nil, err
	}
	e, err := open(dir, *opt)
	if err != nil {
		indexdir.RemoveCreated(created)
		return nil, err
	}
	e.created = created
	if !opt.ReadOnly {
		e.tightened = indexdir.Tighten(dir)
	}
	return e, nil
}

// Exists says whether dir holds an index (its meta.db), so a caller that
// should not create one (a server started on a mistyped --index) can
// refuse before Open would.
func Exists(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, indexdir.StoreFile))
	return err == nil
}

// CheckDir refuses an index directory that is a file, or lies under one,
// with an error that names Open's dir and the fix (indexdir.CheckDir).
func CheckDir(dir string) error { return indexdir.CheckDir(dir) }

func open(dir string, opt Options) (*Engine, error) {
	purpose := opt.Purpose
	if purpose == "" {
		purpose = "braid"
	}
	lock, err := indexdir.AcquireLock(filepath.Join(dir, indexdir.LockFile), !opt.ReadOnly, purpose)
	if err != nil {
		return nil, err
	}
	e := &Engine{dir: dir, opt: opt, lock: lock, realDir: dir}
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		e.realDir = real
	}
	upgrade, err := indexdir.Version(dir, opt.ReadOnly, index.Upgradable)
	if err != nil {
		e.Close()
		return nil, err
	}
	if e.settings, err = settings.Load(dir); err != nil {
		e.Close()
		return nil, err
	}
	if e.st, err = index.OpenStore(filepath.Join(dir, indexdir.StoreFile), opt.ReadOnly); err != nil {
		e.Close()
		return nil, err
	}
	e.st.SetKey(loadKey(opt.KeyFile))
	e.docs = e.newStore()
	e.sess = e.newSessions()
	e.nt = notes.NewReader(e.st, e.blobs(), notes.Config{ReadStored: e.docs.Read, StoreSource: e.docs.Source, StoreFiles: e.docs.Files})
	e.ret = &embedded.Retriever{Store: e.st, OpenLexical: e.lexical, Vectors: func() *vector.Index { return e.vec }, Keep: e.nt.Keep}
	if upgrade { // the store upgraded itself; now the directory says so
		if err := indexdir.Upgraded(dir); err != nil {
			e.Close()
			return nil, err
		}
	}
	if opt.Embedder != nil && opt.Model == "" {
		e.Close()
		return nil, fmt.Errorf("%w: an embedder needs a model name", ErrBadOption)
	}
	if !opt.ReadOnly {
		lex, err := e.lexical()
		if err != nil {
			e.Close()
			return nil, err
		}
		if err := index.Recover(e.st, lex); err != nil {
			e.Close()
			return nil, err
		}
		return e.withVectors()
	}
	// A reader that finds a crashed writer's commit unfinished finishes it
	// when it can take the write lock; otherwise it proceeds and does not
	// see the documents of that commit.
	if p, err := e.st.PendingWork(); err == nil && p != nil && !opt.recovering {
		e.Close()
		if w, err := open(dir, Options{Purpose: "braid recovery"}); err == nil {
			w.Close()
		}
		opt.recovering = true
		return open(dir, opt)
	}
	return e.withVectors()
}

// withVectors loads the vector index when there is an embedder.
func (e *Engine) withVectors() (*Engine, error) {
	if e.opt.Embedder == nil {
		return e, nil
	}
	if err := e.loadVectors(nil); err != nil {
		e.Close()
		return nil, err
	}
	return e, nil
}

// lexical opens the lexical index the first time it is needed
// (doctor.OpenLexical: it holds what meta.db says, or is an error).
func (e *Engine) lexical() (*lexical.Index, error) {
	e.lexOnce.Do(func() {
		e.lex, e.lexErr = doctor.OpenLexical(e.dir, e.st, e.opt.ReadOnly)
	})
	return e.lex, e.lexErr
}

// Notes reads the index's documents: a name resolved to a document, its
// current content, a chunk's neighbours, citations, what an id names, the
// folder tree, listings, and documents found by name.
func (e *Engine) Notes() *notes.Reader { return e.nt }

// Close releases the index. Closing twice is harmless.
func (e *Engine) Close() error {
	if e.closed.Swap(true) {
		return nil
	}
	var errs []error
	if e.models != nil {
		defer e.models.Close() // after the engine, which may still use them
	}
	if e.cl != nil {
		return e.cl.Close()
	}
	if e.lex != nil {
		errs = append(errs, e.lex.Close())
	}
	if e.st != nil {
		errs = append(errs, e.st.Close())
	}
	errs = append(errs, e.lock.Release())
	if e.discard.Load() {
		indexdir.RemoveCreated(e.created)
	}
	return errors.Join(errs...)
}

// loadKey loads the user's key from path (userkey.DefaultPath when empty).
func loadKey(path string) (userkey.Key, error) {
	if path == "" {
		p, err := userkey.DefaultPath()
		if err != nil {
			return nil, err
		}
		path = p
	}
	return userkey.Load(path)
}
