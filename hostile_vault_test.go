package braid_test

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/braidsearch/braid"
	"github.com/braidsearch/braid/ingest"
	"github.com/braidsearch/braid/internal/testenv"
	"github.com/braidsearch/braid/markdown"
)

// hostileCase is one hostile entry in an otherwise normal source: what to
// put there, and how the index run must report it.
type hostileCase struct {
	name string
	// make creates the entry in the source folder dir.
	make func(t *testing.T, dir string)
	// report checks what the run said about the entry; nil means the
	// entry is a note that indexes with nothing to report.
	report func(t *testing.T, sum *braid.Summary)
	follow bool // index with FollowLinks
	// find, when set, is a query that must find bad.md, a hostile note
	// that is indexed, with tag as a tag filter when set.
	find, tag string
}

// repeatNote writes name with n repetitions of unit (formatted with the
// repetition's number), ten to a line.
func repeatNote(t *testing.T, dir, name, head, unit string, n int) {
	t.Helper()
	var b bytes.Buffer
	b.WriteString(head)
	for i := range n {
		fmt.Fprintf(&b, unit, i)
		if i%10 == 9 && !bytes.HasSuffix(b.Bytes(), []byte("\n")) {
			b.WriteByte('\n')
		}
	}
	writeFile(t, filepath.Join(dir, name), b.Bytes())
}

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// hostileCases is the generator of hostile vaults: each case is a normal
// vault plus one entry built to crash, hang or exhaust the indexer. The
// sizes are those that showed superlinear time or memory before the caps
// (200,000 tags ran out of memory, 200,000 wikilinks took 32 s).
func hostileCases() []hostileCase {
	capped := func(what string) func(t *testing.T, sum *braid.Summary) {
		return func(t *testing.T, sum *braid.Summary) {
			if len(sum.Capped) != 1 || !strings.HasSuffix(sum.Capped[0].Path, "bad.md") || !strings.Contains(sum.Capped[0].Err, what) {
				t.Errorf("capped %v, want bad.md saying %q", sum.Capped, what)
			}
			if len(sum.Errors) > 0 || sum.Skipped.Total() > 0 {
				t.Errorf("errors %v, skipped %+v; want bad.md indexed, capped", sum.Errors, sum.Skipped)
			}
		}
	}
	skipped := func(what string, n func(ingest.Skips) int) func(t *testing.T, sum *braid.Summary) {
		return func(t *testing.T, sum *braid.Summary) {
			if n(sum.Skipped) != 1 || sum.Skipped.Total() != 1 || len(sum.Errors) > 0 {
				t.Errorf("skipped %+v, errors %v; want the entry skipped as %s", sum.Skipped, sum.Errors, what)
			}
		}
	}
	failed := func(what string) func(t *testing.T, sum *braid.Summary) {
		return func(t *testing.T, sum *braid.Summary) {
			if len(sum.Errors) == 0 || !slices.ContainsFunc(sum.Errors, func(e braid.FileError) bool { return strings.Contains(e.Err, what) }) {
				t.Errorf("errors %v, want one saying %q", sum.Errors, what)
			}
		}
	}
	ignoreRefused := func(what string) func(t *testing.T, sum *braid.Summary) {
		return func(t *testing.T, sum *braid.Summary) {
			if len(sum.Errors) != 1 || !strings.Contains(sum.Errors[0].Err, ".gitignore not read") || !strings.Contains(sum.Errors[0].Err, what) {
				t.Errorf("errors %v, want one saying .gitignore, %s, was not read", sum.Errors, what)
			}
			if sum.Skipped.Total() != sum.Skipped.Hidden || sum.Skipped.Ignored > 0 {
				t.Errorf("skipped %+v; want only the hidden .gitignore itself", sum.Skipped)
			}
		}
	}
	symlink := func(target, name string) func(t *testing.T, dir string) {
		return func(t *testing.T, dir string) {
			if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
				t.Fatal(err)
			}
		}
	}
	return []hostileCase{
		{
			name:   "200k tags",
			make:   func(t *testing.T, dir string) { repeatNote(t, dir, "bad.md", "# Tags\n\n", "#t%d ", 200_000) },
			report: capped(fmt.Sprintf("200000 tags, over the %d-tag cap", markdown.MaxTags)),
			find:   "t199999", // past the cap as a tag, but its text is indexed
			tag:    "t999",
		},
		{
			name:   "200k wikilinks",
			make:   func(t *testing.T, dir string) { repeatNote(t, dir, "bad.md", "# Links\n\n", "[[note %d]] ", 200_000) },
			report: capped(fmt.Sprintf("200000 links, over the %d-link cap", markdown.MaxLinks)),
			find:   "199999",
		},
		{
			name:   "200k headings",
			make:   func(t *testing.T, dir string) { repeatNote(t, dir, "bad.md", "", "# h%d\n", 200_000) },
			report: capped(fmt.Sprintf("200000 headings, over the %d-heading cap", markdown.MaxHeadings)),
			find:   "h199999",
		},
		{
			name: "200k aliases",
			make: func(t *testing.T, dir string) {
				repeatNote(t, dir, "bad.md", "---\naliases:\n", "  - alias %d\n", 200_000)
				f, err := os.OpenFile(filepath.Join(dir, "bad.md"), os.O_APPEND|os.O_WRONLY, 0)
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				f.WriteString("---\n# Aliases\n\nrutabaga\n")
			},
			report: capped(fmt.Sprintf("200000 aliases, over the %d-alias cap", markdown.MaxAliases)),
			find:   "rutabaga",
		},
		{
			// The title and the enclosing headings are indexed with every
			// chunk: a 1 MB one ran the indexer out of memory.
			name: "1 MB title and heading",
			make: func(t *testing.T, dir string) {
				long := strings.Repeat("word ", 200_000)
				var body strings.Builder
				for i := range 20_000 {
					fmt.Fprintf(&body, "line %d of the diary: tomatoes and basil grow well.\n", i)
				}
				writeFile(t, filepath.Join(dir, "bad.md"), []byte("---\ntitle: "+long+"\n---\n# "+long+"\n"+body.String()))
			},
			report: capped(fmt.Sprintf("2 title, heading or link text(s) over %d bytes", markdown.MaxText)),
			find:   "basil",
		},
		{
			// goldmark's time grows with the square of a paragraph's lines
			// when it holds many brackets or reference definitions (20 s
			// for these before markdown parsed long paragraphs in pieces).
			name: "150k reference definitions in one paragraph",
			make: func(t *testing.T, dir string) {
				repeatNote(t, dir, "bad.md", "# Definitions\n\n", "[d%d]: /u\n", 150_000)
			},
		},
		{
			// goldmark's time grows with the square of the nesting depth.
			name: "deeply nested lists and quotes",
			make: func(t *testing.T, dir string) {
				var b strings.Builder
				b.WriteString(strings.Repeat("- ", 200_000) + "x\n\n" + strings.Repeat("1. ", 200_000) + "x\n\n" + strings.Repeat(">", 200_000) + "x\n\n")
				for i := range 1000 {
					b.WriteString(strings.Repeat("  ", i) + "- item\n")
				}
				writeFile(t, filepath.Join(dir, "bad.md"), []byte(b.String()))
			},
		},
		{
			name: "nested images",
			make: func(t *testing.T, dir string) {
				writeFile(t, filepath.Join(dir, "bad.md"), []byte(strings.Repeat("![", 300_000)+"x"+strings.Repeat("](y)", 300_000)+"\n"))
			},
			report: capped(fmt.Sprintf("link text(s) over %d bytes", markdown.MaxText)),
		},
		{
			name: "deep YAML nesting",
			make: func(t *testing.T, dir string) {
				deep := "k: " + strings.Repeat("[", 100_000) + strings.Repeat("]", 100_000) + "\n"
				var block strings.Builder
				for i := range 2000 {
					block.WriteString(strings.Repeat(" ", i) + "a:\n")
				}
				writeFile(t, filepath.Join(dir, "bad.md"), []byte("---\n"+deep+"---\n# Deep\n\nbody\n"))
				writeFile(t, filepath.Join(dir, "block.md"), []byte("---\n"+block.String()+"---\n# Block\n\nbody\n"))
			},
			report: func(t *testing.T, sum *braid.Summary) {
				if sum.Added == 0 { // the second run
					return
				}
				if len(sum.Warnings) == 0 || !slices.ContainsFunc(sum.Warnings, func(w braid.FileError) bool { return strings.HasSuffix(w.Path, "bad.md") }) {
					t.Errorf("warnings %v; want bad.md's frontmatter reported", sum.Warnings)
				}
			},
		},
		{
			name: "YAML alias bomb",
			make: func(t *testing.T, dir string) {
				var y strings.Builder
				y.WriteString("---\na: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n")
				for i, k := range []string{"b", "c", "d", "e", "f", "g", "h", "i"} {
					p := string(rune('a' + i))
					fmt.Fprintf(&y, "%s: &%s [*%s, *%s, *%s, *%s, *%s, *%s, *%s, *%s, *%s]\n", k, k, p, p, p, p, p, p, p, p, p)
				}
				for i := range 20_000 { // each key alone expands to 729 values
					fmt.Fprintf(&y, "k%d: *c\n", i)
				}
				y.WriteString("---\n# Bomb\n\nbody\n")
				writeFile(t, filepath.Join(dir, "bad.md"), []byte(y.String()))
			},
			report: func(t *testing.T, sum *braid.Summary) { // indexed without its frontmatter, and said so
				if sum.Added == 0 { // the second run: nothing read again, nothing to say
					return
				}
				if len(sum.Warnings) != 1 || !strings.HasSuffix(sum.Warnings[0].Path, "bad.md") || !strings.Contains(sum.Warnings[0].Err, "not read") {
					t.Errorf("warnings %v; want bad.md's frontmatter reported as not read", sum.Warnings)
				}
			},
		},
		{
			name: "invalid UTF-8",
			make: func(t *testing.T, dir string) {
				writeFile(t, filepath.Join(dir, "bad.md"), []byte("# Bad\n\n\xff\xfe kohlrabi \xc3\x28\n"))
			},
			report: skipped("not UTF-8", func(s ingest.Skips) int { return s.NotUTF8 }),
		},
		{
			// Such a name cannot be stored in JSON as written: the document
			// was indexed under a name no file has.
			name: "invalid UTF-8 in a file name",
			make: func(t *testing.T, dir string) {
				writeFile(t, filepath.Join(dir, "bad\xff.md"), []byte("# Odd name\n\nrutabaga\n"))
			},
			report: failed("file name is not valid UTF-8; rename the file"),
		},
		{
			name: "NUL bytes",
			make: func(t *testing.T, dir string) {
				writeFile(t, filepath.Join(dir, "bad.md"), []byte("# Bad\n\x00\x00kohlrabi\n"))
			},
			report: skipped("binary", func(s ingest.Skips) int { return s.Binary }),
		},
		{
			name: "sparse file over the size limit",
			make: func(t *testing.T, dir string) {
				writeFile(t, filepath.Join(dir, "bad.md"), nil)
				if err := os.Truncate(filepath.Join(dir, "bad.md"), 1<<30); err != nil {
					t.Fatal(err)
				}
			},
			report: skipped("over the size limit", func(s ingest.Skips) int { return s.Oversized }),
		},
		{
			// Links to folders are not followed, so a loop cannot trap the
			// walk; the link itself is not a file to report.
			name: "folder link to its parent",
			make: symlink("..", "sub/loop"),
		},
		{
			name: "file links in a loop",
			make: func(t *testing.T, dir string) { symlink("b.md", "a.md")(t, dir); symlink("a.md", "b.md")(t, dir) },
			report: func(t *testing.T, sum *braid.Summary) { // both links lead nowhere: skipped, not errors
				if sum.Skipped.BrokenLink != 2 || len(sum.Errors) > 0 {
					t.Errorf("skipped %+v, errors %v; want both links skipped as broken", sum.Skipped, sum.Errors)
				}
			},
		},
		{
			name: "FIFO",
			make: func(t *testing.T, dir string) {
				if err := syscall.Mkfifo(filepath.Join(dir, "bad.md"), 0o644); err != nil {
					t.Fatal(err)
				}
			},
			report: skipped("not a regular file", func(s ingest.Skips) int { return s.NotRegular }),
		},
		{
			name: "unix socket",
			make: func(t *testing.T, dir string) {
				l, err := net.Listen("unix", filepath.Join(dir, "bad.md"))
				if err != nil {
					t.Skipf("cannot make a unix socket here: %v", err)
				}
				t.Cleanup(func() { l.Close() })
			},
			report: skipped("not a regular file", func(s ingest.Skips) int { return s.NotRegular }),
		},
		{
			name:   "link to /dev/zero",
			make:   symlink("/dev/zero", "bad.md"),
			report: skipped("a link leading outside the source", func(s ingest.Skips) int { return s.LinkOutside }),
		},
		{
			name:   "link to /dev/zero, links followed",
			make:   symlink("/dev/zero", "bad.md"),
			report: skipped("not a regular file", func(s ingest.Skips) int { return s.NotRegular }),
			follow: true,
		},
		// A .gitignore is read as a setting, not as a note: a link, a FIFO
		// or a device is refused with a reason and the walk goes on without
		// its rules (a FIFO hung the walk; a link to /dev/zero grew the
		// process to 1.5 GiB in 9 s).
		{
			name: ".gitignore FIFO",
			make: func(t *testing.T, dir string) {
				if err := syscall.Mkfifo(filepath.Join(dir, ".gitignore"), 0o644); err != nil {
					t.Fatal(err)
				}
			},
			report: ignoreRefused("a FIFO"),
		},
		{
			name:   ".gitignore link to /dev/zero",
			make:   symlink("/dev/zero", ".gitignore"),
			report: ignoreRefused("a symbolic link"),
			follow: true,
		},
		{
			// Its rules would leave out garden.md and sub/: the search for
			// the normal notes shows they were not applied.
			name: ".gitignore link to a file of rules",
			make: func(t *testing.T, dir string) {
				writeFile(t, filepath.Join(dir, "rules.txt"), []byte("garden.md\nsub/\n"))
				symlink("rules.txt", ".gitignore")(t, dir)
			},
			report: ignoreRefused("a symbolic link"),
		},
	}
}

