package opensearch_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/braidsearch/braid/opensearch"
)

func testSources(t *testing.T, url string) {
	ctx := t.Context()
	x := open(t, opensearch.Options{URL: url, Index: "sources-test"})
	sources := func() map[string]string {
		t.Helper()
		m, err := x.Sources(ctx)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for id, rec := range m {
			out[id] = string(rec)
		}
		return out
	}
	put := func(id, record string) {
		t.Helper()
		if err := x.PutSource(ctx, id, []byte(record)); err != nil {
			t.Fatal(err)
		}
	}
	if d := cmp.Diff(map[string]string{}, sources()); d != "" {
		t.Errorf("no sources yet (-want +got):\n%s", d)
	}

	put("a1", `{"path": "/home/me/notes", "globs": ["*.md"], "n": 1.50}`)
	put("b2", `{"path":"/src","nested":{"deep":[1,{"x":null}]}}`)
	want := map[string]string{
		"a1": `{"path":"/home/me/notes","globs":["*.md"],"n":1.50}`,
		"b2": `{"path":"/src","nested":{"deep":[1,{"x":null}]}}`,
	}
	if d := cmp.Diff(want, sources()); d != "" {
		t.Errorf("after two PutSource (-want +got):\n%s", d)
	}
	put("a1", `{"path":"/home/me/notes","renamed":true}`)
	want["a1"] = `{"path":"/home/me/notes","renamed":true}`
	if d := cmp.Diff(want, sources()); d != "" {
		t.Errorf("after replacing a1 (-want +got):\n%s", d)
	}

	// Records are not file hashes.
	if m, err := x.FileHashes(ctx, "a1"); err != nil || len(m) != 0 {
		t.Errorf("FileHashes(a1) with a record but no hashes = %v, %v; want none", m, err)
	}

	// Each source's chunks and file hashes.
	if err := x.Put(ctx, []opensearch.Doc{
		{ChunkID: "a1-c1", DocID: "a1-d1", Source: "a1", Content: "alpha"},
		{ChunkID: "a1-c2", DocID: "a1-d2", Source: "a1", Content: "alpha"},
		{ChunkID: "b2-c1", DocID: "b2-d1", Source: "b2", Content: "alpha"},
	}); err != nil {
		t.Fatal(err)
	}
	if err := x.SetFileHashes(ctx, "a1", map[string]string{"x.md": "h1", "y.md": "h2"}, nil); err != nil {
		t.Fatal(err)
	}
	if err := x.SetFileHashes(ctx, "b2", map[string]string{"x.md": "h3"}, nil); err != nil {
		t.Fatal(err)
	}
	if err := x.Refresh(ctx); err != nil {
		t.Fatal(err)
	}

	if err := x.DeleteSource(ctx, "a1"); err != nil {
		t.Fatal(err)
	}
	delete(want, "a1")
	if d := cmp.Diff(want, sources()); d != "" {
		t.Errorf("after DeleteSource(a1) (-want +got):\n%s", d)
	}
	hits, _, err := x.Lexical(ctx, opensearch.LexQuery{Terms: "alpha"}, opensearch.Filter{}, 10)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"b2-c1"}, ids(hits)); d != "" {
		t.Errorf("chunks after DeleteSource(a1) (-want +got):\n%s", d)
	}
	for source, want := range map[string]map[string]string{"a1": {}, "b2": {"x.md": "h3"}} {
		got, err := x.FileHashes(ctx, source)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("file hashes of %s after DeleteSource(a1) (-want +got):\n%s", source, d)
		}
	}
	if err := x.DeleteSource(ctx, "never-put"); err != nil {
		t.Errorf("DeleteSource of an unknown source: %v, want nil", err)
	}

	for _, tc := range []struct{ name, id, record, want string }{
		{"not JSON", "c3", `path=/x`, "not a JSON object"},
		{"an array", "c3", `[1,2]`, "not a JSON object"},
		{"two objects", "c3", `{}{}`, "not a JSON object"},
		{"empty ID", "", `{}`, "empty source ID"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := x.PutSource(ctx, tc.id, []byte(tc.record))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("PutSource(%q, %q): %v, want an error saying %q", tc.id, tc.record, err, tc.want)
			}
		})
	}
	if err := x.DeleteSource(ctx, ""); err == nil {
		t.Error("DeleteSource(\"\") succeeded, want an error: it would match chunks without a source")
	}
	if d := cmp.Diff(want, sources()); d != "" {
		t.Errorf("after refused writes (-want +got):\n%s", d)
	}
}
