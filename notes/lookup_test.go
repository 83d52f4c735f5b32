package notes

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/braidsearch/braid/chunk"
	"github.com/braidsearch/braid/index"
	"github.com/braidsearch/braid/internal/testenv"
	"github.com/braidsearch/braid/lexical"
)

// lookupReader reads a store whose folder source "kb" (id s1) indexed
// three notes, whose files exist in the returned folder: a.md (tag plan,
// one chunk), b/c.md (tags plan and done) and d.md without chunks, the
// last two with the same content hash.
func lookupReader(t *testing.T) (*Reader, string) {
	t.Helper()
	st, dir := kbStore(t)
	docs := []struct {
		id, path, hash string
		tags           []string
		chunk          string
	}{
		{"a", "a.md", "aaaa1111" + strings.Repeat("0", 56), []string{"plan"}, "Alpha   notes\nin two lines"},
		{"c", "b/c.md", "cccc2222" + strings.Repeat("1", 56), []string{"plan", "Done"}, "Gamma"},
		{"d", "d.md", "cccc2222" + strings.Repeat("1", 56), nil, ""},
	}
	var batch []index.Change
	for _, d := range docs {
		abs := filepath.Join(dir, filepath.FromSlash(d.path))
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(abs, []byte(d.chunk+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		ch := index.Change{Doc: &index.Document{ID: d.id, SourceID: "s1", Path: d.path, Title: d.id, Hash: d.hash, Tags: d.tags, Kind: index.KindMarkdown, Lines: 2}}
		if d.chunk != "" {
			ch.Chunks = []index.Chunk{{ID: chunk.ID(d.id, d.hash, 0), DocID: d.id, Text: d.chunk, StartLine: 1, EndLine: 2, HeadingPath: []string{d.id}}}
		}
		batch = append(batch, ch)
	}
	p, err := st.Commit(batch)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.ClearPending(p.Gen); err != nil {
		t.Fatal(err)
	}
	return NewReader(st, nil, Config{}), dir
}

func TestKeep(t *testing.T) {
	r, _ := lookupReader(t)
	for _, tc := range []struct {
		name string
		req  lexical.Request
		want []string
	}{
		{"no filter", lexical.Request{}, []string{"a", "c", "d"}},
		{"source", lexical.Request{SourceIDs: []string{"s1"}}, []string{"a", "c", "d"}},
		{"other source", lexical.Request{SourceIDs: []string{"s2"}}, nil},
		{"glob", lexical.Request{PathGlob: "b/**"}, []string{"c"}},
		{"tags, any case, with #", lexical.Request{Tags: []string{"#plan", "done"}}, []string{"c"}},
		{"documents", lexical.Request{DocIDs: []string{"a", "d", "gone"}}, []string{"a", "d"}},
		{"no documents", lexical.Request{DocIDs: []string{}}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			keep, err := r.Keep(tc.req)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, id := range []string{"a", "c", "d", "gone"} {
				ok, err := keep(id)
				if err != nil {
					t.Fatal(err)
				}
				if ok {
					got = append(got, id)
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("kept (-want +got):\n%s", diff)
			}
		})
	}
	if _, err := r.Keep(lexical.Request{PathGlob: "[unclosed"}); err == nil {
		t.Error("Keep with a broken glob: no error")
	}
}

func TestByHash(t *testing.T) {
	r, _ := lookupReader(t)
	type found struct {
		ID, ChunkID, Snippet string
	}
	for _, tc := range []struct {
		name  string
		q     HashQuery
		want  []found
		total int
		err   error
	}{
		{"anchored at the first chunk", HashQuery{Hash: "AAAA1111", Explicit: true, Limit: 10},
			[]found{{"a", chunk.ID("a", "aaaa1111", 0), "Alpha notes in two lines"}}, 1, nil},
		{"same content, by path", HashQuery{Hash: "cccc2222", Limit: 10},
			[]found{{"c", chunk.ID("c", "cccc2222", 0), "Gamma"}, {"d", "", ""}}, 2, nil},
		{"limit counts all", HashQuery{Hash: "cccc2222", Limit: 1},
			[]found{{"c", chunk.ID("c", "cccc2222", 0), "Gamma"}}, 2, nil},
		{"filtered", HashQuery{Hash: "cccc2222", Limit: 10, Filter: func() (lexical.Request, error) { return lexical.Request{Tags: []string{"done"}}, nil }},
			[]found{{"c", chunk.ID("c", "cccc2222", 0), "Gamma"}}, 1, nil},
		{"a query that matches nothing", HashQuery{Hash: "bbbb1111", Limit: 10}, nil, 0, nil},
		{"a hash that matches nothing", HashQuery{Hash: "bbbb1111", Explicit: true, Limit: 10}, nil, 0, index.ErrNotFound},
		{"a hash that matches two", HashQuery{Hash: "cccc2222", Explicit: true, Limit: 10}, nil, 0, index.ErrAmbiguous},
		{"too short", HashQuery{Hash: "cccc", Explicit: true}, nil, 0, index.ErrBadOption},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hits, total, err := r.ByHash(context.Background(), tc.q)
			if !errors.Is(err, tc.err) {
				t.Fatalf("ByHash: %v, want %v", err, tc.err)
			}
			var got []found
			for _, h := range hits {
				f := found{ID: h.Doc.ID, Snippet: h.Snippet}
				if h.Chunk != nil {
					f.ChunkID = h.Chunk.ID
				}
				got = append(got, f)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" || total != tc.total {
				t.Errorf("ByHash total %d, want %d; hits (-want +got):\n%s", total, tc.total, diff)
			}
		})
	}
}

