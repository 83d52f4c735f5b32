package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/braidsearch/braid/internal/modeltest"
	"github.com/braidsearch/braid/internal/testdata"
	"github.com/braidsearch/braid/internal/testenv"
)

// beirDir writes a small BEIR collection in which each query's words
// appear in its one relevant document and nowhere else, so BM25 ranks it
// first: every lexical metric is exactly 1.
func beirDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	topics := []string{"glacier melting", "volcano eruption", "coral bleaching", "desert locust", "tidal energy", "solar flare"}
	var corpus, queries, qrels strings.Builder
	qrels.WriteString("query-id\tcorpus-id\tscore\n")
	for i, tp := range topics {
		fmt.Fprintf(&corpus, `{"_id":"d%d","title":"Study %d","text":"A report on %s and its effects, with measurements."}`+"\n", i, i, tp)
		fmt.Fprintf(&queries, `{"_id":"q%d","text":"%s"}`+"\n", i, tp)
		fmt.Fprintf(&qrels, "q%d\td%d\t1\n", i, i)
	}
	testenv.Must(t, os.MkdirAll(filepath.Join(dir, "qrels"), 0o755))
	for name, s := range map[string]string{"corpus.jsonl": corpus.String(), "queries.jsonl": queries.String(), "qrels/test.tsv": qrels.String()} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

type evalJSON struct {
	Mode      string             `json:"mode"`
	Skipped   bool               `json:"skipped"`
	Reason    string             `json:"reason"`
	Queries   int                `json:"queries"`
	NDCG10    float64            `json:"ndcg@10"`
	Recall100 float64            `json:"recall@100"`
	MRR10     float64            `json:"mrr@10"`
	TookMS    *float64           `json:"took_ms"`
	Stages    map[string]float64 `json:"stages_p50_ms"`
}

func decodeEval(t *testing.T, out string) []evalJSON {
	t.Helper()
	var runs []evalJSON
	if err := json.Unmarshal([]byte(out), &runs); err != nil {
		t.Fatalf("eval --json printed %q: %v", out, err)
	}
	return runs
}

func TestEvalBEIRWithoutModels(t *testing.T) {
	dir := beirDir(t)
	out, errOut, code := runCLI(t, "--json", "-q", "--model", "none", "eval", "--beir", dir)
	if code != 0 {
		t.Fatalf("eval: %s", errOut)
	}
	runs := decodeEval(t, out)
	if len(runs) != 4 {
		t.Fatalf("%d runs, want lexical, vector, hybrid and hybrid+rerank: %+v", len(runs), runs)
	}
	lex := runs[0]
	if lex.Mode != "lexical" || lex.Skipped || lex.Queries != 6 || lex.NDCG10 != 1 || lex.MRR10 != 1 || lex.Recall100 != 1 || lex.TookMS == nil || lex.Stages["lexical"] <= 0 {
		t.Errorf("lexical run %+v, want every metric 1 over 6 queries with a BM25 stage time", lex)
	}
	for _, r := range runs[1:] {
		if !r.Skipped || !strings.Contains(r.Reason, "--model none") {
			t.Errorf("%s: %+v, want skipped saying vectors are off", r.Mode, r)
		}
	}

	// The baseline check: equal passes, a better baseline fails, and a
	// baseline without these runs is an error.
	base := filepath.Join(t.TempDir(), "base.json")
	testenv.Must(t, os.WriteFile(base, []byte(out), 0o644))
	if _, errOut, code := runCLI(t, "--model", "none", "eval", "--beir", dir, "--modes", "lexical", "--baseline", base); code != 0 || !strings.Contains(errOut, "within") {
		t.Errorf("same scores as the baseline: code %d, stderr %q", code, errOut)
	}
	better := strings.Replace(out, `"ndcg@10": 1,`, `"ndcg@10": 1.2,`, 1)
	testenv.Must(t, os.WriteFile(base, []byte(better), 0o644))
	if _, errOut, code := runCLI(t, "--model", "none", "eval", "--beir", dir, "--modes", "lexical", "--baseline", base); code == 0 || !strings.Contains(errOut, "quality regression") || !strings.Contains(errOut, "nDCG@10 1.0000, baseline 1.2000") {
		t.Errorf("below the baseline: code %d, stderr %q; want a regression naming the metric", code, errOut)
	}
	testenv.Must(t, os.WriteFile(base, []byte(`[{"mode":"vector","ndcg@10":0.5}]`), 0o644))
	if _, errOut, code := runCLI(t, "--model", "none", "eval", "--beir", dir, "--modes", "lexical", "--baseline", base); code == 0 || !strings.Contains(errOut, "none of these runs") {
		t.Errorf("baseline without the run: code %d, stderr %q", code, errOut)
	}
	// The first-hit gate never passes without a default run to check:
	// with vectors off the hybrid run is skipped.
	if _, errOut, code := runCLI(t, "--model", "none", "eval", "--beir", dir, "--modes", "lexical,hybrid", "--vector-weight", "auto", "--gate-first-hit"); code == 0 || !strings.Contains(errOut, "first hits lost to BM25: a run was skipped") {
		t.Errorf("first-hit gate with the hybrid run skipped: code %d, stderr %q", code, errOut)
	}
}

