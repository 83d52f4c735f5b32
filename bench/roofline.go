package bench

import (
	"context"
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
	"strings"

	"github.com/braidsearch/braid/model"
	"github.com/braidsearch/braid/rerank"
)

// The roofline judges each model stage against the arithmetic: the FLOPs
// of a call (model.Cost over the tokens the model was given), the rate
// that makes at the stage's p50, and that rate as a fraction of the peak
// this machine measured (model.ProbePeak) in the stage's precision and on
// its thread count. A stage within 3× of the peak (fraction ≥ 1/3) is
// close to its limit; one far below it loses time to something other than
// arithmetic (small shapes, padding, memory, overhead).

// probePeaks measures the matmul peak on one thread, on every core, and
// on the thread count of each reranker that runs on the CPU; nothing when
// no model runs on the CPU.
func probePeaks(ctx context.Context, m *Models) ([]model.Peak, error) {
	var threads []int
	if m.Embedder != nil && onCPU(m.Embedder.Device()) {
		threads = append(threads, 1, runtime.NumCPU())
	}
	for _, c := range m.Rerankers {
		if onCPU(c.Device()) {
			threads = append(threads, 1, runtime.NumCPU(), c.Threads)
		}
	}
	slices.Sort(threads)
	var peaks []model.Peak
	for _, n := range slices.Compact(threads) {
		p, err := model.ProbePeak(ctx, n)
		if err != nil {
			return nil, err
		}
		peaks = append(peaks, p)
	}
	return peaks, nil
}

func onCPU(c model.Choice) bool { return c.Device.Kind == model.DeviceCPU }

// peakFor is the measured peak on threads threads in spec's precision
// (int8 variants against the int8 product, else fp32); 0 when it was not
// measured.
func peakFor(peaks []model.Peak, threads int, spec model.Spec) float64 {
	for _, p := range peaks {
		if p.Threads == threads {
			if strings.Contains(spec.Variant, "int8") {
				return p.Int8
			}
			return p.FP32
		}
	}
	return 0
}

// embedRoofline puts the query embedding's roofline into a size's metrics:
// the mean tokens and FLOPs of the timed queries (with the query
// instruction, [CLS] and [SEP]), the rate at the embed stage's p50 and its
// fraction of the one-thread peak (a single query runs on one thread: see
// model.Embedder).
func embedRoofline(emb *Embedder, peaks []model.Peak, queries []string, metrics map[string]float64) {
	p50 := metrics["embed.p50_ms"]
	if emb.Cost.PerToken == 0 || len(queries) == 0 || p50 <= 0 || !onCPU(emb.Device()) {
		return
	}
	spec := emb.Spec()
	maxLen := cmpOr(spec.MaxLen, model.DefaultMaxLen)
	var tokens, flops float64
	for _, q := range queries {
		n := len(emb.Tokenizer.Encode(spec.QueryPrefix+q, maxLen).IDs)
		tokens += float64(n)
		flops += emb.Cost.FLOPs(n)
	}
	k := float64(len(queries))
	roof := rooflineOf(flops/k, p50, peakFor(peaks, 1, spec))
	metrics["embed.tokens_per_call"] = sig3(tokens / k)
	metrics["embed.gflop_per_call"] = roof.GFLOP
	metrics["embed.gflops"] = roof.GFLOPS
	if roof.Peak > 0 {
		metrics["embed.peak_gflops"], metrics["embed.peak_fraction"] = roof.Peak, roof.PeakFraction
	}
}

// roofline is one stage's figures.
type roofline struct {
	GFLOP, GFLOPS, Peak, PeakFraction float64
}

// rooflineOf is the roofline of flops per call at p50 ms, against peak
// GFLOP/s (0: unknown, and no fraction), to three significant digits: a
// test model's figures are far below round's four decimals.
func rooflineOf(flops, p50, peak float64) roofline {
	rate := flops / 1e9 / (p50 / 1000)
	r := roofline{GFLOP: sig3(flops / 1e9), GFLOPS: sig3(rate)}
	if peak > 0 {
		r.Peak, r.PeakFraction = sig3(peak), sig3(rate/peak)
	}
	return r
}

// sig3 rounds x to three significant digits.
func sig3(x float64) float64 {
	if x == 0 {
		return 0
	}
	p := math.Pow(10, 2-math.Floor(math.Log10(math.Abs(x))))
	return math.Round(x*p) / p
}

// recorder is a rerank.Scorer that keeps what the reranker sends the
// model, so that its tokens are counted after the timing, not in it.
type recorder struct {
	rerank.Scorer
	calls []scored
}

