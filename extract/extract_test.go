package extract_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/braidsearch/braid/extract"
	"github.com/braidsearch/braid/internal/formattest"
)

func lines(d *extract.Doc) []string { return strings.Split(string(d.Text), "\n") }

// pageText is the text of page p (1-based) of d.
func pageText(d *extract.Doc, p int) string {
	ls := lines(d)
	end := len(ls)
	if p < len(d.Pages) {
		end = d.Pages[p] - 1
	}
	return strings.Join(ls[d.Pages[p-1]-1:end], "\n")
}

func TestPDFPagesOutlineTable(t *testing.T) {
	data := formattest.PDF([]formattest.Page{
		{Bookmark: "Introduction", Lines: []string{"Braid indexes notes.", "# not a heading"}},
		{Lines: nil}, // no text
		{Bookmark: "Results", Level: 0, Lines: []string{"The numbers are below."}, Table: [][]string{{"metric", "value"}, {"recall", "0.91"}}},
		{Bookmark: "Details", Level: 1, Lines: []string{"Only page four says zanzibar."}},
	}, formattest.PDFOptions{Title: "A Paper"})
	d, err := extract.PDF(context.Background(), data, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d.Title != "A Paper" {
		t.Errorf("Title = %q, want A Paper", d.Title)
	}
	if len(d.Pages) != 4 {
		t.Fatalf("Pages = %v, want 4 starts", d.Pages)
	}
	for _, c := range []struct {
		page int
		want []string
		not  []string
	}{
		{1, []string{"# Introduction", "Braid indexes notes.", `\# not a heading`}, []string{"zanzibar"}},
		{2, nil, []string{"Braid", "numbers"}},
		{3, []string{"# Results", "The numbers are below.", "metric", "recall", "0.91"}, []string{"zanzibar"}},
		{4, []string{"## Details", "zanzibar"}, []string{"Results"}},
	} {
		got := pageText(d, c.page)
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("page %d = %q, want it to hold %q", c.page, got, w)
			}
		}
		for _, w := range c.not {
			if strings.Contains(got, w) {
				t.Errorf("page %d = %q, want no %q", c.page, got, w)
			}
		}
	}
	if p := d.Page(d.Pages[3] + 1); p != 4 {
		t.Errorf("Page(line on page 4) = %d", p)
	}
}

func TestPDFRefused(t *testing.T) {
	good := formattest.Paper(3, nil)
	for _, c := range []struct {
		name string
		data []byte
		opt  *extract.Options
		want error
	}{
		{"encrypted", formattest.PDF([]formattest.Page{{Lines: []string{"secret"}}}, formattest.PDFOptions{Password: "pw"}), nil, extract.ErrEncrypted},
		{"no text layer", formattest.PDF([]formattest.Page{{}, {}}, formattest.PDFOptions{}), nil, extract.ErrNoText},
		{"truncated", good[:len(good)/3], nil, extract.ErrDamaged},
		{"not a pdf", []byte("%PDF-1.4 nothing else"), nil, extract.ErrDamaged},
		{"over the page limit", good, &extract.Options{MaxPages: 2}, extract.ErrOverLimit},
		{"over the time limit", good, &extract.Options{Timeout: 1}, extract.ErrOverLimit},
	} {
		t.Run(c.name, func(t *testing.T) {
			d, err := extract.PDF(context.Background(), c.data, c.opt)
			if !errors.Is(err, c.want) {
				t.Fatalf("PDF = %v, %v; want %v", d, err, c.want)
			}
		})
	}
	// The engine is still fine after them.
	if _, err := extract.PDF(context.Background(), good, nil); err != nil {
		t.Fatalf("good PDF after the refused ones: %v", err)
	}
}

func TestDOCX(t *testing.T) {
	data := formattest.DOCX([]formattest.Para{
		{Style: "Title", Text: "Quarterly Plan"},
		{Style: "", Text: "We plan the <launch> & more."},
		{Style: "Heading2", Text: "Risks"},
		{Style: "", Text: "# hash at start"},
	}, [][]string{{"risk", "owner"}, {"outage", "ops"}})
	d, err := extract.DOCX(t.Context(), data)
	if err != nil {
		t.Fatal(err)
	}
	want := "# Quarterly Plan\n\nWe plan the <launch> & more.\n\n## Risks\n\n\\# hash at start\n\nrisk | owner\noutage | ops\n\n"
	if diff := cmp.Diff(want, string(d.Text)); diff != "" {
		t.Errorf("DOCX text (-want +got):\n%s", diff)
	}
	if d.Title != "Quarterly Plan" {
		t.Errorf("Title = %q", d.Title)
	}
}