func TestEvalBEIRModes(t *testing.T) {
	t.Setenv("BRAID_ORT_LIB", modeltest.NeedRuntime(t))
	t.Setenv("BRAID_MODEL", modeltest.TinyDir())
	t.Setenv("BRAID_RERANKER", modeltest.TinyCrossDir())
	dir := beirDir(t)
	idx := filepath.Join(t.TempDir(), "idx")
	out, errOut, code := runCLI(t, "--index", idx, "--json", "-q", "eval", "--beir", dir, "--vector-weight", "0.3,0.7")
	if code != 0 {
		t.Fatalf("eval: %s", errOut)
	}
	runs := decodeEval(t, out)
	var modes []string
	for _, r := range runs {
		modes = append(modes, r.Mode)
		if r.Skipped || r.Queries != 6 || r.NDCG10 <= 0 || r.NDCG10 > 1 || r.Recall100 != 1 {
			t.Errorf("%s: %+v, want scored over 6 queries, every relevant document in the top 100", r.Mode, r)
		}
	}
	if got := strings.Join(modes, ","); got != "lexical,vector,hybrid,hybrid,hybrid+rerank,hybrid+rerank" {
		t.Errorf("modes %s, want one run per mode and hybrid weight", got)
	}
	if runs[1].Stages["embed"] <= 0 || runs[1].Stages["vector"] <= 0 || runs[4].Stages["rerank"] <= 0 {
		t.Errorf("stage timings missing: vector %v, hybrid+rerank %v", runs[1].Stages, runs[4].Stages)
	}
	// --index keeps the index: a second run finds it and indexes nothing new.
	if _, err := os.Stat(filepath.Join(idx, "meta.db")); err != nil {
		t.Errorf("--index %s was not kept: %v", idx, err)
	}
	if _, errOut, code := runCLI(t, "--index", idx, "eval", "--beir", dir, "--vector-weight", "1"); code == 0 || !strings.Contains(errOut, "strictly between 0 and 1") {
		t.Errorf("--vector-weight 1: code %d, stderr %q", code, errOut)
	}
}

// The lexical SciFact eval CI runs, held to the floor.
func TestEvalSciFactLexical(t *testing.T) {
	dir := testdata.Dir(t, "scifact")
	testenv.Slow(t, "indexes SciFact's 5,183 abstracts")
	out, errOut, code := runCLI(t, "--json", "-q", "--model", "none", "eval", "--beir", dir, "--modes", "lexical")
	if code != 0 {
		t.Fatalf("eval: %s", errOut)
	}
	runs := decodeEval(t, out)
	if len(runs) != 1 || runs[0].Queries != 300 || runs[0].NDCG10 < 0.67 || runs[0].Recall100 < 0.9 {
		t.Errorf("SciFact test lexical %+v, want nDCG@10 >= 0.67 and recall@100 >= 0.9 over 300 queries", runs)
	}
}

