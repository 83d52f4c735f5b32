package mcpserver_test

import (
	"context"
	"errors"
	"hash/fnv"
	"io"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/braidsearch/braid"
	"github.com/braidsearch/braid/internal/modeltest"
	"github.com/braidsearch/braid/internal/testenv"
	"github.com/braidsearch/braid/mcpserver"
	"github.com/braidsearch/braid/rerank"
)

// With the fixture embedder and cross-encoder, search through MCP is
// hybrid and reranked, and each retriever's part shows in source.
func TestHybridSearchThroughMCP(t *testing.T) {
	emb := modeltest.Tiny(t)
	opt := &braid.Options{Embedder: emb, Model: "braid/tiny-encoder"}
	_, idx := indexed(t, 6, opt)
	withModels := *opt
	withModels.Reranker = rerank.New(modeltest.TinyCross(t), rerank.Options{})
	c := &clientT{connect(t, mcpserver.New(opener(idx, &withModels), &mcpserver.Options{Tools: "all"})), t}

	for _, tc := range []struct {
		args   map[string]any
		source string
	}{
		{map[string]any{"query": "note number alpha"}, "hybrid+rerank"},
		{map[string]any{"query": "note number alpha", "vector_weight": 0.7, "fusion": "rrf", "rerank": false}, "hybrid"},
		{map[string]any{"query": "note number alpha", "vector_weight": 1, "rerank": false}, "vector"},
		{map[string]any{"query": "note number alpha", "vector_weight": 0}, "lexical+rerank"},
	} {
		var r searchJSON
		decode(t, c.ok("search", withExplain(tc.args)), &r)
		if len(r.Results) != 6 || r.Warning != "" {
			t.Fatalf("search %v: %d results, warning %q; want 6 and none", tc.args, len(r.Results), r.Warning)
		}
		for _, h := range r.Results {
			if h.Source != tc.source {
				t.Errorf("search %v: hit source %q, want %q", tc.args, h.Source, tc.source)
			}
		}
		x := r.Results[0].Explain
		if strings.HasPrefix(tc.source, "hybrid") && (x == nil || x.VectorRank == 0 || x.LexicalRank == 0) {
			t.Errorf("search %v: explain %+v, want both ranks", tc.args, x)
		}
	}
	var st struct{ Models braid.Capabilities }
	decode(t, c.ok("get_stats", nil), &st)
	if !st.Models.Vectors || st.Models.Model != "braid/tiny-encoder" || st.Models.Embedded == 0 || !st.Models.Rerank {
		t.Errorf("get_stats models: %+v", st.Models)
	}
}

func withExplain(args map[string]any) map[string]any {
	out := map[string]any{"explain": true}
	for k, v := range args {
		out[k] = v
	}
	return out
}

// initialize is answered while the models load; tools that need the
// engine wait for it, tools that do not answer at once.
func TestInitializeDoesNotWaitForModels(t *testing.T) {
	_, idx := indexed(t, 3, nil)
	release := make(chan struct{})
	var opened atomic.Int32
	open := func() (*braid.Engine, func(), error) {
		<-release // the models take their time
		opened.Add(1)
		return opener(idx, nil)()
	}
	c, stop := serve(t, mcpserver.New(open, &mcpserver.Options{Tools: "all"}))
	defer stop()
	defer func() {
		select {
		case <-release:
		default:
			close(release)
		}
	}()
	// The engine cannot open before release: an answer at all shows
	// that initialize did not wait for it.
	ctx, cancel := context.WithTimeout(context.Background(), testenv.Guard)
	defer cancel()
	if _, err := c.Initialize(ctx, initRequest()); err != nil {
		t.Fatalf("initialize while the engine opens: %v", err)
	}
	if r := call(t, c, "scratchpad_list", nil); r.IsError || !strings.Contains(r.Text, `"entries":[]`) {
		t.Errorf("scratchpad_list while the engine opens: %+v", r)
	}
	got := make(chan callResult, 1)
	go func() { got <- call(t, c, "search_keyword", map[string]any{"query": "alpha"}) }()
	select {
	case r := <-got:
		t.Fatalf("search answered before the engine was open: %+v", r)
	case <-time.After(100 * time.Millisecond):
	}
	close(release)
	select {
	case r := <-got:
		if r.IsError || !strings.Contains(r.Text, "note-0000.md") {
			t.Errorf("search once the engine is open: %+v", r)
		}
	case <-time.After(testenv.Guard):
		t.Fatal("search did not answer after the engine opened")
	}
	call(t, c, "get_stats", nil)
	if n := opened.Load(); n != 1 {
		t.Errorf("the engine was opened %d times, want once", n)
	}
}

