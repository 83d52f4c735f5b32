package braid

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/braidsearch/braid/doctor"
	"github.com/braidsearch/braid/indexdir"
	"github.com/braidsearch/braid/lexical"
	"github.com/braidsearch/braid/model"
	"github.com/braidsearch/braid/settings"
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
	// Refused says why the source's files are not read (index.Source
	// Usable: not trusted here, or moved); empty when they are.
	Refused string `json:"refused,omitempty"`
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
	Tuned *settings.Tuned `json:"tuned,omitempty"`
}

// Stats counts documents, chunks and bytes, in all and per source.
func (e *Engine) Stats(ctx context.Context) (*Stats, error) {
	srcs, err := e.ret.Sources(ctx)
	if err != nil {
		return nil, err
	}
	if e.cl != nil {
		return e.clusterStats(ctx, srcs)
	}
	all, per, err := e.nt.Counts()
	if err != nil {
		return nil, err
	}
	st := &Stats{Dir: e.dir, Documents: all.Documents, Chunks: all.Chunks, Bytes: all.Bytes, IndexBytes: doctor.Size(e.dir),
		SchemaVersion: indexdir.SchemaVersion, Sources: []SourceStats{}, Settings: e.Config().List(), Tuned: e.currentSettings().Tuned}
	for _, s := range srcs {
		c := per[s.ID]
		st.Sources = append(st.Sources, SourceStats{ID: s.ID, Name: s.Name, Path: s.Path, Kind: string(s.Kind), Endpoint: s.Endpoint,
			Documents: c.Documents, Chunks: c.Chunks, Bytes: c.Bytes, IndexedAt: s.IndexedAt})
		if err := s.Usable(); err != nil {
			st.Sources[len(st.Sources)-1].Refused = model.Clause(err)
		}
	}
	return st, nil
}

// Check is one finding of Doctor (see package doctor).
type Check = doctor.Check

// DoctorOptions shape Doctor. The zero value (or nil) checks the index's
// consistency.
type DoctorOptions struct {
	// Files first checks the index's files as CheckFiles does, reading the
	// store and the lexical index through the engine's own handles, since
	// opening their files a second time would wait on the locks the engine
	// holds (braid serve running doctor for another process); the
	// consistency checks follow only when every file check passes. A
	// damaged file is a failed check, not an error. The OpenSearch backend
	// has no index files: there it adds nothing.
	Files bool
}

// Doctor checks the index for consistency: format version, interrupted
// commits, the store and the lexical index agreeing chunk for chunk, every
// document's chunks present, every document in the link graph, every chunk
// in the vector index (when the engine has an embedder), and every
// source's path still there. It takes no lock, so it suits an engine that
// other goroutines keep using.
func (e *Engine) Doctor(ctx context.Context, opt *DoctorOptions) ([]Check, error) {
	if e.cl != nil {
		return e.clusterDoctor(ctx)
	}
	var files []Check
	if opt != nil && opt.Files {
		if e.closed.Load() {
			return nil, fmt.Errorf("engine is closed")
		}
		files = doctor.Files(e.dir, e.st.Verify, e.checkOpenLexical)
		for _, c := range files {
			if !c.OK {
				return files, nil
			}
		}
	}
	checks, err := doctor.Consistency(doctor.Handles{
		Store:    e.st,
		Lexical:  e.lexical,
		Blobs:    e.blobs(),
		Vectors:  e.vec,
		Model:    e.opt.Model,
		Stranded: e.strandedEmbeddings(),
	})
	if err != nil {
		return nil, err
	}
	return append(files, checks...), nil
}

// CheckFiles looks at the files of the index in dir without opening it as
// an Engine, each failed check naming the file and the fix (doctor.CheckFiles).
func CheckFiles(dir string) ([]Check, error) { return doctor.CheckFiles(dir) }

// Repair fixes what CheckFiles finds and the index itself can mend
// (doctor.Repair), one line per action. A directory without meta.db is
// ErrNoIndex, or corrupt when what was built from meta.db remains.
func Repair(dir string) ([]string, error) {
	if err := indexdir.StoreMissing(dir); err != nil {
		return nil, err
	}
	if _, err := os.Stat(filepath.Join(dir, indexdir.StoreFile)); err != nil {
		return nil, fmt.Errorf("%w (looked in %s)", ErrNoIndex, dir)
	}
	return doctor.Repair(dir)
}

// checkOpenLexical checks the engine's open lexical index as CheckFiles
// checks lexical.bleve.
func (e *Engine) checkOpenLexical() error {
	lp := filepath.Join(e.dir, indexdir.LexicalDir)
	lex, err := e.lexical()
	if err != nil {
		return lexical.Damaged(lp, err)
	}
	return doctor.Lexical(lp, lex, e.st)
}
