package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"unicode/utf8"

	"github.com/alecthomas/kong"
	"golang.org/x/term"

	"github.com/braidsearch/braid"
	"github.com/braidsearch/braid/internal/memlimit"
	"github.com/braidsearch/braid/model"
)

// Globals are the flags every command takes, and the process's streams.
type Globals struct {
	Index string `help:"Index directory." env:"BRAID_INDEX" default:".braid" type:"path" placeholder:"DIR"`
	JSON  bool   `help:"Print JSON instead of text." name:"json"`
	Quiet bool   `help:"Print no progress or warnings." short:"q"`
	// KeyFile is this user's key, which seals the sources braid registers
	// (docs/mcp.md, the trust model); the default is braid/key in the
	// user's config folder.
	// Memory is the process's memory budget: the Go runtime's soft memory
	// limit, and what an index run sizes its commits and bounds its heap
	// and mapped pages by (internal/memlimit, ingest/memory.go).
	Memory  string `name:"memory" aliases:"memory-limit" help:"Memory budget: the Go runtime's soft memory limit, and what braid index sizes its commits and bounds its heap and mapped index pages by (default: half the machine's or the cgroup's memory, or GOMEMLIMIT; off for none; e.g. 4GiB). --memory-limit is the same flag." env:"BRAID_MEMORY,BRAID_MEMORY_LIMIT" placeholder:"SIZE"`
	KeyFile string `help:"This user's key file, which seals the sources braid registers (default: braid/key in the user's config folder)." env:"BRAID_KEY_FILE" type:"path" placeholder:"FILE" hidden:""`
	modelFlags
	backendFlags

	ctx      context.Context
	indexSet bool // --index or BRAID_INDEX was given, not the default
	stdin    io.Reader
	stdout   io.Writer
	stderr   io.Writer
	tty      bool // stderr is a terminal

	saidDevice bool // sayDevice has told where the models run
	warm       bool // models run once as they load (model.Set.Warm): braid serve

	// Set when braid serve runs the command for another process (see
	// forward.go): that process's directory, and the server's engine.
	cwd   string
	lend  func(write bool) (*braid.Engine, func(), error)
	loans []func()
}