// peakHeap samples the heap in use until stop is called, which returns the
// highest value seen.
func peakHeap() (stop func() uint64) {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	read := func() uint64 {
		metrics.Read(sample)
		return sample[0].Value.Uint64()
	}
	var (
		mu   sync.Mutex
		peak = read()
	)
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		tick := time.NewTicker(2 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				mu.Lock()
				peak = max(peak, read())
				mu.Unlock()
			}
		}
	}()
	return func() uint64 {
		close(done)
		<-finished
		return max(peak, read())
	}
}

// indexWithin runs Index in a goroutine and fails the test when it does
// not return within limit, rather than hang the test binary.
func indexWithin(t *testing.T, e *braid.Engine, spec braid.SourceSpec, limit time.Duration) *braid.Summary {
	t.Helper()
	type result struct {
		sum *braid.Summary
		err error
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan result, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- result{err: fmt.Errorf("panic: %v", r)}
			}
		}()
		sum, err := e.Index(ctx, []braid.SourceSpec{spec}, nil)
		done <- result{sum, err}
	}()
	select {
	case r := <-done:
		if r.err != nil {
			t.Fatalf("index: %v", r.err)
		}
		return r.sum
	case <-time.After(limit):
		t.Fatalf("index did not finish within %s", limit)
		return nil
	}
}

