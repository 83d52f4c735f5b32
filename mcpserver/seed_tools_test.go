package mcpserver_test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/braidsearch/braid"
	"github.com/braidsearch/braid/mcpserver"
)

// folderVault writes notes in nested folders: top.md, a/one.md,
// a/b/two.md, a/b/three.md, c/four.md.
func folderVault(t *testing.T) string {
	t.Helper()
	vault := t.TempDir()
	for _, p := range []string{"top.md", "a/one.md", "a/b/two.md", "a/b/three.md", "c/four.md"} {
		file := filepath.Join(vault, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatal(err)
		}
		name := strings.TrimSuffix(filepath.Base(p), ".md")
		if err := os.WriteFile(file, []byte("# Note "+name+"\n\nThe note "+name+" about folders.\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return vault
}

type contentsJSON struct {
	Folder *partJSON  `json:"folder"`
	Items  []partJSON `json:"items"`
	Total  int        `json:"total"`
}

type partJSON struct {
	ID           string `json:"path_part_id"`
	Name         string `json:"name"`
	Type         string `json:"part_type"`
	Materialized string `json:"materialized_path"`
	Path         string `json:"path"`
	Docs         int    `json:"docs"`
}

func contents(t *testing.T, c *clientT, folder string) contentsJSON {
	t.Helper()
	args := map[string]any{}
	if folder != "" {
		args["folder_id"] = folder
	}
	var out contentsJSON
	decode(t, c.ok("list_contents", args), &out)
	return out
}

// list_contents walks the folders by id, from the sources down; folders
// come first, the ids are stable across index runs and servers, and a
// folder's path names it too.
func TestListContents(t *testing.T) {
	vault := folderVault(t)
	idx := indexDir(t, vault)
	c := &clientT{connect(t, mcpserver.New(opener(idx, nil), &mcpserver.Options{Tools: "ks"})), t}
	root := contents(t, c, "")
	if len(root.Items) != 1 || root.Items[0].Type != "FOLDER" || root.Items[0].Docs != 5 || root.Folder != nil {
		t.Fatalf("root: %+v, want the one source with 5 documents", root)
	}
	src := root.Items[0]
	top := contents(t, c, src.ID)
	var got []string
	for _, p := range top.Items {
		got = append(got, p.Type+" "+p.Name+" "+p.Path)
	}
	want := []string{"FOLDER a a", "FOLDER c c", "DOCUMENT top.md top.md"}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("source's children (-want +got):\n%s", d)
	}
	a := top.Items[0]
	if !regexp.MustCompile(`^[0-9a-f]{12}$`).MatchString(a.ID) || a.Docs != 3 || a.Materialized != src.Name+"/a" {
		t.Errorf("folder a: %+v, want a 12-digit id, 3 documents, materialized as %s/a", a, src.Name)
	}
	inA := contents(t, c, a.ID)
	if inA.Folder == nil || inA.Folder.ID != a.ID || len(inA.Items) != 2 || inA.Items[0].Name != "b" || inA.Items[1].Name != "one.md" {
		t.Fatalf("a's children: %+v, want folder b then one.md", inA)
	}
	b := inA.Items[0]
	inB := contents(t, c, b.ID)
	if len(inB.Items) != 2 || inB.Items[0].Name != "three.md" || inB.Items[1].Type != "DOCUMENT" {
		t.Fatalf("b's children: %+v, want three.md and two.md", inB)
	}
	// A document's id reads with get_info, as ks clients do next.
	if out := c.ok("get_info", map[string]any{"path_part_id": inB.Items[1].ID}); !strings.Contains(out, `"path":"a/b/two.md"`) {
		t.Errorf("get_info of a listed document: %s", out)
	}
	if out := c.ok("get_info", map[string]any{"path_part_id": b.ID}); !strings.Contains(out, `"name":"b","path":"a/b"`) {
		t.Errorf("get_info of a listed folder: %s", out)
	}
	// The path names the same folder: relative, as source/folder, absolute.
	for _, p := range []string{"a/b", src.Name + "/a/b", filepath.Join(vault, "a", "b")} {
		if got := contents(t, c, p); got.Folder == nil || got.Folder.ID != b.ID || len(got.Items) != 2 {
			t.Errorf("list_contents %q: %+v, want folder %s", p, got, b.ID)
		}
	}
	// Another index of the same vault, on another server: the same ids.
	idx2 := indexDir(t, vault)
	c2 := &clientT{connect(t, mcpserver.New(opener(idx2, nil), &mcpserver.Options{Tools: "ks"})), t}
	if again := contents(t, c2, "a"); again.Folder == nil || again.Folder.ID != a.ID || again.Items[0].ID != b.ID {
		t.Errorf("folder ids changed between runs: %+v, want a=%s b=%s", again, a.ID, b.ID)
	}
	for _, bad := range []string{"nowhere", "0123456789ab", "a/b/two.md"} {
		if r := c.call("list_contents", map[string]any{"folder_id": bad}); !r.IsError || !strings.Contains(r.Text, "is no folder of the index") {
			t.Errorf("list_contents %q: %+v, want an error saying it is no folder", bad, r)
		}
	}
}

// get_organization_info reports the index's id (the same on every open),
// its name, language and zone: the settings, else the folder's name and
// the machine's.
func TestGetOrganizationInfo(t *testing.T) {
	vault := folderVault(t)
	idx := indexDir(t, vault)
	type orgJSON struct {
		ID, TenantID, Name, Language, LanguageFrom, TimeZone, TimeZoneFrom string
		Documents, Sources                                                 int
	}
	info := func() orgJSON {
		cl, stop := serve(t, mcpserver.New(opener(idx, nil), &mcpserver.Options{Tools: "ks"}))
		defer stop() // the server closes the index before the next open
		if _, err := cl.Initialize(context.Background(), initRequest()); err != nil {
			t.Fatal(err)
		}
		c := &clientT{cl, t}
		var raw struct {
			ID           string `json:"id"`
			TenantID     string `json:"tenant_id"`
			Name         string `json:"name"`
			Language     string `json:"default_language"`
			LanguageFrom string `json:"language_from"`
			TimeZone     string `json:"timezone"`
			TimeZoneFrom string `json:"timezone_from"`
			Documents    int    `json:"documents"`
			Sources      int    `json:"sources"`
		}
		decode(t, c.ok("get_organization_info", nil), &raw)
		// The engine is open now: get_current_datetime takes the zone.
		var now struct{ Timezone string }
		decode(t, c.ok("get_current_datetime", nil), &now)
		if raw.TimeZoneFrom == "setting" && now.Timezone != raw.TimeZone {
			t.Errorf("get_current_datetime in zone %q, want the index's %q", now.Timezone, raw.TimeZone)
		}
		return orgJSON(raw)
	}
	first := info()
	if !regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`).MatchString(first.ID) ||
		first.TenantID != first.ID || first.Name != "idx" || first.Documents != 5 || first.Sources != 1 ||
		first.LanguageFrom != "machine" || first.TimeZoneFrom != "machine" || first.Language == "" || first.TimeZone == "" {
		t.Fatalf("organization: %+v, want a UUID, the folder's name, 5 documents, 1 source, the machine's language and zone", first)
	}
	e, err := braid.Open(idx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]string{"name": "Team notes", "language": "de_CH", "timezone": "Europe/Zurich"} {
		if _, err := e.Config().Set(k, v); err != nil {
			t.Fatal(err)
		}
	}
	e.Close()
	second := info()
	want := orgJSON{ID: first.ID, TenantID: first.ID, Name: "Team notes", Language: "de-CH", LanguageFrom: "setting",
		TimeZone: "Europe/Zurich", TimeZoneFrom: "setting", Documents: 5, Sources: 1}
	if d := cmp.Diff(want, second); d != "" {
		t.Errorf("organization after braid config set (-want +got):\n%s", d)
	}
}
