package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/braidsearch/braid/internal/formattest"
	"github.com/braidsearch/braid/internal/modeltest"
	"github.com/braidsearch/braid/internal/opensearchtest"
	"github.com/braidsearch/braid/internal/testenv"
)

// TestPDFPageEndToEnd indexes a folder holding a PDF whose page 7 alone
// answers a question: the search hit names the page (paper.pdf#page=7),
// cite says p. 7, get --page 7 prints that page and grep names it.
func TestPDFPageEndToEnd(t *testing.T) {
	vault := t.TempDir()
	pdf := formattest.Paper(9, map[int]string{7: "The flux capacitor needs 1.21 gigawatts of power."})
	testenv.Must(t, os.WriteFile(filepath.Join(vault, "paper.pdf"), pdf, 0o644))
	testenv.Must(t, os.WriteFile(filepath.Join(vault, "locked.pdf"), formattest.PDF([]formattest.Page{{Lines: []string{"x"}}}, formattest.PDFOptions{Password: "pw"}), 0o644))
	testenv.Must(t, os.WriteFile(filepath.Join(vault, "note.md"), []byte("# Note\n\nSee the paper.\n"), 0o644))
	testenv.Must(t, os.WriteFile(filepath.Join(vault, "guide.html"), []byte(`<html><title>Guide</title><body><p>Read <a href="note.md">the note</a>.</p></body></html>`), 0o644))
	idx := filepath.Join(t.TempDir(), "idx")

	var sum struct {
		Added        int
		Skipped      map[string]int
		Errors       []any
		NotExtracted []struct{ Path, Error string } `json:"not_extracted"`
	}
	out, errOut, code := runCLI(t, "--index", idx, "--json", "index", vault)
	if code != 0 {
		t.Fatalf("index: exit %d: %s", code, errOut)
	}
	if err := json.Unmarshal([]byte(out), &sum); err != nil {
		t.Fatalf("index --json printed %q: %v", out, err)
	}
	if sum.Added != 3 || sum.Skipped["encrypted"] != 1 || len(sum.Errors) != 0 || len(sum.NotExtracted) != 1 || !strings.Contains(sum.NotExtracted[0].Error, "password") {
		t.Fatalf("index summary %+v, want 3 added and locked.pdf skipped as encrypted", sum)
	}
	out, _, _ = runCLI(t, "--index", idx, "index", vault)
	if !strings.Contains(out, "1 encrypted") {
		t.Errorf("index text %q does not count the encrypted PDF", out)
	}

	var res struct {
		Results []struct {
			Path string
			Page int
		}
	}
	out, errOut, code = runCLI(t, "--index", idx, "--json", "search", "flux capacitor gigawatts")
	if code != 0 {
		t.Fatalf("search: %s", errOut)
	}
	testenv.Must(t, json.Unmarshal([]byte(out), &res))
	if len(res.Results) == 0 || res.Results[0].Page != 7 {
		t.Fatalf("search %s: want the top hit on page 7", out)
	}
	var raw struct {
		Results []map[string]any
	}
	testenv.Must(t, json.Unmarshal([]byte(out), &raw))
	if raw.Results[0]["path"] != "paper.pdf#page=7" {
		t.Errorf("hit path %v, want paper.pdf#page=7", raw.Results[0]["path"])
	}
	chunkID, _ := raw.Results[0]["chunk_id"].(string)

	out, errOut, code = runCLI(t, "--index", idx, "cite", chunkID)
	if code != 0 || !strings.Contains(out, "p. 7") || !strings.Contains(out, "paper.pdf#page=7") {
		t.Errorf("cite: exit %d %q %q; want p. 7 and paper.pdf#page=7", code, out, errOut)
	}

	out, errOut, code = runCLI(t, "--index", idx, "get", "--page", "7", "paper.pdf")
	if code != 0 || !strings.Contains(out, "gigawatts") || !strings.Contains(out, "page 7 of") || strings.Contains(out, "page 6 of") || strings.Contains(out, "page 8 of") {
		t.Errorf("get --page 7: exit %d %q %q", code, out, errOut)
	}
	out, _, code = runCLI(t, "--index", idx, "get", "--page", "6-8", "paper.pdf#page=7")
	if code != 0 || !strings.Contains(out, "page 6 of") || !strings.Contains(out, "page 8 of") || strings.Contains(out, "page 9 of") {
		t.Errorf("get --page 6-8: exit %d %q", code, out)
	}
	if _, errOut, code := runCLI(t, "--index", idx, "get", "--page", "12", "paper.pdf"); code != 1 || !strings.Contains(errOut, "9 pages") {
		t.Errorf("get --page 12: exit %d %q", code, errOut)
	}

	// An HTML link to a note is an edge of the link graph.
	if out, errOut, code := runCLI(t, "--index", idx, "links", "--reverse", "note.md"); code != 0 || !strings.Contains(out, "guide.html") {
		t.Errorf("links --reverse note.md: exit %d %q %q; want guide.html linking it", code, out, errOut)
	}

	out, errOut, code = runCLI(t, "--index", idx, "grep", "gigawatts")
	if code != 0 || !strings.Contains(out, "paper.pdf:page 7:") {
		t.Errorf("grep: exit %d %q %q; want paper.pdf:page 7:", code, out, errOut)
	}
}

