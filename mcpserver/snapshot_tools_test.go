package mcpserver_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Collections, snapshots and restore over MCP: a snapshot keeps the content
// it recorded after the document changes, a dry run writes nothing, and
// restore never replaces a file unless overwrite is true.
func TestSnapshotRestoreTools(t *testing.T) {
	c, _ := storeClient(t)
	c.ok("add", map[string]any{"content": "# Plan\n\nfirst draft\n", "name": "trip/plan.md", "collection": "trip"})
	c.ok("add", map[string]any{"content": "# Packing\n\nboots\n", "name": "trip/packing.md", "collection": "trip"})
	c.ok("add", map[string]any{"content": "# Other\n\nnot in the trip\n", "name": "other.md"})

	var cols []struct {
		Name      string `json:"name"`
		Documents int    `json:"documents"`
		Bytes     int64  `json:"bytes"`
	}
	decode(t, c.ok("list_collections", nil), &cols)
	if len(cols) != 1 || cols[0].Name != "trip" || cols[0].Documents != 2 || cols[0].Bytes == 0 {
		t.Fatalf("list_collections = %+v", cols)
	}
	var snap struct {
		ID string `json:"id"`
	}
	decode(t, c.ok("create_snapshot", map[string]any{"collection": "trip", "label": "before edits"}), &snap)
	if snap.ID == "" {
		t.Fatal("create_snapshot returned no id")
	}
	c.ok("add", map[string]any{"content": "# Plan\n\nsecond draft\n", "name": "trip/plan.md", "collection": "trip"})
	var snaps []struct {
		ID        string `json:"id"`
		Label     string `json:"label"`
		Documents int    `json:"documents"`
	}
	decode(t, c.ok("list_snapshots", nil), &snaps)
	if len(snaps) != 1 || snaps[0].ID != snap.ID || snaps[0].Label != "before edits" || snaps[0].Documents != 2 {
		t.Fatalf("list_snapshots = %+v", snaps)
	}

	out := filepath.Join(t.TempDir(), "out")
	type restored struct {
		DryRun  bool `json:"dry_run"`
		Written []struct {
			Name     string `json:"name"`
			Replaced bool   `json:"replaced"`
		} `json:"written"`
		Skipped []struct {
			Name   string `json:"name"`
			Reason string `json:"reason"`
		} `json:"skipped"`
	}
	var r restored
	decode(t, c.ok("restore", map[string]any{"snapshot_id": snap.ID, "output_directory": out, "dry_run": true}), &r)
	if !r.DryRun || len(r.Written) != 2 {
		t.Fatalf("dry run = %+v", r)
	}
	if _, err := os.Stat(out); err == nil {
		t.Fatal("a dry run created the output directory")
	}
	decode(t, c.ok("restore", map[string]any{"snapshot_id": snap.ID, "output_directory": out, "include": []string{"trip/plan*"}}), &r)
	if got, _ := os.ReadFile(filepath.Join(out, "trip", "plan.md")); len(r.Written) != 1 || string(got) != "# Plan\n\nfirst draft\n" {
		t.Fatalf("restore of the snapshot wrote %+v, plan.md = %q; want the first draft", r.Written, got)
	}
	// The collection now holds the second draft; without overwrite the file stays.
	decode(t, c.ok("restore", map[string]any{"collection": "trip", "output_directory": out}), &r)
	if got, _ := os.ReadFile(filepath.Join(out, "trip", "plan.md")); string(got) != "# Plan\n\nfirst draft\n" || len(r.Skipped) != 1 || r.Skipped[0].Name != "trip/plan.md" {
		t.Fatalf("restore without overwrite: skipped %+v, plan.md = %q", r.Skipped, got)
	}
	if len(r.Written) != 1 || r.Written[0].Name != "trip/packing.md" {
		t.Errorf("restore wrote %+v, want packing.md alone", r.Written)
	}
	decode(t, c.ok("restore", map[string]any{"collection": "trip", "output_directory": out, "overwrite": true}), &r)
	if got, _ := os.ReadFile(filepath.Join(out, "trip", "plan.md")); string(got) != "# Plan\n\nsecond draft\n" || !r.Written[0].Replaced && !r.Written[1].Replaced {
		t.Fatalf("restore with overwrite: %+v, plan.md = %q", r.Written, got)
	}
	if _, err := os.Stat(filepath.Join(out, "other.md")); err == nil {
		t.Error("restore of a collection wrote a document outside it")
	}
	if res := c.call("restore", map[string]any{"output_directory": out}); !res.IsError || !strings.Contains(res.Text, "give collection or snapshot_id") {
		t.Errorf("restore without a collection or snapshot = %+v", res)
	}
}
