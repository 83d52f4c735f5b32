package tokenizer

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/braidsearch/braid/internal/testdata"
)

// modelsDir holds the real tokenizer.json files, outside the repository.
var modelsDir = filepath.Join(testdata.ModelsDir(), "tokenizers")

// goldenModels are the real BERT tokenizers, read from modelsDir (their
// tests skip when it is missing); goldenFixtures the SentencePiece Unigram
// fixtures in testdata, written by tools/tokgolden/genunigram.py.
var (
	goldenModels   = []string{"bge-small-en-v1.5", "all-MiniLM-L6-v2"}
	goldenFixtures = []string{"xlmr", "bytefallback"}
)

func loadModel(tb testing.TB, name string) *Tokenizer {
	tb.Helper()
	if slices.Contains(goldenFixtures, name) {
		return loadFile(tb, filepath.Join("testdata", name+".json"))
	}
	return loadFile(tb, testdata.Models(tb, filepath.Join("tokenizers", name, "tokenizer.json")))
}

func loadFile(tb testing.TB, path string) *Tokenizer {
	tb.Helper()
	tok, err := Load(path)
	if err != nil {
		tb.Fatal(err)
	}
	return tok
}

func loadTiny(tb testing.TB) *Tokenizer {
	tb.Helper()
	return loadFile(tb, "testdata/tiny.json")
}

// golden is testdata/golden.json, written by tools/tokgolden/gen.py.
type golden struct {
	TokenizersVersion string `json:"tokenizers_version"`
	Cases             []struct {
		Name string  `json:"name"`
		Text *string `json:"text"`
		A    string  `json:"a"`
		B    string  `json:"b"`
	} `json:"cases"`
	Models []struct {
		Name      string `json:"name"`
		Encodings [][]struct {
			MaxLen  int     `json:"max_len"`
			IDs     []int64 `json:"ids"`
			TypeIDs []int64 `json:"type_ids"` // missing when all zero
		} `json:"encodings"`
		// Decoded is the reference decode of each single text, special
		// tokens skipped; null for pairs and sweeps.
		Decoded []*string `json:"decoded"`
	} `json:"models"`
	// GraphemeProbe says which BMP code points the reference keeps in one
	// grapheme cluster after Base (see gen.py); Unknown ones it cannot tell.
	GraphemeProbe struct {
		Base    string    `json:"base"`
		Joins   [][2]rune `json:"joins"`
		Unknown [][2]rune `json:"unknown"`
	} `json:"grapheme_probe"`
}

