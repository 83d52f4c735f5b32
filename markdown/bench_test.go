package markdown

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/braidsearch/braid/internal/testdata"
)

// BenchmarkParse parses every file of both vaults per iteration.
func BenchmarkParse(b *testing.B) {
	var files [][]byte
	var names []string
	var size int64
	for _, sub := range []string{"markdown/silverbullet/docs", "markdown/dendron/vault"} {
		dir := testdata.Dir(b, sub)
		for _, p := range vaultFiles(b, dir) {
			src, err := os.ReadFile(p)
			if err != nil {
				b.Fatal(err)
			}
			files = append(files, src)
			names = append(names, filepath.Base(p))
			size += int64(len(src))
		}
	}
	b.ReportAllocs()
	b.SetBytes(size)
	b.ResetTimer()
	for b.Loop() {
		for i, src := range files {
			Parse(names[i], src)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e6, "ms/vaults")
}

// BenchmarkParseHostile parses notes made of one construct repeated, in
// growing sizes: ns/op should grow linearly with the size.
func BenchmarkParseHostile(b *testing.B) {
	for _, c := range []struct{ name, unit string }{
		{"wikilinks", "[[note %d]] "},
		{"brackets", "[a%d] "},
		{"definitions", "[a%d]: /u\n"},
		{"tags", "#t%d "},
		{"headings", "# h%d\n"},
		{"nesting", "- "},
	} {
		for _, n := range []int{10_000, 100_000} {
			var buf bytes.Buffer
			for i := range n {
				if strings.Contains(c.unit, "%d") {
					fmt.Fprintf(&buf, c.unit, i)
				} else {
					buf.WriteString(c.unit)
				}
				if c.name != "nesting" && i%10 == 9 && !bytes.HasSuffix(buf.Bytes(), []byte("\n")) {
					buf.WriteByte('\n')
				}
			}
			src := buf.Bytes()
			b.Run(fmt.Sprintf("%s/%dk", c.name, n/1000), func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(int64(len(src)))
				for b.Loop() {
					Parse("hostile.md", src)
				}
			})
		}
	}
}
