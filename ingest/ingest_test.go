package ingest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/braidsearch/braid/index"
	"github.com/braidsearch/braid/internal/testenv"
	"github.com/braidsearch/braid/lexical"
	"github.com/braidsearch/braid/markdown"
)

func TestBEIRRecord(t *testing.T) {
	tests := []struct {
		name, line string
		want       beirDoc
		err        string // part of the error; "" means none
	}{
		{"document", `{"_id": "d1", "title": "T", "text": "body"}`, beirDoc{ID: "d1", Title: "T", Text: "body"}, ""},
		{"no title", `{"_id": "7", "text": "x", "extra": 1}`, beirDoc{ID: "7", Text: "x"}, ""},
		{"missing id", `{"text": "x"}`, beirDoc{}, `missing "_id"`},
		{"empty id", `{"_id": "", "text": "x"}`, beirDoc{}, `missing "_id"`},
		{"null", `null`, beirDoc{}, `missing "_id"`},
		{"numeric id", `{"_id": 5}`, beirDoc{}, "not a JSON object"},
		{"array", `[1]`, beirDoc{}, "not a JSON object"},
		{"trailing data", `{"_id": "a"} {"_id": "b"}`, beirDoc{}, "not a JSON object"},
		{"not UTF-8", "{\"_id\": \"a\xff\"}", beirDoc{}, "not valid UTF-8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ferr := beirRecord("c.jsonl", 12, []byte(tt.line))
			if tt.err == "" {
				if ferr != nil || got != tt.want {
					t.Fatalf("beirRecord(%q) = %+v, %v; want %+v", tt.line, got, ferr, tt.want)
				}
				return
			}
			if ferr == nil || !strings.Contains(ferr.Err, tt.err) || ferr.String() != "c.jsonl:12: "+ferr.Err {
				t.Fatalf("beirRecord(%q) error %v, want one at c.jsonl:12 containing %q", tt.line, ferr, tt.err)
			}
		})
	}
}

// FuzzBEIRRecord checks that no line panics the decoder, a line that fails
// is named by number, and a document that json encodes reads back whole.
func FuzzBEIRRecord(f *testing.F) {
	for _, s := range []string{
		`{"_id": "d1", "title": "T", "text": "body"}`,
		`{"_id": "a#b", "text": "\u0000\ud800"}`,
		`{"_id": ""}`, `{}`, `null`, `[]`, `"x"`, `{"_id": 1}`, `{"_id": "a"`, `{"_id": "a"}x`,
		"{\"_id\": \"\xff\"}", `{"_id": "a", "_id": "b"}`, `{"_id": {"x": 1}}`, `{"title": ["t"]}`,
	} {
		f.Add([]byte(s), "id", "text")
	}
	f.Fuzz(func(t *testing.T, line []byte, id, text string) {
		const n = 3
		if got, ferr := beirRecord("c.jsonl", n, line); ferr != nil {
			if got != (beirDoc{}) || ferr.Line != n || ferr.Err == "" || !strings.HasPrefix(ferr.String(), "c.jsonl:3: ") {
				t.Fatalf("beirRecord(%q) failed as %+v with %+v; want an empty record and an error at line %d", line, ferr, got, n)
			}
		} else if got.ID == "" || !utf8.ValidString(got.ID+got.Title+got.Text) {
			t.Fatalf("beirRecord(%q) = %+v: empty id or invalid UTF-8", line, got)
		}
		// A document as json writes it keeps its id and text.
		if id == "" || !utf8.ValidString(id) || !utf8.ValidString(text) {
			return
		}
		enc, err := json.Marshal(map[string]string{"_id": id, "title": "t", "text": text})
		if err != nil {
			t.Fatal(err)
		}
		got, ferr := beirRecord("c.jsonl", n, enc)
		if ferr != nil || got.ID != id || got.Text != text || got.Title != "t" {
			t.Fatalf("beirRecord(%s) = %+v, %v; want id %q and text %q", enc, got, ferr, id, text)
		}
	})
}