func readGolden(t *testing.T) golden {
	t.Helper()
	data, err := os.ReadFile("testdata/golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var g golden
	if err := json.Unmarshal(data, &g); err != nil {
		t.Fatal(err)
	}
	return g
}

func TestGolden(t *testing.T) {
	g := readGolden(t)
	if want := len(goldenModels) + len(goldenFixtures); len(g.Models) != want {
		t.Fatalf("golden.json has %d models, want %d", len(g.Models), want)
	}
	for _, m := range g.Models {
		t.Run(m.Name, func(t *testing.T) {
			tok := loadModel(t, m.Name)
			if len(m.Encodings) != len(g.Cases) || len(m.Decoded) != len(g.Cases) {
				t.Fatalf("%d encoding lists and %d decoded texts for %d cases", len(m.Encodings), len(m.Decoded), len(g.Cases))
			}
			n, failed, decoded := 0, 0, 0
			for i, c := range g.Cases {
				for _, want := range m.Encodings[i] {
					n++
					var got Encoding
					if c.Text != nil {
						got = tok.Encode(*c.Text, want.MaxLen)
					} else {
						got = tok.EncodePair(c.A, c.B, want.MaxLen)
					}
					types := want.TypeIDs
					if types == nil {
						types = make([]int64, len(want.IDs))
					}
					if msg := tok.diff(want.IDs, types, got); msg != "" {
						failed++
						t.Errorf("%s max_len %d: %s", c.Name, want.MaxLen, msg)
					}
				}
				if want := m.Decoded[i]; want != nil && c.Text != nil {
					decoded++
					got, err := tok.Decode(tok.Encode(*c.Text, 0).IDs)
					if err != nil || got != *want {
						failed++
						t.Errorf("%s: Decode = %q, %v, want %q", c.Name, got, err, *want)
					}
				}
			}
			if n < 200 {
				t.Errorf("only %d golden encodings, want a few hundred", n)
			}
			t.Logf("%d golden encodings and %d decoded texts from tokenizers %s, %d differ", n, decoded, g.TokenizersVersion, failed)
		})
	}
}

// diff describes the first difference between a reference encoding and
// got, naming both tokens; "" when they are equal.
func (t *Tokenizer) diff(ids, typeIDs []int64, got Encoding) string {
	name := func(id int64) string {
		if id >= 0 && id < int64(len(t.tokens)) {
			return fmt.Sprintf("%d %q", id, t.tokens[id])
		}
		return fmt.Sprintf("%d (out of range)", id)
	}
	for i := range min(len(ids), len(got.IDs)) {
		if ids[i] != got.IDs[i] {
			return fmt.Sprintf("token %d: want %s, got %s (lengths want %d, got %d)", i, name(ids[i]), name(got.IDs[i]), len(ids), len(got.IDs))
		}
	}
	if len(ids) != len(got.IDs) {
		return fmt.Sprintf("want %d tokens, got %d", len(ids), len(got.IDs))
	}
	if d := cmp.Diff(typeIDs, got.TypeIDs); d != "" {
		return "type ids (-want +got):\n" + d
	}
	for i, m := range got.Mask {
		if m != 1 || len(got.Mask) != len(ids) {
			return fmt.Sprintf("mask[%d] = %d of %d, want all 1 of %d", i, m, len(got.Mask), len(ids))
		}
	}
	return ""
}

func TestEncodeTiny(t *testing.T) {
	tok := loadTiny(t)
	tests := []struct {
		name   string
		text   string
		maxLen int
		want   []string
	}{
		{"words", "Hello, worlds!", 0, []string{"[CLS]", "hello", ",", "world", "##s", "!", "[SEP]"}},
		{"pieces", "unaffable", 0, []string{"[CLS]", "un", "##aff", "##able", "[SEP]"}},
		{"unknown", "hello xyz", 0, []string{"[CLS]", "hello", "[UNK]", "[SEP]"}},
		{"partly unknown", "unaffablex", 0, []string{"[CLS]", "[UNK]", "[SEP]"}},
		{"accent and cjk", "Café中", 0, []string{"[CLS]", "cafe", "中", "[SEP]"}},
		{"special literal", "x[MASK]hello", 0, []string{"[CLS]", "[UNK]", "[MASK]", "hello", "[SEP]"}},
		{"lowercase special is text", "[mask]", 0, []string{"[CLS]", "[UNK]", "[UNK]", "[UNK]", "[SEP]"}},
		{"truncated", "hello world hello", 4, []string{"[CLS]", "hello", "world", "[SEP]"}},
		{"maxLen 2", "hello world", 2, []string{"[CLS]", "[SEP]"}},
		{"maxLen 1 keeps specials", "hello world", 1, []string{"[CLS]", "[SEP]"}},
		{"empty", "", 0, []string{"[CLS]", "[SEP]"}},
		{"invalid utf8 dropped", "hello\xffworld", 0, []string{"[CLS]", "[UNK]", "[SEP]"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			enc := tok.Encode(tt.text, tt.maxLen)
			if d := cmp.Diff(tt.want, tok.names(enc.IDs)); d != "" {
				t.Errorf("Encode(%q, %d) (-want +got):\n%s", tt.text, tt.maxLen, d)
			}
			if d := cmp.Diff(make([]int64, len(enc.IDs)), enc.TypeIDs); d != "" {
				t.Errorf("type ids (-want +got):\n%s", d)
			}
		})
	}
}

func (t *Tokenizer) names(ids []int64) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = t.tokens[id]
	}
	return out
}

