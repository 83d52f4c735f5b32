package tokenizer

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// editFile returns a testdata tokenizer.json with top-level keys replaced.
func editFile(t *testing.T, file string, kv ...string) []byte {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < len(kv); i += 2 {
		m[kv[i]] = json.RawMessage(kv[i+1])
	}
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestUnigramTiny runs testdata/unigram.json (pieces <unk>, ▁a, b; no
// normalizer, no post-processor); the expected ids are the reference's.
func TestUnigramTiny(t *testing.T) {
	metaspace := func(scheme string, split bool) string {
		return `{"type":"Metaspace","replacement":"▁","prepend_scheme":"` + scheme + `","split":` + map[bool]string{true: "true", false: "false"}[split] + `}`
	}
	tests := []struct {
		name, pre, text string
		want            []int64
	}{
		{"prepend and split", "", "a b", []int64{1, 0, 2}},
		{"pieces", "", "ab", []int64{1, 2}},
		{"space runs are kept", "", "a  b", []int64{1, 0, 0, 2}},
		{"leading space is the prefix", "", " a", []int64{1}},
		{"empty", "", "", nil},
		{"unknown run fuses", "", "xyz", []int64{0}},
		{"unknown between", "", "a xyz b", []int64{1, 0, 0, 2}},
		{"unknown characters fuse", "", "bééb", []int64{0, 2, 0, 2}},
		{"never prepends", metaspace("never", true), "a b", []int64{0, 0, 2}},
		{"never keeps a typed space", metaspace("never", true), " a", []int64{1}},
		{"never, split", metaspace("never", true), "b a", []int64{2, 1}},
		{"first, unsplit", metaspace("first", false), "a b", []int64{1, 0, 2}},
		{"first, unsplit, b first", metaspace("first", false), "b a", []int64{0, 2, 1}},
		{"legacy add_prefix_space", `{"type":"Metaspace","replacement":"▁","add_prefix_space":true}`, "a b", []int64{1, 0, 2}},
		{"sequence of one", `{"type":"Sequence","pretokenizers":[` + metaspace("never", true) + `]}`, "b a", []int64{2, 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := editFile(t, "testdata/unigram.json")
			if tt.pre != "" {
				data = editFile(t, "testdata/unigram.json", "pre_tokenizer", tt.pre)
			}
			tok, err := Parse(data)
			if err != nil {
				t.Fatal(err)
			}
			enc := tok.Encode(tt.text, 0)
			if d := cmp.Diff(tt.want, enc.IDs, cmpEmpty); d != "" {
				t.Errorf("Encode(%q) ids (-want +got):\n%s", tt.text, d)
			}
			if d := cmp.Diff(make([]int64, len(enc.IDs)), enc.TypeIDs, cmpEmpty); d != "" {
				t.Errorf("type ids (-want +got):\n%s", d)
			}
		})
	}
}

var cmpEmpty = cmp.Comparer(func(a, b []int64) bool { return slices.Equal(a, b) })

func TestXLMRTemplate(t *testing.T) {
	tok := loadModel(t, "xlmr")
	if tok.PadID() != 1 || tok.VocabSize() != 4002 {
		t.Errorf("PadID %d, VocabSize %d, want 1, 4002", tok.PadID(), tok.VocabSize())
	}
	enc := tok.EncodePair("query", "passage", 0)
	names := tok.names(enc.IDs)
	if names[0] != "<s>" || names[len(names)-1] != "</s>" || !slices.Contains(names, "</s>") {
		t.Fatalf("EncodePair tokens %q, want <s> A </s> </s> B </s>", names)
	}
	if n := strings.Count(strings.Join(names, " "), "</s> </s>"); n != 1 {
		t.Errorf("EncodePair tokens %q: %d double </s>, want 1", names, n)
	}
	for _, id := range enc.TypeIDs {
		if id != 0 {
			t.Fatalf("type ids %v, want all 0 (XLM-R has one token type)", enc.TypeIDs)
		}
	}
	// RobertaProcessing writes the same layout.
	rob, err := Parse(editFile(t, "testdata/xlmr.json", "post_processor",
		`{"type":"RobertaProcessing","sep":["</s>",2],"cls":["<s>",0],"trim_offsets":true,"add_prefix_space":true}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, maxLen := range []int{0, 4, 5, 7} {
		want := tok.EncodePair("the query text", "a passage of text", maxLen)
		if got := rob.EncodePair("the query text", "a passage of text", maxLen); !cmp.Equal(want, got) {
			t.Errorf("maxLen %d: RobertaProcessing differs from the template (-want +got):\n%s", maxLen, cmp.Diff(want, got))
		}
	}
	// The legacy Metaspace form reads as prepend_scheme "always".
	legacy, err := Parse(editFile(t, "testdata/xlmr.json", "pre_tokenizer",
		`{"type":"Metaspace","replacement":"▁","add_prefix_space":true}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{"hello <mask>world", "  x  ", "Ａ\u0301 東京"} {
		if want, got := tok.Encode(text, 0), legacy.Encode(text, 0); !cmp.Equal(want, got) {
			t.Errorf("legacy Metaspace, %q (-want +got):\n%s", text, cmp.Diff(want, got))
		}
	}
}

// TestInvalidUTF8 checks that invalid bytes read as Python's
// decode("utf-8", errors="replace") reads them: one U+FFFD per maximal
// invalid subpart.
func TestInvalidUTF8(t *testing.T) {
	tests := []struct{ in, python string }{
		{"\xe2\x96x", "\ufffdx"},
		{"\xff\xfe", "\ufffd\ufffd"},
		{"a\xc3", "a\ufffd"},
		{"\xf0\x9f\x98", "\ufffd"},
		{"\xed\xa0\x80z", "\ufffd\ufffd\ufffdz"},
		{"\xe0\x80\x80", "\ufffd\ufffd\ufffd"},
		{"\xf4\x90\x80\x80", "\ufffd\ufffd\ufffd\ufffd"},
		{"\xc0\xaf ok \xef\xbf\xbd", "\ufffd\ufffd ok \ufffd"},
	}
	toks := map[string]*Tokenizer{"xlmr": loadModel(t, "xlmr"), "bytefallback": loadModel(t, "bytefallback")}
	for _, tt := range tests {
		if got := validUTF8(tt.in); got != tt.python {
			t.Errorf("validUTF8(%q) = %q, want %q", tt.in, got, tt.python)
		}
		for name, tok := range toks {
			if want, got := tok.Encode(tt.python, 0), tok.Encode(tt.in, 0); !cmp.Equal(want, got) {
				t.Errorf("%s: Encode(%q) = %v, want that of %q, %v", name, tt.in, got.IDs, tt.python, want.IDs)
			}
		}
	}
}

// TestGraphemeProbe compares the grapheme clusters of the Go tables with
// what the reference's Precompiled normalizer showed, for every BMP code
// point after a no-break space (see gen.py).
func TestGraphemeProbe(t *testing.T) {
	g := readGolden(t)
	p := g.GraphemeProbe
	if p.Base != "\u00a0" || len(p.Joins) < 50 {
		t.Fatalf("grapheme probe: base %q, %d join ranges; want U+00A0 and the Extend, ZWJ and SpacingMark ranges", p.Base, len(p.Joins))
	}
	in := func(ranges [][2]rune, r rune) bool {
		for _, rg := range ranges {
			if rg[0] <= r && r <= rg[1] {
				return true
			}
		}
		return false
	}
	checked, failed := 0, 0
	for r := rune(0x80); r < 0x10000; r++ {
		if 0xD800 <= r && r <= 0xDFFF || in(p.Unknown, r) {
			continue
		}
		checked++
		s := []byte(p.Base + string(r))
		want := in(p.Joins, r)
		if got := graphemeEnd(s, 0) == len(s); got != want {
			failed++
			if failed <= 20 {
				t.Errorf("U+%04X (props %#x): joins the cluster = %v, reference %v", r, graphemeProps(r), got, want)
			}
		}
	}
	if failed > 0 || checked < 60000 {
		t.Errorf("%d of %d code points differ", failed, checked)
	}
}

func TestGraphemeEnd(t *testing.T) {
	tests := []struct {
		name string
		s    string
		want []string // the clusters
	}{
		{"ascii", "ab", []string{"a", "b"}},
		{"crlf", "\r\n\n\r", []string{"\r\n", "\n", "\r"}},
		{"combining", "e\u0301\u0302x", []string{"e\u0301\u0302", "x"}},
		{"control breaks", "a\u0001\u0301", []string{"a", "\u0001", "\u0301"}},
		{"hangul", "\u1100\u1161\u11a8\uac00\u11a8\uac01\u1161", []string{"\u1100\u1161\u11a8", "\uac00\u11a8", "\uac01", "\u1161"}},
		{"emoji zwj", "\U0001f468\u200d\U0001f469x", []string{"\U0001f468\u200d\U0001f469", "x"}},
		{"zwj without pictograph", "a\u200d\U0001f469", []string{"a\u200d", "\U0001f469"}},
		{"flags pair up", "\U0001f1eb\U0001f1f7\U0001f1e9", []string{"\U0001f1eb\U0001f1f7", "\U0001f1e9"}},
		{"prepend", "\u0600a b", []string{"\u0600a", " ", "b"}},
		{"spacing mark", "\u0915\u093f", []string{"\u0915\u093f"}},
		{"indic conjunct", "\u0915\u094d\u0937x", []string{"\u0915\u094d\u0937", "x"}},
		{"virama without consonant", "a\u094d\u0937", []string{"a\u094d", "\u0937"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := []byte(tt.s)
			var got []string
			for i := 0; i < len(s); {
				end := graphemeEnd(s, i)
				got = append(got, string(s[i:end]))
				i = end
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("clusters of %+q (-want +got):\n%s", tt.s, d)
			}
		})
	}
}

func TestPrecompiledDamaged(t *testing.T) {
	// A charsmap whose trie is all ones must read as holding nothing.
	p, err := parsePrecompiled("EAAAAP////////////////////8=")
	if err != nil {
		t.Fatal(err)
	}
	if got := string(p.append(nil, []byte("abc é\r\n"))); got != "abc é\r\n" {
		t.Errorf("damaged charsmap changed the text to %q", got)
	}
	for _, bad := range []string{"not base64!", "AAA=", "CAAAAAAA"} {
		if _, err := parsePrecompiled(bad); err == nil {
			t.Errorf("parsePrecompiled(%q) succeeded, want an error", bad)
		}
	}
}

func TestReplaceAndStrip(t *testing.T) {
	lit, run, re := "ab", " {2,}", "[0-9]+"
	tests := []struct {
		name string
		step normStep
		in   string
		want string
	}{
		{"literal", mustReplace(t, &lit, nil, "X"), "abcabab a b", "XcXX a b"},
		{"space runs", mustReplace(t, nil, &run, " "), "a  b   c d    ", "a b c d "},
		{"space runs to metaspace", mustReplace(t, nil, &run, "▁"), "  a b  ", "▁a b▁"},
		{"general regex", mustReplace(t, nil, &re, "#"), "a1b22c333", "a#b#c#"},
		{"strip right", strip{right: true}, " \t a b \u3000\n", " \t a b"},
		{"strip both", strip{left: true, right: true}, "\u00a0 a b \u2003", "a b"},
		{"lowercase", lowercase{}, "ÀB ΣΑΣ İ", "àb σασ i̇"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(tt.step.append(nil, []byte(tt.in))); got != tt.want {
				t.Errorf("append(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
	if r := mustReplace(t, nil, &run, " "); !r.run.on || r.run.c != ' ' || r.run.min != 2 {
		t.Errorf("%q did not take the run fast path: %+v", run, r.run)
	}
}

func mustReplace(t *testing.T, literal, pattern *string, content string) *replace {
	t.Helper()
	r, err := newReplace(literal, pattern, content)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestUnigramParseErrors(t *testing.T) {
	tests := []struct {
		name        string
		kv          []string
		unsupported bool
		wantMsg     string
	}{
		{"no unk_id", []string{"model", `{"type":"Unigram","vocab":[["a",-1]]}`}, true, "without unk_id"},
		{"unk_id out of range", []string{"model", `{"type":"Unigram","unk_id":5,"vocab":[["a",-1]]}`}, false, "unk_id 5 out of range"},
		{"empty vocab", []string{"model", `{"type":"Unigram","unk_id":0,"vocab":[]}`}, false, "empty Unigram vocab"},
		{"bad vocab entry", []string{"model", `{"type":"Unigram","unk_id":0,"vocab":[["a"]]}`}, false, "Unigram vocab"},
		{"bert pre-tokenizer", []string{"pre_tokenizer", `{"type":"BertPreTokenizer"}`}, true, `pre_tokenizer "BertPreTokenizer" (want Metaspace with Unigram)`},
		{"no pre-tokenizer", []string{"pre_tokenizer", `null`}, true, "no pre_tokenizer"},
		{"bad prepend scheme", []string{"pre_tokenizer", `{"type":"Metaspace","replacement":"▁","prepend_scheme":"sometimes"}`}, false, `prepend_scheme "sometimes"`},
		{"add_prefix_space mismatch", []string{"pre_tokenizer", `{"type":"Metaspace","replacement":"▁","add_prefix_space":false}`}, false, "does not match"},
		{"long replacement", []string{"pre_tokenizer", `{"type":"Metaspace","replacement":"__"}`}, false, "want one character"},
		{"nfkc", []string{"normalizer", `{"type":"NFKC"}`}, true, `normalizer "NFKC"`},
		{"nfkc in a sequence", []string{"normalizer", `{"type":"Sequence","normalizers":[{"type":"Strip","strip_left":true,"strip_right":true},{"type":"NFKC"}]}`}, true, `normalizer "NFKC"`},
		{"bad charsmap", []string{"normalizer", `{"type":"Precompiled","precompiled_charsmap":"%%%"}`}, false, "precompiled_charsmap"},
		{"bad regex", []string{"normalizer", `{"type":"Replace","pattern":{"Regex":"(?<=a)b"},"content":""}`}, true, "Replace normalizer pattern"},
		{"empty literal", []string{"normalizer", `{"type":"Replace","pattern":{"String":""},"content":"x"}`}, false, "empty pattern"},
		{"bad decoder metaspace", []string{"decoder", `{"type":"Metaspace","replacement":"▁","prepend_scheme":"x"}`}, false, "decoder Metaspace prepend_scheme"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantParseError(t, editFile(t, "testdata/unigram.json", tt.kv...), tt.unsupported, tt.wantMsg)
		})
	}
}

func TestDecode(t *testing.T) {
	tiny := loadTiny(t)
	tests := []struct {
		name string
		tok  *Tokenizer
		ids  []int64
		want string
	}{
		// Expected strings from the reference's decode(ids, skip_special_tokens=True).
		{"wordpiece glue and cleanup", tiny, tiny.Encode("Hello, worlds! unaffable", 0).IDs, "hello, worlds! unaffable"},
		{"specials and bad ids skipped", tiny, []int64{2, 5, -1, 999, 3, 6}, "hello world"},
		{"metaspace", loadModel(t, "xlmr"), loadModel(t, "xlmr").Encode("  x  ", 0).IDs, "x "},
		{"no decoder joins with spaces", mustParse(t, editFile(t, "testdata/unigram.json")), []int64{1, 0, 2}, "▁a <unk> b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.tok.Decode(tt.ids)
			if err != nil || got != tt.want {
				t.Errorf("Decode(%v) = %q, %v, want %q", tt.ids, got, err, tt.want)
			}
		})
	}
	bpe, err := Parse(editFile(t, "testdata/tiny.json", "decoder", `{"type":"ByteLevel"}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bpe.Decode([]int64{5}); !errors.Is(err, ErrUnsupported) {
		t.Errorf("Decode with a ByteLevel decoder: %v, want ErrUnsupported", err)
	}
}

func mustParse(t *testing.T, data []byte) *Tokenizer {
	t.Helper()
	tok, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// TestAddedTokenFlags checks lstrip, rstrip and single_word against the
// reference's behaviour on the xlmr fixture (<mask> has lstrip).
func TestAddedTokenFlags(t *testing.T) {
	tok := loadModel(t, "xlmr")
	mask := int32(4001)
	m := newMatcher([]addedToken{
		{content: "<mask>", id: mask, lstrip: true},
		{content: "<r>", id: 7, rstrip: true},
		{content: "<w>", id: 8, singleWord: true},
	})
	tests := []struct {
		s                string
		start, end, next int
		id               int32
		ok               bool
	}{
		{"ab  <mask>cd", 2, 10, 10, mask, true},
		{"<r> \t x", 0, 6, 3, 7, true},
		{"x<w> <w>", 5, 8, 8, 8, true},
		{"é<w>", 0, 0, 0, 0, false},
		{"none here", 0, 0, 0, 0, false},
	}
	for _, tt := range tests {
		start, end, next, id, ok := nextAdded(m, tt.s, 0, 0)
		if start != tt.start || end != tt.end || next != tt.next || id != tt.id || ok != tt.ok {
			t.Errorf("nextAdded(%q) = %d, %d, %d, %d, %v, want %d, %d, %d, %d, %v",
				tt.s, start, end, next, id, ok, tt.start, tt.end, tt.next, tt.id, tt.ok)
		}
	}
	// lstrip never reaches back over the previous token.
	if start, _, _, _, _ := nextAdded(m, "<mask>  <mask>", 6, 6); start != 6 {
		t.Errorf("second lstrip match starts at %d, want 6", start)
	}
	a, b := tok.Encode("hello <mask>", 0), tok.Encode("hello<mask>", 0)
	if !cmp.Equal(a, b) {
		t.Errorf("lstrip: %v and %v differ", a.IDs, b.IDs)
	}
}

func BenchmarkEncodeUnigram(b *testing.B) {
	tok := loadModel(b, "xlmr")
	benchSizes(b, tok)
	b.Run("pair/maxLen512", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(benchParagraph)) + 40)
		for b.Loop() {
			tok.EncodePair("what does reciprocal rank fusion do?", benchParagraph, 512)
		}
	})
	text := strings.Repeat("Café naïve Ångström Straße. 東京は日本の首都です。안녕하세요 세계! Привет, мир! Καλημέρα κόσμε. ", 20)
	b.Run("multilingual", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(text)))
		for b.Loop() {
			tok.Encode(text, 0)
		}
	})
}

// BenchmarkParseUnigram loads the xlmr fixture (4k pieces) and a synthetic
// one of XLM-R's size (250k pieces, random words over several scripts).
func BenchmarkParseUnigram(b *testing.B) {
	small, err := os.ReadFile("testdata/xlmr.json")
	if err != nil {
		b.Fatal(err)
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(small, &doc); err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	alpha := []rune("abcdefghijklmnopqrstuvwxyzéàüößабвгдежзийклмнопрстуфхцчшщ東京日本語中文한국어ابتثجحخدذرزسشصضطظعغفقكلمنهوي")
	seen := map[string]bool{}
	var vocab strings.Builder
	vocab.WriteString(`[["<s>",0.0],["<pad>",0.0],["</s>",0.0],["<unk>",0.0]`)
	for len(seen) < 250000 {
		var w strings.Builder
		if rng.IntN(2) == 0 {
			w.WriteString("▁")
		}
		for range 1 + rng.IntN(10) {
			w.WriteRune(alpha[rng.IntN(len(alpha))])
		}
		if seen[w.String()] {
			continue
		}
		seen[w.String()] = true
		fmt.Fprintf(&vocab, ",[%q,%g]", w.String(), -5-10*rng.Float64())
	}
	vocab.WriteString("]")
	doc["model"] = json.RawMessage(`{"type":"Unigram","unk_id":3,"byte_fallback":false,"vocab":` + vocab.String() + `}`)
	large, err := json.Marshal(doc)
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name string
		data []byte
	}{{"4k", small}, {"250k", large}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(c.data)))
			var tok *Tokenizer
			for b.Loop() {
				if tok, err = Parse(c.data); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(tok.uni.trie.units)), "states")
		})
	}
}

func TestParseVocab(t *testing.T) {
	got, err := parseVocab([]byte(" [ [\"a\", -1.5] ,\n\t[\"\\\"q\\u00e9\\\\\", 0.0],[\"▁b\",-2e-05],[\"x\",3]] "), false)
	if err != nil {
		t.Fatal(err)
	}
	want := []vocabEntry{{"a", -1.5}, {"\"qé\\", 0}, {"▁b", -2e-05}, {"x", 3}}
	if d := cmp.Diff(want, got, cmp.AllowUnexported(vocabEntry{})); d != "" {
		t.Errorf("parseVocab (-want +got):\n%s", d)
	}
	if got, err := parseVocab([]byte("[]"), false); err != nil || len(got) != 0 {
		t.Errorf("parseVocab([]) = %v, %v, want empty", got, err)
	}
	for _, bad := range []string{``, `{}`, `[["a"]]`, `[["a",]]`, `[["a",1],]`, `[["a",1]] x`, `[[1,1]]`, `[["a",1e]]`, `[["a`, "[[\"a\tb\",1]]", `[["a",1]`} {
		if got, err := parseVocab([]byte(bad), false); err == nil {
			t.Errorf("parseVocab(%q) = %v, want an error", bad, got)
		}
	}
}
