package settings

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Setting describes one setting for braid config list and the configure
// tool.
type Setting struct {
	Name    string `json:"name"`
	Value   string `json:"value"`   // in effect: the index's, or the default
	Default string `json:"default"` // built in
	Set     bool   `json:"set"`     // the index sets it
	Allowed string `json:"allowed"` // what set accepts
	Help    string `json:"help"`
}

// String is the setting on one line: "*" when the index sets it, then
// its name, value, help, default and what it accepts. Table lines up a
// list of them.
func (s Setting) String() string { return s.line(len(s.Name), len(s.Value)) }

// line is s with its name and value padded to the widths given.
func (s Setting) line(name, value int) string {
	mark := " "
	if s.Set {
		mark = "*"
	}
	return fmt.Sprintf("%s %-*s  %-*s  %s (default %s; %s)", mark, name, s.Name, value, s.Value, s.Help, s.Default, s.Allowed)
}

// Table is the settings as braid config list prints them, one a line
// (String), the name and value columns as wide as their widest cell, so
// a long name (query_instruction) or value (a tuned weight such as
// 0.6123) does not push its row out of line.
func Table(list []Setting) string {
	name, value := 0, 0
	for _, s := range list {
		name, value = max(name, utf8.RuneCountInString(s.Name)), max(value, utf8.RuneCountInString(s.Value))
	}
	var b strings.Builder
	for _, s := range list {
		b.WriteString(s.line(name, value))
		b.WriteByte('\n')
	}
	return b.String()
}

// ErrUnknown is the error for a setting name braid does not have.
var ErrUnknown = errors.New("unknown setting")

// RangeError is a value a setting does not accept.
type RangeError struct {
	Name, Value string
	Allowed     string // what the setting accepts
}

func (e *RangeError) Error() string {
	return fmt.Sprintf("%s %q is out of range; want %s", e.Name, e.Value, e.Allowed)
}

// def is how one setting is read, checked and written.
type def struct {
	name, allowed, help string
	// builtIn is the built-in default; rerankBudget is the reranker's own
	// budget, which is rerank_budget's.
	builtIn func(rerankBudget time.Duration) string
	get     func(v *Values) (string, bool)
	set     func(v *Values, s string) error // s == "" resets
}

