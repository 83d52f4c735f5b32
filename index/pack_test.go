package index

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// TestPackedPages: the chunks' bucket splits its pages full (packed).
// Documents committed in key order leave its pages at least 80% full; in
// random order (document ids are hashes), at least 65% (bbolt's default
// half-page split leaves about 50% with records of 1 KB).
func TestPackedPages(t *testing.T) {
	for _, tc := range []struct {
		name     string
		shuffle  bool
		min, max float64
	}{{"in key order", false, 0.80, 1}, {"random order", true, 0.65, 1}} {
		t.Run(tc.name, func(t *testing.T) {
			st, err := OpenStore(filepath.Join(t.TempDir(), "meta.db"), false)
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			ids := make([]string, 3000)
			for i := range ids {
				ids[i] = fmt.Sprintf("%012x", i*7919)
			}
			slices.Sort(ids)
			if tc.shuffle {
				rand.New(rand.NewPCG(1, 2)).Shuffle(len(ids), func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
			}
			text := strings.Repeat("words of a chunk ", 50) // about 1 KB a record, as the 1M row's
			for start := 0; start < len(ids); start += 100 {
				var changes []Change
				for _, id := range ids[start : start+100] {
					d := &Document{ID: id, SourceID: "s", Path: id + ".md", Hash: "0123456789"}
					var cs []Chunk
					for i := range 3 {
						cs = append(cs, Chunk{ID: fmt.Sprintf("%s#01234567.%d", id, i), DocID: id, Ord: i, Text: text})
					}
					changes = append(changes, Change{Doc: d, Chunks: cs})
				}
				p, err := st.Commit(changes)
				if err != nil {
					t.Fatal(err)
				}
				if err := st.ClearPending(p.Gen); err != nil {
					t.Fatal(err)
				}
			}
			fill := func(name []byte) float64 {
				var fill float64
				st.db.View(func(tx *bolt.Tx) error {
					s := tx.Bucket(name).Stats()
					fill = float64(s.LeafInuse) / float64(s.LeafAlloc)
					return nil
				})
				return fill
			}
			if fill := fill(bucketChunks); fill < tc.min || fill > tc.max {
				t.Errorf("chunks' leaf pages %.0f%% full, want at least %.0f%%", 100*fill, 100*tc.min)
			}
		})
	}
}
