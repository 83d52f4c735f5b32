package settings_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/braidsearch/braid/internal/testenv"
	"github.com/braidsearch/braid/settings"
)

func ptr[T any](v T) *T { return &v }

func TestSet(t *testing.T) {
	for _, c := range []struct {
		name, setting, value string
		want                 settings.Values
	}{
		{"vector weight", "vector_weight", "0.7", settings.Values{VectorWeight: ptr(0.7)}},
		{"vector weight with spaces", "vector_weight", " 0 ", settings.Values{VectorWeight: ptr(0.0)}},
		{"vector weight auto", "vector_weight", "auto", settings.Values{}},
		{"fusion", "fusion", "rrf", settings.Values{Fusion: ptr(settings.FusionRRF)}},
		{"normalize", "normalize", "zscore", settings.Values{Normalize: ptr(settings.NormZScore)}},
		{"doc evidence", "doc_evidence", "1", settings.Values{DocEvidence: ptr(1.0)}},
		{"link prior", "link_prior", "0.1", settings.Values{LinkPrior: ptr(0.1)}},
		{"query instruction", "query_instruction", "false", settings.Values{QueryInstruction: ptr(false)}},
		{"limit", "limit", "100", settings.Values{Limit: ptr(100)}},
		{"candidates", "candidates", "10", settings.Values{Candidates: ptr(10)}},
		{"rerank", "rerank", "false", settings.Values{Rerank: ptr(false)}},
		{"rerank budget", "rerank_budget", "100ms", settings.Values{RerankBudget: ptr(settings.Millis(100 * time.Millisecond))}},
		{"no rerank budget", "rerank_budget", "0", settings.Values{RerankBudget: ptr(settings.Millis(0))}},
		{"watch", "watch", "true", settings.Values{Watch: ptr(true)}},
		{"name", "name", "Team notes", settings.Values{Name: ptr("Team notes")}},
		{"language", "language", "pt_BR", settings.Values{Language: ptr("pt-BR")}},
		{"timezone", "timezone", "Europe/Berlin", settings.Values{TimeZone: ptr("Europe/Berlin")}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var v settings.Values
			if err := v.Set(c.setting, c.value); err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(c.want, v); d != "" {
				t.Errorf("set %s %q (-want +got):\n%s", c.setting, c.value, d)
			}
			if err := v.Set(c.setting, ""); err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(settings.Values{}, v); d != "" {
				t.Errorf("reset %s (-want +got):\n%s", c.setting, d)
			}
		})
	}
}

func TestSetRefuses(t *testing.T) {
	for _, c := range []struct{ name, value, want string }{
		{"limit", "0", `limit "0" is out of range; want a whole number from 1 to 1000`},
		{"limit", "x", "a whole number"},
		{"limit", "1001", "from 1 to 1000"},
		{"vector_weight", "1.5", "from 0"},
		{"vector_weight", "-0.1", "from 0"},
		{"vector_weight", "NaN", "from 0"},
		{"doc_evidence", "2", "from 0 (off) to 1"},
		{"fusion", "max", "linear or rrf"},
		{"normalize", "l2", "minmax or zscore"},
		{"rerank", "maybe", "true or false"},
		{"rerank_budget", "-1s", "from 0"},
		{"rerank_budget", "1h", "to 10s"},
		{"rerank_budget", "250", "a duration"},
		{"candidates", "5", "from 10 to 1000"},
		{"name", "a\nb", "no control characters"},
		{"language", "english!", "BCP 47"},
		{"language", "e", "BCP 47"},
		{"timezone", "Mars/Olympus", "IANA time zone"},
		{"timezone", "../../etc/passwd", "IANA time zone"},
	} {
		t.Run(c.name+"="+c.value, func(t *testing.T) {
			v := settings.Values{Limit: ptr(7)}
			err := v.Set(c.name, c.value)
			var bad *settings.RangeError
			if !errors.As(err, &bad) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("set %s %q: %v, want a *RangeError naming %q", c.name, c.value, err, c.want)
			}
			if d := cmp.Diff(settings.Values{Limit: ptr(7)}, v); d != "" {
				t.Errorf("a refused value changed the settings (-want +got):\n%s", d)
			}
		})
	}
}

