package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/braidsearch/braid"
	"github.com/braidsearch/braid/bucket"
	"github.com/braidsearch/braid/internal/confine"
	"github.com/braidsearch/braid/mcpserver/profile"
	"github.com/braidsearch/braid/mcpserver/scratchpad"
	"github.com/braidsearch/braid/mcpserver/stdio"
	"github.com/braidsearch/braid/policy"
)

// Opener opens the engine the server answers from, with whatever models it
// should use, and returns a function that closes the engine and the
// models. It may take seconds (loading ONNX models, rebuilding an HNSW
// graph); the server calls it in the background.
type Opener func() (*braid.Engine, func(), error)

// Options tune a Server. The zero value (or nil) means the defaults.
type Options struct {
	// MaxOutput is the most bytes of tool output one reply carries; longer
	// output is kept in the scratchpad and the reply says how to read the
	// rest. Zero means 8192.
	MaxOutput int
	// Scratchpads is how many long outputs the scratchpad keeps, least
	// recently used dropped first. Zero means 32.
	Scratchpads int
	// Log receives the server's log lines. nil discards them. It must not
	// be the protocol stream.
	Log io.Writer
	// Version is reported to clients in the initialize answer.
	Version string
	// Watch keeps every registered source indexed for the session: once
	// the engine is open, changes to the sources' files are re-indexed as
	// they happen (index_path with watch adds a source to the watch).
	// It needs an engine open for writing.
	Watch bool
	// Prompts is a folder of PROMPT-*.md files offered as prompts beside
	// the built-ins (see package prompts); it is read on every
	// prompts/list and prompts/get. Empty, or a folder that does not
	// exist, means the built-ins alone.
	Prompts string
	// BeforeClose runs once when the server starts closing, before the
	// engine closes: whatever borrowed the engine with Lend stops there.
	BeforeClose func()
	// Allow lists folders that tools taking a path (index_path, add,
	// restore, inject_tags) may use, besides the registered sources and
	// the roots the client declares, and s3://bucket[/prefix] URLs that
	// index_path may index besides the registered S3 sources. Nil allows
	// only those.
	Allow []string
	// AllowNet lists address ranges the download tool may reach although
	// they are not public; nil allows public addresses only.
	AllowNet []netip.Prefix
	// ShutdownTimeout bounds how long Serve waits, once its input ends,
	// for tool calls under way and then for the engine to close. Zero
	// means 5 seconds.
	ShutdownTimeout time.Duration
	// AllowWrites offers the tools that write outside the index directory
	// (restore, inject_tags); without it they are not listed.
	AllowWrites bool
	// Tools picks the tools offered: a profile (core, all, or a seed
	// system's: amalfa, yams, ks, alloy; see package profile) or a
	// comma-separated list of profiles and tool names. Empty means core.
	// Check it with CheckTools: New logs an invalid value and offers core.
	Tools string
	// Policy is what each signed-in user may do (a request whose context
	// carries an auth.Principal; access.go): the tools listed and
	// callable, the sources read, whether they write. nil gives every
	// signed-in user everything; requests without a principal are
	// answered as before, whatever it says.
	Policy *policy.Policy
}

const (
	defaultShutdownTimeout = 5 * time.Second
	defaultMaxOutput       = 8 << 10
	defaultScratchpads     = 32
)

// ErrClosed is the error of a tool call that arrives after Close.
var ErrClosed = errors.New("mcpserver: server is shutting down")