var defs = []def{
	{"vector_weight", "auto (chosen per query) or " + VectorWeightBound.Allowed, "the vector weight of a search that names none",
		func(time.Duration) string { return Auto },
		func(v *Values) (string, bool) { return optString(v.VectorWeight, fmtFloat) },
		func(v *Values, s string) error {
			if strings.TrimSpace(s) == Auto {
				s = "" // auto is the built-in default: no fixed weight
			}
			return setParsed(&v.VectorWeight, s, VectorWeightBound.float)
		}},
	{"fusion", fusionAllowed, "how a search that names none combines the keyword and vector lists",
		func(time.Duration) string { return string(FusionLinear) },
		func(v *Values) (string, bool) {
			return optString(v.Fusion, func(f Fusion) string { return string(f) })
		},
		func(v *Values, s string) error {
			return setParsed(&v.Fusion, s, func(s string) (Fusion, bool) {
				return Fusion(s), s != "" && Fusion(s).Check() == nil
			})
		}},
	{"normalize", normalizeAllowed, "how linear fusion puts the two lists' scores on one scale",
		func(time.Duration) string { return string(NormMinMax) },
		func(v *Values) (string, bool) {
			return optString(v.Normalize, func(n Normalization) string { return string(n) })
		},
		func(v *Values, s string) error {
			return setParsed(&v.Normalize, s, func(s string) (Normalization, bool) {
				return Normalization(s), s != "" && Normalization(s).Check() == nil
			})
		}},
	{"doc_evidence", DocEvidenceBound.Allowed, "how much a document's other matching chunks add to its best one",
		func(time.Duration) string { return fmtFloat(DefaultDocEvidence) },
		func(v *Values) (string, bool) { return optString(v.DocEvidence, fmtFloat) },
		func(v *Values, s string) error { return setParsed(&v.DocEvidence, s, DocEvidenceBound.float) }},
	{"link_prior", LinkPriorBound.Allowed, "how much notes that many others link to are favoured",
		func(time.Duration) string { return fmtFloat(DefaultLinkPrior) },
		func(v *Values) (string, bool) { return optString(v.LinkPrior, fmtFloat) },
		func(v *Values, s string) error { return setParsed(&v.LinkPrior, s, LinkPriorBound.float) }},
	{"title_weight", TitleWeightBound.Allowed, "the BM25 weight of a word found in a note's title or path, beside the body's 1",
		func(time.Duration) string { return fmtFloat(DefaultTitleWeight) },
		func(v *Values) (string, bool) { return optString(v.TitleWeight, fmtFloat) },
		func(v *Values, s string) error { return setParsed(&v.TitleWeight, s, TitleWeightBound.float) }},
	{"heading_weight", HeadingWeightBound.Allowed, "the BM25 weight of a word found in a chunk's headings, beside the body's 1",
		func(time.Duration) string { return fmtFloat(DefaultHeadingWeight) },
		func(v *Values) (string, bool) { return optString(v.HeadingWeight, fmtFloat) },
		func(v *Values, s string) error { return setParsed(&v.HeadingWeight, s, HeadingWeightBound.float) }},
	{"query_instruction", "true or false", "whether a query goes to the embedding model with the model's retrieval instruction",
		func(time.Duration) string { return "true" },
		func(v *Values) (string, bool) { return optString(v.QueryInstruction, strconv.FormatBool) },
		func(v *Values, s string) error { return setParsed(&v.QueryInstruction, s, parseBool) }},
	{"limit", LimitBound.Allowed, "how many results a search returns when it names no limit",
		func(time.Duration) string { return strconv.Itoa(DefaultLimit) },
		func(v *Values) (string, bool) { return optString(v.Limit, strconv.Itoa) },
		func(v *Values, s string) error { return setParsed(&v.Limit, s, LimitBound.int) }},
	{"candidates", CandidatesBound.Allowed, "how many chunks each retriever hands to fusion",
		func(time.Duration) string { return strconv.Itoa(DefaultCandidates) },
		func(v *Values) (string, bool) { return optString(v.Candidates, strconv.Itoa) },
		func(v *Values, s string) error { return setParsed(&v.Candidates, s, CandidatesBound.int) }},
	{"rerank", "true or false", "whether searches go through the cross-encoder (when one is installed)",
		func(time.Duration) string { return "true" },
		func(v *Values) (string, bool) { return optString(v.Rerank, strconv.FormatBool) },
		func(v *Values, s string) error { return setParsed(&v.Rerank, s, parseBool) }},
	{"rerank_budget", "a duration from 0 (no limit) to 10s, such as 250ms", "the time the cross-encoder may take per search",
		func(budget time.Duration) string { return budget.String() },
		func(v *Values) (string, bool) {
			return optString(v.RerankBudget, func(m Millis) string { return time.Duration(m).String() })
		},
		func(v *Values, s string) error {
			return setParsed(&v.RerankBudget, s, func(s string) (Millis, bool) {
				d, err := time.ParseDuration(s)
				return Millis(d), err == nil && d >= 0 && d <= 10*time.Second
			})
		}},
	{"watch", "true or false", "whether braid serve keeps every source indexed as files change (as serve --watch)",
		func(time.Duration) string { return "false" },
		func(v *Values) (string, bool) { return optString(v.Watch, strconv.FormatBool) },
		func(v *Values, s string) error { return setParsed(&v.Watch, s, parseBool) }},
	{"name", "any text of 1 to 200 characters, no control characters", "the index's name, as get_organization_info reports it",
		func(time.Duration) string { return MachineDefault },
		func(v *Values) (string, bool) { return optString(v.Name, ident) },
		func(v *Values, s string) error { return setParsed(&v.Name, s, parseName) }},
	{"language", "a BCP 47 language tag such as en, de or pt-BR", "the index's default language, as get_organization_info reports it",
		func(time.Duration) string { return MachineDefault },
		func(v *Values) (string, bool) { return optString(v.Language, ident) },
		func(v *Values, s string) error { return setParsed(&v.Language, s, parseLanguage) }},
	{"timezone", "an IANA time zone such as UTC or Europe/Berlin", "the index's time zone, as get_organization_info reports it and get_current_datetime uses by default",
		func(time.Duration) string { return MachineDefault },
		func(v *Values) (string, bool) { return optString(v.TimeZone, ident) },
		func(v *Values, s string) error { return setParsed(&v.TimeZone, s, parseZone) }},
}

// MachineDefault is the built-in value of the identity settings (name,
// language, timezone): the engine fills in the index folder's name and
// the machine's language and time zone.
const MachineDefault = "(this machine's)"

func ident(s string) string { return s }

func parseName(s string) (string, bool) {
	if s == "" || utf8.RuneCountInString(s) > 200 || !utf8.ValidString(s) {
		return "", false
	}
	for _, r := range s {
		if unicode.IsControl(r) {
			return "", false
		}
	}
	return s, true
}

