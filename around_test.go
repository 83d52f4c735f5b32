package braid_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/braidsearch/braid"
)

// openSections indexes one note of n sections, one chunk each.
func openSections(t *testing.T, n int) (*braid.Engine, *braid.Document, string) {
	t.Helper()
	dir := t.TempDir()
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "## Part %d\n\nPart %d is about word%d.\n%s\n\n", i, i, i, strings.Repeat("Padding words here. ", 20))
	}
	file := filepath.Join(dir, "parts.md")
	if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	e, err := braid.Open(filepath.Join(t.TempDir(), "idx"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	if _, err := e.Index(context.Background(), []braid.SourceSpec{{Path: dir}}, nil); err != nil {
		t.Fatal(err)
	}
	d, err := e.Notes().Document("parts")
	if err != nil {
		t.Fatal(err)
	}
	if len(d.ChunkIDs) != n {
		t.Fatalf("%d chunks, want one per section (%d)", len(d.ChunkIDs), n)
	}
	return e, d, file
}

func TestAround(t *testing.T) {
	e, d, _ := openSections(t, 5)
	for _, tc := range []struct {
		name          string
		at, radius    int
		first, center int
		n             int
	}{
		{"middle", 2, 1, 1, 1, 3},
		{"radius 0", 2, 0, 2, 0, 1},
		{"start", 0, 2, 0, 0, 3},
		{"end", 4, 2, 2, 2, 3},
		{"wider than the document", 1, 10, 0, 1, 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			nb, err := e.Notes().Around(d.ChunkIDs[tc.at], tc.radius)
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, c := range nb.Chunks {
				ids = append(ids, c.ID)
			}
			if diff := cmp.Diff(d.ChunkIDs[tc.first:tc.first+tc.n], ids); diff != "" || nb.First != tc.first || nb.Center != tc.center || nb.Doc.ID != d.ID {
				t.Errorf("first %d center %d, chunks (-want +got):\n%s", nb.First, nb.Center, diff)
			}
		})
	}
	if _, err := e.Notes().Around(d.ID+"#nothing.9", 1); !errors.Is(err, braid.ErrNotFound) {
		t.Errorf("unknown chunk: %v, want ErrNotFound", err)
	}
	if _, err := e.Notes().Around(d.ChunkIDs[0], -1); !errors.Is(err, braid.ErrBadOption) {
		t.Errorf("negative radius: %v, want ErrBadOption", err)
	}
}

func TestExcerpt(t *testing.T) {
	e, _, file := openSections(t, 3)
	res, err := e.Search(context.Background(), "word2", braid.SearchOptions{Limit: 1})
	if err != nil || len(res.Results) != 1 {
		t.Fatalf("search: %v %+v", err, res)
	}
	h := res.Results[0]
	x, err := e.Notes().Excerpt(context.Background(), h.ID, h.Line, h.Marked(), 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(mustRead(t, file), "\n")
	if x.Focus < h.Line.Start || x.Focus > h.Line.End || !strings.Contains(lines[x.Focus-1], "word2") {
		t.Fatalf("focus line %d (%q), want the line of word2 within %+v", x.Focus, lines[x.Focus-1], h.Line)
	}
	if diff := cmp.Diff(lines[x.Focus-2:x.Focus+1], x.Lines); diff != "" || x.Start != x.Focus-1 {
		t.Errorf("excerpt from %d (-want +got):\n%s", x.Start, diff)
	}
	// The file is read as it is now; a hit whose line range runs past
	// its end is cut to it.
	h.Line = braid.Lines{Start: len(lines) + 5, End: len(lines) + 9}
	h.Highlights = nil
	if x, err := e.Notes().Excerpt(context.Background(), h.ID, h.Line, h.Marked(), 2, 2); err != nil || len(x.Lines) == 0 || x.Start+len(x.Lines)-1 > len(lines) {
		t.Errorf("excerpt past the end: %+v, %v", x, err)
	}
	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Notes().Excerpt(context.Background(), res.Results[0].ID, res.Results[0].Line, res.Results[0].Marked(), 1, 1); err == nil {
		t.Error("excerpt of a deleted file succeeded")
	}
}

func mustRead(t *testing.T, file string) string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSuffix(string(b), "\n")
}