// noteSet writes a folder of notes and a query set over it in which each
// query's words appear in its answer note only.
func noteSet(t *testing.T) (corpus, queries string) {
	t.Helper()
	corpus = filepath.Join(t.TempDir(), "notes")
	topics := []string{"glacier melting", "volcano eruption", "coral bleaching", "desert locust", "tidal energy", "solar flare", "comet tail", "river delta"}
	var q strings.Builder
	q.WriteString("# judged queries\nid\tsplit\tquery\trelevant\n")
	for i, tp := range topics {
		sub := filepath.Join(corpus, fmt.Sprintf("area %d", i%2))
		testenv.Must(t, os.MkdirAll(sub, 0o755))
		body := fmt.Sprintf("# Study %d\n\nA report on %s and what follows from it, with measurements.\n", i, tp)
		if err := os.WriteFile(filepath.Join(sub, fmt.Sprintf("note %d.md", i)), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		split := []string{"tune", "test"}[i%2]
		fmt.Fprintf(&q, "q%d\t%s\twhat about %s\tarea %d/note %d.md=2,area %d/note %d.md=1\n", i, split, tp, i%2, i, (i+1)%2, (i+1)%8)
	}
	queries = filepath.Join(t.TempDir(), "queries.tsv")
	if err := os.WriteFile(queries, []byte(q.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return corpus, queries
}

func TestEvalQuerySet(t *testing.T) {
	corpus, queries := noteSet(t)
	out, errOut, code := runCLI(t, "--json", "-q", "--model", "none", "eval", "--queries", queries, "--corpus", corpus, "--modes", "lexical")
	if code != 0 {
		t.Fatalf("eval: %s", errOut)
	}
	var runs []struct {
		Queries int     `json:"queries"`
		NDCG10  float64 `json:"ndcg@10"`
		Hit5    float64 `json:"hit@5"`
	}
	if err := json.Unmarshal([]byte(out), &runs); err != nil || len(runs) != 1 {
		t.Fatalf("eval --json printed %q: %v", out, err)
	}
	if r := runs[0]; r.Queries != 4 || r.Hit5 != 1 || r.NDCG10 <= 0.5 {
		t.Errorf("test half: %+v, want 4 queries each with its answer in the top 5", r)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"eval", "--queries", queries}, "wants --corpus"},
		{[]string{"eval"}, "--beir DIR"},
		{[]string{"eval", "--queries", queries, "--corpus", corpus, "--split", "dev"}, "has no query in the dev split"},
	} {
		if _, errOut, code := runCLI(t, append([]string{"--model", "none"}, c.args...)...); code == 0 || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: code %d, stderr %q, want %q", c.args, code, errOut, c.want)
		}
	}
}

