package doctor_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/braidsearch/braid/doctor"
	"github.com/braidsearch/braid/internal/modeltest"
	"github.com/braidsearch/braid/internal/testenv"
	"github.com/braidsearch/braid/model"
)

// Judge is the verdict braid doctor and --explain give: met, or missed
// and the most capable registry reranker predicted within the target.
func TestJudge(t *testing.T) {
	minilm, _ := model.Lookup("cross-encoder/ms-marco-MiniLM-L-6-v2")
	minilm8, _ := model.Lookup("cross-encoder/ms-marco-MiniLM-L-6-v2:int8")
	tiny, _ := model.Lookup("cross-encoder/ms-marco-TinyBERT-L-2-v2")
	tests := []struct {
		name      string
		installed model.Spec
		took      time.Duration
		met       bool
		faster    string
		says      string
	}{
		{"met", minilm, 20 * time.Millisecond, true, "", "50 pairs in 20 ms (target 50 ms): met"},
		{"on the target", minilm, 50 * time.Millisecond, true, "", ": met"},
		{"minilm missed: tinybert", minilm, 900 * time.Millisecond, false, "cross-encoder/ms-marco-TinyBERT-L-2-v2",
			"50 pairs in 900 ms (target 50 ms): missed; cross-encoder/ms-marco-TinyBERT-L-2-v2 is predicted at ~34 ms"},
		{"int8 stays int8", minilm8, 900 * time.Millisecond, false, "cross-encoder/ms-marco-TinyBERT-L-2-v2:int8", ":int8 is predicted"},
		{"minilm far over: none fits", minilm, 2500 * time.Millisecond, false, "", "missed; no registry reranker is predicted within 50 ms here"},
		{"tinybert missed: none is cheaper", tiny, 92 * time.Millisecond, false, "", "no registry reranker"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := doctor.Judge(tt.took, tt.installed, tt.installed.Arch.FLOPsPerToken())
			if l.Met != tt.met || l.Faster != tt.faster || !strings.Contains(l.String(), tt.says) {
				t.Errorf("Judge = %+v, %q; want met %v, faster %q, saying %q", l, l, tt.met, tt.faster, tt.says)
			}
			if l.Faster != "" && (l.FasterMS <= 0 || l.FasterMS > 50) {
				t.Errorf("%s predicted at %.1f ms, want within the target", l.Faster, l.FasterMS)
			}
		})
	}
}

// RerankLatency times a real cross-encoder: the tiny one always, and the
// architecture-exact TinyBERT-L2 fixture where `make fixtures` made it.
// Its verdict is Judge's on the time it measured; how fast the machine is
// is not asserted.
func TestTimeReranker(t *testing.T) {
	modeltest.NeedRuntime(t)
	tinybert, _ := model.Lookup("cross-encoder/ms-marco-TinyBERT-L-2-v2")
	tests := []struct {
		dir  string
		spec model.Spec
	}{
		{modeltest.TinyCrossDir(), model.Spec{Name: "braid/tiny-cross", Kind: model.KindCrossEncoder, MaxLen: 128}},
		{filepath.Join("..", ".tools", "fixtures", "ms-marco-tinybert-l2"), tinybert},
	}
	for _, tt := range tests {
		t.Run(tt.spec.Name, func(t *testing.T) {
			if _, err := os.Stat(tt.dir); err != nil {
				t.Skipf("no fixture: %s is missing; generate it with `make fixtures`", tt.dir)
			}
			ce, err := model.LoadCrossEncoder(tt.dir, tt.spec, model.Config{BatchSize: model.CrossBatch})
			if err != nil {
				t.Fatal(err)
			}
			defer ce.Close()
			flops := model.TokenFLOPs(tt.dir, tt.spec)
			c := doctor.TimeReranker(context.Background(), ce, tt.spec, flops)
			t.Log(c)
			l := c.Latency
			if c.Name != doctor.LatencyCheck || !c.OK || l == nil || l.TookMS <= 0 {
				t.Fatalf("check %+v (latency %+v): want a passing check with the time measured", c, l)
			}
			want := doctor.Judge(time.Duration(l.TookMS*float64(time.Millisecond)), tt.spec, flops)
			if c.Warning == l.Met || l.Met != want.Met || l.Faster != want.Faster {
				t.Errorf("check %+v, latency %+v: want Judge's verdict %+v, a warning when missed", c, l, want)
			}
			if !strings.HasPrefix(c.Detail, tt.spec.ID()+": 50 pairs in ") || l.Faster != "" && !strings.Contains(c.Detail, "model.Pull "+l.Faster) {
				t.Errorf("detail %q: want the model, its time and the fix", c.Detail)
			}
		})
	}
	ce := modeltest.TinyCross(t)
	ce.Close()
	if c := doctor.TimeReranker(context.Background(), ce, ce.Spec(), 1); c.OK || c.Latency != nil || !strings.Contains(c.Detail, "could not score") {
		t.Errorf("a closed cross-encoder: %+v, want a failed check saying it could not score", c)
	}
}

