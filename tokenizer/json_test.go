package tokenizer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/braidsearch/braid/internal/testdata"
	"github.com/google/go-cmp/cmp"
)

// tokenizerFiles returns the tokenizer.json files the scanner is checked
// on: every one in testdata, and the real BERT ones when the shared models
// are present.
func tokenizerFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("testdata/*.json")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range files {
		if !strings.HasPrefix(filepath.Base(f), "golden") {
			out = append(out, f)
		}
	}
	for _, name := range goldenModels {
		if p := filepath.Join(testdata.ModelsDir(), "tokenizers", name, "tokenizer.json"); fileExists(p) {
			out = append(out, p)
		}
	}
	return out
}

// referenceVocab reads the model of a tokenizer.json with encoding/json, as
// Parse did before the scanner: the tokens by id, the WordPiece map and
// the Unigram scores.
type referenceVocab struct {
	Tokens []string
	Words  map[string]int32
	Scores []float64
}

func readReference(t *testing.T, data []byte) referenceVocab {
	t.Helper()
	var f struct {
		Model struct {
			Type  string          `json:"type"`
			Vocab json.RawMessage `json:"vocab"`
		} `json:"model"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	var ref referenceVocab
	switch f.Model.Type {
	case "WordPiece":
		if err := json.Unmarshal(f.Model.Vocab, &ref.Words); err != nil {
			t.Fatal(err)
		}
		for tok, id := range ref.Words {
			for int(id) >= len(ref.Tokens) {
				ref.Tokens = append(ref.Tokens, "")
			}
			ref.Tokens[id] = tok
		}
	case "Unigram":
		var list [][2]any
		if err := json.Unmarshal(f.Model.Vocab, &list); err != nil {
			t.Fatal(err)
		}
		for _, e := range list {
			ref.Tokens = append(ref.Tokens, e[0].(string))
			ref.Scores = append(ref.Scores, e[1].(float64))
		}
	default:
		t.Fatalf("model type %q", f.Model.Type)
	}
	return ref
}

// vocabOf returns what Parse built from the model's vocab, in the form of
// referenceVocab.
func vocabOf(tok *Tokenizer, n int) referenceVocab {
	got := referenceVocab{Tokens: tok.tokens[:min(n, len(tok.tokens))]}
	if tok.wp != nil {
		got.Words = tok.wp.start.all()
	} else {
		got.Scores = tok.uni.scores
	}
	return got
}

// TestScannerMatchesEncodingJSON checks that Parse reads every
// tokenizer.json's vocab as encoding/json does, and that the check can
// fail: a file with two ids swapped reads differently from the original.
func TestScannerMatchesEncodingJSON(t *testing.T) {
	for _, file := range tokenizerFiles(t) {
		t.Run(filepath.Base(filepath.Dir(file))+"/"+filepath.Base(file), func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			ref := readReference(t, data)
			tok, err := Parse(data)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(ref, vocabOf(tok, len(ref.Tokens))); d != "" {
				t.Errorf("vocab differs from encoding/json's (-want +got):\n%s", d)
			}
			// Load's tokens share the file's bytes instead of a copy.
			if d := cmp.Diff(ref, vocabOf(loadFile(t, file), len(ref.Tokens))); d != "" {
				t.Errorf("Load: vocab differs from encoding/json's (-want +got):\n%s", d)
			}
			if tok.wp != nil {
				cont := map[string]int32{}
				for w, id := range ref.Words {
					if rest, ok := strings.CutPrefix(w, "##"); ok {
						cont[rest] = id
					}
				}
				if d := cmp.Diff(cont, tok.wp.cont.all()); d != "" {
					t.Errorf("continuation pieces differ (-want +got):\n%s", d)
				}
			}

			// Mutation: swap two pieces in the middle of the vocab, far
			// from the added tokens, in the text.
			a, b := ref.Tokens[len(ref.Tokens)/2], ref.Tokens[len(ref.Tokens)/2+1]
			qa, qb := quote(a), quote(b)
			i, j := bytes.LastIndex(data, qa), bytes.LastIndex(data, qb)
			if i < 0 || j < 0 || i > j {
				t.Skipf("pieces %q %q not found in order as written", a, b)
			}
			mut := slices.Concat(data[:i], qb, data[i+len(qa):j], qa, data[j+len(qb):])
			mtok, err := Parse(mut)
			if err != nil {
				t.Fatal(err)
			}
			if cmp.Equal(ref, vocabOf(mtok, len(ref.Tokens))) {
				t.Errorf("swapping %q and %q went unnoticed", a, b)
			}
			if d := cmp.Diff(readReference(t, mut), vocabOf(mtok, len(ref.Tokens))); d != "" {
				t.Errorf("mutated vocab differs from encoding/json's (-want +got):\n%s", d)
			}
		})
	}
}

// quote writes s as a JSON string as tokenizer.json files do, without
// encoding/json's HTML escapes.
func quote(s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

func TestWordPieceVocab(t *testing.T) {
	model := func(vocab string) []byte {
		data := editFile(t, "testdata/tiny.json", "model", `{"type":"WordPiece","unk_token":"[UNK]","vocab":"VOCAB"}`, "added_tokens", "[]")
		return bytes.Replace(data, []byte(`"VOCAB"`), []byte(vocab), 1)
	}
	tok, err := Parse(model(`{"[UNK]":0, "\u00e9t\u00e9":1, "a":5, "a":2, "##b":3, "x\"y":4}`))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int32{"[UNK]": 0, "été": 1, "a": 2, "##b": 3, `x"y`: 4}
	if d := cmp.Diff(want, tok.wp.start.all()); d != "" {
		t.Errorf("vocab (-want +got):\n%s", d)
	}
	if d := cmp.Diff(map[string]int32{"b": 3}, tok.wp.cont.all()); d != "" {
		t.Errorf("continuation pieces (-want +got):\n%s", d)
	}
	// "a" listed twice: the tokens by id come from the map, id 5 unused.
	if d := cmp.Diff([]string{"[UNK]", "été", "a", "##b", `x"y`}, tok.tokens[:5]); d != "" || len(tok.tokens) < 5 {
		t.Errorf("tokens (-want +got):\n%s", d)
	}
	// An empty token, a hole at id 1 and an empty prefix: every token
	// continues a word, the hole does not exist.
	data := bytes.Replace(edit(t, "model", `{"type":"WordPiece","unk_token":"[UNK]","continuing_subword_prefix":"","vocab":"VOCAB"}`),
		[]byte(`"VOCAB"`), []byte(`{"":0,"[UNK]":2}`), 1)
	if tok, err = Parse(data); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(map[string]int32{"": 0, "[UNK]": 2}, tok.wp.cont.all()); d != "" {
		t.Errorf("continuation pieces with an empty prefix (-want +got):\n%s", d)
	}
	// Two tokens share an id: both are in the vocab.
	if tok, err = Parse(model(`{"[UNK]":0,"a":1,"##a":1,"[CLS]":2,"[SEP]":3}`)); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(map[string]int32{"[UNK]": 0, "a": 1, "##a": 1, "[CLS]": 2, "[SEP]": 3}, tok.wp.start.all()); d != "" {
		t.Errorf("vocab with a shared id (-want +got):\n%s", d)
	}
	if d := cmp.Diff(map[string]int32{"a": 1}, tok.wp.cont.all()); d != "" {
		t.Errorf("continuation pieces with a shared id (-want +got):\n%s", d)
	}
	for _, tt := range []struct{ vocab, msg string }{
		{`{"[UNK]":0.5}`, "want an integer"},
		{`{"[UNK]":1e3}`, "want an integer"},
		{`{"[UNK]":2147483648}`, "want an integer that fits 32 bits"},
		{`{"[UNK]":16777216}`, "has id 16777216, want 0..16777215"},
		{`{"[UNK]":"0"}`, "want a token id"},
		{`{"[UNK]":0,}`, "want a token"},
		{`{"[UNK]" 0}`, "want ':'"},
		{`{"[UNK]":0`, "end of input"},
		{`["[UNK]"]`, "not an object of token ids"},
		{`null`, "empty WordPiece vocab"},
		{`{}`, "empty WordPiece vocab"},
	} {
		wantParseError(t, model(tt.vocab), false, tt.msg)
	}
	wantParseError(t, edit(t, "added_tokens", `[{"id":16777216,"content":"[X]"}]`), false, "has id 16777216, want 0..16777215")
}

// TestScannerValid checks the scanner's verdict against encoding/json's on
// tricky documents.
func TestScannerValid(t *testing.T) {
	for _, doc := range scannerSeeds {
		checkScanner(t, []byte(doc))
	}
	deep := strings.Repeat("[", maxDepth+1) + strings.Repeat("]", maxDepth+1)
	if _, err := jsonObject([]byte(`{"a":`+deep+`}`), false); err == nil || !strings.Contains(err.Error(), "nesting") {
		t.Errorf("jsonObject(too deep) = %v, want a nesting error", err)
	}
}

var scannerSeeds = []string{
	`{}`, `null`, ` {"a" : 1 } `, `{"a":1,"a":2}`, `{"a":[1,2,{"b":null}],"c":"d"}`, `[]`, `1`, `"x"`, `{`, `{"a"}`,
	`{"a":1,}`, `{"a":01}`, `{"a":-}`, `{"a":1.}`, `{"a":.5}`, `{"a":1e}`, `{"a":1E+5}`, `{"a":-0.5e-3}`,
	`{"a":tru}`, `{"a":nul}`, `{"a":"\q"}`, `{"a":"\u12"}`, `{"a":"\u12G4"}`, `{"\u00e9":"\ud800"}`,
	"{\"a\":\"\x01\"}", "{\"a\":\"\xff\xfe\"}", "{\"a\":\"aaaaaaaa\\\"aaaaaaaa\"}", `{"a":"` + strings.Repeat("QUJD", 40) + `"}`,
	"{\"a\":\"" + strings.Repeat("x", 13) + "\x1f\"}", "{\"a\":\"" + strings.Repeat("x", 13) + "é\"}", `{} x`, `{}{}`,
	"{\"a\":1}\n\t\r ", "\v{}", `{"a":"\\\\","b":"\\\"\\\\\\\""}`, `{"a":[1 2]}`, `{"a":[,]}`, `{"a":{"b":1 "c":2}}`,
}

// checkScanner checks jsonObject on doc against encoding/json: it accepts
// exactly the valid objects and null, with the same members, the last of
// a repeated key winning.
func checkScanner(t *testing.T, doc []byte) {
	t.Helper()
	fields, err := jsonObject(doc, false)
	var want map[string]json.RawMessage
	werr := json.Unmarshal(doc, &want)
	if (err == nil) != (werr == nil) {
		t.Fatalf("jsonObject(%q) error %v, encoding/json %v", doc, err, werr)
	}
	if err != nil {
		return
	}
	got := map[string]json.RawMessage{}
	for _, f := range fields {
		got[f.key] = f.val
	}
	if want == nil {
		want = map[string]json.RawMessage{}
	}
	if d := cmp.Diff(fmt.Sprint(want), fmt.Sprint(got)); d != "" {
		t.Errorf("jsonObject(%q) (-want +got):\n%s", doc, d)
	}
	// A checked document reads the same with its strings skipped.
	checked, err := jsonObject(doc, true)
	if err != nil {
		t.Fatalf("jsonObject(%q, checked): %v", doc, err)
	}
	if d := cmp.Diff(fmt.Sprint(fields), fmt.Sprint(checked)); d != "" {
		t.Errorf("jsonObject(%q, checked) (-unchecked +checked):\n%s", doc, d)
	}
}

func FuzzScanner(f *testing.F) {
	for _, s := range scannerSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, doc []byte) { checkScanner(t, doc) })
}

