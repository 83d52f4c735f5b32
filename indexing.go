package braid

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/braidsearch/braid/index"
	"github.com/braidsearch/braid/indexdir"
	"github.com/braidsearch/braid/ingest"
	"github.com/braidsearch/braid/sessions"
	"github.com/braidsearch/braid/watch"
)

// SourceSpec names a path to index and how (ingest.SourceSpec).
type SourceSpec = ingest.SourceSpec

// Index registers the given sources (or, with none, takes every registered
// source) and brings the index in step with them, embedding new chunk
// texts when the engine has an embedder. progress may be nil.
// Per-file problems are listed in the summary; the returned error is for
// problems that stop the run, after which the index is still consistent.
// An error with no Summary means nothing was written (see Open for what
// that undoes).
func (e *Engine) Index(ctx context.Context, specs []SourceSpec, progress func(Progress)) (sum *Summary, err error) {
	if e.created != "" {
		defer func() { e.discard.Store(sum == nil && err != nil) }()
	}
	if e.opt.ReadOnly {
		return nil, ErrReadOnly
	}
	start := time.Now()
	// An index run that finds nothing to change must not report success
	// on a store doctor calls damaged: the store is checked in full unless
	// it is as the last checked run of this user's braid left it.
	if e.cl == nil {
		if err := e.st.VerifyChanged(); err != nil {
			return nil, err
		}
	}
	var sources []*Source
	force := map[string]bool{}
	if len(specs) == 0 {
		all, err := e.ret.Sources(ctx)
		if err != nil {
			return nil, err
		}
		if len(all) == 0 {
			return nil, errors.New("no sources registered yet; run braid index PATH")
		}
		sources = all
	}
	// Check every path before touching the index.
	for _, sp := range specs {
		src, rechunk, err := sp.Source(func(id string) (*Source, error) { return e.sourceByID(ctx, id) })
		if err != nil {
			return nil, err
		}
		// The caller named the path: the source is granted as it is now
		// (sealed with this user's key when it is written).
		src.Untrusted = ""
		force[src.ID] = rechunk
		sources = append(sources, src)
	}
	return e.index(ctx, sources, force, progress, start)
}

// index brings the index in step with sources, registered or about to be;
// force names those to re-chunk. A source this user's key does not
// vouch for, or whose path a link has taken, stops the run before it
// reads anything.
func (e *Engine) index(ctx context.Context, sources []*Source, force map[string]bool, progress func(Progress), start time.Time) (sum *Summary, err error) {
	if e.cl == nil {
		for _, src := range sources {
			if err := src.Usable(); err != nil {
				return nil, err
			}
		}
	}
	if e.cl != nil {
		sum := &Summary{}
		err := e.cl.Index(ctx, sources, force, progress, sum)
		sum.TookMS = time.Since(start).Milliseconds()
		return sum, err
	}
	return e.write(ctx, progress, start, func(ix *ingest.Indexer, sum *Summary) error {
		for _, src := range sources {
			ix.Force = force[src.ID]
			if err := ix.Index(ctx, src, sum); err != nil {
				return err
			}
		}
		return nil
	})
}

// indexChanged brings the index in step with what a watch saw change
// under a registered source: only those paths where it can
// (ingest.Indexer.IndexPaths), else the whole source, the summary saying
// why (Summary.Walked).
func (e *Engine) indexChanged(ctx context.Context, src *Source, b watch.Batch, start time.Time) (*Summary, error) {
	if e.cl != nil || b.Lost {
		sum, err := e.index(ctx, []*Source{src}, nil, nil, start)
		if sum != nil && b.Lost {
			sum.Walked = "notifications were lost"
		}
		return sum, err
	}
	if err := src.Usable(); err != nil {
		return nil, err
	}
	return e.write(ctx, nil, start, func(ix *ingest.Indexer, sum *Summary) error {
		return ix.IndexPaths(ctx, src, b.Paths, sum)
	})
}

// write runs fn with an indexer over the embedded index, then saves the
// vector graph and stamps the store as a run that ends without error
// does.
func (e *Engine) write(ctx context.Context, progress func(Progress), start time.Time, fn func(*ingest.Indexer, *Summary) error) (*Summary, error) {
	var embedProgress func(done int)
	if progress != nil {
		embedProgress = func(done int) {
			progress(Progress{Source: "embeddings", Phase: "embed", Done: done})
		}
	}
	vs := e.vectors(embedProgress)
	ix := &ingest.Indexer{Store: e.st, Lexical: e.lex, Opt: ingest.Options{Workers: e.opt.Workers, BatchDocs: e.opt.BatchDocs}, Progress: progress, Vectors: vs, Blobs: e.blobs(), AWS: e.opt.AWS}
	sum := &Summary{}
	defer ingest.Guard(e.st)() // the commits and the graph's save after them
	gen0, genErr := e.st.Gen()
	runErr := fn(ix, sum)
	if runErr == nil {
		runErr = e.saveVectors(ctx, vs, true)
	} else {
		// Keep what was embedded before the failure; the next run fills the rest.
		_ = e.saveVectors(ctx, vs, false)
	}
	if vs != nil {
		sum.Embedded = vs.Embedded
		sum.EmbedMS = vs.EmbedTime.Milliseconds()
		sum.Tokens = vs.Tokens
	}
	if runErr == nil {
		e.st.Stamp()
		// Only a run that committed changes frees pages: one that only
		// recorded its files' statuses (ingest/filestat.go) leaves
		// meta.db as it is, whenever those statuses settle.
		if gen, err := e.st.Gen(); genErr != nil || err != nil || gen != gen0 {
			sum.Compacted, runErr = e.compact(progress)
		}
	}
	sum.TookMS = time.Since(start).Milliseconds()
	return sum, runErr
}