func TestSetUnknown(t *testing.T) {
	var v settings.Values
	err := v.Set("colour", "blue")
	if !errors.Is(err, settings.ErrUnknown) {
		t.Fatalf("unknown setting: %v, want ErrUnknown", err)
	}
	want := `unknown setting "colour"; the settings are ` + strings.Join(settings.Names(), ", ")
	if err.Error() != want {
		t.Errorf("unknown setting: %q, want %q", err, want)
	}
}

func TestNames(t *testing.T) {
	names := settings.Names()
	if !slices.IsSorted(names) || len(names) != 16 || !slices.Contains(names, "vector_weight") || !slices.Contains(names, "title_weight") {
		t.Errorf("names: %v, want the 16 settings sorted", names)
	}
}

func TestList(t *testing.T) {
	v := settings.Values{Limit: ptr(3)}
	got := map[string]settings.Setting{}
	var order []string
	for _, s := range v.List(time.Second) {
		got[s.Name] = s
		order = append(order, s.Name)
	}
	if order[0] != "vector_weight" || order[len(order)-1] != "timezone" || len(order) != len(settings.Names()) {
		t.Errorf("list order: %v", order)
	}
	for _, c := range []settings.Setting{
		{Name: "limit", Value: "3", Default: "10", Set: true, Allowed: "a whole number from 1 to 1000"},
		{Name: "vector_weight", Value: "auto", Default: "auto", Allowed: "auto (chosen per query) or a number from 0 (keywords only) to 1 (meaning only)"},
		{Name: "rerank_budget", Value: "1s", Default: "1s", Allowed: "a duration from 0 (no limit) to 10s, such as 250ms"},
		{Name: "doc_evidence", Value: "0.2", Default: "0.2", Allowed: "a number from 0 (off) to 1"},
	} {
		s := got[c.Name]
		s.Help = ""
		if d := cmp.Diff(c, s); d != "" {
			t.Errorf("%s (-want +got):\n%s", c.Name, d)
		}
	}
}

func TestSetClearsTuned(t *testing.T) {
	for _, c := range []struct {
		setting, value string
		kept           bool
	}{
		{"vector_weight", "0.5", false},
		{"fusion", "rrf", false},
		{"normalize", "", false},
		{"candidates", "100", false},
		{"doc_evidence", "0", false},
		{"link_prior", "0.1", false},
		{"query_instruction", "true", false},
		{"title_weight", "1", false},
		{"heading_weight", "0.3", false},
		{"limit", "5", true},
		{"rerank", "false", true},
		{"rerank_budget", "1s", true},
		{"watch", "true", true},
	} {
		v := settings.Values{Tuned: &settings.Tuned{From: "q"}}
		if err := v.Set(c.setting, c.value); err != nil {
			t.Fatal(err)
		}
		if (v.Tuned != nil) != c.kept {
			t.Errorf("set %s: tuned record %v, want kept %v", c.setting, v.Tuned, c.kept)
		}
	}
}

func TestSetTuned(t *testing.T) {
	from := settings.Tuned{From: "BEIR scifact, split train", At: "2026-01-02T03:04:05Z", Metric: "nDCG@10", Before: 0.7, After: 0.75, Queries: 809}
	v := settings.Values{Limit: ptr(5), Normalize: ptr(settings.NormZScore), VectorWeight: ptr(0.3)}
	v.SetTuned(settings.Tuning{Fusion: settings.FusionRRF, Normalize: settings.NormMinMax, Candidates: 80, DocEvidence: 0.1, LinkPrior: 0.05,
		TitleWeight: 1, HeadingWeight: 0.3}, from)
	want := settings.Values{Limit: ptr(5), Fusion: ptr(settings.FusionRRF), Candidates: ptr(80),
		DocEvidence: ptr(0.1), LinkPrior: ptr(0.05), TitleWeight: ptr(1.0), HeadingWeight: ptr(0.3), Tuned: &from}
	if d := cmp.Diff(want, v); d != "" {
		t.Errorf("tuned with RRF (-want +got):\n%s", d)
	}
	v.SetTuned(settings.Tuning{VectorWeight: ptr(0.6), Fusion: settings.FusionLinear, Normalize: settings.NormZScore,
		Candidates: 50, QueryInstruction: ptr(false)}, from)
	want = settings.Values{Limit: ptr(5), VectorWeight: ptr(0.6), Fusion: ptr(settings.FusionLinear), Normalize: ptr(settings.NormZScore),
		Candidates: ptr(50), DocEvidence: ptr(0.0), LinkPrior: ptr(0.0), QueryInstruction: ptr(false), TitleWeight: ptr(0.0), HeadingWeight: ptr(0.0), Tuned: &from}
	if d := cmp.Diff(want, v); d != "" {
		t.Errorf("tuned with linear fusion (-want +got):\n%s", d)
	}
}

