package chunk

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/braidsearch/braid/markdown"
)

// TestRandomDocuments checks the invariants on documents assembled at
// random (fixed seed) from the constructs that stress the splitter.
func TestRandomDocuments(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	word := func() string {
		n := 1 + rng.IntN(12)
		if rng.IntN(50) == 0 {
			n = 100 + rng.IntN(1000) // a word over any small budget
		}
		b := make([]byte, n)
		for i := range b {
			b[i] = "abcdefghijklmnopqrstuvwxyz0123456789.,-_"[rng.IntN(40)]
		}
		return string(b)
	}
	line := func() string {
		n := rng.IntN(20)
		if rng.IntN(20) == 0 {
			n = 50 + rng.IntN(200)
		}
		ws := make([]string, n)
		for i := range ws {
			ws[i] = word()
		}
		return strings.Join(ws, " ")
	}
	fragments := []func() string{
		func() string { return strings.Repeat("#", 1+rng.IntN(6)) + " " + line() },
		func() string { return "" },
		func() string { return "   " },
		line, line, line,
		func() string {
			fence := []string{"```", "~~~", "````"}[rng.IntN(3)]
			body := make([]string, rng.IntN(40))
			for i := range body {
				body[i] = line()
			}
			closing := fence
			if rng.IntN(5) == 0 {
				closing = ""
			}
			return fence + "go\n" + strings.Join(body, "\n") + "\n" + closing
		},
		func() string { return "Setext " + word() + "\n" + strings.Repeat("=-"[rng.IntN(2):][:1], 3) },
		func() string { return "- " + line() + " [[link|" + word() + "]] #" + word() },
		func() string { return "    indented " + line() },
	}
	for i := range 100 {
		var b strings.Builder
		if rng.IntN(3) == 0 {
			b.WriteString("---\ntitle: " + word() + "\n---\n")
		}
		for range rng.IntN(60) {
			b.WriteString(fragments[rng.IntN(len(fragments))]())
			b.WriteString([]string{"\n", "\r\n"}[rng.IntN(2)])
		}
		src := []byte(b.String())
		opt := Options{MaxTokens: rng.IntN(300) - 10, Overlap: rng.IntN(100) - 10}
		doc := markdown.Parse("r.md", src)
		checkChunks(t, src, Markdown(src, doc, opt), opt, doc.BodyStart)
		checkChunks(t, src, Text(src, opt), opt, 0)
		if t.Failed() {
			t.Fatalf("document %d, %+v:\n%s", i, opt, src)
		}
	}
}
