package ingest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/braidsearch/braid/chunk"
	"github.com/braidsearch/braid/index"
	"github.com/braidsearch/braid/internal/formattest"
	"github.com/braidsearch/braid/internal/testenv"
)

// TestFormats indexes a folder of PDFs, HTML, DOCX and ODT files with no
// options: each readable one becomes a document whose chunks are its text
// (a PDF's named by page, never spanning two), and each other one is
// skipped with its reason counted.
func TestFormats(t *testing.T) {
	dir := t.TempDir()
	long := strings.Repeat("Filler words about nothing in particular fill this page. ", 30)
	pages := map[int]string{7: "The flux capacitor needs 1.21 gigawatts.", 3: long, 4: long}
	good := formattest.Paper(9, pages)
	files := map[string][]byte{
		"paper.pdf":     good,
		"locked.pdf":    formattest.PDF([]formattest.Page{{Lines: []string{"secret"}}}, formattest.PDFOptions{Password: "pw"}),
		"scan.pdf":      formattest.PDF([]formattest.Page{{}, {}}, formattest.PDFOptions{}),
		"truncated.pdf": good[:len(good)/2],
		"plan.docx":     formattest.DOCX([]formattest.Para{{Style: "Heading1", Text: "Plan"}, {Text: "Launch in spring."}}, nil),
		"minutes.odt":   formattest.ODT([]formattest.Para{{Style: "Heading1", Text: "Minutes"}, {Text: "We met."}}),
		"page.html":     []byte(`<html><head><title>Guide</title></head><body><p>Read <a href="note.md">the note</a>.</p></body></html>`),
		"note.md":       []byte("# Note\n\nplain\n"),
		"bomb.docx":     formattest.ZipBomb("word/document.xml", 65<<20, 65<<20),
	}
	for n, b := range files {
		if err := os.WriteFile(filepath.Join(dir, n), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sum, st := indexSource(t, &index.Source{ID: "s1", Name: "v", Path: dir, Kind: index.SourceDir, ChunkTokens: 64})
	if sum.Added != 5 || len(sum.Errors) != 0 {
		t.Errorf("added %d, errors %v; want the 5 readable files and no errors", sum.Added, sum.Errors)
	}
	want := Skips{Encrypted: 1, NoText: 1, Damaged: 1, OverLimit: 1}
	if diff := cmp.Diff(want, sum.Skipped); diff != "" {
		t.Errorf("skipped (-want +got):\n%s", diff)
	}
	if s := sum.Skipped.String(); !strings.Contains(s, "1 encrypted") || !strings.Contains(s, "1 no text layer") || !strings.Contains(s, "1 damaged") {
		t.Errorf("skips read %q", s)
	}
	if len(sum.NotExtracted) != 4 {
		t.Errorf("not extracted %v, want the 4 skipped files with why", sum.NotExtracted)
	}

	d, err := st.DocByPath("s1", "paper.pdf")
	if err != nil || d == nil {
		t.Fatalf("paper.pdf: %v, %v", d, err)
	}
	if d.Kind != index.KindPDF || d.Title != "The Paper" || len(d.Pages) != 9 {
		t.Fatalf("paper.pdf = kind %s, title %q, pages %v", d.Kind, d.Title, d.Pages)
	}
	chunks, err := st.Chunks(d.ChunkIDs)
	if err != nil {
		t.Fatal(err)
	}
	onPage := map[int]int{}
	for _, c := range chunks {
		if c.Page < 1 || d.Page(c.StartLine) != c.Page || d.Page(c.EndLine) != c.Page {
			t.Errorf("chunk %s lines %d-%d on page %d spans pages %d-%d", c.ID, c.StartLine, c.EndLine, c.Page, d.Page(c.StartLine), d.Page(c.EndLine))
		}
		onPage[c.Page]++
		if strings.Contains(c.Text, "gigawatts") && (c.Page != 7 || len(c.HeadingPath) == 0 || c.HeadingPath[0] != "Section 7") {
			t.Errorf("the answer is in chunk on page %d under %v, want page 7 under Section 7", c.Page, c.HeadingPath)
		}
	}
	if onPage[3] < 2 {
		t.Errorf("page 3 (long) has %d chunks at 64 tokens, want several", onPage[3])
	}
	if len(onPage) != 9 {
		t.Errorf("chunks by page %v, want all 9 pages", onPage)
	}

	h := testenv.Must1(st.DocByPath("s1", "page.html"))(t)
	if h == nil || h.Kind != index.KindHTML || h.Title != "Guide" || len(h.Links) != 1 || h.Links[0].Target != "note.md" {
		t.Errorf("page.html = %+v, want an HTML document titled Guide linking note.md", h)
	}
	x := testenv.Must1(st.DocByPath("s1", "plan.docx"))(t)
	if x == nil || x.Kind != index.KindDOCX || x.Title != "Plan" || len(x.Headings) != 1 {
		t.Errorf("plan.docx = %+v", x)
	}
}

func TestByPage(t *testing.T) {
	// Lines 1-3 page 1, 4-6 page 2.
	pieces := byPage(nil, []int{1, 4})
	if pieces != nil {
		t.Fatal(pieces)
	}
	got := byPage([]chunk.Chunk{{Text: "a\nb\n\nc\nd", StartLine: 2, EndLine: 6}, {Text: "c\nd", StartLine: 4, EndLine: 5}}, []int{1, 4})
	var lines [][2]int
	for _, c := range got {
		lines = append(lines, [2]int{c.StartLine, c.EndLine})
	}
	if diff := cmp.Diff([][2]int{{2, 3}, {4, 6}, {4, 5}}, lines); diff != "" {
		t.Errorf("byPage lines (-want +got):\n%s", diff)
	}
}

// TestImages indexes the images notes embed as documents whose text is
// the text around the embeds; an image no note embeds is still found by
// its name, and changing the note re-indexes the image.
func TestImages(t *testing.T) {
	dir := t.TempDir()
	testenv.Must(t, os.MkdirAll(filepath.Join(dir, "notes"), 0o755))
	testenv.Must(t, os.MkdirAll(filepath.Join(dir, "img"), 0o755))
	testenv.Must(t, os.WriteFile(filepath.Join(dir, "img", "diagram.png"), formattest.PNG(8, 8), 0o644))
	testenv.Must(t, os.WriteFile(filepath.Join(dir, "img", "logo.svg"), []byte(`<svg xmlns="http://www.w3.org/2000/svg"/>`), 0o644))
	testenv.Must(t, os.WriteFile(filepath.Join(dir, "img", "unused-photo.jpg"), []byte("\xff\xd8\xff\xe0 jpeg"), 0o644))
	note := "# Design\n\n## System overview\n\nThe architecture diagram shows the parts.\n\n![[diagram.png]]\n\n## Brand\n\n![our logo](../img/logo.svg)\n"
	testenv.Must(t, os.WriteFile(filepath.Join(dir, "notes", "design.md"), []byte(note), 0o644))
	src := &index.Source{ID: "s1", Name: "v", Path: dir, Kind: index.SourceDir}
	st, lex := openPair(t, t.TempDir())
	t.Cleanup(func() { lex.Close(); st.Close() })
	ix := &Indexer{Store: st, Lexical: lex, Opt: Options{Workers: 2}}
	sum := &Summary{}
	if err := ix.Index(t.Context(), src, sum); err != nil {
		t.Fatal(err)
	}
	if sum.Added != 4 || sum.Skipped.Total() != 0 {
		t.Fatalf("added %d, skipped %v; want the note and 3 images", sum.Added, sum.Skipped)
	}
	text := func(rel string) string {
		d := testenv.Must1(st.DocByPath("s1", rel))(t)
		if d == nil || d.Kind != index.KindImage {
			t.Fatalf("%s: %+v, want an image document", rel, d)
		}
		cs := testenv.Must1(st.Chunks(d.ChunkIDs))(t)
		var b strings.Builder
		for _, c := range cs {
			b.WriteString(c.Text)
		}
		return b.String()
	}
	if got := text("img/diagram.png"); !strings.Contains(got, "architecture diagram") || !strings.Contains(got, "System overview") || strings.Contains(got, "![[") {
		t.Errorf("diagram.png text %q, want its paragraph and heading, no embed", got)
	}
	if got := text("img/logo.svg"); !strings.Contains(got, "our logo") || !strings.Contains(got, "Brand") {
		t.Errorf("logo.svg text %q, want its alt text and heading", got)
	}
	if got := text("img/unused-photo.jpg"); !strings.Contains(got, "unused photo") {
		t.Errorf("unused-photo.jpg text %q, want its name", got)
	}
	// A second run changes nothing; editing the note re-indexes its image.
	sum = &Summary{}
	testenv.Must(t, ix.Index(t.Context(), src, sum))
	if sum.Unchanged != 4 {
		t.Errorf("second run: %+v, want 4 unchanged", sum)
	}
	testenv.Must(t, os.WriteFile(filepath.Join(dir, "notes", "design.md"), []byte(strings.Replace(note, "parts", "services", 1)), 0o644))
	sum = &Summary{}
	testenv.Must(t, ix.Index(t.Context(), src, sum))
	if sum.Updated != 2 || !strings.Contains(text("img/diagram.png"), "services") {
		t.Errorf("after the edit: %+v, want the note and diagram.png updated", sum)
	}
}

// TestFormatsUpgrade re-indexes an HTML file that an older braid indexed as
// plain text, though its content did not change.
func TestFormatsUpgrade(t *testing.T) {
	dir := t.TempDir()
	testenv.Must(t, os.WriteFile(filepath.Join(dir, "page.html"), []byte(`<html><title>Guide</title><body><p>Hello.</p></body></html>`), 0o644))
	src := &index.Source{ID: "s1", Name: "v", Path: dir, Kind: index.SourceDir}
	st, lex := openPair(t, t.TempDir())
	t.Cleanup(func() { lex.Close(); st.Close() })
	ix := &Indexer{Store: st, Lexical: lex, Opt: Options{Workers: 1}}
	if err := ix.Index(t.Context(), src, &Summary{}); err != nil {
		t.Fatal(err)
	}
	// As an older braid left it: the same content, indexed as text.
	d := testenv.Must1(st.DocByPath("s1", "page.html"))(t)
	old := *d
	old.Kind = index.KindText
	if err := ix.commit(t.Context(), []index.Change{{Doc: &old}}); err != nil {
		t.Fatal(err)
	}
	sum := &Summary{}
	if err := ix.Index(t.Context(), src, sum); err != nil {
		t.Fatal(err)
	}
	if d, _ := st.DocByPath("s1", "page.html"); sum.Updated != 1 || d.Kind != index.KindHTML {
		t.Errorf("re-index: %+v, kind %s; want page.html updated as HTML", sum, d.Kind)
	}
	sum = &Summary{}
	testenv.Must(t, ix.Index(t.Context(), src, sum))
	if sum.Unchanged != 1 {
		t.Errorf("third run: %+v, want it unchanged", sum)
	}
}
