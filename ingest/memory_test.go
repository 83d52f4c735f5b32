package ingest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/braidsearch/braid/index"
)

// commits is a Target that keeps what each commit held, and the GC
// percent as it was committed.
type commits struct {
	docs []int
	gc   []int
}

func (c *commits) Entries(context.Context, string) (map[string]index.Entry, error) {
	return map[string]index.Entry{}, nil
}

func (c *commits) Commit(_ context.Context, changes []index.Change) error {
	c.docs = append(c.docs, len(changes))
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	c.gc = append(c.gc, p)
	return nil
}

// TestCommitsFollowTheBudget: a run's commits hold the budget's share of
// chunk text (Options.Memory), not a fixed count of files, unless
// BatchDocs names one; the collector is paced while the run commits and
// given back its percent after.
func TestCommitsFollowTheBudget(t *testing.T) {
	dir := t.TempDir()
	para := strings.Repeat("word ", 300) // ~1.5 KB a chunk
	for i := range 60 {
		var b strings.Builder
		for s := range 10 {
			fmt.Fprintf(&b, "# Section %d\n\n%s\n\n", s, para)
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("n%02d.md", i)), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	old := debug.SetGCPercent(100)
	t.Cleanup(func() { debug.SetGCPercent(old) })
	run := func(opt Options) *commits {
		t.Helper()
		c := &commits{}
		ix := &Indexer{Remote: c, Opt: opt}
		src := &index.Source{ID: "s1", Name: "notes", Path: dir, Kind: index.SourceDir, ChunkTokens: 512}
		var sum Summary
		if err := ix.Index(context.Background(), src, &sum); err != nil {
			t.Fatal(err)
		}
		if sum.Added != 60 {
			t.Fatalf("added %d notes, want 60 (errors %v)", sum.Added, sum.Errors)
		}
		return c
	}
	// 1 GiB: 1 MiB a commit, about 40 notes of 25 KiB; 32 GiB: 8 MiB,
	// all 60 in one.
	// 256 MiB live without pointers, as the graph's vectors are: under
	// 1 GiB the headroom is 16 MiB, a GC percent of about 6.
	live := make([]float32, 64<<20)
	runtime.GC()
	small := run(Options{Memory: 1 << 30})
	runtime.KeepAlive(live)
	live = nil
	large := run(Options{Memory: 32 << 30})
	if len(small.docs) < 2 || len(large.docs) != 1 {
		t.Errorf("commits of a run under 1 GiB %v, under 32 GiB %v; want several, then one", small.docs, large.docs)
	}
	if diff := cmp.Diff([]int{16, 16, 16, 12}, run(Options{BatchDocs: 16}).docs); diff != "" {
		t.Errorf("commits with BatchDocs 16 (-want +got):\n%s", diff)
	}
	for _, p := range small.gc {
		if p < 5 || p > 10 {
			t.Errorf("GC percent %d during a run over 256 MiB live under 1 GiB, want about 6", p)
		}
	}
	if p := debug.SetGCPercent(old); p != 100 {
		t.Errorf("GC percent after the runs = %d, want the process's 100 back", p)
	}
}