// Server is a braid MCP server: the tools, the resource and the engine
// they share.
//
// Locking: the index allows one writer or many readers, across processes.
// The server holds one engine for its whole session, opened by the Opener;
// `braid serve` opens it for writing, so index_path, remove_source and
// inject_tags work without a second process and without closing and
// reopening the engine (which would stall every search and reload the
// models). The engine lets searches run while an index run writes (bleve,
// bbolt and the HNSW graph each take their own locks), so tool calls run
// concurrently and only the writing tools take the server's writer slot,
// one at a time, as the engine requires. The cost of holding the write
// lock is that other braid processes cannot open the index while the
// server runs, not even to read (they are told that braid serve holds
// it); `braid serve --read-only` holds a shared lock instead, lets CLI
// searches run beside it, and answers the writing tools with an error.
//
// Models load in the background: Serve answers initialize at once, and the
// first tool call that needs the engine waits for the Opener. An Opener
// that fails is retried by the next tool call, so a server started while
// `braid index` held the index recovers once it finishes.
type Server struct {
	open Opener
	opt  Options
	log  *log.Logger
	mcp  *server.MCPServer
	pad  *scratchpad.Pad
	told sync.Map // model reasons a search warning has given in full

	promptMu      sync.Mutex // one prompts folder sync at a time
	promptProblem string     // the prompt files last logged as unusable

	stopping sync.Once // runs BeforeClose
	mu       sync.Mutex
	cur      *opening // the engine, or the attempt to open it
	closed   bool
	writing  chan struct{} // the writer slot: one index_path or remove_source at a time

	allow   []string        // Options.Allow's folders, resolved
	allowS3 []bucket.URL    // Options.Allow's s3:// URLs
	toolset profile.Set     // Options.Tools, parsed (profiles.go)
	offered []string        // the tools listed, in order
	known   map[string]bool // every tool this server has
	rootsMu sync.Mutex
	roots   clientRoots

	watching map[string]*watchRun // source paths being watched (watch.go)
	stopAll  context.CancelFunc   // stops every watch; Close calls it
	watchCtx context.Context
	watchers sync.WaitGroup
	// sessionWatching are the source paths watched only because a
	// session watches its set; sessMu orders the syncs that change it.
	sessMu          sync.Mutex
	sessionWatching map[string]bool
}

// opening is one attempt to open the engine; done closes when it ends.
type opening struct {
	done  chan struct{}
	e     *braid.Engine
	close func()
	err   error
}

// New returns a server answering from the engine open returns.
func New(open Opener, opt *Options) *Server {
	s := &Server{open: open, writing: make(chan struct{}, 1), watching: map[string]*watchRun{},
		sessionWatching: map[string]bool{}}
	s.watchCtx, s.stopAll = context.WithCancel(context.Background())
	if opt != nil {
		s.opt = *opt
	}
	if s.opt.MaxOutput <= 0 {
		s.opt.MaxOutput = defaultMaxOutput
	}
	if s.opt.Scratchpads <= 0 {
		s.opt.Scratchpads = defaultScratchpads
	}
	w := s.opt.Log
	if w == nil {
		w = io.Discard
	}
	s.log = log.New(w, "braid serve: ", log.LstdFlags)
	s.pad = scratchpad.New(s.opt.Scratchpads, scratchpad.MaxBytes)
	version := s.opt.Version
	if version == "" {
		version = "dev"
	}
	offer := s.offer(s.tools()) // profiles.go
	hooks := s.promptHooks()
	hooks.AddOnRequestInitialization(s.refuseOutside)
	hooks.AddAfterListResources(s.hideResources) // access.go
	s.mcp = server.NewMCPServer("braid", version,
		server.WithToolCapabilities(false),
		server.WithResourceCapabilities(false, false),
		server.WithStrictInputSchemaDefault(),
		server.WithRecovery(),
		server.WithInstructions(s.instructions()),
		server.WithPromptCapabilities(false),
		server.WithHooks(hooks),
		server.WithToolFilter(s.filterTools), // access.go
		// Lists differ by user (access.go): no shared cache may keep one.
		server.WithCacheHints(0, mcp.CacheScopePrivate),
	)
	for _, dir := range s.opt.Allow {
		if bucket.IsURL(dir) {
			if u, err := bucket.ParseURL(dir); err == nil {
				s.allowS3 = append(s.allowS3, u)
			} else {
				s.log.Printf("ignoring --allow %s: %v", dir, err)
			}
			continue
		}
		if real, err := confine.Resolve(dir); err == nil {
			s.allow = append(s.allow, real)
		} else {
			s.log.Printf("ignoring --allow %s: %v", dir, err)
		}
	}
	s.mcp.AddNotificationHandler(mcp.MethodNotificationRootsListChanged, s.rootsChanged)
	for _, t := range offer {
		s.mcp.AddTool(t.def, t.handler)
	}
	s.addResources()
	s.syncPrompts("")
	return s
}

