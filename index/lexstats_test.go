package index

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestStatsFollowBatches: the BM25 statistics Apply moves by what each
// batch adds and deletes equal those counted over the whole index, through
// adds, deletes, replacements, chunks added again, empty fields, repeated
// words and tags; and an index whose chunks did not all keep their counts
// is counted again instead.
func TestStatsFollowBatches(t *testing.T) {
	dir := t.TempDir()
	lex, err := OpenLexical(filepath.Join(dir, "lex"), false)
	if err != nil {
		t.Fatal(err)
	}
	defer lex.Close()
	r := rand.New(rand.NewPCG(1, 2))
	words := strings.Fields("kohlrabi garden sun water the a of plant_level plants growing grows tomato soup bread_bake ripen winter vine kiwi")
	text := func(n int) string {
		var w []string
		for range n {
			w = append(w, words[r.IntN(len(words))])
		}
		return strings.Join(w, " ")
	}
	metas := map[string]ChunkMeta{}
	var live []string
	gen := uint64(0)
	for step := range 40 {
		var del []string
		for len(live) > 0 && r.IntN(3) == 0 {
			i := r.IntN(len(live))
			del = append(del, live[i])
			live = append(live[:i], live[i+1:]...)
		}
		var add []*Chunk
		for i := range r.IntN(6) {
			doc := fmt.Sprintf("d%d", r.IntN(8))
			id := fmt.Sprintf("%s#%d.%d", doc, step, i)
			if i == 0 && len(live) > 0 && r.IntN(4) == 0 {
				id = live[r.IntN(len(live))] // indexed again
			}
			var tags []string
			for range r.IntN(3) {
				tags = append(tags, words[r.IntN(4)])
			}
			metas[doc] = ChunkMeta{Title: text(r.IntN(3)), Path: doc + ".md", SourceID: "s1", Tags: tags}
			var heads []string
			if r.IntN(2) == 0 {
				heads = []string{text(2)}
			}
			add = append(add, &Chunk{ID: id, DocID: doc, Text: text(r.IntN(12)), HeadingPath: heads})
			live = append(live, id)
		}
		gen++
		if err := lex.Apply(gen, del, add, func(d string) ChunkMeta { return metas[d] }); err != nil {
			t.Fatal(err)
		}
		lex.statsMu.Lock()
		moved := lex.stats
		lex.statsMu.Unlock()
		if moved == nil {
			t.Fatalf("step %d: statistics not moved by the batch", step)
		}
		counted, err := lex.countStats()
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(counted, moved); diff != "" {
			t.Fatalf("step %d: moved statistics differ from counted (-counted +moved):\n%s", step, diff)
		}
		live = dedupe(live)
	}

	// An index begun before counts were kept is counted again.
	if err := lex.idx.DeleteInternal(keyAllCounted); err != nil {
		t.Fatal(err)
	}
	gen++
	if err := lex.Apply(gen, live[:1], nil, func(string) ChunkMeta { return ChunkMeta{} }); err != nil {
		t.Fatal(err)
	}
	lex.statsMu.Lock()
	moved := lex.stats
	lex.statsMu.Unlock()
	if moved != nil {
		t.Error("statistics moved on an index whose chunks did not all keep counts")
	}
}

func dedupe(ids []string) []string {
	seen := map[string]bool{}
	out := ids[:0]
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}