// indexSource indexes src into a fresh store and returns the summary.
func indexSource(t *testing.T, src *index.Source) (*Summary, *index.Store) {
	t.Helper()
	st, lex := openPair(t, t.TempDir())
	t.Cleanup(func() { lex.Close(); st.Close() })
	ix := &Indexer{Store: st, Lexical: lex, Opt: Options{Workers: 2}}
	sum := &Summary{}
	if err := ix.Index(context.Background(), src, sum); err != nil {
		t.Fatal(err)
	}
	return sum, st
}

func TestMaxFiles(t *testing.T) {
	dir := t.TempDir()
	for i := range 5 {
		testenv.Must(t, os.WriteFile(filepath.Join(dir, fmt.Sprintf("n%d.md", i)), []byte(fmt.Sprintf("# Note %d\n\nbody\n", i)), 0o644))
	}
	sum, st := indexSource(t, &index.Source{ID: "s1", Name: "v", Path: dir, Kind: index.SourceDir, MaxFiles: 3})
	if sum.Added != 3 || sum.Skipped.OverFileLimit != 2 || sum.Skipped.Total() != 2 {
		t.Errorf("added %d, skipped %+v; want 3 added and 2 over the file limit", sum.Added, sum.Skipped)
	}
	if len(sum.Errors) != 1 || !strings.Contains(sum.Errors[0].Err, "5 files, over the 3-file limit") || !strings.Contains(sum.Errors[0].Err, "--exclude") {
		t.Errorf("errors %v, want one naming the count, the limit and the fix", sum.Errors)
	}
	for i, want := range []bool{true, true, true, false, false} {
		if d := testenv.Must1(st.DocByPath("s1", fmt.Sprintf("n%d.md", i)))(t); (d != nil) != want {
			t.Errorf("n%d.md indexed = %v, want %v (the first files in path order)", i, d != nil, want)
		}
	}
}

func TestMaxChunks(t *testing.T) {
	long := strings.Repeat("word ", 400) // several 16-token chunks
	dir := t.TempDir()
	testenv.Must(t, os.WriteFile(filepath.Join(dir, "long.md"), []byte("# Long\n\n"+long+"\n"), 0o644))
	testenv.Must(t, os.WriteFile(filepath.Join(dir, "short.md"), []byte("# Short\n\nbrief\n"), 0o644))
	sum, st := indexSource(t, &index.Source{ID: "s1", Name: "v", Path: dir, Kind: index.SourceDir, ChunkTokens: 16, MaxChunks: 4})
	if sum.Added != 1 || sum.Skipped.TooManyChunks != 1 {
		t.Errorf("added %d, skipped %+v; want 1 added and 1 with too many chunks", sum.Added, sum.Skipped)
	}
	if len(sum.Errors) != 1 || !strings.HasSuffix(sum.Errors[0].Path, "long.md") || !strings.Contains(sum.Errors[0].Err, "over the 4-chunk limit per document; split the document or raise SourceSpec.ChunkTokens") {
		t.Errorf("errors %v, want one for long.md naming the limit and the fix", sum.Errors)
	}
	if d := testenv.Must1(st.DocByPath("s1", "long.md"))(t); d != nil {
		t.Error("long.md was indexed past the chunk limit")
	}

	// The same limits hold for the lines of a BEIR corpus.
	corpus := filepath.Join(t.TempDir(), "c.jsonl")
	lines := []string{
		`{"_id": "ok", "text": "fine"}`,
		`{"_id": "long", "text": "` + long + `"}`,
		`{"_id": "big", "text": "` + strings.Repeat("x", 300) + `"}`,
		`{"_id": 3}`,
	}
	testenv.Must(t, os.WriteFile(corpus, []byte(strings.Join(lines, "\n")+"\n"), 0o644))
	sum, _ = indexSource(t, &index.Source{ID: "s2", Name: "c", Path: corpus, Kind: index.SourceJSONL, ChunkTokens: 16, MaxChunks: 4, MaxFileSize: 2100})
	if sum.Added != 2 || sum.Skipped.TooManyChunks != 1 || sum.Skipped.Oversized != 0 || len(sum.Errors) != 2 {
		t.Fatalf("corpus: added %d, skipped %+v, errors %v; want 2 added, 1 with too many chunks, 1 bad line", sum.Added, sum.Skipped, sum.Errors)
	}
	if e := sum.Errors[0]; e.Line != 2 || !strings.Contains(e.Err, "-chunk limit") {
		t.Errorf("first error %v, want line 2 over the chunk limit", e)
	}
	if e := sum.Errors[1]; e.Line != 4 || !strings.Contains(e.Err, "not a JSON object") {
		t.Errorf("second error %v, want line 4 not a document", e)
	}
	sum, _ = indexSource(t, &index.Source{ID: "s3", Name: "c", Path: corpus, Kind: index.SourceJSONL, MaxFileSize: 100})
	if sum.Skipped.Oversized != 2 || len(sum.Errors) != 3 || !strings.Contains(sum.Errors[0].Err, "over the 100 B limit per document; raise it with --max-file-size") || sum.Errors[0].Line != 2 {
		t.Errorf("corpus with a 100 B limit: skipped %+v, errors %v; want lines 2 and 3 oversized", sum.Skipped, sum.Errors)
	}
}