// CLI is the command tree.
type CLI struct {
	Globals

	IndexCmd      IndexCmd         `cmd:"" name:"index" help:"Register sources (directories, files, BEIR .jsonl corpora) and index them; with no PATH, re-index every registered source."`
	Search        SearchCmd        `cmd:"" help:"Search the index (hybrid: --vector-weight 0 is BM25 only)."`
	SearchKeyword SearchKeywordCmd `cmd:"" name:"search-keyword" help:"Search with BM25 only."`
	Grep          GrepCmd          `cmd:"" help:"Run an RE2 regular expression over the indexed files, like ripgrep."`
	Get           GetCmd           `cmd:"" help:"Print a document's file as it is on disk now."`
	Find          FindCmd          `cmd:"" help:"Find documents by name: fuzzy match on titles, file names, aliases and paths (not their text); --parent limits it to a folder."`
	Info          InfoCmd          `cmd:"" help:"Say what an id (chunk, document, content hash, source or folder) names and where it sits: source, folders, document, headings."`
	Lineage       LineageCmd       `cmd:"" help:"Trace a chunk across re-indexes: the versions of its document that held the same text, and the chunks it was split from or merged into (the last 8 versions kept)."`
	Cite          CiteCmd          `cmd:"" help:"Print a ready-to-paste citation of a search hit's chunk: [Title](path#L12-L30), its file and lines, and its text."`
	Ask           AskCmd           `cmd:"" help:"Gather the evidence for a question: the best passages across the index, de-duplicated and cited, within a token budget (braid writes no answer)."`
	Links         LinksCmd         `cmd:"" help:"Follow a document's links (or, with --reverse, its backlinks) up to 5 steps; --broken and --orphans check the whole graph."`
	Gaps          GapsCmd          `cmd:"" help:"List pairs of similar documents that are not linked either way, with the words they share and a link to add."`
	Tag           TagCmd           `cmd:"" help:"Add tags to a markdown file's frontmatter (or a <!-- tags: --> comment), changing nothing else, and re-index it."`
	Tree          TreeCmd          `cmd:"" help:"Print the folder tree of the indexed sources with document counts."`
	Contents      ContentsCmd      `cmd:"" help:"List a folder's immediate children (folders, then documents) with their stable ids; no FOLDER lists the sources."`
	Add           AddCmd           `cmd:"" help:"Store a document (a file's copy, or --content) in the index itself, deduplicated by content, and index it; adding a name again keeps the old version."`
	Download      DownloadCmd      `cmd:"" help:"Fetch a web page or file (text, markdown, HTML as markdown) into the document store and index it; public addresses only unless --allow-net."`
	Update        UpdateCmd        `cmd:"" help:"Set a document's metadata (KEY=VALUE, searchable with --meta) or a stored document's tags."`
	Delete        DeleteCmd        `cmd:"" help:"Delete stored documents (never a source's files) by name or --pattern; --dry-run lists them."`
	Ls            LsCmd            `cmd:"" aliases:"list" help:"List documents (stored and from sources) with size, times, tags and metadata; filter by type, extension, time, tag or metadata."`
	Versions      VersionsCmd      `cmd:"" help:"List a document's versions (stored documents, and files of sources indexed with --keep-versions)."`
	Diff          DiffCmd          `cmd:"" help:"Print a unified diff between two versions of a document (default: previous and current)."`
	Collections   CollectionsCmd   `cmd:"" help:"List the collections of stored documents with their counts and sizes."`
	Snapshot      SnapshotCmd      `cmd:"" help:"Record (create) or list snapshots of the stored documents' content."`
	Restore       RestoreCmd       `cmd:"" help:"Write stored documents (a --collection, or a --snapshot) to files under --output; existing files are kept unless --overwrite."`
	Sources       SourcesCmd       `cmd:"" help:"List or remove sources."`
	Sessions      SessionsCmd      `cmd:"" help:"List, start, pin, unpin, stop and watch sessions: named working sets that braid serve's search, grep and list can be scoped to."`
	Org           OrgCmd           `cmd:"" help:"Print the index's identity: its id, name, language and time zone (braid config set name, language, timezone), documents and sources."`
	Stats         StatsCmd         `cmd:"" help:"Count documents, chunks and bytes."`
	Doctor        DoctorCmd        `cmd:"" help:"Check the index, the ONNX runtime, the models and how fast the reranker scores 50 pairs here; exit 0 when healthy."`
	Batch         BatchCmd         `cmd:"" help:"Answer a JSONL file of queries (one search per line), with the index and models opened once; JSONL out in input order."`
	Eval          EvalCmd          `cmd:"" help:"Index a BEIR collection such as SciFact and score search quality per mode (nDCG@10, recall@10/100, MRR@10, latency)."`
	Tune          TuneCmd          `cmd:"" help:"Find the fusion settings (vector weight, fusion, normalisation, candidates) that rank judged queries best; --save makes them the index's defaults."`
	Bench         BenchCmd         `cmd:"" help:"Time each search stage, ingest and the rerankers on synthetic corpora of 1k-100k chunks; targets beside."`
	Models        ModelsCmd        `cmd:"" help:"List, pull, verify and locate embedding and reranking models."`
	Config        ConfigCmd        `cmd:"" help:"Read and change the settings the index keeps: default vector weight, fusion and its normalisation, ranking signals, limit, candidates, rerank and its budget, watch, and the index's name, language and time zone."`
	Tokens        TokensCmd        `cmd:"" help:"Add, list and revoke the bearer tokens of a token file, which braid serve --auth-tokens signs users in with."`
	Serve         ServeCmd         `cmd:"" help:"Serve the index to AI agents over MCP on stdin/stdout (tools: search, grep, read, index_path, ...)."`
	Prompts       PromptsCmd       `cmd:"" help:"List the MCP prompts braid serve offers (built-ins and PROMPT-*.md files), or print one filled in."`
	Version       VersionCmd       `cmd:"" help:"Print the version, the commit, the Go release, the ONNX Runtime that loads and the embedding model."`

	VersionFlag versionFlag `name:"version" help:"Print what braid version prints, and exit."`
}