func TestSaveLoad(t *testing.T) {
	dir := t.TempDir()
	v, err := settings.Load(dir)
	if err != nil || v == nil {
		t.Fatalf("load with no settings.json: %v, %v", v, err)
	}
	if d := cmp.Diff(settings.Values{}, *v); d != "" {
		t.Errorf("no settings.json (-want +got):\n%s", d)
	}
	v = &settings.Values{Limit: ptr(3), Fusion: ptr(settings.FusionRRF), RerankBudget: ptr(settings.Millis(250 * time.Millisecond)),
		Tuned: &settings.Tuned{From: "vault", Metric: "nDCG@10", Queries: 20}}
	if err := settings.Save(dir, v); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, settings.File))
	if err != nil {
		t.Fatal(err)
	}
	want := `{
  "fusion": "rrf",
  "limit": 3,
  "rerank_budget": "250ms",
  "tuned": {
    "from": "vault",
    "at": "",
    "metric": "nDCG@10",
    "before": 0,
    "after": 0,
    "queries": 20
  }
}
`
	if d := cmp.Diff(want, string(data)); d != "" {
		t.Errorf("settings.json (-want +got):\n%s", d)
	}
	got, err := settings.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(v, got); d != "" {
		t.Errorf("loaded back (-want +got):\n%s", d)
	}
}

func TestLoadRefuses(t *testing.T) {
	for _, c := range []struct {
		name, file string
		want       []string
	}{
		{"out of range", `{"limit": 5000}`, []string{"settings.json in ", `limit "5000" is out of range, want a whole number from 1 to 1000; fix it with braid config set`}},
		{"truncated", `{"limit": `, []string{"settings.json in ", "is damaged", "delete it to go back to the default settings"}},
		{"unknown field", `{"colour": "blue"}`, []string{"is damaged", "colour"}},
		{"bad duration", `{"rerank_budget": "soon"}`, []string{"is damaged"}},
		{"bad fusion", `{"fusion": "max"}`, []string{`fusion "max" is out of range, want linear or rrf`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, settings.File), []byte(c.file), 0o644); err != nil {
				t.Fatal(err)
			}
			v, err := settings.Load(dir)
			if err == nil {
				t.Fatalf("load %s: %+v, want an error", c.file, v)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("load %s: %v, want it to say %q", c.file, err, w)
				}
			}
		})
	}
}

// settings.json in an index directory someone else arranged: a link, a
// FIFO or a huge file is refused with a reason, never followed, waited on
// or read whole.
func TestLoadRefusesNonRegular(t *testing.T) {
	for _, c := range []struct {
		name string
		make func(t *testing.T, file string)
		want string
	}{
		{"link to a file", func(t *testing.T, file string) {
			other := filepath.Join(t.TempDir(), "other.json")
			if err := os.WriteFile(other, []byte(`{"limit": 3}`), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(other, file); err != nil {
				t.Fatal(err)
			}
		}, "is a symbolic link"},
		{"link to /dev/zero", func(t *testing.T, file string) {
			if err := os.Symlink("/dev/zero", file); err != nil {
				t.Fatal(err)
			}
		}, "is a symbolic link"},
		{"FIFO", func(t *testing.T, file string) {
			if err := syscall.Mkfifo(file, 0o644); err != nil {
				t.Fatal(err)
			}
		}, "is a FIFO"},
		{"over 1 MiB", func(t *testing.T, file string) {
			if err := os.WriteFile(file, []byte(`{"limit": 3}`+strings.Repeat(" ", 1<<20)), 0o644); err != nil {
				t.Fatal(err)
			}
		}, "over 1048576"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			c.make(t, filepath.Join(dir, settings.File))
			type result struct {
				v   *settings.Values
				err error
			}
			done := make(chan result, 1)
			go func() {
				v, err := settings.Load(dir)
				done <- result{v, err}
			}()
			var r result
			select {
			case r = <-done:
			case <-time.After(testenv.Guard): // a last guard: Load blocked
				t.Fatalf("Load did not return within %v", testenv.Guard)
			}
			if r.err == nil || !strings.Contains(r.err.Error(), c.want) || !strings.Contains(r.err.Error(), "delete it to go back to the default settings") {
				t.Errorf("Load: %+v, %v; want an error saying %q", r.v, r.err, c.want)
			}
		})
	}
}