// cpuTime is the CPU time (user and system) the test process has used.
func cpuTime(t *testing.T) time.Duration {
	t.Helper()
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		t.Fatalf("getrusage: %v", err)
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}

// TestHostileVault indexes a normal vault holding one hostile entry per
// case and checks that the run finishes in bounded time and memory without
// a panic, reports the entry with its reason, leaves every normal note
// searchable, and that the next run does the same.
func TestHostileVault(t *testing.T) {
	testenv.Slow(t, "indexes 23 hostile vaults, some of 200,000 headings or links")
	const (
		// limit is a last guard on each index run against a hang; the
		// time bound below is on CPU time, which a busy machine does not
		// stretch as it does wall-clock time.
		limit = 10 * time.Minute
		// heapBound is the heap growth allowed during one run: a few
		// hundred MB for a few MB of notes (before the caps 200,000 tags
		// ran the machine out of memory).
		heapBound = 768 << 20
	)
	normal := map[string]string{
		"garden.md":       "---\ntags: [plants]\n---\n# Garden\n\nKohlrabi and tomatoes need full sun. See [[Cooking]].\n",
		"sub/cooking.md":  "# Cooking\n\nRoast the kohlrabi with garlic.\n",
		"notes/plain.txt": "kohlrabi soup, plain text\n",
	}
	type run struct {
		e    *braid.Engine
		spec braid.SourceSpec
		sum  *braid.Summary
		took time.Duration // wall-clock time, for the log
		cpu  time.Duration // CPU time the process spent, for the bound
		heap int64         // the most the heap grew by while indexing
	}
	index := func(t *testing.T, make func(*testing.T, string), follow bool) run {
		dir := writeVault(t, normal)
		make(t, dir)
		r := run{e: openEngine(t, nil), spec: braid.SourceSpec{Path: dir, FollowLinks: &follow}}
		runtime.GC()
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		stop := peakHeap()
		start, cpu := time.Now(), cpuTime(t)
		r.sum = indexWithin(t, r.e, r.spec, limit)
		r.took, r.cpu, r.heap = time.Since(start), cpuTime(t)-cpu, int64(stop())-int64(before.HeapAlloc)
		t.Logf("indexed in %s (%s of CPU), heap grew by %d MB at most", r.took.Round(time.Millisecond), r.cpu.Round(time.Millisecond), r.heap>>20)
		return r
	}
	// The CPU time a normal note of the hostile notes' size (3 MB of
	// prose) takes calibrates the time bound to the machine and the race
	// detector; CPU time, not wall-clock time, so that other work on the
	// machine does not move it.
	control := index(t, func(t *testing.T, dir string) {
		var b bytes.Buffer
		for i := 0; b.Len() < 3<<20; i++ {
			fmt.Fprintf(&b, "Line %d of the diary: the beans, basil and word%d grow well.\n", i, i%5000)
			if i%20 == 19 {
				b.WriteString("\n")
			}
		}
		writeFile(t, filepath.Join(dir, "control.md"), b.Bytes())
	}, false)
	bound := 10*control.cpu + 2*time.Second

	for _, c := range hostileCases() {
		t.Run(c.name, func(t *testing.T) {
			r := index(t, c.make, c.follow)
			sum := r.sum
			if r.cpu > bound {
				t.Errorf("indexing took %s of CPU, over the %s bound (10 times the %s of a normal 3 MB note, plus 2 s)", r.cpu, bound, control.cpu)
			}
			if r.heap > heapBound {
				t.Errorf("heap grew by %d MB while indexing, over the %d MB bound", r.heap>>20, heapBound>>20)
			}

			if c.report != nil {
				c.report(t, sum)
			} else if len(sum.Errors) > 0 || len(sum.Capped) > 0 || sum.Skipped.Total() > 0 {
				t.Errorf("errors %v, capped %v, skipped %+v; want nothing to report", sum.Errors, sum.Capped, sum.Skipped)
			}
			ctx := context.Background()
			res, err := r.e.Search(ctx, "kohlrabi", braid.SearchOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var found []string
			for _, h := range res.Results {
				found = append(found, h.Path)
			}
			slices.Sort(found)
			if want := []string{"garden.md", "notes/plain.txt", "sub/cooking.md"}; !slices.Equal(found, want) {
				t.Errorf("kohlrabi finds %q, want the normal notes %q", found, want)
			}
			res, err = r.e.Search(ctx, "sun", braid.SearchOptions{Tags: []string{"plants"}})
			if err != nil || len(res.Results) != 1 || res.Results[0].Path != "garden.md" {
				t.Errorf("tag filter: %+v, %v; want garden.md", res, err)
			}
			if c.find != "" {
				opt := braid.SearchOptions{}
				if c.tag != "" {
					opt.Tags = []string{c.tag}
				}
				res, err = r.e.Search(ctx, c.find, opt)
				if err != nil || len(res.Results) != 1 || res.Results[0].Path != "bad.md" {
					t.Fatalf("search %q with tags %q: %+v, %v; want the hostile note", c.find, opt.Tags, res, err)
				}
				if got, err := r.e.Notes().Get(t.Context(), res.Results[0].ID); err != nil || !strings.Contains(string(got.Data), c.find) {
					t.Errorf("Get(%s): %v; want the hostile note", res.Results[0].ID, err)
				}
			}

			// The next run meets the same entry and fares the same.
			again := indexWithin(t, r.e, r.spec, limit)
			if again.Added+again.Updated > 0 || again.Unchanged < len(normal) {
				t.Errorf("second run: %+v; want everything unchanged", again)
			}
			if c.report != nil && len(sum.Capped) == 0 { // a capped document is indexed, and now unchanged
				c.report(t, again)
			}
		})
	}
}
