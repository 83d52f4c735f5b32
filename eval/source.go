package eval

import (
	"fmt"
	"os"
	"path/filepath"
)

// Source names judged queries and the corpus they judge: a BEIR directory
// (corpus.jsonl, queries.jsonl and qrels/SPLIT.tsv), or a query set in
// one TSV file (LoadTSV) judged against the files of the Corpus
// directory. Set BEIR, or Queries and Corpus.
type Source struct {
	BEIR    string
	Queries string
	Corpus  string
}

// Name says which queries of split these are, for reports: "BEIR
// scifact, split test", or "queries.tsv over notes, split tune".
func (s Source) Name(split string) string {
	if s.BEIR != "" {
		return fmt.Sprintf("BEIR %s, split %s", filepath.Base(filepath.Clean(s.BEIR)), split)
	}
	return fmt.Sprintf("%s over %s, split %s", s.Queries, s.Corpus, split)
}

// TuneSplit is the split to tune on when none is named: train for a BEIR
// collection, tune for a query set; never the split reported on.
func (s Source) TuneSplit() string {
	if s.BEIR != "" {
		return "train"
	}
	return "tune"
}

// Load reads the judged queries of split and says what to index: corpus
// is the file or directory to index as one source, and byPath says a
// hit's judged id is its path within it (a query set's files) rather than
// its document id (BEIR).
func (s Source) Load(split string) (col *Collection, corpus string, byPath bool, err error) {
	switch {
	case s.BEIR != "":
		if col, err = LoadBEIR(s.BEIR, split); err != nil {
			return nil, "", false, err
		}
		corpus = filepath.Join(s.BEIR, "corpus.jsonl")
		if _, err := os.Stat(corpus); err != nil {
			return nil, "", false, fmt.Errorf("eval: %w (a BEIR directory holds corpus.jsonl beside queries.jsonl)", err)
		}
		return col, corpus, false, nil
	case s.Queries != "":
		if s.Corpus == "" {
			return nil, "", false, fmt.Errorf("eval: Source.Queries %s wants Source.Corpus DIR: the directory its judged paths are relative to", s.Queries)
		}
		col, err = LoadTSV(s.Queries, split)
		return col, s.Corpus, true, err
	}
	return nil, "", false, fmt.Errorf("eval: say what to score: Source.BEIR DIR (a BEIR collection) or Source.Queries FILE with Source.Corpus DIR (a query set over a folder of files)")
}