// An open that fails is the call's error, and the next call tries again:
// a server started while braid index held the index recovers when it
// ends.
func TestOpenFailureIsRetried(t *testing.T) {
	_, idx := indexed(t, 2, nil)
	holder, err := braid.Open(idx, &braid.Options{Purpose: "braid index"})
	if err != nil {
		t.Fatal(err)
	}
	var tries atomic.Int32
	open := func() (*braid.Engine, func(), error) {
		tries.Add(1)
		return opener(idx, &braid.Options{Purpose: "braid serve"})()
	}
	c := &clientT{connect(t, mcpserver.New(open, &mcpserver.Options{Tools: "all"})), t}
	r := c.call("search", map[string]any{"query": "alpha"})
	if !r.IsError || !strings.Contains(r.Text, "in use by another braid process") || !strings.Contains(r.Text, "braid index") {
		t.Fatalf("search while braid index holds the index: %+v", r)
	}
	// The first call either joined the attempt Serve started (1 open so
	// far) or found it failed and made its own (2); which depends on
	// timing, so the test counts from there.
	first := tries.Load()
	if first != 1 && first != 2 {
		t.Fatalf("%d opens after the first call, want the one at start and at most one more", first)
	}
	holder.Close()
	if r := c.call("search", map[string]any{"query": "alpha"}); r.IsError {
		t.Fatalf("search after braid index ended: %q", r.Text)
	}
	if n := tries.Load(); n != first+1 {
		t.Errorf("%d opens after the second call, want %d: a failed open is retried by the next call", n, first+1)
	}
	c.ok("get_stats", nil)
	if n := tries.Load(); n != first+1 {
		t.Errorf("%d opens after get_stats, want %d: an open engine is reused", n, first+1)
	}
}

// slowEmbedder is a deterministic embedder whose passage embedding waits
// while blocked: an index run that embeds is held in the middle.
type slowEmbedder struct {
	mu      sync.Mutex
	blocked chan struct{} // nil: not blocked
	entered chan struct{} // signalled when a blocked call starts waiting
}

func (s *slowEmbedder) Dim() int { return 8 }

func (s *slowEmbedder) Embed(ctx context.Context, texts []string, query bool) ([][]float32, error) {
	s.mu.Lock()
	b := s.blocked
	s.mu.Unlock()
	if b != nil && !query {
		select {
		case s.entered <- struct{}{}:
		default:
		}
		select {
		case <-b:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	out := make([][]float32, len(texts))
	for i, text := range texts {
		v := make([]float32, 8)
		var norm float64
		for j := range v {
			h := fnv.New32a()
			h.Write([]byte{byte(j)})
			h.Write([]byte(text))
			v[j] = float32(h.Sum32()%1000)/1000 - 0.5
			norm += float64(v[j] * v[j])
		}
		for j := range v {
			v[j] /= float32(math.Sqrt(norm))
		}
		out[i] = v
	}
	return out, nil
}

// index_path on a folder holds only the writer slot: searches, reads and
// a second index run's wait all go on while it embeds.
func TestSearchesRunDuringIndexPath(t *testing.T) {
	emb := &slowEmbedder{entered: make(chan struct{}, 1)}
	opt := &braid.Options{Embedder: emb, Model: "slow"}
	_, idx := indexed(t, 5, opt)
	c := &clientT{connect(t, mcpserver.New(opener(idx, opt), trusting(t))), t}

	big := t.TempDir()
	writeVault(t, big, 200, "gamma")
	release := make(chan struct{})
	emb.mu.Lock()
	emb.blocked = release
	emb.mu.Unlock()
	indexDone := make(chan callResult, 1)
	go func() { indexDone <- c.call("index_path", map[string]any{"path": big}) }()
	select {
	case <-emb.entered:
	case <-time.After(testenv.Guard):
		t.Fatal("index_path never reached the embedding step")
	}

	var wg sync.WaitGroup
	var failed atomic.Int32
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tool, args := "search", map[string]any{"query": "note alpha", "vector_weight": 0.5}
			switch i % 4 {
			case 1:
				tool, args = "search_keyword", map[string]any{"query": "alpha"}
			case 2:
				tool, args = "grep", map[string]any{"pattern": "alpha"}
			case 3:
				tool, args = "list_sources", nil
			}
			if r := c.call(tool, args); r.IsError {
				t.Errorf("%s during index_path: %q", tool, r.Text)
				failed.Add(1)
			}
		}()
	}
	wg.Wait()
	select {
	case r := <-indexDone:
		t.Fatalf("index_path finished while its embedder was blocked: %+v", r)
	default:
	}
	close(release)
	emb.mu.Lock()
	emb.blocked = nil
	emb.mu.Unlock()
	select {
	case r := <-indexDone:
		if r.IsError || !strings.Contains(r.Text, `"added":200`) {
			t.Fatalf("index_path: %+v", r)
		}
	case <-time.After(testenv.Guard):
		t.Fatal("index_path did not finish")
	}
	var sr searchJSON
	decode(t, c.ok("search_keyword", map[string]any{"query": "gamma"}), &sr)
	if sr.Total < 200 {
		t.Errorf("after index_path: %d chunks match gamma, want at least 200", sr.Total)
	}
}