type exitCode int

// Run executes one command line and returns the process exit code. It
// reads the standard input for the commands that take it.
func Run(args []string, stdout, stderr io.Writer) (code int) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	defer func() {
		if r := recover(); r != nil {
			if c, ok := r.(exitCode); ok {
				code = int(c)
				return
			}
			panic(r)
		}
	}()
	for i, a := range args {
		if !utf8.ValidString(a) {
			fmt.Fprintf(stderr, "braid: argument %d (%q) is not valid UTF-8; re-encode it as UTF-8\n", i+1, a)
			return 1
		}
	}
	cli := &CLI{}
	cli.ctx, cli.stdin, cli.stdout, cli.stderr = ctx, os.Stdin, stdout, stderr
	parser, err := kong.New(cli,
		kong.Name("braid"),
		kong.Description("braid: local hybrid search for knowledge bases (markdown notes, docs, code)."),
		kong.Writers(stdout, stderr),
		kong.Exit(func(c int) { panic(exitCode(c)) }),
		kong.ConfigureHelp(kong.HelpOptions{Compact: true}),
		kong.Bind(&cli.Globals),
		defaults,
	)
	if err != nil {
		fmt.Fprintf(stderr, "braid: internal error: %v\n", err)
		return 2
	}
	kctx, err := parser.Parse(args)
	if err != nil {
		fmt.Fprintf(stderr, "braid: %v (see braid --help)\n", err)
		return 1
	}
	if _, err := memlimit.Apply(cli.Memory); err != nil {
		fmt.Fprintf(stderr, "braid: %v (--memory or BRAID_MEMORY)\n", err)
		return 1
	}
	cli.indexSet = os.Getenv("BRAID_INDEX") != "" || slices.ContainsFunc(args, func(a string) bool {
		return a == "--index" || strings.HasPrefix(a, "--index=")
	})
	if f, ok := stderr.(*os.File); ok {
		cli.tty = term.IsTerminal(int(f.Fd()))
	}
	if sel := kctx.Selected(); sel != nil && !slices.Contains(noIndexDir, commandPath(sel)[0]) {
		if err := braid.CheckDir(cli.Index); err != nil {
			return exitStatus(err, stderr)
		}
	}
	if code, ok := forward(ctx, cli, kctx, cli.stdin); ok {
		return code
	}
	return exitStatus(kctx.Run(&cli.Globals), stderr)
}

// noIndexDir lists the commands that never touch the index directory, so
// a bad --index does not concern them.
var noIndexDir = []string{"version", "models", "tokens"}

// errSilent is returned by a command that already reported its failure.
var errSilent = errors.New("failed")

