package chunk

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/braidsearch/braid/internal/testdata"
	"github.com/braidsearch/braid/markdown"
)

type file struct {
	name string
	src  []byte
}

// vaults reads every .md file of both test vaults.
func vaults(tb testing.TB) []file {
	tb.Helper()
	var files []file
	for _, sub := range []string{"markdown/silverbullet/docs", "markdown/dendron/vault"} {
		dir := testdata.Dir(tb, sub)
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".md") {
				return err
			}
			src, err := os.ReadFile(path)
			files = append(files, file{filepath.Base(path), src})
			return err
		})
		if err != nil {
			tb.Fatal(err)
		}
	}
	return files
}

func TestVaults(t *testing.T) {
	files := vaults(t)
	docs := make([]*markdown.Doc, len(files))
	for i, f := range files {
		docs[i] = markdown.Parse(f.name, f.src)
	}
	for _, opt := range []Options{{}, {MaxTokens: 48, Overlap: 8}} {
		chunks, oversize, overlapping := 0, 0, 0
		maxTokens, _ := opt.limits()
		for i, f := range files {
			cs := Markdown(f.src, docs[i], opt)
			checkChunks(t, f.src, cs, opt, docs[i].BodyStart)
			for i, c := range cs {
				if c.Tokens > maxTokens {
					oversize++
				}
				if i > 0 && c.StartLine <= cs[i-1].EndLine {
					overlapping++
				}
			}
			chunks += len(cs)
			if t.Failed() {
				t.Fatalf("invariants broken on %s", f.name)
			}
		}
		t.Logf("%+v: %d files, %d chunks, %d overlapping the previous chunk, %d oversize fences", opt, len(files), chunks, overlapping, oversize)
	}
}

// BenchmarkVaults parses and chunks every file of both test vaults.
func BenchmarkVaults(b *testing.B) {
	files := vaults(b)
	var size int64
	for _, f := range files {
		size += int64(len(f.src))
	}
	b.Run("parse+chunk", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(size)
		for b.Loop() {
			for _, f := range files {
				Markdown(f.src, markdown.Parse(f.name, f.src), Options{})
			}
		}
	})
	docs := make([]*markdown.Doc, len(files))
	for i, f := range files {
		docs[i] = markdown.Parse(f.name, f.src)
	}
	b.Run("chunk", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(size)
		for b.Loop() {
			for i, f := range files {
				Markdown(f.src, docs[i], Options{})
			}
		}
	})
	b.Run("count", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(size)
		for b.Loop() {
			for _, f := range files {
				Count(string(f.src))
			}
		}
	})
}

// BenchmarkSizes parses and chunks synthetic notes of growing size, to show
// that cost grows linearly.
func BenchmarkSizes(b *testing.B) {
	section := "## Section\n\nSome prose with a [[Wiki Link]], a #tag and a [link](other.md).\n" +
		strings.Repeat("More words that fill the paragraph up to a realistic length. ", 8) + "\n\n" +
		"```go\nfunc main() { fmt.Println(\"hello\") }\n```\n\n- item one\n- item two\n\n"
	for _, size := range []int{10 << 10, 100 << 10, 1 << 20} {
		src := []byte("---\ntitle: Big\n---\n# Big\n" + strings.Repeat(section, size/len(section)+1))
		b.Run(fmt.Sprintf("%dKB", size>>10), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(src)))
			for b.Loop() {
				Markdown(src, markdown.Parse("big.md", src), Options{})
			}
		})
	}
}