// Doctor's reranker latency check times the cross-encoder the models name
// (TestTimeReranker tests the timing and the verdict), and says, without
// timing, when there is none to time.
func TestRerankLatency(t *testing.T) {
	ctx := context.Background()
	ort := modeltest.NeedRuntime(t)
	untimed := []struct {
		name string
		m    model.Set
		says string
	}{
		{"turned off", model.Set{Reranker: "none"}, "not timed: reranking is turned off"},
		{"not installed", model.Set{ORTLib: ort, Dir: t.TempDir()}, "not timed: "},
	}
	for _, tt := range untimed {
		if c := doctor.RerankLatency(ctx, tt.m); c.Name != "reranker latency" || !c.OK || c.Warning || c.Latency != nil || !strings.HasPrefix(c.Detail, tt.says) {
			t.Errorf("%s: %+v, want a passing check saying %q", tt.name, c, tt.says)
		}
	}
	fixture, err := filepath.Abs(filepath.Join("..", ".tools", "fixtures", "ms-marco-tinybert-l2"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(fixture); err != nil {
		t.Skipf("no fixture: %s is missing; generate it with `make fixtures`", fixture)
	}
	models := t.TempDir() // the fixture installed as the registry model
	testenv.Must(t, os.Symlink(fixture, filepath.Join(models, "cross-encoder--ms-marco-TinyBERT-L-2-v2")))
	c := doctor.RerankLatency(ctx, model.Set{ORTLib: ort, Dir: models, Reranker: "ms-marco-TinyBERT-L-2-v2"})
	if !c.OK || c.Latency == nil || c.Latency.TookMS <= 0 || c.Warning == c.Latency.Met ||
		!strings.HasPrefix(c.Detail, "cross-encoder/ms-marco-TinyBERT-L-2-v2: 50 pairs in ") {
		t.Errorf("installed TinyBERT-L2: %+v (latency %+v), want it timed", c, c.Latency)
	}
}

// A rerank call over its 50 ms, at a pace that misses it for 50 pairs,
// is said, with the registry reranker predicted to keep it when the
// model's cost is known.
func TestSlowNote(t *testing.T) {
	minilm, _ := model.Lookup("cross-encoder/ms-marco-MiniLM-L-6-v2")
	dir := model.Spec{Name: "my-reranker", Kind: model.KindCrossEncoder} // a directory: cost unknown
	tests := []struct {
		name  string
		took  time.Duration
		pairs int
		spec  model.Spec
		want  string // "" for no note
	}{
		{"kept", 20 * time.Millisecond, 50, minilm, ""},
		{"all cached", 80 * time.Millisecond, 0, minilm, ""},
		{"few pairs within it", 40 * time.Millisecond, 5, minilm, ""},
		{"many pairs at the pace", 200 * time.Millisecond, 200, minilm, ""},
		{"slow", 900 * time.Millisecond, 50, minilm,
			"rerank took 900 ms for 50 pairs, ~900 ms for 50 (target 50 ms); cross-encoder/ms-marco-TinyBERT-L-2-v2 is predicted at ~34 ms"},
		{"cut by the budget", 262 * time.Millisecond, 11, minilm,
			"rerank took 262 ms for 11 pairs, ~1190 ms for 50 (target 50 ms); cross-encoder/ms-marco-TinyBERT-L-2-v2 is predicted at ~45 ms"},
		{"too slow for any", 3 * time.Second, 50, minilm, "; no registry reranker is predicted within 50 ms here"},
		{"cost unknown", 900 * time.Millisecond, 50, dir, "rerank took 900 ms for 50 pairs, ~900 ms for 50 (target 50 ms)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := doctor.SlowNoteFor(tt.took, tt.pairs, tt.spec)
			if tt.want == "" && got != "" || tt.want != "" && !strings.HasSuffix(got, tt.want) {
				t.Errorf("SlowNote = %q, want %q", got, tt.want)
			}
		})
	}
}
