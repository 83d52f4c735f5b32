package eval

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"

	"github.com/braidsearch/braid/settings"
)

// The modes a Run scores a search engine in.
const (
	Lexical      = "lexical"       // keywords only: vector weight 0
	Vector       = "vector"        // meaning only: vector weight 1
	Hybrid       = "hybrid"        // both, fused at a vector weight
	HybridRerank = "hybrid+rerank" // hybrid, then the cross-encoder
)

var (
	// ErrRegression means a run scored below its baseline by more than the
	// tolerance, or was skipped where the baseline scored it.
	ErrRegression = errors.New("eval: quality regression")
	// ErrNoCommonRuns means the baseline holds none of the runs compared
	// with it, so nothing was checked.
	ErrNoCommonRuns = errors.New("eval: the baseline has none of these runs to compare with")
	// ErrFirstHit means the default ranking (hybrid at the adaptive
	// weight) put the answer first for fewer queries than BM25 alone, or
	// that a run FirstHit needs was missing or skipped.
	ErrFirstHit = errors.New("eval: first hits lost to BM25")
)

// Run is the score of one mode (at one vector weight, for the hybrid
// modes) over a collection: what braid eval prints as JSON, and what a
// baseline file holds. A skipped run says why.
type Run struct {
	Mode         string             `json:"mode"`
	VectorWeight float64            `json:"vector_weight"`
	Auto         bool               `json:"auto,omitempty"` // the hybrid modes' weight chosen per query (no weight named)
	Fusion       string             `json:"fusion,omitempty"`
	Normalize    string             `json:"normalize,omitempty"`
	Skipped      bool               `json:"skipped,omitempty"`
	Reason       string             `json:"reason,omitempty"`
	Queries      int                `json:"queries"`
	NDCG10       float64            `json:"ndcg@10"`
	Hit1         float64            `json:"hit@1"` // share of queries with their answer (top grade) first
	Hit5         float64            `json:"hit@5"` // share of queries with their answer (top grade) in the top 5
	Recall10     float64            `json:"recall@10"`
	Recall100    float64            `json:"recall@100"`
	MRR10        float64            `json:"mrr@10"`
	TookMS       float64            `json:"took_ms"`
	P50MS        float64            `json:"p50_ms"`
	P95MS        float64            `json:"p95_ms"`
	Stages       map[string]float64 `json:"stages_p50_ms,omitempty"`
	Warnings     []string           `json:"warnings,omitempty"`
	PerQuery     []QueryScore       `json:"per_query,omitempty"` // with Options.PerQuery
}

// Key names a run for baseline matching: the mode, and for the hybrid
// modes the weight and fusion too.
func (r Run) Key() string {
	if strings.HasPrefix(r.Mode, Hybrid) && r.Auto {
		return fmt.Sprintf("%s w=auto %s %s", r.Mode, r.Fusion, r.Normalize)
	}
	if strings.HasPrefix(r.Mode, Hybrid) {
		return fmt.Sprintf("%s w=%g %s %s", r.Mode, r.VectorWeight, r.Fusion, r.Normalize)
	}
	return r.Mode
}

// String is r as braid eval prints it: the mode (with the weight, for
// the hybrid modes), then its metrics and latency, or why it was skipped.
func (r Run) String() string {
	name := r.Mode
	if strings.HasPrefix(r.Mode, Hybrid) {
		name = fmt.Sprintf("%s w=%.2f", r.Mode, r.VectorWeight)
		if r.Auto {
			name = r.Mode + " w=auto"
		}
	}
	if r.Skipped {
		return fmt.Sprintf("%-22s skipped: %s", name, r.Reason)
	}
	return fmt.Sprintf("%-22s nDCG@10 %.4f  hit@1 %.4f  hit@5 %.4f  MRR@10 %.4f  recall@10 %.4f  recall@100 %.4f  %d queries in %.1f s (p50 %.1f ms, p95 %.1f ms)",
		name, r.NDCG10, r.Hit1, r.Hit5, r.MRR10, r.Recall10, r.Recall100, r.Queries, r.TookMS/1000, r.P50MS, r.P95MS)
}

// ReadRuns reads a baseline for Compare: the JSON list of runs that
// braid eval --json prints.
func ReadRuns(path string) ([]Run, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("eval: %w", err)
	}
	var runs []Run
	if err := json.Unmarshal(data, &runs); err != nil {
		return nil, fmt.Errorf("eval: baseline %s: %w (want the JSON list braid eval --json prints)", path, err)
	}
	return runs, nil
}

