package braid

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/braidsearch/braid/graph"
	"github.com/braidsearch/braid/index"
)

// SourceStats describes one source in Stats.
type SourceStats struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	Path      string    `json:"path"`
	Kind      string    `json:"kind"`
	Endpoint  string    `json:"endpoint,omitempty"` // an S3 source's S3-compatible store
	Documents int       `json:"documents"`
	Chunks    int       `json:"chunks"`
	Bytes     int64     `json:"bytes"`
	IndexedAt time.Time `json:"indexed_at,omitzero"`
}

// Stats describes the index.
type Stats struct {
	Dir string `json:"index"`
	// Backend is the cluster's URL and index ("http://…/braid") for an
	// engine on the OpenSearch backend; empty for the embedded index.
	// Bytes, IndexBytes and the per-source counts are then zero.
	Backend       string        `json:"backend,omitempty"`
	Documents     int           `json:"documents"`
	Chunks        int           `json:"chunks"`
	Bytes         int64         `json:"bytes"`       // size of the indexed content
	IndexBytes    int64         `json:"index_bytes"` // size of the index directory
	SchemaVersion int           `json:"schema_version"`
	Sources       []SourceStats `json:"sources"`
	Settings      []Setting     `json:"settings"` // settings.go: the defaults searches use here
	// Tuned says where the search settings came from when braid tune saved them.
	Tuned *Tuned `json:"tuned,omitempty"`
}

