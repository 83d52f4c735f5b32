package ingest

import (
	"testing"

	"github.com/braidsearch/braid/index"
)

func TestFileLimit(t *testing.T) {
	for rel, want := range map[string]int64{"paper.PDF": DefaultMaxDocumentSize, "a/b.docx": DefaultMaxDocumentSize, "c.odt": DefaultMaxDocumentSize,
		"note.md": DefaultMaxFileSize, "page.html": DefaultMaxFileSize, "x.png": DefaultMaxFileSize} {
		if got := fileLimit(&index.Source{}, rel); got != want {
			t.Errorf("fileLimit(%s) = %d, want %d", rel, got, want)
		}
	}
	if got := fileLimit(&index.Source{MaxFileSize: 1 << 20}, "paper.pdf"); got != 1<<20 {
		t.Errorf("a source's own limit gave %d for a PDF, want it", got)
	}
}
