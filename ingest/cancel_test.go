package ingest

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/braidsearch/braid/index"
	"github.com/braidsearch/braid/internal/formattest"
)

// TestCancelStopsTheRun: cancelling the run's context as its first file
// is read (a PDF, which extract reads under that context) stops the run:
// Index returns context.Canceled, no other file is read and nothing is
// indexed.
func TestCancelStopsTheRun(t *testing.T) {
	dir := t.TempDir()
	files := map[string][]byte{
		"a.pdf": formattest.Paper(3, nil),
		"b.md":  []byte("# B\n\nsecond note\n"),
		"c.md":  []byte("# C\n\nthird note\n"),
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	st, lex := openPair(t, t.TempDir())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	read := readFile
	t.Cleanup(func() { readFile = read })
	var reads []string
	readFile = func(r *reader, p string) ([]byte, error) {
		reads = append(reads, filepath.Base(p)) // one worker: no race
		if len(reads) == 1 {
			cancel()
		}
		return read(r, p)
	}
	ix := &Indexer{Store: st, Lexical: lex, Opt: Options{Workers: 1}}
	src := &index.Source{ID: "s1", Name: "notes", Path: dir, Kind: index.SourceDir}
	var sum Summary
	if err := ix.Index(ctx, src, &sum); !errors.Is(err, context.Canceled) {
		t.Fatalf("Index after a cancel: %v, want context.Canceled", err)
	}
	if len(reads) != 1 || reads[0] != "a.pdf" {
		t.Errorf("files read: %q, want only a.pdf", reads)
	}
	entries, err := st.Entries(src.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 0 || sum.Added != 0 {
		t.Errorf("a cancelled run indexed %d documents (summary: %d added), want none", len(entries), sum.Added)
	}
}

// TestExtractGetsTheRunsContext: the extraction of a PDF runs under the
// run's context, so a cancelled run stops it rather than reading on.
func TestExtractGetsTheRunsContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	ix := &Indexer{}
	src := &index.Source{ID: "s1", Path: "/notes", Kind: index.SourceDir}
	p := ix.parse(ctx, src, file{rel: "a.pdf", abs: "/notes/a.pdf"}, formattest.Paper(3, nil), "0123456789abcdef", time.Time{})
	if !errors.Is(p.err, context.Canceled) || p.doc != nil {
		t.Errorf("parse of a PDF under a cancelled context: doc %v, error %v; want no document and context.Canceled", p.doc != nil, p.err)
	}
}