// instructions is what the server tells an agent at initialize: where to
// start and how to go on, naming only the tools it offers (a tool it does
// not offer costs the agent a turn on a refusal). They are fixed before
// the engine opens, so they promise vectors and reranking only where
// their models are installed. The prose avoids the English words that
// are also tool names (find, list, read, search, ...), so a tool named is
// a tool meant.
func (s *Server) instructions() string {
	has := func(name string) bool { return slices.Contains(s.offered, name) }
	pick := func(glosses [][2]string) []string {
		var out []string
		for _, g := range glosses {
			if has(g[0]) {
				out = append(out, g[0]+" ("+g[1]+")")
			}
		}
		return out
	}
	hybrid := "BM25 fused with vector similarity when an embedding model is installed, reranked when a cross-encoder is; its " +
		"warning says what it could not do"
	alias := "the same"
	if !has("search") {
		alias = hybrid
	}
	start := pick([][2]string{
		{"search", hybrid},
		{"search_documents", alias},
		{"search_knowledge", "by meaning alone"},
		{"search_keyword", "exact words"},
		{"ask", "cited passages for a question, in one call"},
		{"grep", "a regular expression over the files"},
		{"find", "documents by name"},
	})
	then := pick([][2]string{
		{"read_around", "a hit's chunk and its neighbours"},
		{"read", "the whole file"},
		{"read_node_content", "the whole file"},
		{"get", "metadata and content, by name or hash"},
		{"get_document", "metadata and content"},
		{"explore_links", "the notes linked to and from a note"},
		{"list", "documents by kind, date, size or metadata"},
		{"list_directory_structure", "the folder tree"},
	})
	var b strings.Builder
	b.WriteString("braid indexes local markdown notes, docs and code.")
	if len(start) > 0 {
		b.WriteString(" Start with " + orList(start) + ".")
	}
	if len(then) > 0 {
		b.WriteString(" Then go on with " + orList(then) + ".")
	}
	if has("index_path") {
		b.WriteString(" index_path indexes a folder or file.")
	}
	for _, name := range []string{"get_stats", "status"} {
		if has(name) {
			b.WriteString(" " + name + " says which models are installed.")
			break
		}
	}
	if has("scratchpad_read") {
		b.WriteString(" Long outputs are cut at a size limit; the reply names a scratchpad id to continue with scratchpad_read.")
	} else {
		b.WriteString(" Long outputs are cut at a size limit; narrow the request to see the rest.")
	}
	return b.String() + s.profileNote()
}

// orList joins items as "a, b or c".
func orList(items []string) string {
	if len(items) == 1 {
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " or " + items[len(items)-1]
}

// Serve answers MCP requests read from in on out until in ends or ctx is
// cancelled, then closes the engine. It starts opening the engine at once,
// in the background. out carries only the protocol.
//
// Shutdown is bounded: once in ends or ctx is cancelled, tool calls under
// way are cancelled and given Options.ShutdownTimeout to end, and so is
// closing the engine; past that Serve returns an error saying what it left
// running, so the process can exit (the index's writes are crash-safe).
func (s *Server) Serve(ctx context.Context, in io.Reader, out io.Writer) error {
	s.prepare()
	ss := server.NewStdioServer(s.mcp)
	ss.SetErrorLogger(s.log)
	ended := make(chan struct{})
	listened := make(chan error, 1)
	go func() { listened <- stdio.Listen(ctx, ss, &endReader{r: in, ended: ended}, out) }()
	var err error
	select {
	case err = <-listened:
	case <-ended:
	case <-ctx.Done():
	}
	grace := s.opt.ShutdownTimeout
	if grace <= 0 {
		grace = defaultShutdownTimeout
	}
	timer := time.NewTimer(grace)
	defer timer.Stop()
	if err == nil {
		select {
		case err = <-listened:
		case <-timer.C:
			s.log.Printf("tool calls still running %v after the input ended; exiting without them (the index stays consistent)", grace)
			return fmt.Errorf("%w: tool calls still running %v after the input ended", ErrShutdownTimeout, grace)
		}
	}
	closed := make(chan error, 1)
	go func() { closed <- s.Close() }()
	select {
	case cerr := <-closed:
		if err == nil {
			err = cerr
		}
	case <-timer.C:
		s.log.Printf("the index did not close within %v; exiting anyway (the index stays consistent)", grace)
		return fmt.Errorf("%w: the index did not close within %v", ErrShutdownTimeout, grace)
	}
	return err
}

// ErrShutdownTimeout is Serve's error when work was still running past
// Options.ShutdownTimeout after the input ended.
var ErrShutdownTimeout = errors.New("mcpserver: shutdown timed out")

// endReader closes ended when its reader returns an error (io.EOF
// included): the client closed the stream.
type endReader struct {
	r     io.Reader
	ended chan struct{}
	once  sync.Once
}

func (r *endReader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	if err != nil {
		r.once.Do(func() { close(r.ended) })
	}
	return n, err
}

// prepare starts opening the engine unless that is under way or done.
func (s *Server) prepare() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cur == nil && !s.closed {
		s.cur = s.launch()
	}
}