// TestIndexOnePDF registers a PDF file as a source of its own; an
// encrypted one is refused with the reason, as a single file that cannot
// be indexed always is.
func TestIndexOnePDF(t *testing.T) {
	dir := t.TempDir()
	good, locked := filepath.Join(dir, "paper.pdf"), filepath.Join(dir, "locked.pdf")
	testenv.Must(t, os.WriteFile(good, formattest.Paper(2, map[int]string{2: "Wombats dig burrows."}), 0o644))
	testenv.Must(t, os.WriteFile(locked, formattest.PDF([]formattest.Page{{Lines: []string{"x"}}}, formattest.PDFOptions{Password: "pw"}), 0o644))
	idx := filepath.Join(t.TempDir(), "idx")
	if _, errOut, code := runCLI(t, "--index", idx, "-q", "index", good); code != 0 {
		t.Fatalf("index paper.pdf: exit %d %s", code, errOut)
	}
	out, _, code := runCLI(t, "--index", idx, "search", "wombats")
	if code != 0 || !strings.Contains(out, "paper.pdf#page=2") {
		t.Errorf("search: exit %d %q", code, out)
	}
	if _, errOut, code := runCLI(t, "--index", idx, "-q", "index", locked); code != 1 || !strings.Contains(errOut, "password") {
		t.Errorf("index locked.pdf: exit %d %q, want 1 naming the password", code, errOut)
	}
}

// TestBackendPDF indexes a PDF into an OpenSearch cluster: its hits and
// citations name the page there too, from the document record's page
// starts (the cluster's chunk records have no page field).
func TestBackendPDF(t *testing.T) {
	url := opensearchtest.Start(t, 1)
	t.Setenv("BRAID_ORT_LIB", modeltest.NeedRuntime(t))
	t.Setenv("BRAID_MODEL", modeltest.TinyDir())
	t.Setenv("BRAID_BACKEND", url)
	t.Setenv("BRAID_BACKEND_INDEX", "pdf")
	t.Setenv("XDG_CACHE_HOME", t.TempDir()) // the kept mirror, not the user's
	vault := t.TempDir()
	testenv.Must(t, os.WriteFile(filepath.Join(vault, "paper.pdf"), formattest.Paper(9, map[int]string{7: "The flux capacitor needs 1.21 gigawatts."}), 0o644))
	testenv.Must(t, os.WriteFile(filepath.Join(vault, "locked.pdf"), formattest.PDF([]formattest.Page{{Lines: []string{"x"}}}, formattest.PDFOptions{Password: "pw"}), 0o644))
	if out, errOut, code := runCLI(t, "index", vault); code != 0 || !strings.Contains(out, "1 encrypted") {
		t.Fatalf("index on the cluster: exit %d %q %q", code, out, errOut)
	}
	out, errOut, code := runCLI(t, "--json", "search-keyword", "gigawatts")
	var raw struct{ Results []map[string]any }
	if code != 0 || json.Unmarshal([]byte(out), &raw) != nil || len(raw.Results) == 0 || raw.Results[0]["path"] != "paper.pdf#page=7" {
		t.Fatalf("search on the cluster: exit %d %s %s; want paper.pdf#page=7", code, out, errOut)
	}
	chunkID, _ := raw.Results[0]["chunk_id"].(string)
	if out, errOut, code := runCLI(t, "cite", chunkID); code != 0 || !strings.Contains(out, "p. 7") {
		t.Errorf("cite on the cluster: exit %d %q %q; want p. 7", code, out, errOut)
	}
}