func TestODT(t *testing.T) {
	d, err := extract.ODT(t.Context(), formattest.ODT([]formattest.Para{{Style: "Heading1", Text: "Minutes"}, {Style: "", Text: "We met."}, {Style: "Heading2", Text: "Actions"}, {Style: "", Text: "Ship it."}}))
	if err != nil {
		t.Fatal(err)
	}
	want := "# Minutes\n\nWe met.\n\n## Actions\n\nShip it.\n\n"
	if diff := cmp.Diff(want, string(d.Text)); diff != "" {
		t.Errorf("ODT text (-want +got):\n%s", diff)
	}
}

func TestHTML(t *testing.T) {
	d, err := extract.HTML([]byte(`<html><head><title>Guide</title></head><body><h2>Setup</h2><p>See <a href="notes/install.md">install</a>.</p></body></html>`))
	if err != nil {
		t.Fatal(err)
	}
	got := string(d.Text)
	for _, w := range []string{"# Guide", "## Setup", "[install](notes/install.md)"} {
		if !strings.Contains(got, w) {
			t.Errorf("HTML = %q, want %q in it", got, w)
		}
	}
}

// TestHostile feeds each parser a file made to exhaust it; each must stop
// at its bound with the error that says which.
func TestHostile(t *testing.T) {
	size := extract.MaxXML + 1<<20
	bomb := formattest.ZipBomb("word/document.xml", size, uint64(size))
	liar := formattest.ZipBomb("word/document.xml", size, 4096) // its header claims 4 KiB
	if len(bomb) > 1<<20 {
		t.Fatalf("the bomb is %d bytes; it should compress", len(bomb))
	}
	nested := []byte(strings.Repeat("<div>", 100_000) + "deep" + strings.Repeat("</div>", 100_000))
	for _, c := range []struct {
		name string
		run  func() error
		want error
	}{
		{"zip bomb docx", func() error { _, err := extract.DOCX(t.Context(), bomb); return err }, extract.ErrOverLimit},
		{"zip bomb docx with a lying header", func() error { _, err := extract.DOCX(t.Context(), liar); return err }, extract.ErrDamaged},
		{"zip bomb odt", func() error {
			_, err := extract.ODT(t.Context(), formattest.ZipBomb("content.xml", size, uint64(size)))
			return err
		}, extract.ErrOverLimit},
		{"deeply nested html", func() error { _, err := extract.HTML(nested); return err }, extract.ErrOverLimit},
		{"docx not a zip", func() error { _, err := extract.DOCX(t.Context(), []byte("PK\x03\x04 broken")); return err }, extract.ErrDamaged},
		{"pdf claiming a huge page count", func() error { _, err := extract.PDF(context.Background(), formattest.HugeCount(), nil); return err }, extract.ErrOverLimit},
		{"pdf with a huge object stream", func() error {
			_, err := extract.PDF(context.Background(), formattest.HugeObjectStream(extract.MaxPDFMemory*5/8), nil)
			return err
		}, extract.ErrOverLimit},
		// The pure-Go reader refuses it at its 32 MiB a stream; PDFium
		// inflates it by doubling a buffer, past its memory bound.
		{"pdf with a huge content stream", func() error {
			_, err := extract.PDF(context.Background(), formattest.HugeStream(extract.MaxPDFMemory*5/8), nil)
			return err
		}, extract.ErrOverLimit},
		{"pdf with a huge content stream, PDFium alone", func() error {
			_, err := extract.PDF(context.Background(), formattest.HugeStream(extract.MaxPDFMemory*5/8), &extract.Options{OnlyPDFium: true})
			return err
		}, extract.ErrOverLimit},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := c.run()
			t.Log(err)
			if !errors.Is(err, c.want) {
				t.Fatalf("got %v, want %v", err, c.want)
			}
		})
	}
}

// TestLoopedOutline reads a PDF whose outline loops (a bookmark its own
// sibling and child): its text is indexed without the outline, promptly,
// where the outline's reader would recurse until the time bound or the
// stack ran out.
func TestLoopedOutline(t *testing.T) {
	d, err := extract.PDF(context.Background(), formattest.LoopedOutline(), &extract.Options{Timeout: time.Minute})
	if err != nil {
		t.Fatalf("PDF: %v, want its text", err)
	}
	if got := string(d.Text); got != "Looping outline text\n" {
		t.Errorf("text %q, want the page's text and no heading", got)
	}
}