// Plan lists the runs modes ask for over queries queries, in order:
// lexical at weight 0, vector at 1, and each hybrid mode once per weight
// with fusion (and normalize, which only linear fusion reads), first with
// the adaptive weight when auto.
func Plan(modes []string, auto bool, weights []float64, fusion, normalize string, queries int) []Run {
	var runs []Run
	for _, m := range modes {
		ws := []float64{0}
		switch m {
		case Vector:
			ws = []float64{1}
		case Hybrid, HybridRerank:
			ws = weights
			if auto {
				ws = append([]float64{-1}, ws...)
			}
		}
		for _, w := range ws {
			r := Run{Mode: m, VectorWeight: w, Queries: queries}
			if w < 0 {
				r.VectorWeight, r.Auto = 0, true
			}
			if strings.HasPrefix(m, Hybrid) {
				r.Fusion = fusion
				if fusion == "linear" {
					r.Normalize = normalize
				}
			}
			runs = append(runs, r)
		}
	}
	return runs
}

// Score runs search on every query of col (see Score) and puts the
// metrics, latencies and warnings into r.
func (r *Run) Score(ctx context.Context, col *Collection, search func(ctx context.Context, q Query) (Answer, error)) error {
	sc, err := Score(ctx, col, search)
	if err != nil {
		return err
	}
	r.Queries = len(col.Queries)
	r.NDCG10, r.Hit1, r.Hit5, r.Recall10, r.Recall100, r.MRR10 = sc.NDCG10, sc.Hit1, sc.Hit5, sc.Recall10, sc.Recall100, sc.MRR10
	r.TookMS, r.P50MS, r.P95MS, r.Stages = sc.TookMS, sc.P50MS, sc.P95MS, sc.Stages
	r.PerQuery = sc.PerQuery
	r.Warnings = append(r.Warnings, sc.Warnings...)
	return nil
}

// Options choose the runs Evaluate scores. A zero field means the
// engine's current setting (Engine.Current).
type Options struct {
	// Modes are the modes to score, in order: Lexical, Vector, Hybrid,
	// HybridRerank; a mode repeated next to itself is scored once.
	Modes []string
	// VectorWeights are the hybrid modes' weights, one run each, every
	// one strictly between 0 and 1 (the lexical and vector modes are 0
	// and 1).
	VectorWeights []float64
	// Fusion is the hybrid modes' fusion, "linear" or "rrf".
	Fusion string
	// Normalize is linear fusion's score normalisation, "minmax" or
	// "zscore"; with neither it nor the current setting, "minmax".
	Normalize string
	// Auto adds a run of each hybrid mode at the adaptive weight, a
	// weight per query (what a search that names none gets). With no
	// VectorWeights, the current setting decides: auto unless it names a
	// weight.
	Auto bool
	// PerQuery keeps each run's per-query scores and predictors
	// (Run.PerQuery).
	PerQuery bool
}

// Check says what is wrong with o, before the work of opening an engine
// and indexing a corpus: a hybrid weight outside (0, 1).
func (o Options) Check() error {
	for _, w := range o.VectorWeights {
		if w <= 0 || w >= 1 {
			return fmt.Errorf("eval: Options.VectorWeights %v: the hybrid modes want a weight strictly between 0 and 1 (the lexical and vector modes are 0 and 1)", w)
		}
	}
	return nil
}

// Engine is the search engine Evaluate scores, as the caller supplies it:
// the package never imports the engine.
type Engine struct {
	// Search answers q as run r asks: in r.Mode (HybridRerank reranks,
	// the others do not) at r.VectorWeight, with r.Fusion and
	// r.Normalize, returning the judged ids of its hits, best first.
	Search func(ctx context.Context, r Run, q Query) (Answer, error)
	// NoVectors says why the engine has no vectors ("" when it has): the
	// vector and hybrid runs are skipped with it as their reason.
	NoVectors string
	// NoRerank says why it cannot rerank: the HybridRerank runs are
	// skipped with it as their reason.
	NoRerank string
	// Current are the settings a search that names none uses (see
	// Current): they fill what Options leave open.
	Current Point
}

