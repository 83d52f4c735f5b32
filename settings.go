package braid

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Settings are the defaults an index keeps: what a search that names no
// value of its own uses, and whether a server on the index watches its
// sources. They live in the index directory (settings.json), so every
// process on the index (the CLI, braid serve, batch) answers alike, and
// braid config (or the MCP configure tool) changes them at run time.
// Precedence: a value a search names > the index's setting > braid's
// built-in default. A nil field means the built-in default.
type Settings struct {
	VectorWeight     *float64       `json:"vector_weight,omitempty"`     // 0..1; built in: DefaultVectorWeight
	Fusion           *Fusion        `json:"fusion,omitempty"`            // linear or rrf; built in: linear
	Normalize        *Normalization `json:"normalize,omitempty"`         // minmax or zscore; built in: minmax
	DocEvidence      *float64       `json:"doc_evidence,omitempty"`      // 0..1; built in: DefaultDocEvidence
	LinkPrior        *float64       `json:"link_prior,omitempty"`        // 0..1; built in: DefaultLinkPrior
	QueryInstruction *bool          `json:"query_instruction,omitempty"` // built in: true
	Limit            *int           `json:"limit,omitempty"`             // 1..100; built in: 10
	Candidates       *int           `json:"candidates,omitempty"`        // 10..1000; built in: 50
	Rerank           *bool          `json:"rerank,omitempty"`            // built in: true (when a cross-encoder is installed)
	RerankBudget     *Millis        `json:"rerank_budget,omitempty"`     // 0 (no limit) ..10s; built in: the reranker's own (250ms)
	Watch            *bool          `json:"watch,omitempty"`             // braid serve watches every source; built in: false
	// Tuned says where the search settings came from when braid tune
	// saved them (SaveTuned); braid config set of a search setting
	// clears it, since the record would no longer be true.
	Tuned *Tuned `json:"tuned,omitempty"`
}

// Tuned records a braid tune that saved the index's search settings: on
// which judged queries, and how they scored before and after.
type Tuned struct {
	From    string  `json:"from"`   // the query set and split, e.g. "BEIR scifact, split train"
	At      string  `json:"at"`     // when, RFC 3339
	Metric  string  `json:"metric"` // what was maximised, e.g. "nDCG@10"
	Before  float64 `json:"before"` // with the settings in effect before
	After   float64 `json:"after"`  // with the saved ones
	Queries int     `json:"queries"`
}

// Millis is a duration kept as a string such as "250ms" in JSON.
type Millis time.Duration

func (m Millis) MarshalJSON() ([]byte, error) { return json.Marshal(time.Duration(m).String()) }

func (m *Millis) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	d, err := time.ParseDuration(s)
	*m = Millis(d)
	return err
}

