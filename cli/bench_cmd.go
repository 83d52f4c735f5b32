package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/braidsearch/braid/bench"
)

// BenchCmd measures latency per stage, ingest throughput and memory on
// synthetic corpora, and the rerankers on 50 pairs.
type BenchCmd struct {
	Chunks      []int    `help:"Corpus sizes in chunks (repeatable or comma-separated; 10 chunks per synthetic file)." default:"1000,10000,100000" aliases:"docs" placeholder:"N"`
	Queries     int      `help:"Searches timed per corpus size." default:"200" placeholder:"N"`
	ModelIngest []int    `help:"Sizes, among --chunks, at which the corpus is also indexed embedding every chunk with the model (about a minute per 1,000 chunks here); 0 for none." default:"1000,10000" placeholder:"N"`
	RerankRuns  int      `help:"50-pair reranker calls timed per model and window." default:"10" placeholder:"N"`
	Windows     []int    `help:"Passage policies to time the rerankers with: token windows, -1 for the whole passage." default:"64,128,256,-1" placeholder:"N"`
	Rerankers   []string `help:"Rerankers to time, by registry id (default: every one installed or with a fixture; bge-reranker-base takes ~20 s per 50 pairs here)." placeholder:"ID"`
	Fixtures    string   `help:"Directory of architecture-exact random-weight models (make fixtures), used for models that are not installed." default:".tools/fixtures" type:"path" placeholder:"DIR"`
	Keep        string   `help:"Build the corpora and indexes under DIR/<chunks>/ and keep them (a fresh search or a profile can then open DIR/<chunks>/index); DIR must be empty or absent. Default: a temporary directory, removed afterwards." type:"path" placeholder:"DIR"`
}

// Run benches and prints markdown tables, or the report as JSON.
func (c *BenchCmd) Run(g *Globals) error {
	for _, n := range c.Chunks {
		if n < 10 {
			return fmt.Errorf("--chunks %d: want 10 or more", n)
		}
	}
	if c.Queries < 1 || c.RerankRuns < 1 {
		return fmt.Errorf("--queries and --rerank-runs want 1 or more")
	}
	if c.Keep != "" {
		if err := emptyDir(c.Keep); err != nil {
			return err
		}
	}
	models, err := bench.LoadModels(g.models(), c.Fixtures, c.Rerankers)
	if err != nil {
		return err
	}
	defer models.Close()
	cfg := bench.Config{Sizes: c.Chunks, ModelIngest: c.ModelIngest, Queries: c.Queries, RerankRuns: c.RerankRuns, Windows: c.Windows, Models: models, Backend: g.backend(), Dir: c.Keep, Fresh: g.freshSearch}
	if !g.Quiet {
		cfg.Log = func(format string, args ...any) { fmt.Fprintf(g.stderr, "braid: bench: "+format+"\n", args...) }
	}
	rep, err := bench.Run(g.ctx, cfg)
	if err != nil {
		return err
	}
	if g.JSON {
		return g.printJSON(rep)
	}
	rep.Markdown(g.stdout)
	return nil
}

// emptyDir makes dir if it is absent and refuses one that holds anything:
// the bench writes corpora and indexes there and must not mix them with
// what is already in it.
func emptyDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("--keep %s: %w", dir, err)
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("--keep %s: %w", dir, err)
	}
	if len(ents) > 0 {
		return fmt.Errorf("--keep %s: the directory is not empty (it holds %s); name a new or empty one", dir, ents[0].Name())
	}
	return nil
}

// freshSearch runs this binary as braid search would be run on the index
// in dir (the same model flags; a hybrid search at weight 0.5 without the
// cross-encoder) and returns its wall time and peak RSS.
func (g *Globals) freshSearch(ctx context.Context, dir, query string) (bench.Fresh, error) {
	self, err := os.Executable()
	if err != nil {
		return bench.Fresh{}, err
	}
	args := []string{"--index", dir, "--quiet", "--device", g.Device}
	for _, f := range []struct{ name, v string }{{"--models", g.Models}, {"--ort-lib", g.ORTLib}, {"--model", g.Model}} {
		if f.v != "" {
			args = append(args, f.name, f.v)
		}
	}
	if g.Threads > 0 {
		args = append(args, "--threads", strconv.Itoa(g.Threads))
	}
	args = append(args, "search", "--vector-weight", "0.5", "--no-rerank", "--json", "--", query)
	cmd := exec.CommandContext(ctx, self, args...)
	t0 := time.Now()
	var stderr, stdout bytes.Buffer
	cmd.Stderr, cmd.Stdout = &stderr, &stdout
	if err := cmd.Start(); err != nil {
		return bench.Fresh{}, err
	}
	// The child's own peak: its rusage is no use, as a child exec'd from
	// this process's vfork starts with this process's peak. VmHWM only
	// grows, so the last value read before it exits is its peak (to a
	// few milliseconds).
	peak := make(chan float64, 1)
	stop := make(chan struct{})
	go func() {
		var kb float64
		tick := time.NewTicker(2 * time.Millisecond)
		defer tick.Stop()
		for {
			if v := vmHWM(cmd.Process.Pid); v > kb {
				kb = v
			}
			select {
			case <-stop:
				peak <- kb / 1024
				return
			case <-tick.C:
			}
		}
	}()
	err = cmd.Wait()
	wall := time.Since(t0)
	close(stop)
	peakMB := <-peak
	out := stdout.Bytes()
	if err != nil {
		return bench.Fresh{}, fmt.Errorf("%s: %w: %.300s", cmd, err, stderr.Bytes())
	}
	var res struct {
		Warning string
		Timings struct {
			Vector float64 `json:"vector_ms"`
		}
	}
	if err := json.Unmarshal(out, &res); err != nil {
		return bench.Fresh{}, fmt.Errorf("%s: its output: %w", cmd, err)
	}
	if res.Warning != "" || res.Timings.Vector == 0 {
		return bench.Fresh{}, fmt.Errorf("%s searched without vectors: %s", cmd, res.Warning)
	}
	return bench.Fresh{WallMS: float64(wall.Microseconds()) / 1000, PeakMB: peakMB}, nil
}

// vmHWM is the peak resident set, in KiB, /proc says process pid has had;
// 0 where there is no /proc or the process has ended.
func vmHWM(pid int) float64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64)
			return kb
		}
	}
	return 0
}