func TestParseNamesWhere(t *testing.T) {
	_, err := settings.Parse([]byte(`{"candidates": 1}`), "the settings of the cluster index notes", "set them again with braid config set")
	want := `the settings of the cluster index notes: candidates "1" is out of range, want a whole number from 10 to 1000; fix it with braid config set`
	if err == nil || err.Error() != want {
		t.Errorf("parse: %v, want %q", err, want)
	}
	_, err = settings.Parse([]byte(`[`), "the settings of the cluster index notes", "set them again with braid config set")
	if err == nil || !strings.HasPrefix(err.Error(), "the settings of the cluster index notes is damaged (") ||
		!strings.HasSuffix(err.Error(), "); set them again with braid config set") {
		t.Errorf("parse of damaged settings: %v", err)
	}
}

func TestMillisJSON(t *testing.T) {
	b, err := json.Marshal(settings.Millis(1500 * time.Millisecond))
	if err != nil || string(b) != `"1.5s"` {
		t.Errorf("marshal 1.5s: %s, %v", b, err)
	}
	var m settings.Millis
	if err := json.Unmarshal([]byte(`"250ms"`), &m); err != nil || time.Duration(m) != 250*time.Millisecond {
		t.Errorf("unmarshal 250ms: %v, %v", time.Duration(m), err)
	}
	if err := json.Unmarshal([]byte(`250`), &m); err == nil {
		t.Error("unmarshal a bare number: no error")
	}
}

// FuzzParse feeds hand-written settings files to Parse: it must not
// panic, and what it accepts must pass Set's checks and survive a round
// trip through Encode.
func FuzzParse(f *testing.F) {
	for _, s := range []string{`{}`, `{"limit": 3}`, `{"fusion": "rrf", "rerank_budget": "1s"}`, `{"vector_weight": 2}`, `{"tuned": {"from": "x"}}`, `{`, `null`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := settings.Parse(data, "fuzz", "fix it")
		if err != nil {
			return
		}
		for _, s := range v.List(settings.DefaultRerankBudget) {
			if !s.Set {
				continue
			}
			var w settings.Values
			if err := w.Set(s.Name, s.Value); err != nil {
				t.Fatalf("parse accepted %s %q that set refuses: %v", s.Name, s.Value, err)
			}
		}
		enc, err := v.Encode()
		if err != nil {
			t.Fatal(err)
		}
		back, err := settings.Parse(enc, "fuzz", "fix it")
		if err != nil {
			t.Fatalf("encoded settings do not parse back: %v\n%s", err, enc)
		}
		if d := cmp.Diff(v, back); d != "" {
			t.Errorf("round trip (-want +got):\n%s", d)
		}
	})
}

func TestSortAndFind(t *testing.T) {
	got := settings.Sort([]string{"nope", "vector_weight", "limit", "vector_weight", "fusion"})
	if diff := cmp.Diff([]string{"fusion", "limit", "vector_weight", "nope"}, got); diff != "" {
		t.Errorf("Sort (-want +got):\n%s", diff)
	}
	var v settings.Values
	list := v.List(0)
	if s, err := settings.Find(list, "limit"); err != nil || s.Name != "limit" {
		t.Errorf("Find(limit) = %+v, %v", s, err)
	}
	if _, err := settings.Find(list, "nope"); !errors.Is(err, settings.ErrUnknown) || !strings.Contains(err.Error(), `"nope"; the settings are `) {
		t.Errorf("Find(nope) = %v, want ErrUnknown naming the settings", err)
	}
}