// parseLanguage accepts a BCP 47 tag's shape: a 2 or 3 letter language,
// then subtags of 1 to 8 letters or digits, joined by - (or _, as in
// locale names, which it turns into -).
func parseLanguage(s string) (string, bool) {
	parts := strings.Split(strings.ReplaceAll(s, "_", "-"), "-")
	if l := len(parts[0]); l < 2 || l > 3 {
		return "", false
	}
	for i, p := range parts {
		if p == "" || len(p) > 8 {
			return "", false
		}
		for _, r := range p {
			if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
				return "", false
			}
		}
	}
	parts[0] = strings.ToLower(parts[0])
	return strings.Join(parts, "-"), true
}

// parseZone accepts a time zone the Go runtime can load.
func parseZone(s string) (string, bool) {
	if s == "" || s == "Local" || strings.Contains(s, "..") {
		return "", false
	}
	_, err := time.LoadLocation(s)
	return s, err == nil
}

// tuned are the settings braid tune chooses.
var tuned = map[string]bool{"vector_weight": true, "fusion": true, "normalize": true, "candidates": true,
	"doc_evidence": true, "link_prior": true, "query_instruction": true, "title_weight": true, "heading_weight": true}

// Names lists the settings' names, sorted.
func Names() []string {
	names := make([]string, len(defs))
	for i, d := range defs {
		names[i] = d.name
	}
	sort.Strings(names)
	return names
}

// Sort orders names for setting several at once: those of settings braid
// has, sorted, then the others (whose Set fails), each name once.
func Sort(names []string) []string {
	out := slices.Clone(names)
	rank := func(name string) int { // the settings braid has first
		if find(name) == nil {
			return 1
		}
		return 0
	}
	slices.SortFunc(out, func(a, b string) int {
		return cmp.Or(cmp.Compare(rank(a), rank(b)), strings.Compare(a, b))
	})
	return slices.Compact(out)
}

// Find is the setting called name in list (as List gives them), or an
// error wrapping ErrUnknown that names the settings.
func Find(list []Setting, name string) (*Setting, error) {
	for i := range list {
		if list[i].Name == name {
			return &list[i], nil
		}
	}
	return nil, fmt.Errorf("%w %q; the settings are %s", ErrUnknown, name, strings.Join(Names(), ", "))
}

func find(name string) *def {
	for i := range defs {
		if defs[i].name == name {
			return &defs[i]
		}
	}
	return nil
}

// Set checks value and sets the named setting; an empty value resets it
// to the built-in default. Setting one of the search settings braid tune
// chooses drops the Tuned record. A name braid does not have is
// ErrUnknown, a value the setting does not accept a *RangeError; either
// way v is unchanged.
func (v *Values) Set(name, value string) error {
	d := find(name)
	if d == nil {
		return fmt.Errorf("%w %q; the settings are %s", ErrUnknown, name, strings.Join(Names(), ", "))
	}
	if err := d.set(v, value); err != nil {
		return &RangeError{Name: name, Value: value, Allowed: d.allowed}
	}
	if tuned[name] {
		v.Tuned = nil
	}
	return nil
}

// List describes every setting, in the order braid config list shows
// them: its value in effect, the built-in default, whether v sets it,
// and what it accepts. rerankBudget is the built-in rerank_budget: the
// reranker's own, or DefaultRerankBudget without one.
func (v *Values) List(rerankBudget time.Duration) []Setting {
	out := make([]Setting, 0, len(defs))
	for _, d := range defs {
		def := d.builtIn(rerankBudget)
		val, set := d.get(v)
		if !set {
			val = def
		}
		out = append(out, Setting{Name: d.name, Value: val, Default: def, Set: set, Allowed: d.allowed, Help: d.help})
	}
	return out
}

// check reports the first value in v that Set would refuse.
func (v *Values) check() *RangeError {
	for _, d := range defs {
		if s, ok := d.get(v); ok {
			if err := d.set(&Values{}, s); err != nil {
				return &RangeError{Name: d.name, Value: s, Allowed: d.allowed}
			}
		}
	}
	return nil
}

func fmtFloat(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

func optString[T any](p *T, f func(T) string) (string, bool) {
	if p == nil {
		return "", false
	}
	return f(*p), true
}

// setParsed sets *dst from s when parse accepts it; "" resets it.
func setParsed[T any](dst **T, s string, parse func(string) (T, bool)) error {
	if s == "" {
		*dst = nil
		return nil
	}
	x, ok := parse(strings.TrimSpace(s))
	if !ok {
		return errBadValue
	}
	*dst = &x
	return nil
}

var errBadValue = errors.New("bad value")

func parseBool(s string) (bool, bool) {
	b, err := strconv.ParseBool(s)
	return b, err == nil
}
