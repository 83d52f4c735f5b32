package lexical

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/braidsearch/braid/indexdir"
	bolt "go.etcd.io/bbolt"
)

// lexicalWithSegments writes a lexical index of three commits at
// dir/lexical.bleve and returns its path and the segment files its newest
// snapshot names.
func lexicalWithSegments(t *testing.T, dir string) (string, []string) {
	t.Helper()
	path := filepath.Join(dir, "lexical.bleve")
	l, err := Open(path, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	for gen := range 3 {
		var chunks []Chunk
		for i := range 20 {
			doc := fmt.Sprintf("d%d-%d", gen, i)
			chunks = append(chunks, Chunk{ID: doc + "#0000.0", DocID: doc, Text: fmt.Sprintf("garden tomatoes %d", i)})
		}
		if _, err := l.Apply(uint64(gen+1), nil, chunks, func(string) ChunkMeta { return ChunkMeta{Path: "a.md", Tags: []string{"t"}} }); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	names, err := segmentNames(filepath.Join(path, "store", "root.bolt"))
	if err != nil || len(names) == 0 {
		t.Fatalf("segments %v, %v; want some", names, err)
	}
	return path, names
}

// A byte flipped anywhere in a segment (each of its bytes, in turn, up to
// 4,000 places), its footer's offsets and lengths included, is a
// damaged-index error at open: zap reads those before any check of its
// own, and a wild length there was an allocation of terabytes, a fatal
// error no guard recovers (checked only after bleve's open, some bytes of
// this segment crashed the test with "runtime: out of memory").
func TestDamagedSegmentIsAnError(t *testing.T) {
	path, names := lexicalWithSegments(t, t.TempDir())
	seg := filepath.Join(path, "store", names[0])
	data, err := os.ReadFile(seg)
	if err != nil {
		t.Fatal(err)
	}
	var at []int
	for i := max(0, len(data)-64); i < len(data); i++ {
		at = append(at, i) // the footer: offsets, chunk mode, version, CRC
	}
	for i := 0; i < len(data)-64; i += max(1, len(data)/4000) {
		at = append(at, i)
	}
	for _, i := range at {
		spoiled := append([]byte(nil), data...)
		spoiled[i] ^= 0x5a
		if err := os.WriteFile(seg, spoiled, 0o600); err != nil {
			t.Fatal(err)
		}
		l, err := Open(path, true, nil)
		var corrupt *indexdir.CorruptError
		if !errors.As(err, &corrupt) {
			if l != nil {
				l.Close()
			}
			t.Fatalf("byte %d of %d flipped: open gave %v, want a damaged-index error", i, len(data), err)
		}
	}
	opensWith(t, path, seg, data, "the segment mended")
}

// A root.bolt naming a segment outside the index's folder (a cloned
// .braid/ pointing bleve at any file) is refused before bleve opens it.
func TestSegmentNamedOutside(t *testing.T) {
	path, _ := lexicalWithSegments(t, t.TempDir())
	editSnapshots(t, path, func(snap *bolt.Bucket) error {
		return eachSegment(snap, func(seg *bolt.Bucket) error {
			return seg.Put(scorchPath, []byte("../../../etc/passwd"))
		})
	})
	var corrupt *indexdir.CorruptError
	if _, err := Open(path, true, nil); !errors.As(err, &corrupt) || !strings.Contains(err.Error(), "outside lexical.bleve/store") {
		t.Errorf("open: %v, want a damaged-index error naming the segment outside", err)
	}
}

// TestForeignIndexSettings: what a lexical index says of itself beside
// its segments must be what braid writes, or the open refuses it before
// bleve reads it: index_meta.json names the index type and a scorch
// configuration (persister workers, merge plans) that braid's options do
// not replace, and root.bolt keeps the mapping every chunk and query is
// analysed with (an n-gram filter from 1 to 1,000 makes a 4 KB word
// 8 million terms).
func TestForeignIndexSettings(t *testing.T) {
	path, _ := lexicalWithSegments(t, t.TempDir())
	meta := filepath.Join(path, "index_meta.json")
	good, err := os.ReadFile(meta)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ name, meta string }{
		{"another index type", `{"storage":"boltdb","index_type":"upside_down"}`},
		{"another store", `{"storage":"moss","index_type":"scorch"}`},
		{"a scorch configuration", `{"storage":"boltdb","index_type":"scorch","config":{"scorchPersisterOptions":{"NumPersisterWorkers":100000}}}`},
		{"not JSON", `{"storage":`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if err := os.WriteFile(meta, []byte(tt.meta), 0o600); err != nil {
				t.Fatal(err)
			}
			var corrupt *indexdir.CorruptError
			if l, err := Open(path, true, nil); !errors.As(err, &corrupt) || !strings.Contains(err.Error(), "index_meta.json") {
				if l != nil {
					l.Close()
				}
				t.Errorf("open: %v, want a damaged-index error naming index_meta.json", err)
			}
		})
	}
	if err := os.WriteFile(meta, good, 0o600); err != nil {
		t.Fatal(err)
	}

	var m map[string]any
	if err := json.Unmarshal([]byte(lexMappingJSON()), &m); err != nil {
		t.Fatal(err)
	}
	m["analysis"].(map[string]any)["token_filters"] = map[string]any{"grams": map[string]any{"type": "ngram", "min": 1, "max": 1000}}
	crafted, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	editSnapshots(t, path, func(snap *bolt.Bucket) error {
		in := snap.Bucket([]byte{scorchInternal})
		if in == nil || in.Get(scorchMapping) == nil {
			return nil
		}
		return in.Put(scorchMapping, crafted)
	})
	var corrupt *indexdir.CorruptError
	if l, err := Open(path, true, nil); !errors.As(err, &corrupt) || !strings.Contains(err.Error(), "mapping") {
		if l != nil {
			l.Close()
		}
		t.Errorf("open with a crafted mapping: %v, want a damaged-index error naming the mapping", err)
	}
}
