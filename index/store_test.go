package index

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/braidsearch/braid/internal/testenv"
	"github.com/braidsearch/braid/lexical"
	"github.com/braidsearch/braid/query"
)

func openPair(t testing.TB, dir string) (*Store, *lexical.Index) {
	t.Helper()
	st, err := OpenStore(filepath.Join(dir, "meta.db"), false)
	if err != nil {
		t.Fatal(err)
	}
	lex, err := lexical.Open(filepath.Join(dir, "lex"), false, nil)
	if err != nil {
		t.Fatal(err)
	}
	return st, lex
}

// change makes a one-chunk document update.
func change(id, hash, text string) Change {
	d := &Document{ID: id, SourceID: "s1", Path: id + ".md", Title: id, Hash: hash}
	return Change{Doc: d, Chunks: []Chunk{{ID: id + "#" + hash[:8] + ".0", DocID: id, Text: text, StartLine: 1, EndLine: 1}}}
}

func lexSearch(t *testing.T, lex *lexical.Index, q string) []string {
	t.Helper()
	pq, err := query.Parse(q)
	if err != nil {
		t.Fatal(err)
	}
	cands, _, err := lex.Search(context.Background(), lexical.Request{Query: pq, Size: 10})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, c := range cands {
		ids = append(ids, c.ChunkID)
	}
	return ids
}

// TestRecoverAfterCrash simulates a crash between the store commit and the
// lexical batch: Recover must bring the lexical index in step.
func TestRecoverAfterCrash(t *testing.T) {
	dir := t.TempDir()
	st, lex := openPair(t, dir)
	ix := &Indexer{Store: st, Lexical: lex}
	if err := ix.commit(context.Background(), []Change{change("a", "aaaaaaaa11", "the quick brown fox")}); err != nil {
		t.Fatal(err)
	}
	// Crash: the store has the new version of a, the lexical index does not.
	if _, err := st.Commit([]Change{change("a", "bbbbbbbb22", "a lazy dog sleeps")}); err != nil {
		t.Fatal(err)
	}
	if got := lexSearch(t, lex, "dog"); len(got) != 0 {
		t.Fatalf("before recovery the lexical index already has %v", got)
	}
	if _, err := st.Commit(nil); err == nil {
		t.Fatal("Commit over an unrecovered pending record succeeded, want refusal")
	}
	if err := Recover(st, lex); err != nil {
		t.Fatal(err)
	}
	if got := lexSearch(t, lex, "dog"); len(got) != 1 || got[0] != "a#bbbbbbbb.0" {
		t.Errorf("after recovery search dog = %v, want [a#bbbbbbbb.0]", got)
	}
	if got := lexSearch(t, lex, "fox"); len(got) != 0 {
		t.Errorf("after recovery the old chunk is still found: %v", got)
	}
	if p := testenv.Must1(st.PendingWork())(t); p != nil {
		t.Errorf("pending record left after recovery: %+v", p)
	}
	sg := testenv.Must1(st.Gen())(t)
	lg := testenv.Must1(lex.Gen())(t)
	if sg != lg || sg != 2 {
		t.Errorf("generations store %d lexical %d, want both 2", sg, lg)
	}
	// Reopening keeps everything.
	st.Close()
	lex.Close()
	st, lex = openPair(t, dir)
	defer st.Close()
	defer lex.Close()
	if got := lexSearch(t, lex, "dog"); len(got) != 1 {
		t.Errorf("after reopen search dog = %v, want one hit", got)
	}
}

// TestRecoverAfterLexicalApplied covers a crash after the lexical batch but
// before the pending record was cleared.
func TestRecoverAfterLexicalApplied(t *testing.T) {
	st, lex := openPair(t, t.TempDir())
	defer st.Close()
	defer lex.Close()
	c := change("b", "cccccccc33", "hello world")
	p, err := st.Commit([]Change{c})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lex.Apply(p.Gen, p.Delete, []lexical.Chunk{*c.Chunks[0].Lexical()}, func(string) lexical.ChunkMeta { return lexical.ChunkMeta{} }); err != nil {
		t.Fatal(err)
	}
	if err := Recover(st, lex); err != nil {
		t.Fatal(err)
	}
	n := testenv.Must1(lex.DocCount())(t)
	if n != 1 {
		t.Errorf("lexical index has %d chunks, want 1 (no double apply)", n)
	}
	if p := testenv.Must1(st.PendingWork())(t); p != nil {
		t.Errorf("pending record left: %+v", p)
	}
}
