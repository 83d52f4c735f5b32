package cli

import (
	"errors"
	"fmt"
	"strings"
	"syscall"
	"time"

	"github.com/alecthomas/kong"

	"github.com/braidsearch/braid"
	"github.com/braidsearch/braid/bucket"
)

// IndexCmd registers sources and indexes them.
type IndexCmd struct {
	Paths        []pathOrURL `arg:"" optional:"" help:"Directories, files, BEIR corpus .jsonl files or s3://bucket/prefix URLs. None: re-index every registered source."`
	Pattern      []string    `help:"Index only files matching this glob (repeatable; e.g. '*.md', 'docs/**')." placeholder:"GLOB"`
	Exclude      []string    `help:"Skip files matching this glob (repeatable)." placeholder:"GLOB"`
	NoRecursive  bool        `help:"Index only the top level of a directory."`
	Name         string      `help:"Display name of the source (default: the directory or file name)."`
	MaxFileSize  ByteSize    `help:"Skip files larger than this (e.g. 512KB, 20MB; default 8MB)." placeholder:"SIZE"`
	ChunkTokens  int         `help:"Token budget per chunk (default 512; changing it re-chunks the source)." placeholder:"N"`
	ChunkOverlap *int        `help:"Tokens repeated between consecutive pieces of a split section (default 64)." placeholder:"N"`
	KeepVersions *int        `help:"Keep the content of each file's last N versions (the current one included) in the index's blob store, for braid versions and braid diff; it costs a copy of each changed file (default 0: none)." placeholder:"N"`
	FollowLinks  *bool       `help:"Follow symbolic links to files outside the source (default: skip them and count them in the summary, so a link to a private file cannot leak it into search results); --no-follow-links turns it off again." negatable:""`
	Watch        bool        `help:"After indexing, keep watching the sources (the PATHs, or every registered source) and re-index a source when its files change, until interrupted."`
	S3Endpoint   string      `name:"s3-endpoint" help:"URL of the S3-compatible store (MinIO, SeaweedFS...) the s3:// PATHs live in, e.g. http://127.0.0.1:9000; kept with the source (default: AWS_ENDPOINT_URL_S3 or AWS_ENDPOINT_URL, else Amazon S3). Credentials and region come from the usual AWS environment and files." placeholder:"URL"`
}

// Run indexes.
func (c *IndexCmd) Run(g *Globals) error {
	if c.Name != "" && len(c.Paths) != 1 {
		return fmt.Errorf("--name needs exactly one PATH, got %d", len(c.Paths))
	}
	if (c.ChunkTokens != 0 || c.ChunkOverlap != nil) && len(c.Paths) == 0 {
		return fmt.Errorf("--chunk-tokens and --chunk-overlap need the PATH of the source to change")
	}
	if c.KeepVersions != nil && len(c.Paths) == 0 {
		return fmt.Errorf("--keep-versions needs the PATH of the source to change")
	}
	if c.FollowLinks != nil && len(c.Paths) == 0 {
		return fmt.Errorf("--follow-links needs the PATH of the source to change")
	}
	if c.S3Endpoint != "" && len(c.Paths) == 0 {
		return fmt.Errorf("--s3-endpoint needs the s3:// PATH of the source to change")
	}
	for _, p := range c.Paths {
		if c.Watch && bucket.IsURL(string(p)) {
			return fmt.Errorf("--watch: %s: S3 sources cannot be watched (a bucket sends braid no changes); run braid index again to pick them up", p)
		}
	}
	e, done, err := g.openWith(false, "braid index") // a first index that fails before writing leaves no folder (braid.Open)
	if err != nil {
		return err
	}
	defer done()
	var specs []braid.SourceSpec
	for _, p := range c.Paths {
		specs = append(specs, braid.SourceSpec{Path: string(p), Endpoint: c.S3Endpoint, Name: c.Name, Patterns: c.Pattern, Excludes: c.Exclude, NoRecursive: c.NoRecursive, MaxFileSize: int64(c.MaxFileSize),
			ChunkTokens: c.ChunkTokens, ChunkOverlap: c.ChunkOverlap, KeepVersions: c.KeepVersions, FollowLinks: c.FollowLinks})
	}
	pr := newProgress(g)
	sum, err := e.Index(g.ctx, specs, pr.update)
	pr.done()
	if sum != nil {
		sum.PeakRSS = peakRSS()
		if g.JSON {
			if jerr := g.printJSON(sum); jerr != nil {
				return jerr
			}
		} else {
			printSummary(g, sum)
		}
	}
	if err != nil {
		if g.ctx.Err() != nil {
			return fmt.Errorf("interrupted; every commit before the interruption is kept and the index is consistent (run braid index again to finish)")
		}
		return err
	}
	if c.Watch {
		return c.watch(g, e)
	}
	if len(sum.Errors) > 0 {
		if g.JSON {
			return errSilent
		}
		return fmt.Errorf("%d file(s) could not be indexed (listed above); the rest are indexed", len(sum.Errors))
	}
	return nil
}

