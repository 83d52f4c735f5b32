package settings

import (
	"encoding/json"
	"time"

	"github.com/braidsearch/braid/fusion"
)

// Values are the defaults an index keeps: what a search that names no
// value of its own uses, and whether a server on the index watches its
// sources. They live in the index directory (settings.json), so every
// process on the index (the CLI, braid serve, batch) answers alike, and
// braid config (or the MCP configure tool) changes them at run time.
// Precedence: a value a search names > the index's setting > braid's
// built-in default. A nil field means the built-in default.
type Values struct {
	VectorWeight *float64 `json:"vector_weight,omitempty"` // 0..1; built in: Auto, per query (WeightModel)
	// WeightModel is the adaptive weighting braid tune --save fitted on
	// the index's own judged questions; nil means fusion.DefaultModel.
	WeightModel      *fusion.Model  `json:"weight_model,omitempty"`
	Fusion           *Fusion        `json:"fusion,omitempty"`            // linear or rrf; built in: linear
	Normalize        *Normalization `json:"normalize,omitempty"`         // minmax or zscore; built in: minmax
	DocEvidence      *float64       `json:"doc_evidence,omitempty"`      // 0..1; built in: DefaultDocEvidence
	LinkPrior        *float64       `json:"link_prior,omitempty"`        // 0..1; built in: DefaultLinkPrior
	QueryInstruction *bool          `json:"query_instruction,omitempty"` // built in: true
	TitleWeight      *float64       `json:"title_weight,omitempty"`      // 0..MaxFieldWeight; built in: DefaultTitleWeight
	HeadingWeight    *float64       `json:"heading_weight,omitempty"`    // 0..MaxFieldWeight; built in: DefaultHeadingWeight
	Limit            *int           `json:"limit,omitempty"`             // 1..1000; built in: 10
	Candidates       *int           `json:"candidates,omitempty"`        // 10..1000; built in: 50
	Rerank           *bool          `json:"rerank,omitempty"`            // built in: true (when a cross-encoder is installed)
	RerankBudget     *Millis        `json:"rerank_budget,omitempty"`     // 0 (no limit) ..10s; built in: the reranker's own (250ms)
	Watch            *bool          `json:"watch,omitempty"`             // braid serve watches every source; built in: false
	// Name, Language and TimeZone are the index's identity as
	// get_organization_info reports it: a name for people (built in: the
	// index folder's name), a BCP 47 language tag such as en or de-CH and
	// an IANA time zone such as Europe/Zurich (built in: the machine's).
	Name     *string `json:"name,omitempty"`
	Language *string `json:"language,omitempty"`
	TimeZone *string `json:"timezone,omitempty"`
	// Tuned says where the search settings came from when braid tune
	// saved them (SetTuned); Set of a search setting clears it, since
	// the record would no longer be true.
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

// Tuning is what braid tune chooses: the fusion settings and the
// strengths of the ranking signals.
type Tuning struct {
	VectorWeight *float64 // nil: left unset (an index searched without a model)
	Fusion       Fusion
	Normalize    Normalization
	Candidates   int
	DocEvidence  float64
	LinkPrior    float64
	// TitleWeight and HeadingWeight are the BM25 field weights.
	TitleWeight, HeadingWeight float64
	// QueryInstruction nil leaves query_instruction unset.
	QueryInstruction *bool
	// WeightModel is the adaptive weighting fitted on the judged
	// questions, for a VectorWeight left nil (auto); nil leaves it unset.
	WeightModel *fusion.Model
}

// SetTuned sets the settings braid tune chose and records where they
// came from; the other settings are kept. Under RRF, which uses ranks
// rather than scores, normalize is left unset.
func (v *Values) SetTuned(t Tuning, from Tuned) {
	v.VectorWeight, v.Fusion, v.Normalize, v.Candidates = t.VectorWeight, &t.Fusion, &t.Normalize, &t.Candidates
	v.DocEvidence, v.LinkPrior, v.QueryInstruction = &t.DocEvidence, &t.LinkPrior, t.QueryInstruction
	v.TitleWeight, v.HeadingWeight = &t.TitleWeight, &t.HeadingWeight
	v.WeightModel = t.WeightModel
	if t.Fusion == FusionRRF {
		v.Normalize = nil // RRF uses ranks, not scores
	}
	v.Tuned = &from
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

// Normalization names how linear fusion rescales each list's scores.
type Normalization string

const (
	// NormMinMax maps each list onto [0, 1].
	NormMinMax Normalization = "minmax"
	// NormZScore maps each list to standard scores.
	NormZScore Normalization = "zscore"
)

// Fusion names a way to combine the lexical and vector candidate lists.
type Fusion string

const (
	// FusionLinear mixes normalised scores: w·vector + (1−w)·lexical.
	FusionLinear Fusion = "linear"
	// FusionRRF is weighted reciprocal rank fusion (k = 60).
	FusionRRF Fusion = "rrf"
)

// Built-in defaults of the settings: what a search uses when neither it
// nor the index names a value. The CLI's flags, the MCP tools, batch and
// braid config all read these (through the root package); none restates
// them.
const (
	DefaultLimit        = 10
	DefaultCandidates   = 50
	DefaultRerankBudget = 250 * time.Millisecond
)

// Auto is vector_weight's built-in value: a search that names no weight
// gets one per query from the predictors of its two candidate lists
// (fusion.Model.Weight; issue 31 in docs/benchmarks.md).
const Auto = "auto"

// DefaultVectorWeight is the weight the two lists of a search that
// names none are retrieved at (fusion.DefaultWeight says how it was
// chosen); the weight they are fused at is Auto's.
const DefaultVectorWeight = fusion.DefaultWeight

// Built-in strengths of the ranking signals beyond BM25 and vectors (see
// the root package's SearchOptions.DocEvidence and LinkPrior), chosen on
// the tuning half of bench/vaults/queries.tsv and SciFact train, checked
// on the held-back halves (docs/benchmarks.md has the table). Document
// evidence at 0.2: vault tuning half hybrid nDCG@10 0.336 → 0.375,
// held-back half 0.480 → 0.488, SciFact test 0.7410 → 0.7396 (within the
// 0.003 allowed). The link prior helped the tuning half (0.360 at 0.1) and
// hurt the held-back one (0.469), so it is off unless an index's settings
// (braid tune) turn it on.
const (
	DefaultDocEvidence = 0.2
	DefaultLinkPrior   = 0.0
)

// Built-in BM25 field weights (see the root package's
// SearchOptions.TitleWeight). A chunk's content field holds its note's
// title and heading path already; these weigh a query word found in the
// title (and path) or the headings again, as a bonus on the content
// match. Chosen on the vault tuning half (bench/vaults/queries.tsv,
// paraphrased questions) and the 16 title-like questions of
// TestRealVaults, SciFact having neither field: braid's first weights,
// title 1 and headings 0.3 as optional fields beside content, scored
// hybrid nDCG@10 0.416 and 0.860 there (BM25 0.302 and 0.842), because
// bleve's coordination factor scored every chunk that matched in its
// body alone down to a third; as a bonus, title 0.5 and headings 0 score
// 0.476 and 0.860 (BM25 0.408 and 0.816). Headings above 0 lowered both.
const (
	DefaultTitleWeight   = 0.5
	DefaultHeadingWeight = 0.0
	// MaxFieldWeight is the largest field weight a setting or search
	// takes.
	MaxFieldWeight = 5.0
)