// TestPDFHybrid searches a PDF's pages with vectors as well (the
// generated model fixture): the hybrid hit names its page too.
func TestPDFHybrid(t *testing.T) {
	t.Setenv("BRAID_ORT_LIB", modeltest.NeedRuntime(t))
	t.Setenv("BRAID_MODEL", modeltest.TinyDir())
	vault := t.TempDir()
	testenv.Must(t, os.WriteFile(filepath.Join(vault, "paper.pdf"), formattest.Paper(9, map[int]string{7: "The flux capacitor needs 1.21 gigawatts."}), 0o644))
	idx := filepath.Join(t.TempDir(), "idx")
	out, errOut, code := runCLI(t, "--index", idx, "--json", "index", vault)
	var sum struct{ Embedded int }
	if code != 0 || json.Unmarshal([]byte(out), &sum) != nil || sum.Embedded == 0 {
		t.Fatalf("index: exit %d %s %s; want chunks embedded", code, out, errOut)
	}
	var res struct {
		Results []struct {
			Path, Source string
			Page         int
		}
	}
	out, errOut, code = runCLI(t, "--index", idx, "--json", "search", "--vector-weight", "0.5", "flux capacitor gigawatts")
	if code != 0 || json.Unmarshal([]byte(out), &res) != nil || len(res.Results) == 0 {
		t.Fatalf("search: exit %d %s %s", code, out, errOut)
	}
	if h := res.Results[0]; h.Path != "paper.pdf#page=7" || h.Page != 7 || h.Source != "hybrid" {
		t.Errorf("top hit %+v, want a hybrid hit on paper.pdf#page=7", h)
	}
}

// TestPDFVersions keeps versions of a PDF: diff compares their text, not
// their bytes.
func TestPDFVersions(t *testing.T) {
	vault := t.TempDir()
	file := filepath.Join(vault, "paper.pdf")
	testenv.Must(t, os.WriteFile(file, formattest.Paper(2, map[int]string{2: "The answer is forty-one."}), 0o644))
	idx := filepath.Join(t.TempDir(), "idx")
	if _, errOut, code := runCLI(t, "--index", idx, "-q", "index", "--keep-versions", "2", vault); code != 0 {
		t.Fatalf("index: %s", errOut)
	}
	testenv.Must(t, os.WriteFile(file, formattest.Paper(2, map[int]string{2: "The answer is forty-two."}), 0o644))
	if _, errOut, code := runCLI(t, "--index", idx, "-q", "index"); code != 0 {
		t.Fatalf("index again: %s", errOut)
	}
	out, errOut, code := runCLI(t, "--index", idx, "diff", "paper.pdf")
	if code != 0 || !strings.Contains(out, "-The answer is forty-one.") || !strings.Contains(out, "+The answer is forty-two.") || strings.Contains(out, "%PDF") {
		t.Errorf("diff paper.pdf: exit %d %q %q; want the changed line of text", code, out, errOut)
	}
}