func TestEncodePairTiny(t *testing.T) {
	tok := loadTiny(t)
	tests := []struct {
		name      string
		a, b      string
		maxLen    int
		want      string
		wantTypes []int64
	}{
		{"no limit", "hello", "world", 0, "[CLS] hello [SEP] world [SEP]", []int64{0, 0, 0, 1, 1}},
		{"b longer", "hello", "world world world", 6, "[CLS] hello [SEP] world world [SEP]", []int64{0, 0, 0, 1, 1, 1}},
		{"a longer", "hello hello hello", "world", 6, "[CLS] hello hello [SEP] world [SEP]", []int64{0, 0, 0, 0, 1, 1}},
		{"both cut, odd to longer", "hello hello hello", "world world world world", 8, "[CLS] hello hello [SEP] world world world [SEP]", []int64{0, 0, 0, 0, 1, 1, 1, 1}},
		{"only specials", "hello", "world", 3, "[CLS] [SEP] [SEP]", []int64{0, 0, 1}},
		{"below specials", "hello", "world", 1, "[CLS] [SEP] [SEP]", []int64{0, 0, 1}},
		{"empty b", "hello", "", 0, "[CLS] hello [SEP] [SEP]", []int64{0, 0, 0, 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			enc := tok.EncodePair(tt.a, tt.b, tt.maxLen)
			if d := cmp.Diff(tt.want, strings.Join(tok.names(enc.IDs), " ")); d != "" {
				t.Errorf("EncodePair (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tt.wantTypes, enc.TypeIDs); d != "" {
				t.Errorf("type ids (-want +got):\n%s", d)
			}
		})
	}
}

func TestLongestFirst(t *testing.T) {
	tests := []struct{ n1, n2, room, want1, want2 int }{
		{3, 4, 10, 3, 4},
		{3, 10, 8, 3, 5},
		{10, 3, 8, 5, 3},
		{6, 10, 8, 4, 4},
		{6, 10, 9, 4, 5},
		{10, 6, 9, 5, 4},
		{7, 7, 9, 4, 5},
		{20, 30, 0, 0, 0},
		{0, 30, 5, 0, 5},
	}
	for _, tt := range tests {
		g1, g2 := longestFirst(tt.n1, tt.n2, tt.room)
		if g1 != tt.want1 || g2 != tt.want2 {
			t.Errorf("longestFirst(%d, %d, %d) = %d, %d, want %d, %d", tt.n1, tt.n2, tt.room, g1, g2, tt.want1, tt.want2)
		}
	}
}

func TestTokens(t *testing.T) {
	tok := loadTiny(t)
	got := tok.Tokens("Hello [MASK] unaffable!")
	want := []string{"hello", "[MASK]", "un", "##aff", "##able", "!"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Tokens (-want +got):\n%s", d)
	}
	if got := tok.Tokens(""); len(got) != 0 {
		t.Errorf("Tokens(\"\") = %q, want none", got)
	}
}

func TestAccessors(t *testing.T) {
	tok := loadTiny(t)
	if got := tok.PadID(); got != 0 {
		t.Errorf("PadID() = %d, want 0", got)
	}
	if got := tok.VocabSize(); got != 20 {
		t.Errorf("VocabSize() = %d, want 20", got)
	}
	for _, name := range goldenModels {
		if _, err := os.Stat(filepath.Join(modelsDir, name, "tokenizer.json")); err != nil {
			continue
		}
		real := loadModel(t, name)
		if real.PadID() != 0 || real.VocabSize() != 30522 {
			t.Errorf("%s: PadID %d, VocabSize %d, want 0, 30522", name, real.PadID(), real.VocabSize())
		}
	}
}

// edit returns testdata/tiny.json with one top-level key replaced.
func edit(t *testing.T, key, value string) []byte {
	t.Helper()
	return editFile(t, "testdata/tiny.json", key, value)
}

// wantParseError checks that Parse refuses data with an error that
// contains msg and is (or is not) ErrUnsupported.
func wantParseError(t *testing.T, data []byte, unsupported bool, msg string) {
	t.Helper()
	tok, err := Parse(data)
	if err == nil {
		t.Fatalf("Parse = %v, want an error", tok)
	}
	if got := errors.Is(err, ErrUnsupported); got != unsupported {
		t.Errorf("errors.Is(%v, ErrUnsupported) = %v, want %v", err, got, unsupported)
	}
	if !strings.Contains(err.Error(), msg) {
		t.Errorf("error %q does not contain %q", err, msg)
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name        string
		data        []byte
		unsupported bool
		wantMsg     string
	}{
		{"garbage", []byte("not json {"), false, "parse tokenizer.json"},
		{"empty", nil, false, "parse tokenizer.json"},
		{"bpe", edit(t, "model", `{"type":"BPE","vocab":{},"merges":[]}`), true, `model type "BPE"`},
		{"no model type", edit(t, "model", `{"vocab":{"a":0}}`), true, "no model type"},
		{"unk not in vocab", edit(t, "model", `{"type":"WordPiece","unk_token":"[UNK]","vocab":{"a":0}}`), false, `unk_token "[UNK]" not in the vocabulary`},
		{"negative id", edit(t, "model", `{"type":"WordPiece","unk_token":"a","vocab":{"a":-1}}`), false, "has id -1"},
		{"metaspace pre-tokenizer", edit(t, "pre_tokenizer", `{"type":"Metaspace"}`), true, `pre_tokenizer "Metaspace"`},
		{"nfkc normalizer", edit(t, "normalizer", `{"type":"NFKC"}`), true, `normalizer "NFKC"`},
		{"roberta processing without tokens", edit(t, "post_processor", `{"type":"RobertaProcessing"}`), false, "parse RobertaProcessing"},
		{"bytelevel processing", edit(t, "post_processor", `{"type":"ByteLevel"}`), true, `post_processor "ByteLevel"`},
		{"template id out of range", edit(t, "post_processor", `{"type":"TemplateProcessing","single":[{"SpecialToken":{"id":"X","type_id":0}},{"Sequence":{"id":"A","type_id":0}}],"pair":[{"Sequence":{"id":"A","type_id":0}},{"Sequence":{"id":"B","type_id":1}}],"special_tokens":{"X":{"id":"X","ids":[999],"tokens":["X"]}}}`), false, "id 999 out of range"},
		{"template without B", edit(t, "post_processor", `{"type":"TemplateProcessing","single":[{"Sequence":{"id":"A","type_id":0}}],"pair":[{"Sequence":{"id":"A","type_id":0}}],"special_tokens":{}}`), false, "lacks sequence B"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { wantParseError(t, tt.data, tt.unsupported, tt.wantMsg) })
	}
	if _, err := Load("testdata/missing.json"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Load(missing) = %v, want os.ErrNotExist", err)
	}
}

func TestParseVariants(t *testing.T) {
	tests := []struct {
		name, key, value, text, want string
	}{
		{"sequence normalizer", "normalizer", `{"type":"Sequence","normalizers":[{"type":"NFD"},{"type":"Lowercase"},{"type":"StripAccents"}]}`, "Café Hello", "[CLS] cafe hello [SEP]"},
		{"no normalizer", "normalizer", `null`, "Café hello", "[CLS] [UNK] hello [SEP]"},
		{"cased, accents kept", "normalizer", `{"type":"BertNormalizer","lowercase":false}`, "Hello hello", "[CLS] [UNK] hello [SEP]"},
		{"template processing", "post_processor", `{"type":"TemplateProcessing","single":[{"SpecialToken":{"id":"[CLS]","type_id":0}},{"Sequence":{"id":"A","type_id":0}},{"SpecialToken":{"id":"[SEP]","type_id":0}}],"pair":[{"Sequence":{"id":"A","type_id":0}},{"Sequence":{"id":"B","type_id":1}}],"special_tokens":{"[CLS]":{"id":"[CLS]","ids":[2],"tokens":["[CLS]"]},"[SEP]":{"id":"[SEP]","ids":[3],"tokens":["[SEP]"]}}}`, "hello", "[CLS] hello [SEP]"},
		{"no post-processor", "post_processor", `null`, "hello", "[CLS] hello [SEP]"},
		{"sequence pre-tokenizer", "pre_tokenizer", `{"type":"Sequence","pretokenizers":[{"type":"BertPreTokenizer"}]}`, "hello,world", "[CLS] hello , world [SEP]"},
		{"normalized added token", "added_tokens", `[{"id":4,"content":"[mask]","normalized":true}]`, "[MASK] x", "[CLS] [mask] [UNK] [SEP]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tok, err := Parse(edit(t, tt.key, tt.value))
			if err != nil {
				t.Fatal(err)
			}
			got := strings.Join(tok.names(tok.Encode(tt.text, 0).IDs), " ")
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("Encode(%q) (-want +got):\n%s", tt.text, d)
			}
		})
	}
}