// optionFlags names the flag (or command) behind each library option and
// function that the library's errors mention, so an error names what the
// user can type. At one place in a message the first match wins, so a
// phrase comes before the option it holds.
var optionFlags = strings.NewReplacer(
	"point Open's dir", "point --index (or BRAID_INDEX)",
	"Open's dir", "--index",
	"Options.Backend", "--backend",
	"SourceSpec.Endpoint", "--s3-endpoint",
	"SourceSpec.MaxFileSize", "--max-file-size",
	"SourceSpec.ChunkTokens", "--chunk-tokens",
	"SourceSpec.KeepVersions", "braid index --keep-versions N",
	"Source.BEIR", "--beir",
	"Source.Queries", "--queries",
	"Source.Corpus", "--corpus",
	"Options.VectorWeights", "--vector-weight",
	"TuneOptions.VectorWeights", "--vector-weight",
	"TuneOptions.Candidates", "--candidates",
	"TuneOptions.DocEvidence", "--doc-evidence",
	"TuneOptions.LinkPrior", "--link-prior",
	"TuneOptions.FieldWeights", "--field-weights",
	"TuneOptions.Passes", "--passes",
	"Options.Endpoint", "--s3-endpoint", // package bucket
	"download: Options.Allow ", "--allow-net ",
	"Options.Allow ", "--allow-net ", // package download
	"mcpserver: Options.Allow ", "--allow ",
	"prompts: Dir: ", "--prompts: ",
	"prompts: Dir ", "--prompts ",
	"or leave Dir empty", "or leave out --prompts (and BRAID_PROMPTS)",
	// package model
	"set Set.ORTLib to a GPU build of ONNX Runtime with the CUDA 12 and cuDNN 9 libraries beside it",
	"run `make ort-gpu` in the braid repo (braid finds .tools/onnxruntime-gpu) or set "+model.EnvRuntimeLib+" to a GPU build of ONNX Runtime",
	"Set.Device cpu", "--device cpu",
	"set Set.ORTLib to libonnxruntime.so", "run `make ort` in the braid repo, or pass --ort-lib / set "+model.EnvRuntimeLib+" to libonnxruntime.so",
	"set Set.ORTLib to one", "set "+model.EnvRuntimeLib+" to one",
	"point Set.ORTLib at", "point "+model.EnvRuntimeLib+" at",
	"and Set.ORTLib names none", "and neither --ort-lib nor "+model.EnvRuntimeLib+" names one",
	"Set.ORTLib", "--ort-lib / "+model.EnvRuntimeLib,
	"Set.Embedder", "--model",
	"Set.Reranker", "--reranker",
	"from the Maven Central mirror)", "from the Maven Central mirror; `make models` in a braid checkout pulls the default set)",
	" with PullOptions.From", " --from",
	" with PullOptions.Force", " --force",
	"PullOptions.From", "--from",
	"model.Pull ", "braid models pull ",
	"model.Verify", "braid models verify",
	"model.Checks", "braid doctor",
	"SourceSpec.FollowLinks", "--follow-links",
)

// errorLine renders an error as one line that starts with "braid:".
func errorLine(err error) string {
	msg := optionFlags.Replace(model.Clause(err))
	if errors.Is(err, braid.ErrNoIndex) {
		msg += "; pass --index or set BRAID_INDEX to use another"
	}
	return "braid: " + msg
}

// open opens the engine at the global index directory; done closes it,
// or, for a command braid serve runs for another process, ends the loan
// of the server's engine.
func (g *Globals) open(readOnly bool, purpose string) (e *braid.Engine, done func(), err error) {
	if e, release, err, ok := g.borrowed(readOnly); ok {
		return e, release, err
	}
	if e, err = braid.Open(g.Index, &braid.Options{ReadOnly: readOnly, Purpose: purpose, Backend: g.backend(), KeyFile: g.KeyFile}); err != nil {
		return nil, nil, err
	}
	g.sayTightened(e)
	return e, func() { e.Close() }, nil
}

// defaults puts the library's defaults into the flags' help and default
// tags (${default_limit} …), so the CLI restates none of them.
var defaults = kong.Vars{
	"default_limit":      fmt.Sprint(braid.DefaultLimit),
	"default_candidates": fmt.Sprint(braid.DefaultCandidates),
	"default_similarity": fmt.Sprint(braid.DefaultSimilarity),
	"default_rerank_top": fmt.Sprint(braid.DefaultRerankTop),
}

// backendFlags choose where the index lives: the --index directory, or an
// OpenSearch cluster.
type backendFlags struct {
	Backend         string `help:"Keep the index in the OpenSearch cluster at this URL (e.g. http://127.0.0.1:9200; scripts/opensearch.sh start runs one) instead of the --index directory." env:"BRAID_BACKEND" placeholder:"URL"`
	BackendIndex    string `help:"The cluster index braid uses (with --backend)." env:"BRAID_BACKEND_INDEX" default:"braid" placeholder:"NAME"`
	BackendShards   int    `help:"Primary shards of a new cluster index (with --backend)." default:"1" placeholder:"N"`
	BackendReplicas int    `help:"Replicas of each shard of a new cluster index (with --backend; 1 survives the loss of a node)." default:"0" placeholder:"N"`
}