func TestEditable(t *testing.T) {
	r, dir := lookupReader(t)
	outside := filepath.Join(t.TempDir(), "x.md")
	if err := os.WriteFile(outside, []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "link.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "a.md"), filepath.Join(dir, "alias.md")); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, file string
		wantID     string
		wantReal   string
		err        error
	}{
		{"path", filepath.Join(dir, "b", "c.md"), "c", filepath.Join(dir, "b", "c.md"), nil},
		{"document name", "b/c", "c", filepath.Join(dir, "b", "c.md"), nil},
		{"a link inside the source", filepath.Join(dir, "alias.md"), "a", filepath.Join(dir, "a.md"), nil},
		{"a link out of the source", filepath.Join(dir, "link.md"), "", "", ErrOutside},
		{"a file outside", outside, "", "", ErrOutside},
		{"no such document", "nothing-here", "", "", index.ErrNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src, d, real, err := r.Editable(tc.file)
			if !errors.Is(err, tc.err) {
				t.Fatalf("Editable(%q): %v, want %v", tc.file, err, tc.err)
			}
			if err != nil {
				return
			}
			wantReal := testenv.Must1(filepath.EvalSymlinks(tc.wantReal))(t)
			if src.ID != "s1" || d.ID != tc.wantID || real != wantReal {
				t.Errorf("Editable(%q) = source %s, document %s, %s; want s1, %s, %s", tc.file, src.ID, d.ID, real, tc.wantID, wantReal)
			}
		})
	}
}

func TestRequest(t *testing.T) {
	r, _ := lookupReader(t)
	if _, err := r.st.UpdateDocMeta("a", map[string]string{"team": "x", "year": "2024"}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.st.UpdateDocMeta("c", map[string]string{"team": "x"}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		sources []string
		meta    map[string]string
		want    lexical.Request
		err     error
	}{
		{"no filter", nil, nil, lexical.Request{PathGlob: "g", Tags: []string{"t"}}, nil},
		{"source by name", []string{"kb"}, nil, lexical.Request{PathGlob: "g", Tags: []string{"t"}, SourceIDs: []string{"s1"}}, nil},
		{"source by id", []string{"s1"}, nil, lexical.Request{PathGlob: "g", Tags: []string{"t"}, SourceIDs: []string{"s1"}}, nil},
		{"unknown source", []string{"nope"}, nil, lexical.Request{}, index.ErrNotFound},
		{"metadata, sorted", nil, map[string]string{"team": "x"}, lexical.Request{PathGlob: "g", Tags: []string{"t"}, DocIDs: []string{"a", "c"}}, nil},
		{"metadata, every pair", nil, map[string]string{"team": "x", "year": "2024"}, lexical.Request{PathGlob: "g", Tags: []string{"t"}, DocIDs: []string{"a"}}, nil},
		{"metadata matching none", nil, map[string]string{"team": "y"}, lexical.Request{PathGlob: "g", Tags: []string{"t"}, DocIDs: []string{}}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := r.Request(context.Background(), Filters{Sources: tc.sources, PathGlob: "g", Tags: []string{"t"}, Metadata: tc.meta})
			if !errors.Is(err, tc.err) {
				t.Fatalf("Request: %v, want %v", err, tc.err)
			}
			if err != nil {
				return
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Request (-want +got):\n%s", diff)
			}
		})
	}
}