// FuzzParse feeds edited tokenizer.json files to Parse: it must not panic,
// and must refuse what is not JSON.
func FuzzParse(f *testing.F) {
	for _, file := range []string{"testdata/tiny.json", "testdata/unigram.json", "testdata/bytefallback.json"} {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if _, err := Parse(data); err == nil && !json.Valid(data) {
			t.Fatalf("Parse accepted invalid JSON %q", data)
		}
	})
}

// TestPieceTable fills a table sized for one entry, so that it grows many
// times, and finds every key, through bytes and strings, and no other.
func TestPieceTable(t *testing.T) {
	var keys []string
	for i := range 3000 {
		keys = append(keys, fmt.Sprintf("##p%dq", i*7919%10007))
	}
	ids := make([]int32, len(keys))
	for i := range ids {
		ids[i] = int32(len(keys) - i)
	}
	for _, skip := range []int{0, 2} {
		tab := newPieceTable(1, keys, skip, ids)
		for i, k := range keys {
			if j := tab.add(k[skip:], i); j != -1 {
				t.Fatalf("add(%q) = %d, want -1", k[skip:], j)
			}
		}
		if j := tab.add(keys[5][skip:], 99); j != 5 {
			t.Errorf("add(%q) again = %d, want 5", keys[5][skip:], j)
		}
		for i, k := range keys {
			id, ok := tab.find([]byte(k[skip:]))
			id2, ok2 := tab.findString(k[skip:])
			if !ok || !ok2 || id != ids[i] || id2 != ids[i] {
				t.Fatalf("skip %d: find(%q) = %d %v, findString %d %v, want %d", skip, k[skip:], id, ok, id2, ok2, ids[i])
			}
		}
		for _, missing := range []string{"", "##", "##p", "p1q ", "##p10008q"} {
			if id, ok := tab.findString(missing); ok {
				t.Errorf("skip %d: findString(%q) = %d, want none", skip, missing, id)
			}
		}
		if got := len(tab.all()); got != len(keys) {
			t.Errorf("skip %d: %d entries, want %d", skip, got, len(keys))
		}
	}
}