// Evaluate scores the runs opt asks for on col with e, in Plan's order,
// and returns them; a run of a mode e cannot search is skipped, saying
// why. scored (nil: none) hears of each run once it is done, skipped or
// scored. It stops at the first error of a search, which names the query
// (see Score), or at ctx's end.
func Evaluate(ctx context.Context, col *Collection, opt Options, e Engine, scored func(Run)) ([]Run, error) {
	if err := opt.Check(); err != nil {
		return nil, err
	}
	weights, auto := opt.VectorWeights, opt.Auto
	if len(weights) == 0 && !auto {
		if e.Current.Auto {
			auto = true
		} else {
			weights = []float64{e.Current.Weight}
		}
	}
	fusion := cmp.Or(opt.Fusion, string(e.Current.Fusion))
	normalize := cmp.Or(opt.Normalize, string(e.Current.Normalize), string(settings.NormMinMax))
	runs := Plan(slices.Compact(slices.Clone(opt.Modes)), auto, weights, fusion, normalize, len(col.Queries))
	for i := range runs {
		r := &runs[i]
		run := *r
		if why := e.skip(r.Mode); why != "" {
			r.Skipped, r.Reason = true, why
		} else if err := r.Score(ctx, col, func(ctx context.Context, q Query) (Answer, error) { return e.Search(ctx, run, q) }); err != nil {
			return nil, err
		}
		if !opt.PerQuery {
			r.PerQuery = nil
		}
		if scored != nil {
			scored(*r)
		}
	}
	return runs, nil
}

// skip says why e cannot search in mode, or "" when it can.
func (e Engine) skip(mode string) string {
	switch {
	case mode == Lexical:
		return ""
	case e.NoVectors != "":
		return e.NoVectors
	case mode == HybridRerank:
		return e.NoRerank
	}
	return ""
}

// Compare checks runs against the baseline base and returns how many it
// compared. A run whose nDCG@10, recall@100 or MRR@10 falls more than
// tolerance below the same run of base, and a run base scored that was
// skipped (a gate that quietly skips its hybrid run because the model is
// missing is no gate), give an error wrapping ErrRegression that names
// each; runs base lacks are not compared, and when none is compared the
// error wraps ErrNoCommonRuns.
func Compare(runs, base []Run, tolerance float64) (int, error) {
	byKey := map[string]Run{}
	for _, b := range base {
		if !b.Skipped {
			byKey[b.Key()] = b
		}
	}
	var worse []string
	compared := 0
	for _, r := range runs {
		b, ok := byKey[r.Key()]
		if !ok {
			continue
		}
		if r.Skipped {
			worse = append(worse, fmt.Sprintf("%s was skipped (%s), baseline nDCG@10 %.4f", r.Key(), r.Reason, b.NDCG10))
			continue
		}
		compared++
		for _, m := range []struct {
			name      string
			got, want float64
		}{{"nDCG@10", r.NDCG10, b.NDCG10}, {"recall@100", r.Recall100, b.Recall100}, {"MRR@10", r.MRR10, b.MRR10}} {
			if m.got < m.want-tolerance {
				worse = append(worse, fmt.Sprintf("%s %s %.4f, baseline %.4f", r.Key(), m.name, m.got, m.want))
			}
		}
	}
	if compared == 0 && len(worse) == 0 {
		return 0, ErrNoCommonRuns
	}
	if len(worse) > 0 {
		return compared, fmt.Errorf("%w beyond %.3f: %s", ErrRegression, tolerance, strings.Join(worse, "; "))
	}
	return compared, nil
}

// FirstHit checks that the default ranking, the hybrid run at the adaptive
// weight (what a search that names no weight gets), puts the answer first
// (hit@1) for at least as many queries as the lexical run: an agent reads
// the first hit, and fusion that costs BM25's right answer there is a
// regression whatever it gains below. It says the two counts, and returns
// an error wrapping ErrFirstHit when the default's is the lower, or when a
// run it needs is missing or skipped.
func FirstHit(runs []Run) (string, error) {
	var lex, auto *Run
	for i, r := range runs {
		switch {
		case r.Mode == Lexical:
			lex = &runs[i]
		case r.Mode == Hybrid && r.Auto:
			auto = &runs[i]
		}
	}
	switch {
	case lex == nil || auto == nil:
		return "", fmt.Errorf("%w: want a lexical run and a hybrid run at the adaptive weight (--modes lexical,hybrid --vector-weight auto)", ErrFirstHit)
	case lex.Skipped || auto.Skipped:
		return "", fmt.Errorf("%w: a run was skipped (%s%s)", ErrFirstHit, lex.Reason, auto.Reason)
	}
	n := float64(auto.Queries)
	got, want := math.Round(auto.Hit1*n), math.Round(lex.Hit1*n)
	say := fmt.Sprintf("%s has the answer first for %.0f of %d queries, BM25 alone for %.0f", auto.Key(), got, auto.Queries, want)
	if got < want {
		return say, fmt.Errorf("%w: %s", ErrFirstHit, say)
	}
	return say, nil
}
