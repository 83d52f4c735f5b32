package cli

import (
	"fmt"
	"strings"

	"github.com/braidsearch/braid"
	"github.com/braidsearch/braid/snippet"
)

// searchFlags are the options search and search-keyword share.
type searchFlags struct {
	Query      string            `arg:"" optional:"" help:"What to look for. \"Quoted phrases\" must appear; -word excludes a word. A content hash (8-64 hex digits) that matches a document answers with that document."`
	Limit      int               `help:"Results to return, 1 to 1000; 0 or left out: the index's limit setting, else ${default_limit}." short:"n"`
	Source     []string          `help:"Only this source (id or name; repeatable)." placeholder:"SOURCE"`
	Path       string            `help:"Only documents whose path (relative to its source) matches this glob." placeholder:"GLOB"`
	Tag        []string          `help:"Only documents with this tag (repeatable: all must match)." placeholder:"TAG"`
	Meta       map[string]string `help:"Only documents whose metadata (set by braid add or braid update) has KEY=VALUE (repeatable: all must match)." placeholder:"KEY=VALUE"`
	Fuzzy      bool              `help:"Tolerate typos."`
	Similarity float64           `help:"With --fuzzy: how similar a word must be, 0..1 (default ${default_similarity})."`
	PathsOnly  bool              `help:"Print only the paths of the matching documents."`
	Explain    bool              `help:"Show how each score was made."`
	NoRerank   bool              `help:"Skip the cross-encoder: results in fused order." xor:"rerank"`
	Chunks     bool              `help:"Every matching chunk, not just the best one per document."`
	Hash       string            `help:"Answer with the document whose content hash starts with this (8-64 hex digits) instead of searching; QUERY may then be left out." placeholder:"HEX"`
	Session    string            `help:"Only the documents this session pins (braid sessions)." placeholder:"NAME"`
}

func (f *searchFlags) options() braid.SearchOptions {
	return braid.SearchOptions{Limit: f.Limit, Sources: f.Source, PathGlob: f.Path, Tags: f.Tag, Metadata: f.Meta,
		Fuzzy: f.Fuzzy, Similarity: f.Similarity, Chunks: f.Chunks, Explain: f.Explain, NoRerank: f.NoRerank, Hash: f.Hash,
		Session: f.Session}
}

// SearchCmd is the hybrid search.
type SearchCmd struct {
	searchFlags
	VectorWeight *float64 `help:"Weight of vector similarity against BM25, 0..1 (0 = lexical only, 1 = vector only; default the index's vector_weight setting, else auto: chosen per query from the two lists, when embeddings are set up)." placeholder:"W"`
	Fusion       string   `help:"How to combine the lexical and vector lists: linear (normalised scores) or rrf (reciprocal rank); default the index's fusion setting, else linear." placeholder:"linear|rrf"`
	Normalize    string   `help:"How linear fusion rescales each list's scores: minmax or zscore." enum:"minmax,zscore" default:"minmax"`
	Candidates   int      `help:"Candidates each retriever hands to fusion, 10 to 1000 (default the index's candidates setting, else ${default_candidates})." placeholder:"K"`
	Rerank       bool     `help:"Rerank with the cross-encoder, as searches do by default when one is installed, and warn when none can be loaded." xor:"rerank"`
}

// Run searches.
func (c *SearchCmd) Run(g *Globals) error {
	opt := c.options()
	opt.VectorWeight = c.VectorWeight
	opt.Fusion = braid.Fusion(c.Fusion)
	opt.Candidates = c.Candidates
	opt.Normalize = braid.Normalization(c.Normalize)
	opt.Rerank = c.Rerank
	return search(g, &c.searchFlags, opt)
}

// SearchKeywordCmd is BM25-only search, never reranked.
type SearchKeywordCmd struct {
	searchFlags
}

// Run searches.
func (c *SearchKeywordCmd) Run(g *Globals) error {
	opt := c.options()
	opt.Keyword = true
	return search(g, &c.searchFlags, opt)
}

func search(g *Globals, f *searchFlags, opt braid.SearchOptions) error {
	if err := opt.Check(); err != nil { // before anything is opened
		return err
	}
	if f.Similarity != 0 && !f.Fuzzy {
		return fmt.Errorf("--similarity only applies with --fuzzy")
	}
	if f.Query == "" && f.Hash == "" {
		return fmt.Errorf("nothing to search for: give a QUERY, or --hash HEX to look a document up by content hash")
	}
	openOpt := opt
	if opt.Hash != "" { // a lookup needs no model
		openOpt.Keyword, openOpt.NoRerank = true, true
	}
	e, done, err := g.openSearch(openOpt)
	if err != nil {
		return err
	}
	defer done()
	res, err := e.Search(g.ctx, f.Query, opt)
	if err != nil {
		return err
	}
	if res.Warning != "" {
		g.warn("%s", res.Warning)
	}
	if f.PathsOnly {
		if g.JSON {
			paths := []string{}
			for _, h := range res.Results {
				paths = append(paths, h.Path)
			}
			return g.printJSON(map[string]any{"paths": paths, "total": res.Total, "took_ms": res.TookMS})
		}
		for _, h := range res.Results {
			fmt.Fprintln(g.stdout, g.hitPath(e, h))
		}
		return nil
	}
	if g.JSON {
		return g.printJSON(res)
	}
	if len(res.Results) == 0 {
		if f.Hash != "" {
			fmt.Fprintf(g.stderr, "no document with hash %s passes the filters\n", f.Hash)
			return nil
		}
		fmt.Fprintf(g.stderr, "no results for %q\n", f.Query)
		return nil
	}
	for i, h := range res.Results {
		fmt.Fprintf(g.stdout, "%2d. %s  (%s:%d-%d)  %.3f\n", i+1, h.Title, h.Path, h.Line.Start, h.Line.End, h.Score)
		if len(h.HeadingPath) > 0 {
			fmt.Fprintf(g.stdout, "    § %s\n", strings.Join(h.HeadingPath, " › "))
		}
		fmt.Fprintf(g.stdout, "    %s\n", markSnippet(h, g.tty))
		if h.Explain != nil {
			fmt.Fprintf(g.stdout, "    explain: %s\n", h.Explain)
		}
	}
	if res.Lookup == braid.LookupHash {
		fmt.Fprintf(g.stdout, "%d shown, %s with that content hash (found by hash, not ranked), %.1f ms\n", len(res.Results), counted(res.Total, "document"), res.TookMS)
		return nil
	}
	reranked := ""
	if res.RerankOf > 0 {
		reranked = fmt.Sprintf(", reranked %d of %d", res.Reranked, res.RerankOf)
	}
	fmt.Fprintf(g.stdout, "%d shown, %s%s, %.1f ms\n", len(res.Results), counted(res.Total, "matching chunk"), reranked, res.TookMS)
	return nil
}

// hitPath is the file of a hit as a path usable from the current
// directory, or its path in its source when it has no file of its own.
func (g *Globals) hitPath(e *braid.Engine, h braid.Hit) string {
	s, err := e.Notes().Source(g.ctx, h.SourceID)
	if err != nil || s.File(h.Path) == "" {
		return h.Path
	}
	return g.displayPath(s.File(h.Path)) // an s3:// URL stays as it is
}

// markSnippet brackets highlights: bold on a terminal, [[…]]-free «…» elsewhere.
func markSnippet(h braid.Hit, tty bool) string {
	if tty {
		return snippet.Mark(h.Snippet, h.Highlights, "\033[1m", "\033[0m")
	}
	return snippet.Mark(h.Snippet, h.Highlights, "«", "»")
}