// Stats counts documents, chunks and bytes, in all and per source.
func (e *Engine) Stats() (*Stats, error) {
	srcs, err := e.ret.Sources(context.Background())
	if err != nil {
		return nil, err
	}
	if e.cl != nil {
		return e.clusterStats(srcs)
	}
	st := &Stats{Dir: e.dir, SchemaVersion: index.SchemaVersion, Sources: []SourceStats{}, Settings: e.Config().List(), Tuned: e.currentSettings().Tuned}
	per := map[string]*SourceStats{}
	for _, s := range srcs {
		st.Sources = append(st.Sources, SourceStats{ID: s.ID, Name: s.Name, Path: s.Path, Kind: string(s.Kind), Endpoint: s.Endpoint, IndexedAt: s.IndexedAt})
	}
	for i := range st.Sources {
		per[st.Sources[i].ID] = &st.Sources[i]
	}
	err = e.st.ForEachDoc(func(d *Document) error {
		st.Documents++
		st.Chunks += len(d.ChunkIDs)
		st.Bytes += d.Size
		if s := per[d.SourceID]; s != nil {
			s.Documents++
			s.Chunks += len(d.ChunkIDs)
			s.Bytes += d.Size
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	st.IndexBytes = dirSize(e.dir)
	return st, nil
}

func dirSize(dir string) int64 {
	var n int64
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return n
}

// Check is one finding of Doctor.
type Check struct {
	Name   string `json:"name"`
	OK     bool   `json:"ok"`
	Detail string `json:"detail"`
	// Warning marks a finding that does not make the index unhealthy but
	// limits it, such as no embedding model: search is BM25 only.
	Warning bool `json:"warning,omitempty"`
}

// Doctor checks the index for consistency: format version, interrupted
// commits, the store and the lexical index agreeing chunk for chunk, every
// document's chunks present, every document in the link graph, every chunk
// in the vector index (when the engine has an embedder), and every
// source's path still there.
func (e *Engine) Doctor() ([]Check, error) {
	if e.cl != nil {
		return e.clusterDoctor()
	}
	checks, err := e.doctor()
	if errors.Is(err, index.ErrCorrupt) {
		// A damaged file found on the way is the finding, not a failure
		// to check.
		return append(checks, Check{Name: "files", Detail: err.Error()}), nil
	}
	return checks, err
}

func (e *Engine) doctor() ([]Check, error) {
	var checks []Check
	add := func(name string, ok bool, format string, args ...any) {
		checks = append(checks, Check{Name: name, OK: ok, Detail: fmt.Sprintf(format, args...)})
	}
	add("format", true, "index format %d", index.SchemaVersion)

	lex, err := e.lexical()
	if err != nil {
		return nil, err
	}
	p, err := e.st.PendingWork()
	if err != nil {
		return nil, err
	}
	if p != nil {
		add("commits", false, "commit %d was interrupted and is not finished; run braid index (any write finishes it)", p.Gen)
	} else {
		sg, err := e.st.Gen()
		if err != nil {
			return nil, err
		}
		lg, err := lex.Gen()
		if err != nil {
			return nil, err
		}
		add("commits", sg == lg, "store at commit %d, lexical index at commit %d", sg, lg)
	}

	docs, chunks, err := e.st.Counts()
	if err != nil {
		return nil, err
	}
	n, err := lex.DocCount()
	if err != nil {
		return nil, err
	}
	add("lexical", uint64(chunks) == n, "%d chunks in the store, %d in the lexical index", chunks, n)

	var missing []string
	owned := 0
	err = e.st.ForEachDoc(func(d *Document) error {
		cs, err := e.st.Chunks(d.ChunkIDs)
		if err != nil {
			return err
		}
		for i, c := range cs {
			if c == nil || c.DocID != d.ID {
				missing = append(missing, d.ChunkIDs[i])
			}
		}
		owned += len(d.ChunkIDs)
		return nil
	})
	if err != nil {
		return nil, err
	}
	add("chunks", len(missing) == 0 && owned == chunks, "%d documents own %d chunks; %d missing, %d unowned", docs, owned, len(missing), chunks-owned+len(missing))

	nodes := 0
	if err := e.st.Graph(func(r *graph.Reader) error { nodes = r.Len(); return nil }); err != nil {
		return nil, err
	}
	add("graph", nodes == docs, "%d of %d documents in the link graph", nodes, docs)

	if s := e.strandedEmbeddings(); s != "" {
		add("vectors", false, "%s; until then search is lexical only", s)
	}
	if e.vec != nil {
		n := e.vec.Len()
		if n == chunks {
			add("vectors", true, "%d of %d chunks embedded with %s (%d dimensions)", n, chunks, e.opt.Model, e.vec.Dim())
		} else {
			add("vectors", false, "%d of %d chunks embedded with %s; run braid index to embed the rest", n, chunks, e.opt.Model)
		}
	}

	store, err := e.checkStore()
	if err != nil {
		return nil, err
	}
	checks = append(checks, store)

	srcs, err := e.st.Sources()
	if err != nil {
		return nil, err
	}
	var gone []string
	for _, s := range srcs {
		if s.Kind == index.SourceS3 {
			continue // a bucket is asked only when it is indexed
		}
		if _, err := os.Stat(s.Path); err != nil {
			gone = append(gone, s.Path)
		}
	}
	sort.Strings(gone)
	if len(gone) > 0 {
		add("sources", false, "%d of %d source paths are gone: %v; braid sources rm ID drops a source", len(gone), len(srcs), gone)
	} else {
		add("sources", true, "%d sources, all paths present", len(srcs))
	}
	return checks, nil
}

// checkStore checks the document store: every stored document's content
// is in the blob store, and no blob is left that nothing refers to (only a
// warning: an add killed between writing its blob and its record leaves
// one behind).
func (e *Engine) checkStore() (Check, error) {
	bs := e.blobs()
	var lost []string
	stored := 0
	err := e.st.ForEachStored(func(r *index.Stored) error {
		stored++
		if !bs.Has(r.Hash) {
			lost = append(lost, r.Name)
		}
		return nil
	})
	if err != nil {
		return Check{}, err
	}
	refs, err := e.st.BlobRefs()
	if err != nil {
		return Check{}, err
	}
	orphans, bytes, err := bs.Unreferenced(func(h string) bool { return refs[h] })
	if err != nil {
		return Check{}, err
	}
	c := Check{Name: "store", OK: true, Detail: fmt.Sprintf("%d stored documents, their content all present", stored)}
	switch {
	case len(lost) > 0:
		sort.Strings(lost)
		c.OK, c.Detail = false, fmt.Sprintf("%d of %d stored documents have lost their content: %v; add them again with braid add, or braid delete them", len(lost), stored, lost)
	case len(orphans) > 0:
		c.Warning = true
		c.Detail = fmt.Sprintf("%d stored documents; %d blobs (%s) that nothing refers to; braid doctor --repair removes them", stored, len(orphans), index.FormatBytes(bytes))
	}
	return c, nil
}