// launch starts one attempt to open the engine. Call it with mu held.
func (s *Server) launch() *opening {
	o := &opening{done: make(chan struct{})}
	go func() {
		defer close(o.done)
		start := time.Now()
		o.e, o.close, o.err = s.open()
		if o.err != nil {
			s.log.Printf("cannot open the index: %v", o.err)
			return
		}
		c := o.e.Capabilities()
		s.log.Printf("index %s open in %v (vectors: %v, rerank: %v, read-only: %v)", c.Dir, time.Since(start).Round(time.Millisecond), c.Vectors, c.Rerank, c.ReadOnly)
		if (s.opt.Watch || watchSetting(o.e)) && !c.ReadOnly {
			s.watchAll(o.e)
		}
		if !c.ReadOnly {
			s.syncSessionWatches(o.e) // sessions that watch their sets, from an earlier run
		}
	}()
	return o
}

// engine waits for the engine to be open. After a failed attempt it starts
// another, so each call reports the index as it is now.
func (s *Server) engine(ctx context.Context) (*braid.Engine, error) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, ErrClosed
	}
	if s.cur == nil || (ended(s.cur) && s.cur.err != nil) {
		s.cur = s.launch()
	}
	o := s.cur
	s.mu.Unlock()
	select {
	case <-o.done:
		return o.e, o.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// openEngine is the engine when it is open already, else nil: for a
// tool that answers at once and uses the engine only when it is there.
func (s *Server) openEngine() *braid.Engine {
	s.mu.Lock()
	o := s.cur
	s.mu.Unlock()
	if o == nil || !ended(o) || o.err != nil {
		return nil
	}
	return o.e
}

func ended(o *opening) bool {
	select {
	case <-o.done:
		return true
	default:
		return false
	}
}

// Close waits for an engine being opened and closes it. Tool calls after
// Close fail with ErrClosed; Serve calls it once no call is in flight, and
// so must a caller serving MCP() over another transport.
func (s *Server) Close() error {
	if s.opt.BeforeClose != nil {
		s.stopping.Do(s.opt.BeforeClose)
	}
	s.mu.Lock()
	s.closed = true
	o := s.cur
	s.cur = nil
	s.mu.Unlock()
	if o == nil {
		s.stopWatches()
		s.watchers.Wait()
		return nil
	}
	<-o.done
	s.stopWatches()
	s.watchers.Wait() // a re-index under way finishes before the engine closes
	if o.e != nil && o.close != nil {
		o.close()
	}
	return nil
}

// stopWatches stops every watch for good: Close.
func (s *Server) stopWatches() {
	s.mu.Lock()
	stop := s.stopAll
	s.mu.Unlock()
	stop()
}

// Lend waits for the engine and lends it for one command run on behalf of
// another process; release ends the loan. A writer (write true) waits for
// the writer slot, which the writing tools and the watch share, and holds
// it until release. The borrower must not Close the engine: release ends
// its loan.
func (s *Server) Lend(ctx context.Context, write bool) (*braid.Engine, func(), error) {
	e, err := s.engine(ctx)
	if err != nil {
		return nil, nil, err
	}
	if !write {
		return e, func() {}, nil
	}
	if e.Capabilities().ReadOnly {
		return nil, nil, braid.ErrReadOnly
	}
	select {
	case s.writing <- struct{}{}:
	case <-ctx.Done():
		return nil, nil, ctx.Err()
	}
	var once sync.Once
	return e, func() { once.Do(func() { <-s.writing }) }, nil
}

// write takes the writer slot for fn, waiting for a write under way.
func (s *Server) write(ctx context.Context, fn func() error) error {
	select {
	case s.writing <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-s.writing }()
	return fn()
}

// MCP is the underlying mcp-go server, for serving over another transport.
func (s *Server) MCP() *server.MCPServer { return s.mcp }

// Start begins opening the engine in the background, as Serve does, for a
// caller serving MCP() over another transport; it returns at once.
func (s *Server) Start() { s.prepare() }

// Ready reports whether the engine is open: not still opening, not failed,
// not closed.
func (s *Server) Ready() bool { return s.openEngine() != nil }

// progress sends a notifications/progress for the call when the client
// asked for progress with a token.
func (s *Server) progress(ctx context.Context, req mcp.CallToolRequest, done, total float64, message string) {
	if req.Params.Meta == nil || req.Params.Meta.ProgressToken == nil {
		return
	}
	params := map[string]any{"progressToken": req.Params.Meta.ProgressToken, "progress": done, "message": message}
	if total > 0 {
		params["total"] = total
	}
	_ = s.mcp.SendNotificationToClient(ctx, "notifications/progress", params)
}
