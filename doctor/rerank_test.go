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
func TestRerankLatency(t *testing.T) {
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
			c := doctor.RerankLatency(context.Background(), ce, tt.spec, flops)
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
	if c := doctor.RerankLatency(context.Background(), ce, ce.Spec(), 1); c.OK || c.Latency != nil || !strings.Contains(c.Detail, "could not score") {
		t.Errorf("a closed cross-encoder: %+v, want a failed check saying it could not score", c)
	}
}
