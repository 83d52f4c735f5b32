package index

import (
	"fmt"

	"github.com/braidsearch/braid/lexical"
)

// Commit writes changes to the store, then to the lexical index, and
// moves the BM25 statistics the store keeps by what the lexical batch
// indexed; a crash between the two is finished by Recover. It returns the
// ids of the chunks the changes removed and the chunks they added, which
// the caller hands on to the vector index (package ingest does).
//
// beside, when set, is called with those once the store holds the
// changes, on a goroutine of its own while the lexical batch is analysed,
// built into a segment and persisted (package ingest adds the chunks to
// the vector index there: bleve builds a batch's segment on one core, the
// graph's inserts keep the other busy). Commit waits for it and returns
// its error after its own; it must not use l.
func Commit(s *Store, l *lexical.Index, changes []Change, beside func(deleted []string, added []*Chunk) error) (deleted []string, added []*Chunk, err error) {
	if len(changes) == 0 {
		return nil, nil, nil
	}
	p, err := s.Commit(changes)
	if err != nil {
		return nil, nil, err
	}
	besideErr := make(chan error, 1)
	defer func() {
		if berr := <-besideErr; err == nil && berr != nil {
			err = berr
		}
	}()
	meta := map[string]lexical.ChunkMeta{}
	for i := range changes {
		d := changes[i].Doc
		if d == nil {
			continue
		}
		meta[d.ID] = chunkMeta(d)
		for j := range changes[i].Chunks {
			added = append(added, &changes[i].Chunks[j])
		}
	}
	if beside == nil {
		besideErr <- nil
	} else {
		go func() { besideErr <- beside(p.Delete, added) }()
	}
	counts, err := l.Apply(p.Gen, p.Delete, lexChunks(added), func(id string) lexical.ChunkMeta { return meta[id] })
	if err != nil {
		return nil, nil, err
	}
	if err := s.clearPending(p.Gen, counts); err != nil {
		return nil, nil, err
	}
	if err := keepStats(s, l); err != nil {
		return nil, nil, err
	}
	return p.Delete, added, nil
}

// chunkMeta is what the lexical index keeps of d with each of its chunks.
func chunkMeta(d *Document) lexical.ChunkMeta {
	return lexical.ChunkMeta{Title: d.Title, Summary: d.Summary(), SourceID: d.SourceID, Path: d.Path, Tags: d.Tags, Record: d.Kind == KindBEIR}
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
			m = chunkMeta(d)
		}
		cache[id] = m
		return m
	}
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