func TestConcurrentEncode(t *testing.T) {
	for _, tok := range []*Tokenizer{loadTiny(t), loadModel(t, "xlmr")} {
		const text = "Hello, worlds! unaffable café Ａ\u0301 東京 <mask>"
		want := tok.Encode(text, 0)
		var wg sync.WaitGroup
		for range 8 {
			wg.Go(func() {
				for range 200 {
					if got := tok.Encode(text, 0); !cmp.Equal(want, got) {
						t.Errorf("concurrent Encode differs (-want +got):\n%s", cmp.Diff(want, got))
						return
					}
					tok.EncodePair("hello", strings.Repeat("world 東京 ", 50), 16)
				}
			})
		}
		wg.Wait()
	}
}

func TestEncodingSlicesIndependent(t *testing.T) {
	tok := loadTiny(t)
	enc := tok.Encode("hello world", 0)
	enc.IDs = append(enc.IDs, 99)
	if enc.TypeIDs[0] != 0 || enc.Mask[0] != 1 {
		t.Fatalf("append to IDs overwrote TypeIDs or Mask: %v %v", enc.TypeIDs, enc.Mask)
	}
}

// edges returns the special-token ids a template puts before its first
// sequence and after its last.
func edges(tp template) (head, tail []int64) {
	seen := false
	for _, p := range tp.pieces {
		if p.seq >= 0 {
			seen, tail = true, nil
			continue
		}
		for _, id := range p.ids {
			if seen {
				tail = append(tail, int64(id))
			} else {
				head = append(head, int64(id))
			}
		}
	}
	return head, tail
}