// Built-in defaults: of the settings, and of the options that have none.
// The CLI's flags, the MCP tools, batch and braid config all read these
// (with DefaultVectorWeight, DefaultDocEvidence and DefaultLinkPrior);
// none restates them.
const (
	DefaultLimit        = 10
	DefaultCandidates   = 50
	DefaultRerankBudget = 250 * time.Millisecond
	// DefaultRerankTop is how many fused candidates the reranker reads
	// (Options.RerankTop).
	DefaultRerankTop = 50
	// DefaultSimilarity is how similar a word must be to match a fuzzy
	// search (SearchOptions.Similarity).
	DefaultSimilarity = 0.8
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

// settingDef is how one setting is read, checked and written.
type settingDef struct {
	name, allowed, help string
	builtIn             func(e *Engine) string
	get                 func(s *Settings) (string, bool)
	set                 func(s *Settings, v string) error // v == "" resets
}

var settingDefs = []settingDef{
	{"vector_weight", "a number from 0 (keywords only) to 1 (meaning only)", "the vector weight of a search that names none",
		func(*Engine) string { return fmtFloat(DefaultVectorWeight) },
		func(s *Settings) (string, bool) { return optString(s.VectorWeight, fmtFloat) },
		func(s *Settings, v string) error {
			return setParsed(&s.VectorWeight, v, func(v string) (float64, bool) {
				f, err := strconv.ParseFloat(v, 64)
				return f, err == nil && !math.IsNaN(f) && f >= 0 && f <= 1
			})
		}},
	{"fusion", "linear or rrf", "how a search that names none combines the keyword and vector lists",
		func(*Engine) string { return string(FusionLinear) },
		func(s *Settings) (string, bool) {
			return optString(s.Fusion, func(f Fusion) string { return string(f) })
		},
		func(s *Settings, v string) error {
			return setParsed(&s.Fusion, v, func(v string) (Fusion, bool) { return Fusion(v), v == "linear" || v == "rrf" })
		}},
	{"normalize", "minmax or zscore", "how linear fusion puts the two lists' scores on one scale",
		func(*Engine) string { return string(NormMinMax) },
		func(s *Settings) (string, bool) {
			return optString(s.Normalize, func(n Normalization) string { return string(n) })
		},
		func(s *Settings, v string) error {
			return setParsed(&s.Normalize, v, func(v string) (Normalization, bool) {
				return Normalization(v), v == string(NormMinMax) || v == string(NormZScore)
			})
		}},
	{"doc_evidence", "a number from 0 (off) to 1", "how much a document's other matching chunks add to its best one",
		func(*Engine) string { return fmtFloat(DefaultDocEvidence) },
		func(s *Settings) (string, bool) { return optString(s.DocEvidence, fmtFloat) },
		func(s *Settings, v string) error { return setParsed(&s.DocEvidence, v, floatIn(0, 1)) }},
	{"link_prior", "a number from 0 (off) to 1", "how much notes that many others link to are favoured",
		func(*Engine) string { return fmtFloat(DefaultLinkPrior) },
		func(s *Settings) (string, bool) { return optString(s.LinkPrior, fmtFloat) },
		func(s *Settings, v string) error { return setParsed(&s.LinkPrior, v, floatIn(0, 1)) }},
	{"query_instruction", "true or false", "whether a query goes to the embedding model with the model's retrieval instruction",
		func(*Engine) string { return "true" },
		func(s *Settings) (string, bool) { return optString(s.QueryInstruction, strconv.FormatBool) },
		func(s *Settings, v string) error { return setParsed(&s.QueryInstruction, v, parseBool) }},
	{"limit", "a whole number from 1 to 100", "how many results a search returns when it names no limit",
		func(*Engine) string { return strconv.Itoa(DefaultLimit) },
		func(s *Settings) (string, bool) { return optString(s.Limit, strconv.Itoa) },
		func(s *Settings, v string) error { return setParsed(&s.Limit, v, intIn(1, 100)) }},
	{"candidates", "a whole number from 10 to 1000", "how many chunks each retriever hands to fusion",
		func(*Engine) string { return strconv.Itoa(DefaultCandidates) },
		func(s *Settings) (string, bool) { return optString(s.Candidates, strconv.Itoa) },
		func(s *Settings, v string) error { return setParsed(&s.Candidates, v, intIn(10, 1000)) }},
	{"rerank", "true or false", "whether searches go through the cross-encoder (when one is installed)",
		func(*Engine) string { return "true" },
		func(s *Settings) (string, bool) { return optString(s.Rerank, strconv.FormatBool) },
		func(s *Settings, v string) error { return setParsed(&s.Rerank, v, parseBool) }},
	{"rerank_budget", "a duration from 0 (no limit) to 10s, such as 250ms", "the time the cross-encoder may take per search",
		func(e *Engine) string {
			if e != nil && e.opt.Reranker != nil {
				return e.opt.Reranker.Budget().String()
			}
			return DefaultRerankBudget.String()
		},
		func(s *Settings) (string, bool) {
			return optString(s.RerankBudget, func(m Millis) string { return time.Duration(m).String() })
		},
		func(s *Settings, v string) error {
			return setParsed(&s.RerankBudget, v, func(v string) (Millis, bool) {
				d, err := time.ParseDuration(v)
				return Millis(d), err == nil && d >= 0 && d <= 10*time.Second
			})
		}},
	{"watch", "true or false", "whether braid serve keeps every source indexed as files change (as serve --watch)",
		func(*Engine) string { return "false" },
		func(s *Settings) (string, bool) { return optString(s.Watch, strconv.FormatBool) },
		func(s *Settings, v string) error { return setParsed(&s.Watch, v, parseBool) }},
}

func fmtFloat(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

func optString[T any](p *T, f func(T) string) (string, bool) {
	if p == nil {
		return "", false
	}
	return f(*p), true
}

// setParsed sets *dst from v when parse accepts it; "" resets it.
func setParsed[T any](dst **T, v string, parse func(string) (T, bool)) error {
	if v == "" {
		*dst = nil
		return nil
	}
	x, ok := parse(strings.TrimSpace(v))
	if !ok {
		return errBadValue
	}
	*dst = &x
	return nil
}

var errBadValue = errors.New("bad value")

func floatIn(lo, hi float64) func(string) (float64, bool) {
	return func(v string) (float64, bool) {
		f, err := strconv.ParseFloat(v, 64)
		return f, err == nil && !math.IsNaN(f) && f >= lo && f <= hi
	}
}

func intIn(lo, hi int) func(string) (int, bool) {
	return func(v string) (int, bool) {
		n, err := strconv.Atoi(v)
		return n, err == nil && n >= lo && n <= hi
	}
}

func parseBool(v string) (bool, bool) {
	b, err := strconv.ParseBool(v)
	return b, err == nil
}

// ErrUnknownSetting is the error for a setting name braid does not have.
var ErrUnknownSetting = errors.New("braid: unknown setting")

// settingsFile holds an index's settings.
const settingsFile = "settings.json"

// loadSettings reads the index's settings; a missing file means none set.
func loadSettings(dir string) (*Settings, error) {
	data, err := os.ReadFile(filepath.Join(dir, settingsFile))
	if errors.Is(err, os.ErrNotExist) {
		return &Settings{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("braid: read %s: %w", settingsFile, err)
	}
	return parseSettings(data, settingsFile+" in "+dir, "fix it, or delete it to go back to the default settings")
}

// parseSettings decodes settings kept at where, checking each value as
// braid config set would; fix says how to mend a damaged one.
func parseSettings(data []byte, where, fix string) (*Settings, error) {
	s := &Settings{}
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(s); err != nil {
		return nil, fmt.Errorf("braid: %s is damaged (%v); %s", where, err, fix)
	}
	// Values written by hand are checked as braid config set checks them.
	for _, d := range settingDefs {
		if v, ok := d.get(s); ok {
			if err := d.set(&Settings{}, v); err != nil {
				return nil, fmt.Errorf("braid: %s: %s %q is out of range, want %s; fix it with braid config set", where, d.name, v, d.allowed)
			}
		}
	}
	return s, nil
}

// Config is the index's settings: the defaults its searches take when
// they name none, kept in the index (settings.json, or the cluster
// index's metadata).
type Config struct{ e *Engine }

// Config is the index's settings.
func (e *Engine) Config() *Config { return &Config{e} }

// Values returns the index's settings (a copy).
func (c *Config) Values() Settings { return c.e.currentSettings() }

func (e *Engine) currentSettings() Settings {
	e.settingsMu.RLock()
	defer e.settingsMu.RUnlock()
	return *e.settings
}

// List describes every setting: its value in effect, the built-in
// default, whether the index sets it, and what it accepts.
func (c *Config) List() []Setting {
	s := c.e.currentSettings()
	return c.e.settingList(&s)
}

// SettingNames lists the settings' names.
func SettingNames() []string {
	names := make([]string, len(settingDefs))
	for i, d := range settingDefs {
		names[i] = d.name
	}
	sort.Strings(names)
	return names
}

// Set checks and changes one setting and saves the index's settings at
// once; an empty value resets it to the built-in default. It takes effect
// for the searches that start after it.
func (c *Config) Set(name, value string) (*Setting, error) {
	e := c.e
	if e.opt.ReadOnly {
		return nil, ErrReadOnly
	}
	var def *settingDef
	for i := range settingDefs {
		if settingDefs[i].name == name {
			def = &settingDefs[i]
		}
	}
	if def == nil {
		return nil, fmt.Errorf("%w %q; the settings are %s", ErrUnknownSetting, name, strings.Join(SettingNames(), ", "))
	}
	e.settingsMu.Lock()
	defer e.settingsMu.Unlock()
	next := *e.settings
	if err := def.set(&next, value); err != nil {
		return nil, fmt.Errorf("%w: %s %q is out of range; want %s", ErrBadOption, name, value, def.allowed)
	}
	if tunedSettings[name] {
		next.Tuned = nil
	}
	if err := e.saveSettings(&next); err != nil {
		return nil, err
	}
	for _, s := range e.settingList(&next) {
		if s.Name == name {
			return &s, nil
		}
	}
	return nil, nil
}

// tunedSettings are the settings braid tune chooses.
var tunedSettings = map[string]bool{"vector_weight": true, "fusion": true, "normalize": true, "candidates": true,
	"doc_evidence": true, "link_prior": true, "query_instruction": true}

// saveSettings writes next and makes it the index's settings; the caller
// holds settingsMu.
func (e *Engine) saveSettings(next *Settings) error {
	data, err := json.MarshalIndent(next, "", "  ")
	if err != nil {
		return err
	}
	if e.cl != nil {
		err = e.cl.x.SetMeta(context.Background(), "settings", data)
	} else {
		err = writeFileAtomic(filepath.Join(e.dir, settingsFile), append(data, '\n'))
	}
	if err != nil {
		return fmt.Errorf("braid: save settings: %w", err)
	}
	e.settings = next
	return nil
}

// Tuning is what braid tune chooses: the fusion settings and the
// strengths of the ranking signals.
type Tuning struct {
	VectorWeight *float64 // nil: left unset (an index searched without a model)
	Fusion       Fusion
	Normalize    Normalization
	Candidates   int
	DocEvidence  float64
	LinkPrior    float64
	// QueryInstruction nil leaves query_instruction unset.
	QueryInstruction *bool
}

// SaveTuned stores settings braid tune chose, with where they came from,
// as the index's defaults (a search's own options still win). The other
// settings are kept.
func (c *Config) SaveTuned(t Tuning, from Tuned) error {
	e := c.e
	if e.opt.ReadOnly {
		return ErrReadOnly
	}
	e.settingsMu.Lock()
	defer e.settingsMu.Unlock()
	next := *e.settings
	next.VectorWeight, next.Fusion, next.Normalize, next.Candidates = t.VectorWeight, &t.Fusion, &t.Normalize, &t.Candidates
	next.DocEvidence, next.LinkPrior, next.QueryInstruction = &t.DocEvidence, &t.LinkPrior, t.QueryInstruction
	if t.Fusion == FusionRRF {
		next.Normalize = nil // RRF uses ranks, not scores
	}
	next.Tuned = &from
	return e.saveSettings(&next)
}

func (e *Engine) settingList(s *Settings) []Setting {
	out := make([]Setting, 0, len(settingDefs))
	for _, d := range settingDefs {
		def := d.builtIn(e)
		v, set := d.get(s)
		if !set {
			v = def
		}
		out = append(out, Setting{Name: d.name, Value: v, Default: def, Set: set, Allowed: d.allowed, Help: d.help})
	}
	return out
}

// withSettings fills what a search leaves open from the index's settings.
func (e *Engine) withSettings(opt SearchOptions) SearchOptions {
	s := e.currentSettings()
	if opt.VectorWeight == nil && s.VectorWeight != nil {
		w := *s.VectorWeight
		opt.VectorWeight = &w
		opt.weightFromSettings = true
	}
	if opt.Fusion == "" && s.Fusion != nil {
		opt.Fusion = *s.Fusion
	}
	if opt.Normalize == "" && s.Normalize != nil {
		opt.Normalize = *s.Normalize
	}
	if opt.DocEvidence == nil && s.DocEvidence != nil {
		v := *s.DocEvidence
		opt.DocEvidence = &v
	}
	if opt.QueryInstruction == nil && s.QueryInstruction != nil {
		v := *s.QueryInstruction
		opt.QueryInstruction = &v
	}
	if opt.LinkPrior == nil && s.LinkPrior != nil {
		v := *s.LinkPrior
		opt.LinkPrior = &v
	}
	if opt.Limit == 0 && s.Limit != nil {
		opt.Limit = *s.Limit
	}
	if opt.Candidates == 0 && s.Candidates != nil {
		opt.Candidates = *s.Candidates
	}
	if s.Rerank != nil && !*s.Rerank {
		opt.NoRerank = true
	}
	if opt.RerankBudget == 0 && e.opt.RerankBudget == 0 && s.RerankBudget != nil {
		opt.RerankBudget = time.Duration(*s.RerankBudget)
		if opt.RerankBudget == 0 {
			opt.RerankBudget = -1 // the setting says no limit
		}
	}
	return opt
}
