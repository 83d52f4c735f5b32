package ingest

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/braidsearch/braid/chunk"
	"github.com/braidsearch/braid/index"
	"github.com/braidsearch/braid/markdown"
)

// beirLine is one document of a BEIR corpus.
type beirLine struct {
	ID    *string `json:"_id"`
	Title string  `json:"title"`
	Text  string  `json:"text"`
}

// beirRecord decodes one line of a BEIR corpus, without its line ending.
// A line that is not a document gives an error naming the file and line.
func beirRecord(path string, lineNo int, line []byte) (beirDoc, *FileError) {
	bad := func(msg string) (beirDoc, *FileError) {
		return beirDoc{}, &FileError{Path: path, Line: lineNo, Err: msg}
	}
	if !utf8.Valid(line) {
		return bad("line is not valid UTF-8")
	}
	var l beirLine
	if err := json.Unmarshal(line, &l); err != nil {
		return bad("not a JSON object: " + err.Error())
	}
	if l.ID == nil || *l.ID == "" {
		return bad(`missing "_id"`)
	}
	return beirDoc{ID: *l.ID, Title: l.Title, Text: l.Text}, nil
}

// cutTitle cuts a corpus record's title, which is indexed with every chunk
// of the record, to markdown.MaxText bytes as markdown titles are cut.
func cutTitle(t string) string {
	if len(t) <= markdown.MaxText {
		return t
	}
	n := markdown.MaxText - len("…")
	for n > 0 && !utf8.RuneStart(t[n]) {
		n--
	}
	return strings.TrimSpace(t[:n]) + "…"
}

// beirDoc is a decoded document of a BEIR corpus.
type beirDoc struct {
	ID, Title, Text string
}

// IsJSONL reports whether path looks like a BEIR corpus: a .jsonl file whose
// first line is a JSON object with an "_id".
func IsJSONL(path string) bool {
	if !strings.EqualFold(filepath.Ext(path), ".jsonl") {
		return false
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	line, err := bufio.NewReader(f).ReadBytes('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return false
	}
	var l beirLine
	return json.Unmarshal(line, &l) == nil && l.ID != nil
}

func (ix *Indexer) indexJSONL(ctx context.Context, src *index.Source, sum *Summary) error {
	f, err := os.Open(src.Path)
	if err != nil {
		return fmt.Errorf("index %s: %w", src.Path, err)
	}
	defer f.Close()
	entries, err := ix.target().Entries(ctx, src.ID)
	if err != nil {
		return err
	}
	base := filepath.Base(src.Path)
	seen := make(map[string]bool, len(entries))
	b := ix.newBatch(ctx, 4)
	r := bufio.NewReaderSize(f, 1<<20)
	var offset int64
	for lineNo := 1; ; lineNo++ {
		if lineNo%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
			if ix.Progress != nil {
				ix.Progress(Progress{Source: src.Name, Done: lineNo})
			}
		}
		line, err := r.ReadBytes('\n')
		if len(line) == 0 && err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return fmt.Errorf("read %s: %w", src.Path, err)
		}
		start := offset
		offset += int64(len(line))
		trimmed := bytes.TrimSpace(line)
		if len(trimmed) == 0 {
			continue
		}
		sum.Seen++
		bad := func(msg string) {
			sum.Errors = append(sum.Errors, FileError{Path: src.Path, Line: lineNo, Err: msg})
		}
		if limit := maxFileSize(src); int64(len(trimmed)) > limit {
			sum.Skipped.Oversized++
			bad(fmt.Sprintf("line is %s, over the %s limit per document; raise it with --max-file-size", index.FormatBytes(int64(len(trimmed))), index.FormatBytes(limit)))
			continue
		}
		l, ferr := beirRecord(src.Path, lineNo, trimmed)
		if ferr != nil {
			sum.Errors = append(sum.Errors, *ferr)
			continue
		}
		id := l.ID
		rel := base + "#" + id
		if seen[rel] {
			bad(fmt.Sprintf("duplicate _id %q; the first one is kept", id))
			continue
		}
		seen[rel] = true
		h := sha256.Sum256(trimmed)
		hash := hex.EncodeToString(h[:])
		e, known := entries[rel]
		if known && e.Hash == hash && !ix.Force {
			sum.Unchanged++
			continue
		}
		if !known && ix.Remote == nil {
			if other, err := ix.Store.Doc(id); err != nil {
				return err
			} else if other != nil && other.SourceID != src.ID {
				bad(fmt.Sprintf("_id %q is already used by %s in another source; document ids must be unique", id, other.Path))
				delete(seen, rel)
				continue
			}
		}
		pieces := chunk.Text([]byte(l.Text), chunkOptions(src))
		if err := checkChunks(src, len(pieces)); err != nil {
			sum.Skipped.TooManyChunks++
			bad(err.Error())
			delete(seen, rel)
			continue
		}
		d := &index.Document{
			ID: id, SourceID: src.ID, Path: rel, Kind: index.KindBEIR, Title: cutTitle(l.Title), Hash: hash,
			Size: int64(len(trimmed)), IndexedAt: time.Now().UTC(), Offset: start, Line: lineNo,
			Lines: strings.Count(l.Text, "\n") + 1,
		}
		if d.Title == "" {
			d.Title = id
		}
		chunks := toChunks(d, pieces)
		if known {
			sum.Updated++
		} else {
			sum.Added++
		}
		sum.Chunks += len(chunks)
		sum.Bytes += d.Size
		if err := b.add(index.Change{Doc: d, Chunks: chunks}); err != nil {
			return err
		}
	}
	return b.finish(entries, seen, sum)
}
