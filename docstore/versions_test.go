package docstore_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/braidsearch/braid/docstore"
	"github.com/braidsearch/braid/index"
)

func TestVersionsAndCompare(t *testing.T) {
	ctx := context.Background()
	ts := newTestStore(t, nil)
	for _, body := range []string{"line one\nline two\nline three\n", "line one\nline 2\nline three\n", "line one\nline 2\nline three\nline four\n"} {
		if _, err := ts.Add(ctx, docstore.AddRequest{Name: "v.txt", Content: body}); err != nil {
			t.Fatal(err)
		}
	}
	l, err := ts.Versions("v.txt")
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Versions) != 3 || !l.Versions[2].Current || !l.Stored {
		t.Fatalf("versions = %+v, want 3 with the last current", l)
	}
	c, err := ts.CompareVersions(t.Context(), "v.txt", "", "")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(c.Diff, "+line four\n") || strings.Contains(c.Diff, "-line two") {
		t.Errorf("previous -> current diff:\n%s", c.Diff)
	}
	c, err = ts.CompareVersions(t.Context(), "v.txt", "1", l.Versions[1].Hash[:8])
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(c.Diff, "-line two\n+line 2\n") {
		t.Errorf("1 -> 2 diff:\n%s", c.Diff)
	}
	if _, err := ts.CompareVersions(t.Context(), "v.txt", "9", ""); !errors.Is(err, index.ErrBadOption) {
		t.Errorf("version 9: %v", err)
	}
}