type scored struct {
	query    string
	passages []string
}

func (r *recorder) Score(ctx context.Context, query string, passages []string) ([]float32, error) {
	r.calls = append(r.calls, scored{query, slices.Clone(passages)})
	return r.Scorer.Score(ctx, query, passages)
}

// rerankRoofline fills t's roofline from the pairs of runs calls, as the
// cross-encoder tokenizes them.
func rerankRoofline(t *RerankTiming, c CrossEncoder, calls []scored, runs int, peaks []model.Peak) {
	if c.Tokenizer == nil || c.Cost.PerToken == 0 || runs == 0 || t.P50MS <= 0 {
		return
	}
	maxLen := cmpOr(c.Spec().MaxLen, model.DefaultMaxLen)
	var tokens, flops float64
	for _, s := range calls {
		for _, p := range s.passages {
			n := len(c.Tokenizer.EncodePair(s.query, p, maxLen).IDs)
			tokens += float64(n)
			flops += c.Cost.FLOPs(n)
		}
	}
	var peak float64
	if onCPU(c.Device()) {
		peak = peakFor(peaks, c.Threads, c.Spec())
		t.Threads = c.Threads
	}
	r := rooflineOf(flops/float64(runs), t.P50MS, peak)
	t.Tokens, t.GFLOP, t.GFLOPS, t.PeakGFLOPS, t.PeakFraction = sig3(tokens/float64(runs)), r.GFLOP, r.GFLOPS, r.Peak, r.PeakFraction
}

// markdownRoofline writes the roofline table and the peaks it is judged
// against.
func (r *Report) markdownRoofline(w io.Writer) {
	type row struct {
		stage                                      string
		tokens, gflop, p50, gflops, peak, fraction float64
		threads                                    int
		int8                                       bool // an int8 variant, as peakFor judges it
	}
	var rows []row
	if len(r.Sizes) > 0 {
		s := r.Sizes[0]
		if m := s.Metrics; m["embed.gflop_per_call"] > 0 {
			rows = append(rows, row{fmt.Sprintf("embed one query (%s chunks)", count(s.Chunks)), m["embed.tokens_per_call"], m["embed.gflop_per_call"],
				m["embed.p50_ms"], m["embed.gflops"], m["embed.peak_gflops"], m["embed.peak_fraction"], 1, strings.Contains(r.Embedder, "int8")})
		}
	}
	for _, t := range r.Rerank {
		if t.GFLOP > 0 {
			rows = append(rows, row{fmt.Sprintf("rerank %d pairs: %s, window %s", t.Pairs, t.Model, t.Window), t.Tokens, t.GFLOP,
				t.P50MS, t.GFLOPS, t.PeakGFLOPS, t.PeakFraction, t.Threads, strings.Contains(t.Model, "int8")})
		}
	}
	if len(rows) == 0 && len(r.Peaks) == 0 {
		return
	}
	if len(rows) > 0 {
		fmt.Fprintln(w, "| roofline: stage | tokens per call | GFLOP per call | p50 ms | achieved GFLOP/s | measured peak (threads) | fraction | within 3× of peak |")
		fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|")
		for _, x := range rows {
			peak, fraction, within := "—", "—", "—"
			if x.peak > 0 {
				prec := "fp32"
				if x.int8 {
					prec = "int8"
				}
				peak, fraction, within = fmt.Sprintf("%s %s (%d)", prec, num(x.peak), x.threads), num(x.fraction), "no"
				if x.fraction >= 1.0/3 {
					within = "yes"
				}
			}
			fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", x.stage, num(x.tokens), num(x.gflop), num(x.p50), num(x.gflops), peak, fraction, within)
		}
		fmt.Fprintln(w)
	}
	for _, p := range r.Peaks {
		threads := "1 thread"
		if p.Threads > 1 {
			threads = fmt.Sprintf("%d threads", p.Threads)
		}
		fmt.Fprintf(w, "- measured peak on %s, ONNX Runtime [rows, 384] × [384, 1536]: fp32 %s GFLOP/s, int8 %s GOP/s at 512 rows; %s and %s at 24 rows\n",
			threads, num(p.FP32), num(p.Int8), num(p.FP32Small), num(p.Int8Small))
	}
	if r.NominalPeak != "" {
		fmt.Fprintf(w, "- nominal peak from /proc/cpuinfo: %s\n", r.NominalPeak)
	}
	fmt.Fprintln(w)
}