// backend is the engine's Backend option; the zero Backend without
// --backend.
func (b backendFlags) backend() braid.Backend {
	if b.Backend == "" {
		return braid.Backend{}
	}
	be := braid.Backend{URL: b.Backend, Index: b.BackendIndex, Shards: b.BackendShards, Replicas: b.BackendReplicas}
	if cache, err := os.UserCacheDir(); err == nil {
		// The local copy of the cluster's records, kept so that the
		// next command reads only what changed.
		be.Mirror = filepath.Join(cache, "braid", "cluster")
	}
	return be
}

// withReader opens the engine read-only for the length of fn.
func (g *Globals) withReader(purpose string, fn func(*braid.Engine) error) error {
	e, done, err := g.open(true, purpose)
	if err != nil {
		return err
	}
	defer done()
	return fn(e)
}

// texter is what most commands print: with --json the value itself,
// else its Text, the form its package gives it.
type texter interface{ Text() string }

// print writes v as JSON with --json, else the text it makes.
func (g *Globals) print(v any, text func() string) error {
	if g.JSON {
		return g.printJSON(v)
	}
	_, err := io.WriteString(g.stdout, text())
	return err
}

// show opens the engine read-only and prints what fn answers.
func (g *Globals) show(purpose string, fn func(*braid.Engine) (texter, error)) error {
	return g.withReader(purpose, func(e *braid.Engine) error {
		v, err := fn(e)
		if err != nil {
			return err
		}
		return g.print(v, v.Text)
	})
}

// showWith is show for a command that opens the engine with the embedding
// model (openWith), for writing unless readOnly.
func (g *Globals) showWith(readOnly bool, purpose string, fn func(*braid.Engine) (texter, error)) error {
	e, done, err := g.openWith(readOnly, purpose)
	return g.showOpened(e, done, err, fn)
}

// showOpened prints what fn answers of an engine just opened (err: the
// opening failed), and closes it.
func (g *Globals) showOpened(e *braid.Engine, done func(), err error, fn func(*braid.Engine) (texter, error)) error {
	if err != nil {
		return err
	}
	defer done()
	v, err := fn(e)
	if err != nil {
		return err
	}
	return g.print(v, v.Text)
}

// printLines prints a list as JSON with --json, else a line an item, or
// the line empty when there are none.
func printLines[T fmt.Stringer](g *Globals, items []T, err error, empty string) error {
	if err != nil {
		return err
	}
	if g.JSON {
		return g.printJSON(items)
	}
	if len(items) == 0 {
		fmt.Fprintln(g.stdout, empty)
	}
	for _, it := range items {
		fmt.Fprintln(g.stdout, it)
	}
	return nil
}

// printJSON writes v as indented JSON to stdout.
func (g *Globals) printJSON(v any) error {
	enc := json.NewEncoder(g.stdout)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// sayTightened tells, on stderr unless --quiet, that opening the index
// for writing took other users' access to it away (braid.Engine.Tightened).
func (g *Globals) sayTightened(e *braid.Engine) {
	if n := e.Capabilities().Tightened; n != "" && !g.Quiet {
		fmt.Fprintf(g.stderr, "braid: %s\n", n)
	}
}

// warn prints a warning to stderr unless --quiet.
func (g *Globals) warn(format string, args ...any) {
	if !g.Quiet {
		fmt.Fprintf(g.stderr, "braid: warning: "+format+"\n", args...)
	}
}

// displayPath names a file the way ripgrep would when run from the current
// directory: relative when the file is below it, else as an absolute path.
func (g *Globals) displayPath(abs string) string {
	wd, err := g.cwd, error(nil)
	if wd == "" {
		wd, err = workDir()
	}
	if err != nil {
		return abs
	}
	rel, err := filepath.Rel(wd, abs)
	if err != nil {
		return abs
	}
	return rel
}

// workDir is the current directory, looked up once (grep names every file).
var workDir = sync.OnceValues(os.Getwd)

// counted is n with noun, in the plural unless n is 1: "1 broken link",
// "3 broken links".
func counted(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
