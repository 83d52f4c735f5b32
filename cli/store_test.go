package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/braidsearch/braid/internal/testenv"
)

// cliJSON runs a command with --json and decodes its output into v.
func cliJSON(t *testing.T, v any, args ...string) {
	t.Helper()
	out, errOut, code := runCLI(t, append([]string{"--json"}, args...)...)
	if code != 0 {
		t.Fatalf("braid %s: exit %d: %s", strings.Join(args, " "), code, errOut)
	}
	if err := json.Unmarshal([]byte(out), v); err != nil {
		t.Fatalf("braid %s: %v in %q", strings.Join(args, " "), err, out)
	}
}

func TestAddDedupesAndSearchMeta(t *testing.T) {
	idx := filepath.Join(t.TempDir(), "idx")
	file := filepath.Join(t.TempDir(), "plan.md")
	body := "# Plan\n\nThe heron migration plan for spring.\n"
	if err := os.WriteFile(file, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	type addReply struct {
		Hash         string `json:"hash"`
		Name         string `json:"name"`
		BytesStored  int64  `json:"bytes_stored"`
		BytesDeduped int64  `json:"bytes_deduped"`
	}
	var a1, a2 addReply
	cliJSON(t, &a1, "--index", idx, "add", file, "--meta", "status=draft", "--collection", "plans")
	cliJSON(t, &a2, "--index", idx, "add", "--content", body, "--name", "copies/plan.md", "--meta", "status=final")
	if a1.Name != "plan.md" || a1.BytesStored != int64(len(body)) || a2.BytesStored != 0 || a2.BytesDeduped != int64(len(body)) || a1.Hash != a2.Hash {
		t.Fatalf("adds = %+v, %+v; want the second deduped", a1, a2)
	}
	var res struct {
		Results []struct{ Path string } `json:"results"`
	}
	cliJSON(t, &res, "--index", idx, "search", "heron migration", "--meta", "status=final")
	if len(res.Results) != 1 || res.Results[0].Path != "copies/plan.md" {
		t.Fatalf("search --meta status=final = %+v", res.Results)
	}
	cliJSON(t, new(any), "--index", idx, "update", "plan.md", "--meta", "status=final", "--tag", "birds")
	cliJSON(t, &res, "--index", idx, "search", "heron migration", "--meta", "status=final", "--tag", "birds")
	if len(res.Results) != 1 || res.Results[0].Path != "plan.md" {
		t.Fatalf("search after update = %+v", res.Results)
	}
	out, errOut, code := runCLI(t, "--index", idx, "get", "copies/plan.md")
	if code != 0 || out != body {
		t.Fatalf("get stored document: exit %d, %q, %s", code, out, errOut)
	}
	if _, errOut, code := runCLI(t, "--index", idx, "add", "--content", "x", "--name", "../out.md"); code != 1 || !strings.Contains(errOut, "relative path") {
		t.Errorf("add ../out.md: exit %d, %s", code, errOut)
	}
}

func TestDeleteRefusesSourceFiles(t *testing.T) {
	idx := filepath.Join(t.TempDir(), "idx")
	vault := vaultDir(t, 2, "kingfisher")
	if _, errOut, code := runCLI(t, "--index", idx, "index", vault); code != 0 {
		t.Fatal(errOut)
	}
	cliJSON(t, new(any), "--index", idx, "add", "--content", "# Tmp\n\nscratch kingfisher\n", "--name", "tmp/a.md")
	_, errOut, code := runCLI(t, "--index", idx, "delete", "note-0000.md")
	if code != 1 || !strings.Contains(errOut, "does not delete source files") || !strings.Contains(errOut, "sources rm") {
		t.Fatalf("delete of a source file: exit %d, %s", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(vault, "note-0000.md")); err != nil {
		t.Fatalf("source file gone: %v", err)
	}
	var dry struct {
		Deleted []struct{ Name string } `json:"deleted"`
		DryRun  bool                    `json:"dry_run"`
	}
	cliJSON(t, &dry, "--index", idx, "delete", "--pattern", "tmp/*", "--dry-run")
	if len(dry.Deleted) != 1 || !dry.DryRun {
		t.Fatalf("dry run = %+v", dry)
	}
	out, errOut, code := runCLI(t, "--index", idx, "delete", "--pattern", "tmp/*")
	if code != 0 || !strings.Contains(out, "deleted tmp/a.md") {
		t.Fatalf("delete: exit %d, %s%s", code, out, errOut)
	}
	if _, _, code := runCLI(t, "--index", idx, "get", "tmp/a.md"); code != 1 {
		t.Error("deleted document still readable")
	}
	if _, err := os.Stat(filepath.Join(vault, "note-0001.md")); err != nil {
		t.Fatalf("source file gone: %v", err)
	}
}

func TestVersionsAndDiff(t *testing.T) {
	idx := filepath.Join(t.TempDir(), "idx")
	for _, body := range []string{"alpha\nbeta\n", "alpha\ngamma\n"} {
		cliJSON(t, new(any), "--index", idx, "add", "--content", body, "--name", "doc.txt")
	}
	out, errOut, code := runCLI(t, "--index", idx, "versions", "doc.txt")
	if code != 0 || !strings.Contains(out, "v1") || !strings.Contains(out, "v2") || !strings.Contains(out, "current") {
		t.Fatalf("versions: exit %d, %s%s", code, out, errOut)
	}
	out, errOut, code = runCLI(t, "--index", idx, "diff", "doc.txt")
	if code != 0 || !strings.Contains(out, "-beta\n+gamma\n") {
		t.Fatalf("diff: exit %d, %s%s", code, out, errOut)
	}
	vault := t.TempDir()
	f := filepath.Join(vault, "n.md")
	testenv.Must(t, os.WriteFile(f, []byte("# N\n\nold line\n"), 0o644))
	if _, errOut, code := runCLI(t, "--index", idx, "index", vault, "--keep-versions", "3"); code != 0 {
		t.Fatal(errOut)
	}
	testenv.Must(t, os.WriteFile(f, []byte("# N\n\nnew line\n"), 0o644))
	if _, errOut, code := runCLI(t, "--index", idx, "index"); code != 0 {
		t.Fatal(errOut)
	}
	out, errOut, code = runCLI(t, "--index", idx, "diff", "n.md", "--from", "1", "--to", "2")
	if code != 0 || !strings.Contains(out, "-old line\n+new line\n") {
		t.Fatalf("diff of a source file: exit %d, %s%s", code, out, errOut)
	}
}

func TestLs(t *testing.T) {
	idx := filepath.Join(t.TempDir(), "idx")
	vault := vaultDir(t, 2, "osprey")
	if _, errOut, code := runCLI(t, "--index", idx, "index", vault); code != 0 {
		t.Fatal(errOut)
	}
	cliJSON(t, new(any), "--index", idx, "add", "--content", "plain words here\n", "--name", "s/plain.txt", "--meta", "k=v", "--collection", "box")
	var l struct {
		Documents []struct {
			Path       string            `json:"path"`
			Stored     bool              `json:"stored"`
			Source     string            `json:"source"`
			Collection string            `json:"collection"`
			MIME       string            `json:"mime"`
			Metadata   map[string]string `json:"metadata"`
		} `json:"documents"`
		Total int `json:"total"`
	}
	cliJSON(t, &l, "--index", idx, "ls")
	if l.Total != 3 || l.Documents[2].Path != "s/plain.txt" || !l.Documents[2].Stored || l.Documents[0].Stored {
		t.Fatalf("ls = %+v", l)
	}
	cliJSON(t, &l, "--index", idx, "list", "--meta", "k=v", "--mime", "text/plain")
	if l.Total != 1 || l.Documents[0].Collection != "box" || l.Documents[0].Metadata["k"] != "v" || l.Documents[0].Source != "store" {
		t.Fatalf("ls --meta k=v = %+v", l)
	}
	out, errOut, code := runCLI(t, "--index", idx, "ls", "--sources", "--paths-only", "--sort", "name", "--desc")
	if code != 0 || out != "note-0001.md\nnote-0000.md\n" {
		t.Fatalf("ls --sources --paths-only --desc: exit %d, %q %s", code, out, errOut)
	}
	if _, errOut, code := runCLI(t, "--index", idx, "ls", "--recent", "soon"); code != 1 || !strings.Contains(errOut, "duration") {
		t.Errorf("ls --recent soon: exit %d, %s", code, errOut)
	}
}

func TestSnapshotRestoreNeverOverwrites(t *testing.T) {
	idx := filepath.Join(t.TempDir(), "idx")
	cliJSON(t, new(any), "--index", idx, "add", "--content", "one\n", "--name", "d/one.txt", "--collection", "c")
	cliJSON(t, new(any), "--index", idx, "add", "--content", "two\n", "--name", "two.txt", "--collection", "c")
	var cols []struct {
		Name      string `json:"name"`
		Documents int    `json:"documents"`
	}
	cliJSON(t, &cols, "--index", idx, "collections")
	if len(cols) != 1 || cols[0].Name != "c" || cols[0].Documents != 2 {
		t.Fatalf("collections = %+v", cols)
	}
	var snap struct {
		ID string `json:"id"`
	}
	cliJSON(t, &snap, "--index", idx, "snapshot", "create", "--collection", "c", "--label", "v1")
	cliJSON(t, new(any), "--index", idx, "add", "--content", "two changed\n", "--name", "two.txt")
	out, errOut, code := runCLI(t, "--index", idx, "snapshot", "list")
	if code != 0 || !strings.Contains(out, "collection c") || !strings.Contains(out, "v1") {
		t.Fatalf("snapshot list: exit %d, %s%s", code, out, errOut)
	}
	dir := t.TempDir()
	testenv.Must(t, os.WriteFile(filepath.Join(dir, "two.txt"), []byte("keep me\n"), 0o644))
	out, errOut, code = runCLI(t, "--index", idx, "restore", "--snapshot", snap.ID, "--output", dir)
	if code != 0 || !strings.Contains(out, "skipped two.txt") {
		t.Fatalf("restore: exit %d, %s%s", code, out, errOut)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "two.txt")); string(got) != "keep me\n" {
		t.Fatalf("restore overwrote without --overwrite: %q", got)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "d", "one.txt")); string(got) != "one\n" {
		t.Fatalf("d/one.txt = %q", got)
	}
	dry := t.TempDir()
	if out, _, code := runCLI(t, "--index", idx, "restore", "--collection", "c", "--output", dry, "--dry-run"); code != 0 || !strings.Contains(out, "would write") {
		t.Fatalf("dry run: %s", out)
	}
	if entries := testenv.Must1(os.ReadDir(dry))(t); len(entries) != 0 {
		t.Fatalf("dry run wrote %v", entries)
	}
	cliJSON(t, new(any), "--index", idx, "restore", "--collection", "c", "--output", dir, "--overwrite")
	if got, _ := os.ReadFile(filepath.Join(dir, "two.txt")); string(got) != "two changed\n" {
		t.Fatalf("restore --overwrite of the collection: two.txt = %q", got)
	}
}
