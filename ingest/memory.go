package ingest

import (
	"context"
	"path/filepath"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/braidsearch/braid/index"
	"github.com/braidsearch/braid/internal/memlimit"
)

// An index run keeps within a memory budget (Options.Memory; by default
// the process's soft memory limit, which braid's --memory sets). Three
// things grew with the corpus before, and the budget now bounds each:
//
//   - the heap between collections: Go lets it grow by the live heap's
//     size (GOGC 100), and an index's live heap is mostly the graph's
//     vectors, which hold no pointers; a memlimit.Pacer keeps the growth
//     to memlimit.Headroom(budget) instead;
//   - meta.db's pages that bbolt maps and a commit's random-key inserts
//     touch all over the file: once the process's file pages grew by the
//     headroom since the run began, they are released after a commit
//     (memlimit.Release; they stay in the page cache);
//   - a commit's size: a batch gathers changes up to batchBytes of chunk
//     text (a share of the budget), not a fixed count of documents, and
//     files are read in windows of as many bytes.

// perChunk is what a batch counts for a chunk beside its text: its
// record, its embedding and its share of the lexical segment built.
const perChunk = 1 << 10

// budget is what one index run may hold.
type budget struct {
	total    int64 // bytes
	batch    int64 // chunk text (and perChunk) a commit gathers
	headroom int64 // heap growth between collections; file pages kept mapped
	file0    int64 // the file pages mapped when the run began
	pacer    *memlimit.Pacer
}

// startBudget begins a run's budget; stop ends it.
func (ix *Indexer) startBudget() *budget {
	total := ix.Opt.Memory
	if total <= 0 {
		total = memlimit.Budget()
	}
	if total <= 0 {
		total = 4 << 30
	}
	_, file := memlimit.Resident()
	b := &budget{total: total, batch: batchBytes(total), headroom: memlimit.Headroom(total), file0: file}
	b.pacer = memlimit.StartPacer(b.headroom)
	return b
}

// batchBytes is the chunk text a commit gathers under a budget of total
// bytes: a 4096th of it, from 1 MiB to 8 MiB (about 256 notes of ten
// chunks at 1 MiB, what a commit held before the budget).
func batchBytes(total int64) int64 {
	return min(max(total/4096, 1<<20), 8<<20)
}

func (b *budget) stop() {
	if b != nil {
		b.pacer.Stop()
	}
}

// committed is called after each commit of the run: it paces the
// collector to the heap the commit left, and releases meta.db's mapped
// pages once the process's file pages outgrew the headroom.
func (b *budget) committed(st *index.Store) {
	if b == nil {
		return
	}
	b.pacer.Step()
	if st == nil {
		return
	}
	if _, file := memlimit.Resident(); file-b.file0 < b.headroom {
		return
	}
	// Inside a read transaction bbolt cannot remap the file (it waits
	// for the transaction), so the mapping Release reads stays put.
	_ = st.View(func(tx *bolt.Tx) error {
		path, err := filepath.Abs(tx.DB().Path())
		if err != nil {
			return err
		}
		_, err = memlimit.Release(path)
		return err
	})
}

// changeBytes is what a change counts towards a batch's batchBytes.
func changeBytes(c index.Change) int64 {
	n := int64(perChunk)
	for i := range c.Chunks {
		n += int64(len(c.Chunks[i].Text)) + perChunk
	}
	return n
}

// windows cuts files into the windows read and parsed together: as many
// files as hold about batchBytes, and at least 2 per worker.
func (ix *Indexer) windows(files []file, batchBytes int64) [][2]int {
	var out [][2]int
	least := 2 * ix.workers()
	if ix.Opt.BatchDocs > 0 {
		least = ix.Opt.BatchDocs
	}
	start, bytes := 0, int64(0)
	for i, f := range files {
		bytes += f.size
		if n := i + 1 - start; (ix.Opt.BatchDocs > 0 && n >= ix.Opt.BatchDocs) || (ix.Opt.BatchDocs <= 0 && n >= least && bytes >= batchBytes) {
			out = append(out, [2]int{start, i + 1})
			start, bytes = i+1, 0
		}
	}
	if start < len(files) {
		out = append(out, [2]int{start, len(files)})
	}
	return out
}

// prepared windows come from pipeline: the next window is read and parsed
// while the one before is recorded and committed, so parsing and the
// commit's single-threaded work overlap on different cores.
type window struct {
	end      int // index past the window's last file
	prepared []prepared
}

// pipeline prepares files window by window on its own goroutine, one
// window ahead of the caller; stop ends it and waits for it.
func (ix *Indexer) pipeline(ctx context.Context, src *index.Source, rd *reader, files []file, entries map[string]index.Entry, batchBytes int64) (next <-chan window, stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	out := make(chan window, 1)
	go func() {
		defer close(out)
		for _, w := range ix.windows(files, batchBytes) {
			if ctx.Err() != nil {
				return // no further file is read
			}
			p := ix.prepare(ctx, src, rd, files[w[0]:w[1]], entries)
			select {
			case out <- window{end: w[1], prepared: p}:
			case <-ctx.Done():
				return
			}
		}
	}()
	return out, func() {
		cancel()
		for range out {
		}
	}
}

// Guard keeps a write to st within the process's budget (memlimit.Budget)
// from the call until stop: the collector paced to the budget's headroom,
// and meta.db's mapped pages released whenever the process's file pages
// grew by the headroom, checked every 100 ms. It covers what follows an
// Index beside the commits: the graph's save walks every chunk id of the
// store, which maps the whole chunks bucket.
func Guard(st *index.Store) (stop func()) {
	b := (&Indexer{}).startBudget()
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				b.committed(st)
			}
		}
	}()
	return func() {
		close(done)
		<-finished
		b.stop()
	}
}