// watch re-indexes the sources as their files change, until interrupted.
// Everything it says goes to stderr.
func (c *IndexCmd) watch(g *Globals, e *braid.Engine) error {
	if !g.Quiet {
		fmt.Fprintln(g.stderr, "braid: watching for changes; press Ctrl-C to stop")
	}
	err := e.Watch(g.ctx, strs(c.Paths), &braid.WatchOptions{
		Warn: func(err error) { g.warn("%v", err) },
		Indexed: func(src *braid.Source, s *braid.Summary, err error) {
			if err != nil {
				fmt.Fprintf(g.stderr, "braid: error: re-index %s: %v\n", src.Name, err)
				return
			}
			g.problems(s)
			if !g.Quiet && s.Added+s.Updated+s.Removed > 0 {
				fmt.Fprintf(g.stderr, "braid: re-indexed %s in %s (%s): %d added, %d updated, %d removed\n",
					src.Name, (time.Duration(s.TookMS) * time.Millisecond).Round(time.Millisecond), s.Looked(), s.Added, s.Updated, s.Removed)
			}
		},
	})
	if err != nil || g.ctx.Err() == nil {
		return err
	}
	if !g.Quiet {
		fmt.Fprintln(g.stderr, "braid: stopped watching")
	}
	return nil
}

// peakRSS is the most memory this process has held (its resident set's
// high-water mark), 0 where the system does not say.
func peakRSS() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Maxrss * 1024 // kilobytes on Linux
}

// printSummary prints the run's text and, on stderr, its problems.
func printSummary(g *Globals, s *braid.Summary) {
	fmt.Fprint(g.stdout, optionFlags.Replace(s.Text()))
	g.problems(s)
}

// problems prints, on stderr, a run's capped, half-read and failed files.
func (g *Globals) problems(s *braid.Summary) {
	for _, c := range s.Capped {
		g.warn("%s", c)
	}
	for _, w := range s.Warnings {
		g.warn("%s", w)
	}
	for _, e := range s.Errors {
		fmt.Fprintf(g.stderr, "braid: error: %s\n", optionFlags.Replace(e.String()))
	}
}

// progress draws a bar on a terminal and plain counts elsewhere, at most
// every 100 ms and 2 s.
type progress struct {
	g     *Globals
	last  time.Time
	bar   bool
	drawn bool
}

func newProgress(g *Globals) *progress {
	return &progress{g: g, bar: g.tty, last: time.Now()}
}

func (p *progress) update(pr braid.Progress) {
	now := time.Now()
	every, last := 2*time.Second, pr.Phase != "embed" && pr.Done == pr.Total
	if p.bar {
		every = 100 * time.Millisecond
	}
	// The compaction of meta.db is said once, whenever it comes.
	if p.g.Quiet || now.Sub(p.last) < every && !(p.bar && last) && pr.Phase != "compact" {
		return
	}
	p.last = now
	switch {
	case !p.bar:
		fmt.Fprintf(p.g.stderr, "braid: %s\n", pr)
	case pr.Phase == "embed", pr.Phase == "compact":
		p.drawn = true
		fmt.Fprint(p.g.stderr, "\r\033[K"+pr.Bar())
	default:
		p.drawn = true
		fmt.Fprint(p.g.stderr, "\r"+pr.Bar())
	}
}

func (p *progress) done() {
	if p.bar && p.drawn && !p.g.Quiet {
		fmt.Fprint(p.g.stderr, "\r\033[K")
	}
}

// pathOrURL is a path argument that may also be an s3:// URL: a path is
// made absolute with ~ expanded, as kong's "path" type does (so a command
// forwarded to braid serve carries it resolved); a URL is kept as given.
type pathOrURL string

// Decode reads one path or URL.
func (p *pathOrURL) Decode(ctx *kong.DecodeContext) error {
	var s string
	if err := ctx.Scan.PopValueInto("path", &s); err != nil {
		return err
	}
	if !bucket.IsURL(s) {
		s = kong.ExpandPath(s)
	}
	*p = pathOrURL(s)
	return nil
}

func strs(ps []pathOrURL) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = string(p)
	}
	return out
}

// ByteSize is a size flag: 1048576, 512KB, 20MB, 1GiB (braid.ParseSize).
type ByteSize int64

// Decode parses a size.
func (b *ByteSize) Decode(ctx *kong.DecodeContext) error {
	var s string
	if err := ctx.Scan.PopValueInto("size", &s); err != nil {
		return err
	}
	n, err := braid.ParseSize(s)
	if err != nil {
		return errors.New(strings.TrimPrefix(err.Error(), "index: "))
	}
	*b = ByteSize(n)
	return nil
}
