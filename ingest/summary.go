package ingest

import (
	"fmt"
	"strings"
	"time"

	"github.com/braidsearch/braid/index"
)

// Progress reports how far an index run is.
type Progress struct {
	Phase  string // "" while reading files, "list" while listing a bucket, "embed" while computing embeddings, "compact" while compacting meta.db
	Source string // source name
	Done   int    // files (or JSONL lines) looked at so far in this source
	Total  int    // files in this source; 0 while unknown
}

// FileError is a file (or JSONL line) that could not be indexed; the run
// went on without it.
type FileError struct {
	Path string `json:"path"`
	Line int    `json:"line,omitempty"`
	Err  string `json:"error"`
}

func (e FileError) String() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.Path, e.Line, e.Err)
	}
	return e.Path + ": " + e.Err
}

// Summary is what an index run did.
type Summary struct {
	Sources   int         `json:"sources"`
	Seen      int         `json:"seen"` // files and JSONL documents looked at
	Added     int         `json:"added"`
	Updated   int         `json:"updated"`
	Unchanged int         `json:"unchanged"`
	Removed   int         `json:"removed"`
	Chunks    int         `json:"chunks"`                 // chunks written by this run
	Embedded  int         `json:"embedded"`               // chunk texts sent to the embedding model by this run
	EmbedMS   int64       `json:"embed_ms"`               // time the model took for them
	Tokens    int64       `json:"embed_tokens,omitempty"` // tokens of those texts (without padding)
	Bytes     int64       `json:"bytes"`                  // bytes read and indexed by this run
	Skipped   Skips       `json:"skipped"`
	Errors    []FileError `json:"errors,omitempty"`
	TookMS    int64       `json:"took_ms"`
	// PeakRSS is the process's peak resident memory when the run ended,
	// where the caller measures it (braid index does).
	PeakRSS int64 `json:"peak_rss_bytes,omitempty"`
	// Capped lists the documents this run indexed without what went past
	// the caps per document of markdown.Parse (MaxTags, MaxLinks,
	// MaxHeadings, MaxAliases, MaxText), each saying what was left out.
	// Such a document is indexed, not skipped: its text stays searchable,
	// and its first tags, links, headings and aliases are kept.
	Capped []FileError `json:"capped,omitempty"`
	// Warnings lists the documents this run indexed with a part it could
	// not read, such as frontmatter whose YAML is broken (the note is
	// indexed without it), each saying what.
	Warnings []FileError `json:"warnings,omitempty"`
	// NotExtracted lists the files of a format braid extracts (PDF, HTML,
	// DOCX, ODT) that it skipped, each saying why: encrypted, no text
	// layer, damaged or over a limit (counted in Skipped too). They are
	// not errors: the run succeeds without them.
	NotExtracted []FileError `json:"not_extracted,omitempty"`
	// Paths is how many changed paths the run looked at instead of
	// walking the whole source (Indexer.IndexPaths, what a watch runs);
	// zero for a walk.
	Paths int `json:"changed_paths,omitempty"`
	// Walked says why a run given changed paths walked the whole source
	// all the same ("a .gitignore changed"); empty otherwise.
	Walked string `json:"walked,omitempty"`
	// Compacted says the run ended by rewriting meta.db into a fresh
	// file without the pages no record used (index.Store.Compact): its
	// size before and after, and the time it took; nil when it did not.
	Compacted *index.Compaction `json:"compacted,omitempty"`
}