// TestVocabAnywhereInModel: the model's vocab is read wherever it stands
// among the model's fields, as encoding/json read it (the files on the
// hub put it last; a key after it once dropped it).
func TestVocabAnywhereInModel(t *testing.T) {
	for _, model := range []string{
		`{"type":"WordPiece","vocab":{"[UNK]":0,"a":1,"##b":2,"[CLS]":3,"[SEP]":4},"unk_token":"[UNK]","continuing_subword_prefix":"##"}`,
		`{"type":"WordPiece","unk_token":"[UNK]","vocab":{"[UNK]":0,"a":1,"##b":2,"[CLS]":3,"[SEP]":4},"continuing_subword_prefix":"##"}`,
		`{"type":"WordPiece","unk_token":"[UNK]","continuing_subword_prefix":"##","vocab":{"[UNK]":0,"a":1,"##b":2,"[CLS]":3,"[SEP]":4}}`,
	} {
		js := `{"model":` + model + `,"normalizer":null,"pre_tokenizer":{"type":"BertPreTokenizer"}}`
		tok, err := Parse([]byte(js))
		if err != nil {
			t.Fatalf("%s: %v", model, err)
		}
		if got, want := tok.Encode("ab", 8).IDs, []int64{3, 1, 2, 4}; !slices.Equal(got, want) {
			t.Errorf("%s: ab encodes as %v, want %v", model, got, want)
		}
	}
}
