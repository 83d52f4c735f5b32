package mcpserver_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/braidsearch/braid/mcpserver"
)

func storeClient(t *testing.T) (*clientT, string) {
	t.Helper()
	vault, idx := indexed(t, 3, nil)
	return &clientT{connect(t, mcpserver.New(opener(idx, nil), trusting(t))), t}, vault
}

func TestAddUpdateSearchMetadata(t *testing.T) {
	c, _ := storeClient(t)
	body := "# Ferry\n\nThe ferry timetable for the winter season.\n"
	var a1, a2 struct {
		ID           string `json:"id"`
		Hash         string `json:"hash"`
		BytesStored  int64  `json:"bytes_stored"`
		BytesDeduped int64  `json:"bytes_deduped"`
	}
	decode(t, c.ok("add", map[string]any{"content": body, "name": "travel/ferry.md", "metadata": []string{"status=draft"}}), &a1)
	decode(t, c.ok("add", map[string]any{"content": body, "name": "travel/ferry-copy.md", "collection": "travel"}), &a2)
	if a1.BytesStored != int64(len(body)) || a2.BytesStored != 0 || a2.BytesDeduped != int64(len(body)) || a1.Hash != a2.Hash {
		t.Fatalf("adds = %+v, %+v; want the second deduped", a1, a2)
	}
	var res struct {
		Results []struct{ Path string } `json:"results"`
	}
	decode(t, c.ok("search", map[string]any{"query": "ferry timetable", "metadata": []string{"status=draft"}}), &res)
	if len(res.Results) != 1 || res.Results[0].Path != "travel/ferry.md" {
		t.Fatalf("search metadata status=draft = %+v", res.Results)
	}
	c.ok("update", map[string]any{"id": "travel/ferry-copy.md", "metadata": []string{"status=draft"}})
	c.ok("update", map[string]any{"id": "travel/ferry.md", "metadata": []string{"status="}})
	decode(t, c.ok("search", map[string]any{"query": "ferry timetable", "metadata": []string{"status=draft"}}), &res)
	if len(res.Results) != 1 || res.Results[0].Path != "travel/ferry-copy.md" {
		t.Fatalf("search after update = %+v", res.Results)
	}
	if r := c.call("search", map[string]any{"query": "ferry", "metadata": []string{"nokey"}}); !r.IsError {
		t.Errorf("metadata without = accepted: %s", r.Text)
	}
	if got := c.ok("read_node_content", map[string]any{"id": "travel/ferry.md"}); got != body {
		t.Errorf("read_node_content of a stored document = %q", got)
	}
}

func TestDeleteByNameRefusesSourceFiles(t *testing.T) {
	c, vault := storeClient(t)
	c.ok("add", map[string]any{"content": "# Scratch\n\nscratch text\n", "name": "scratch.md"})
	r := c.call("delete_by_name", map[string]any{"name": "note-0001.md"})
	if !r.IsError || !strings.Contains(r.Text, "does not delete source files") {
		t.Fatalf("delete of a source file = %+v", r)
	}
	if _, err := os.Stat(filepath.Join(vault, "note-0001.md")); err != nil {
		t.Fatalf("source file gone: %v", err)
	}
	var dry struct {
		Deleted []struct{ Name string } `json:"deleted"`
	}
	decode(t, c.ok("delete_by_name", map[string]any{"pattern": "*.md", "dry_run": true}), &dry)
	if len(dry.Deleted) != 1 || dry.Deleted[0].Name != "scratch.md" {
		t.Fatalf("dry run over *.md = %+v; want only the stored scratch.md", dry)
	}
	c.ok("delete_by_name", map[string]any{"pattern": "*.md"})
	if r := c.call("read_node_content", map[string]any{"id": "scratch.md"}); !r.IsError {
		t.Errorf("deleted document still readable: %s", r.Text)
	}
	for _, f := range []string{"note-0000.md", "note-0001.md", "note-0002.md"} {
		if _, err := os.Stat(filepath.Join(vault, f)); err != nil {
			t.Fatalf("source file %s gone: %v", f, err)
		}
	}
}

func TestCompareVersions(t *testing.T) {
	c, _ := storeClient(t)
	c.ok("add", map[string]any{"content": "one\ntwo\nthree\n", "name": "v.txt"})
	c.ok("add", map[string]any{"content": "one\n2\nthree\n", "name": "v.txt"})
	var l struct {
		Versions []struct {
			Version int  `json:"version"`
			Current bool `json:"current"`
		} `json:"versions"`
	}
	decode(t, c.ok("list_versions", map[string]any{"id": "v.txt"}), &l)
	if len(l.Versions) != 2 || !l.Versions[1].Current {
		t.Fatalf("list_versions = %+v", l)
	}
	var d struct {
		Diff string `json:"diff"`
	}
	decode(t, c.ok("compare_versions", map[string]any{"id": "v.txt"}), &d)
	if !strings.Contains(d.Diff, "-two\n+2\n") || !strings.Contains(d.Diff, "@@ -1,3 +1,3 @@") {
		t.Errorf("diff:\n%s", d.Diff)
	}
	decode(t, c.ok("compare_versions", map[string]any{"id": "v.txt", "from": "2", "to": "2"}), &d)
	if d.Diff != "" {
		t.Errorf("a version against itself: %q", d.Diff)
	}
}

func TestList(t *testing.T) {
	c, _ := storeClient(t)
	c.ok("add", map[string]any{"content": strings.Repeat("long words ", 50), "name": "big.txt", "metadata": []string{"k=v"}, "collection": "c"})
	var l struct {
		Documents []struct {
			Path   string `json:"path"`
			Stored bool   `json:"stored"`
			Size   int64  `json:"size"`
		} `json:"documents"`
		Total int `json:"total"`
	}
	decode(t, c.ok("list", map[string]any{"sort_by": "size", "sort_order": "desc", "limit": 2}), &l)
	if l.Total != 4 || len(l.Documents) != 2 || l.Documents[0].Size < l.Documents[1].Size {
		t.Fatalf("list by size desc, limit 2 = %+v", l)
	}
	decode(t, c.ok("list", map[string]any{"stored": "stored", "metadata": []string{"k=v"}, "collection": "c", "mime": "text/plain"}), &l)
	if l.Total != 1 || l.Documents[0].Path != "big.txt" || !l.Documents[0].Stored {
		t.Fatalf("list of stored documents = %+v", l)
	}
	var p struct {
		Paths []string `json:"paths"`
	}
	decode(t, c.ok("list", map[string]any{"stored": "source", "extension": "md", "paths_only": true, "modified_after": "2000-01-01"}), &p)
	if strings.Join(p.Paths, ",") != "note-0000.md,note-0001.md,note-0002.md" {
		t.Fatalf("list of sources' paths = %v", p.Paths)
	}
	if r := c.call("list", map[string]any{"created_after": "yesterday"}); !r.IsError || !strings.Contains(r.Text, "created_after") {
		t.Errorf("bad date accepted: %+v", r)
	}
}