// Text is the run in a few lines, as braid index prints it: the counts,
// the throughput, the embedding work and peak memory, what was skipped
// and why, and how many documents were capped. The files themselves
// (Capped, Warnings, Errors) are the caller's to list.
func (s *Summary) Text() string {
	var b strings.Builder
	took := time.Duration(s.TookMS) * time.Millisecond
	rate := ""
	if secs := took.Seconds(); secs > 0 && s.Added+s.Updated > 0 {
		rate = fmt.Sprintf(", %.0f docs/s", float64(s.Added+s.Updated)/secs)
	}
	fmt.Fprintf(&b, "indexed %d source(s) in %s: %d seen, %d added, %d updated, %d unchanged, %d removed; %d chunks, %s%s\n",
		s.Sources, took.Round(time.Millisecond), s.Seen, s.Added, s.Updated, s.Unchanged, s.Removed, s.Chunks, index.FormatBytes(s.Bytes), rate)
	if s.Embedded > 0 {
		embed := time.Duration(s.EmbedMS) * time.Millisecond
		secs := max(embed.Seconds(), 1e-3)
		fmt.Fprintf(&b, "embedded %d chunks (%d tokens) in %s: %.1f chunks/s, %.0f tokens/s; peak memory %s\n",
			s.Embedded, s.Tokens, embed.Round(time.Millisecond), float64(s.Embedded)/secs, float64(s.Tokens)/secs, index.FormatBytes(s.PeakRSS))
	}
	if c := s.Compacted; c != nil {
		fmt.Fprintf(&b, "compacted meta.db from %s to %s in %s\n", index.FormatBytes(c.Before), index.FormatBytes(c.After), (time.Duration(c.TookMS) * time.Millisecond).Round(time.Millisecond))
	}
	if k := s.Skipped; k.Total() > 0 {
		fmt.Fprintf(&b, "skipped %d: %s\n", k.Total(), k)
	}
	if len(s.Capped) > 0 {
		fmt.Fprintf(&b, "capped %d: over a cap per document (tags, links, headings, aliases, length of a title, heading or link text), indexed without the excess\n", len(s.Capped))
	}
	return b.String()
}

// Looked says what a watch's run looked at: "2 changed paths", "the
// whole source: a .gitignore changed", or "the whole source" (a source
// that is not a folder, braid index).
func (s *Summary) Looked() string {
	switch {
	case s.Walked != "":
		return "the whole source: " + s.Walked
	case s.Paths == 1:
		return "1 changed path"
	case s.Paths > 1:
		return fmt.Sprintf("%d changed paths", s.Paths)
	}
	return "the whole source"
}

// String names the reasons with their counts: "3 hidden, 1 binary".
func (k Skips) String() string {
	var parts []string
	for _, p := range []struct {
		n    int
		what string
	}{{k.Hidden, "hidden"}, {k.Ignored, "gitignored"}, {k.Excluded, "excluded by pattern"}, {k.Binary, "binary"}, {k.Oversized, "over the size limit"}, {k.NotUTF8, "not UTF-8"}, {k.OverFileLimit, "over the file limit"}, {k.TooManyChunks, "too many chunks"},
		{k.LinkOutside, "symbolic links leading outside the source (SourceSpec.FollowLinks to index them)"}, {k.NotRegular, "not regular files (FIFOs, sockets, devices)"},
		{k.BrokenLink, "symbolic links to nothing (missing targets or loops)"},
		{k.Encrypted, "encrypted"}, {k.NoText, "no text layer"}, {k.Damaged, "damaged"}, {k.OverLimit, "over a limit of the format (pages, time, memory, size, nesting)"},
		{k.OverBudget, "over the memory budget of extraction"}} {
		if p.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", p.n, p.what))
		}
	}
	return strings.Join(parts, ", ")
}

// String is the progress on one line: "notes: 12/40 files" (or "12
// documents" while the total is unknown), "embedded 120 chunks" while
// embedding.
func (p Progress) String() string {
	switch {
	case p.Phase == "embed":
		return fmt.Sprintf("embedded %d chunks", p.Done)
	case p.Phase == "compact":
		return "compacting meta.db"
	case p.Total > 0:
		return fmt.Sprintf("%s: %d/%d files", p.Source, p.Done, p.Total)
	}
	return fmt.Sprintf("%s: %d documents", p.Source, p.Done)
}

// Bar draws the progress for a terminal line: "notes [=====     ] 12/40",
// "notes 12" while the total is unknown, "embedding: 120 chunks".
func (p Progress) Bar() string {
	const width = 30
	switch {
	case p.Phase == "embed":
		return fmt.Sprintf("embedding: %d chunks", p.Done)
	case p.Phase == "compact":
		return "compacting meta.db"
	case p.Total > 0:
		filled := width * p.Done / p.Total
		return fmt.Sprintf("%s [%s%s] %d/%d", p.Source, strings.Repeat("=", filled), strings.Repeat(" ", width-filled), p.Done, p.Total)
	}
	return fmt.Sprintf("%s %d", p.Source, p.Done)
}