// A client of the 2026 revision (server/discover, no initialize) is
// served too, progress included.
func TestModernProtocolClient(t *testing.T) {
	_, idx := indexed(t, 2, nil)
	c, stop := serve(t, mcpserver.New(opener(idx, nil), trusting(t)))
	defer stop()
	var req mcp.InitializeRequest
	req.Params.ClientInfo = mcp.Implementation{Name: "braid-test", Version: "1"}
	if _, err := c.Initialize(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	if v := c.ProtocolVersion(); !mcp.IsModernProtocol(v) {
		t.Errorf("negotiated %q, want the modern protocol", v)
	}
	var progress atomic.Int32
	c.OnNotification(func(n mcp.JSONRPCNotification) {
		if n.Method == "notifications/progress" {
			progress.Add(1)
		}
	})
	more := t.TempDir()
	writeVault(t, more, 3, "beta")
	r, err := callErr(c, "index_path", map[string]any{"path": more}, &mcp.Meta{ProgressToken: 7})
	if err != nil || r.IsError || !strings.Contains(r.Text, `"added":3`) {
		t.Fatalf("index_path: %v %+v", err, r)
	}
	for deadline := time.Now().Add(testenv.Guard); progress.Load() == 0 && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	if progress.Load() == 0 {
		t.Error("no progress notification on the modern protocol")
	}
}

// stuckEmbedder blocks every document embedding once armed, ignoring the
// context, as a call stuck in a system call would.
type stuckEmbedder struct {
	slowEmbedder
	armed   atomic.Bool
	release chan struct{}
}

func (s *stuckEmbedder) Embed(ctx context.Context, texts []string, query bool) ([][]float32, error) {
	if s.armed.Load() && !query {
		select {
		case s.entered <- struct{}{}:
		default:
		}
		<-s.release
	}
	return s.slowEmbedder.Embed(ctx, texts, query)
}

// Serve returns within its shutdown timeout once its input ends, even with
// a tool call that will not end.
func TestServeShutdownWithAStuckCall(t *testing.T) {
	emb := &stuckEmbedder{slowEmbedder: slowEmbedder{entered: make(chan struct{}, 1)}, release: make(chan struct{})}
	opt := &braid.Options{Embedder: emb, Model: "slow"}
	_, idx := indexed(t, 2, opt)
	srvOpt := trusting(t)
	srvOpt.ShutdownTimeout = 300 * time.Millisecond
	srv := mcpserver.New(opener(idx, opt), srvOpt)
	toServer, fromClient := io.Pipe()
	toClient, fromServer := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- srv.Serve(context.Background(), toServer, fromServer)
		fromServer.Close()
	}()
	c := client.NewClient(transport.NewIO(toClient, fromClient, io.NopCloser(strings.NewReader(""))))
	if err := c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Initialize(context.Background(), initRequest()); err != nil {
		t.Fatal(err)
	}
	more := t.TempDir()
	writeVault(t, more, 3, "stuck")
	// Serve leaves the stuck call running, as a process that exits would.
	// Before the folders go (cleanups run last registered first), let the
	// call end (it holds the writer slot until then) and close the
	// engine: an index run still writing into idx would make its removal
	// fail.
	t.Cleanup(func() {
		close(emb.release)
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if _, release, err := srv.Lend(ctx, true); err == nil {
			release()
		}
		srv.Close()
	})
	emb.armed.Store(true)
	go func() {
		var req mcp.CallToolRequest
		req.Params.Name, req.Params.Arguments = "index_path", map[string]any{"path": more}
		_, _ = c.CallTool(context.Background(), req)
	}()
	select {
	case <-emb.entered:
	case <-time.After(testenv.Guard):
		t.Fatal("index_path never reached the embedder")
	}
	fromClient.Close() // the client goes away
	// The call never ends by itself: Serve returning at all, with
	// ErrShutdownTimeout, shows it gave up on it after ShutdownTimeout.
	select {
	case err := <-done:
		if !errors.Is(err, mcpserver.ErrShutdownTimeout) {
			t.Errorf("Serve: %v, want ErrShutdownTimeout", err)
		}
	case <-time.After(testenv.Guard):
		t.Fatal("Serve did not return after its input ended with a call stuck")
	}
}