// compactMinSlack is the least unused space in meta.db that a run
// compacts (index.CompactMinSlack; tests lower it).
var compactMinSlack int64 = index.CompactMinSlack

// compact rewrites meta.db without its unused pages when a run or a
// source's removal left enough of them (index.Store.Compact), saying so to progress first.
func (e *Engine) compact(progress func(Progress)) (*index.Compaction, error) {
	if slack, size := e.st.Slack(); !index.CompactWorth(slack, size, compactMinSlack) {
		return nil, nil
	}
	if progress != nil {
		progress(Progress{Source: indexdir.StoreFile, Phase: "compact"})
	}
	return e.st.Compact(compactMinSlack)
}

// Sources is the index's registered sources: List them, Remove one.
type Sources struct{ e *Engine }

// Sources is the index's registered sources.
func (e *Engine) Sources() *Sources { return &Sources{e} }

// Sessions is the index's sessions: named working sets of the sources'
// documents that a search's, grep's or listing's Session option scopes
// it to, and whose sources a server can watch (package sessions).
func (s *Sources) Sessions() *sessions.Store { return s.e.sess }

// newSessions hands package sessions what it needs of the engine; it is
// called once e.st is open (and, on a cluster backend, e.cl set).
func (e *Engine) newSessions() *sessions.Store {
	return sessions.New(sessions.Config{Index: e.st, Sources: e.Sources().List, ReadOnly: e.opt.ReadOnly})
}

// List lists the registered sources.
func (s *Sources) List(ctx context.Context) ([]*Source, error) { return s.e.ret.Sources(ctx) }

// sourceByID is the registered source with this id, or nil.
func (e *Engine) sourceByID(ctx context.Context, id string) (*Source, error) {
	if e.cl == nil {
		return e.st.Source(id)
	}
	all, err := e.ret.Sources(ctx)
	if err != nil {
		return nil, err
	}
	for _, s := range all {
		if s.ID == id {
			return s, nil
		}
	}
	return nil, nil
}

// Remove unregisters a source (by id or name) and removes its documents
// from the index; the files themselves are not touched. It returns how
// many documents were removed.
func (s *Sources) Remove(ctx context.Context, ref string) (int, error) {
	e := s.e
	if e.opt.ReadOnly {
		return 0, ErrReadOnly
	}
	src, err := e.nt.Source(ctx, ref)
	if err != nil {
		return 0, err
	}
	if e.cl != nil {
		files, err := e.cl.Remote().FileHashes(ctx, src.ID)
		if err != nil {
			return 0, err
		}
		return len(files), e.cl.Remote().DeleteSource(ctx, src.ID)
	}
	if src.Kind == index.SourceStore {
		// Its records would bring the documents back at the next add.
		return 0, fmt.Errorf("%w: %q is the document store, not a folder; delete stored documents by name instead (braid delete, or the MCP tool delete_by_name)", ErrBadOption, ref)
	}
	vs := e.vectors(nil)
	ix := &ingest.Indexer{Store: e.st, Lexical: e.lex, Vectors: vs, Blobs: e.blobs()}
	n, err := ix.RemoveSource(context.Background(), src.ID)
	if err != nil {
		return n, err
	}
	if err := e.saveVectors(ctx, vs, true); err != nil {
		return n, err
	}
	// A large source's pages are free now: give them back as a run does.
	_, err = e.compact(nil)
	return n, err
}

// Trust vouches for the sources named (ids or names; none means every
// registered source) as this user's own: their records are sealed with
// this user's key, so their files are read and braid serve grants their
// folders. It is for an index this user made that does not verify here
// (made by an older braid, or moved from another machine); an index
// cloned from someone else's repository should be rebuilt instead. It
// returns the sources it sealed.
func (s *Sources) Trust(ctx context.Context, refs ...string) ([]*Source, error) {
	e := s.e
	if e.opt.ReadOnly {
		return nil, ErrReadOnly
	}
	if e.cl != nil {
		return nil, e.embeddedOnly("braid sources trust")
	}
	if len(refs) == 0 {
		all, err := e.st.Sources()
		if err != nil {
			return nil, err
		}
		return e.st.Trust(all)
	}
	srcs := make([]*Source, len(refs))
	for i, ref := range refs {
		var err error
		if srcs[i], err = e.nt.Source(ctx, ref); err != nil {
			return nil, err
		}
	}
	return e.st.Trust(srcs)
}