// A document over a cap per document is indexed without the excess and
// reported in Summary.Capped; the rest of the source indexes as usual, and
// the next run finds it unchanged.
func TestCapped(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("# Tagged\n\nkohlrabi\n\n")
	for i := range markdown.MaxTags + 5 {
		fmt.Fprintf(&b, "#t%d [[n%d]]\n", i, i)
	}
	testenv.Must(t, os.WriteFile(filepath.Join(dir, "tagged.md"), []byte(b.String()), 0o644))
	testenv.Must(t, os.WriteFile(filepath.Join(dir, "plain.md"), []byte("# Plain\n\nbrief #one [[tagged]]\n"), 0o644))
	src := &index.Source{ID: "s1", Name: "v", Path: dir, Kind: index.SourceDir}
	st, lex := openPair(t, t.TempDir())
	t.Cleanup(func() { lex.Close(); st.Close() })
	ix := &Indexer{Store: st, Lexical: lex, Opt: Options{Workers: 2}}
	sum := &Summary{}
	if err := ix.Index(context.Background(), src, sum); err != nil {
		t.Fatal(err)
	}
	if sum.Added != 2 || len(sum.Errors) != 0 || sum.Skipped.Total() != 0 {
		t.Errorf("added %d, errors %v, skipped %+v; want both files added", sum.Added, sum.Errors, sum.Skipped)
	}
	want := fmt.Sprintf("%d tags, over the %d-tag cap", markdown.MaxTags+5, markdown.MaxTags)
	if len(sum.Capped) != 1 || !strings.HasSuffix(sum.Capped[0].Path, "tagged.md") || !strings.Contains(sum.Capped[0].Err, want) ||
		strings.Contains(sum.Capped[0].Err, "link") {
		t.Errorf("capped %v, want tagged.md saying %q", sum.Capped, want)
	}
	d, err := st.DocByPath("s1", "tagged.md")
	if err != nil || d == nil {
		t.Fatalf("tagged.md not indexed: %v", err)
	}
	if len(d.Tags) != markdown.MaxTags || len(d.Links) != markdown.MaxTags+5 {
		t.Errorf("tagged.md has %d tags and %d links, want %d and %d", len(d.Tags), len(d.Links), markdown.MaxTags, markdown.MaxTags+5)
	}
	sum = &Summary{}
	if err := ix.Index(context.Background(), src, sum); err != nil {
		t.Fatal(err)
	}
	if sum.Unchanged != 2 || len(sum.Capped) != 0 {
		t.Errorf("second run: %d unchanged, capped %v; want both unchanged", sum.Unchanged, sum.Capped)
	}
}

// openPair opens a fresh store and lexical index in dir.
func openPair(t testing.TB, dir string) (*index.Store, *lexical.Index) {
	t.Helper()
	st, err := index.OpenStore(filepath.Join(dir, "meta.db"), false)
	if err != nil {
		t.Fatal(err)
	}
	lex, err := lexical.Open(filepath.Join(dir, "lex"), false, nil)
	if err != nil {
		t.Fatal(err)
	}
	return st, lex
}
