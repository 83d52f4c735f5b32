package markdown

import (
	"os"
	"path/filepath"
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