func TestTuneSave(t *testing.T) {
	t.Setenv("BRAID_ORT_LIB", modeltest.NeedRuntime(t))
	t.Setenv("BRAID_MODEL", modeltest.TinyDir())
	t.Setenv("BRAID_RERANKER", "none")
	corpus, queries := noteSet(t)
	if _, errOut, code := runCLI(t, "tune", "--queries", queries, "--corpus", corpus, "--save"); code == 0 || !strings.Contains(errOut, "--index") {
		t.Errorf("--save without --index: code %d, stderr %q", code, errOut)
	}
	idx := filepath.Join(t.TempDir(), "idx")
	out, errOut, code := runCLI(t, "--index", idx, "--json", "-q", "tune", "--queries", queries, "--corpus", corpus, "--save",
		"--vector-weight", "0,0.5,1", "--candidates", "10,50")
	if code != 0 {
		t.Fatalf("tune: %s", errOut)
	}
	type point struct {
		Weight     float64 `json:"vector_weight"`
		Auto       bool    `json:"auto"` // the weight chosen per query: saved as no fixed vector_weight
		Fusion     string  `json:"fusion"`
		Candidates int     `json:"candidates"`
		Score      struct {
			NDCG10 float64 `json:"ndcg@10"`
		} `json:"score"`
	}
	var rep struct {
		From    string  `json:"from"`
		Queries int     `json:"queries"`
		Current point   `json:"current"`
		Best    point   `json:"best"`
		Tried   []point `json:"tried"`
		Saved   bool    `json:"saved"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("tune --json printed %q: %v", out, err)
	}
	if rep.Queries != 4 || !strings.Contains(rep.From, "split tune") || !rep.Saved || len(rep.Tried) < 5 {
		t.Fatalf("report %+v: want the 4 tune queries, several settings tried, saved", rep)
	}
	if rep.Current.Weight != 0.6 || rep.Current.Candidates != 50 || rep.Current.Fusion != "linear" {
		t.Errorf("current %+v, want the built-in defaults", rep.Current)
	}
	for _, p := range rep.Tried {
		if p.Score.NDCG10 > rep.Best.Score.NDCG10 {
			t.Errorf("tried %+v scored above the best %+v", p, rep.Best)
		}
	}
	// Saved: the index's settings are the best ones, with where they came from.
	out, errOut, code = runCLI(t, "--index", idx, "--json", "stats")
	if code != 0 {
		t.Fatalf("stats: %s", errOut)
	}
	var st struct {
		Settings []struct {
			Name, Value string
			Set         bool
		} `json:"settings"`
		Tuned *struct {
			From          string
			Before, After float64
		} `json:"tuned"`
	}
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatal(err)
	}
	if st.Tuned == nil || st.Tuned.After != rep.Best.Score.NDCG10 || st.Tuned.Before != rep.Current.Score.NDCG10 || st.Tuned.From != rep.From {
		t.Errorf("stats tuned %+v, want the tune's record", st.Tuned)
	}
	got := map[string]string{}
	for _, s := range st.Settings {
		if s.Set {
			got[s.Name] = s.Value
		}
	}
	wantWeight := fmt.Sprint(rep.Best.Weight)
	if rep.Best.Auto {
		wantWeight = ""
	}
	if got["vector_weight"] != wantWeight || got["candidates"] != fmt.Sprint(rep.Best.Candidates) || got["fusion"] != rep.Best.Fusion {
		t.Errorf("saved settings %v, want the best %+v", got, rep.Best)
	}
	text, _, _ := runCLI(t, "--index", idx, "stats")
	if !strings.Contains(text, "tuned by braid tune on") {
		t.Errorf("stats does not say the settings were tuned:\n%s", text)
	}
	// Changing a tuned setting by hand drops the record, which would no
	// longer be true.
	if _, errOut, code := runCLI(t, "--index", idx, "config", "set", "vector_weight", "0.3"); code != 0 {
		t.Fatalf("config set: %s", errOut)
	}
	out, _, _ = runCLI(t, "--index", idx, "--json", "stats")
	if strings.Contains(out, `"tuned"`) {
		t.Errorf("the tuned record outlived a hand-set vector_weight: %s", out)
	}
	if _, ok := got["query_instruction"]; !ok {
		t.Errorf("tune with a model did not save query_instruction: %v", got)
	}
	// A search embeds its query without the instruction when the index
	// says so, and its explanation says that.
	if _, errOut, code := runCLI(t, "--index", idx, "config", "set", "query_instruction", "false"); code != 0 {
		t.Fatalf("config set: %s", errOut)
	}
	out, errOut, code = runCLI(t, "--index", idx, "--json", "search", "--explain", "glacier melting")
	if code != 0 || !strings.Contains(out, `"no_query_instruction": true`) {
		t.Errorf("search with query_instruction false (code %d, %s): %s", code, errOut, out)
	}
}