func FuzzEncode(f *testing.F) {
	for _, s := range []string{"", "hello world", "Café [MASK] 中文 한국어", "\x00\xff\u200b", strings.Repeat("a", 120), "[SEP][CLS]", "ǅ İ ß ﬁ",
		"<mask> x <s></s>", "Ａ\u0301 \r\n \u00a0\u0301 ▁▁ <0x41>", "👨\u200d👩\u200d👧 🇫🇷 \u0915\u094d\u0937", "\xe2\x96 \xed\xa0\x80"} {
		f.Add(s, "second", 8)
	}
	toks := []*Tokenizer{loadTiny(f)}
	for _, name := range goldenFixtures {
		toks = append(toks, loadModel(f, name))
	}
	if path := filepath.Join(modelsDir, goldenModels[0], "tokenizer.json"); fileExists(path) {
		toks = append(toks, loadFile(f, path))
	}
	f.Fuzz(func(t *testing.T, a, b string, maxLen int) {
		maxLen %= 600
		for _, tok := range toks {
			check := func(enc Encoding, tp template) {
				n := len(enc.IDs)
				if maxLen > 0 && n > max(maxLen, tp.added) {
					t.Fatalf("%d ids, want <= %d", n, max(maxLen, tp.added))
				}
				head, tail := edges(tp)
				if n < tp.added || !slices.Equal(enc.IDs[:len(head)], head) || !slices.Equal(enc.IDs[n-len(tail):], tail) {
					t.Fatalf("ids %v do not start with %v and end with %v", enc.IDs, head, tail)
				}
				if len(enc.TypeIDs) != n || len(enc.Mask) != n {
					t.Fatalf("%d ids, %d type ids, %d mask", n, len(enc.TypeIDs), len(enc.Mask))
				}
				for _, id := range enc.IDs {
					if id < 0 || id >= int64(tok.VocabSize()) {
						t.Fatalf("id %d outside the vocabulary of %d", id, tok.VocabSize())
					}
				}
			}
			check(tok.Encode(a, maxLen), tok.single)
			check(tok.EncodePair(a, b, maxLen), tok.pair)
			full := tok.Encode(a, 0)
			if got, want := len(tok.Tokens(a)), len(full.IDs)-tok.single.added; got != want {
				t.Fatalf("Tokens gives %d pieces, Encode %d", got, want)
			}
			if maxLen > tok.single.added {
				// Truncation keeps a prefix of the untruncated ids.
				cut := tok.Encode(a, maxLen)
				head, tail := edges(tok.single)
				kept := cut.IDs[len(head) : len(cut.IDs)-len(tail)]
				if !slices.Equal(kept, full.IDs[len(head):len(head)+len(kept)]) {
					t.Fatalf("Encode(a, %d) = %v is not a prefix of %v", maxLen, cut.IDs, full.IDs)
				}
			}
			if _, err := tok.Decode(full.IDs); err != nil {
				t.Fatalf("Decode: %v", err)
			}
		}
	})
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
