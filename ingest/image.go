package ingest

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/braidsearch/braid/chunk"
	"github.com/braidsearch/braid/index"
)

// IsImage reports whether a path names an image braid indexes as one.
func IsImage(rel string) bool {
	switch strings.ToLower(path.Ext(rel)) {
	case ".png", ".jpg", ".jpeg", ".gif", ".webp", ".svg":
		return true
	}
	return false
}

// maxImageContexts bounds how many embeds of one image give it text.
const maxImageContexts = 32

// indexImages indexes the image files of a folder source once its notes
// are committed: each is a document whose text is its file name and, for
// every note that embeds or links it, the alt text, the note's title and
// the chunk (heading and paragraph) the embed sits in. Its hash covers
// the image and that text, so an image is indexed again when a note
// around it changes. all is every image of the source (its path), which
// a link may name: imgs, or more when a run looks at changed paths only.
func (ix *Indexer) indexImages(src *index.Source, rd *reader, imgs []file, all []string, entries map[string]index.Entry, seen map[string]bool, sum *Summary, b *batch) error {
	if len(imgs) == 0 {
		return nil
	}
	if err := b.flush(); err != nil {
		return err
	}
	contexts, err := ix.imageContexts(src.ID, all, imgs)
	if err != nil {
		return err
	}
	for _, f := range imgs {
		data, err := readFile(rd, f.abs)
		if err != nil {
			sum.Errors = append(sum.Errors, FileError{Path: f.abs, Err: err.Error()})
			continue
		}
		sum.Seen++
		seen[f.rel] = true
		text := imageText(f.rel, contexts[f.rel])
		h := sha256.New()
		h.Write(data)
		h.Write([]byte{0})
		h.Write(text)
		hash := hex.EncodeToString(h.Sum(nil))
		e, known := entries[f.rel]
		if known && e.Hash == hash && !ix.Force {
			sum.Unchanged++
			continue
		}
		var mod time.Time
		if info, _ := os.Stat(f.abs); info != nil {
			mod = info.ModTime().UTC()
		}
		d := document(src, f.rel, index.KindImage, hash, int64(len(data)), strings.Count(string(text), "\n")+1, mod)
		d.Title = path.Base(f.rel)
		pieces := chunk.Text(text, chunkOptions(src))
		if known {
			sum.Updated++
		} else {
			sum.Added++
		}
		chunks := toChunks(d, pieces)
		sum.Chunks += len(chunks)
		sum.Bytes += d.Size
		if err := b.add(index.Change{Doc: d, Chunks: chunks}); err != nil {
			return err
		}
	}
	return nil
}

// imageText is an image document's text: its file name, then one
// paragraph for each context.
func imageText(rel string, contexts []string) []byte {
	var b strings.Builder
	name := strings.TrimSuffix(path.Base(rel), path.Ext(rel))
	fmt.Fprintf(&b, "%s\n%s\n", path.Base(rel), strings.NewReplacer("-", " ", "_", " ").Replace(name))
	for _, c := range contexts {
		b.WriteString("\n")
		b.WriteString(c)
		b.WriteString("\n")
	}
	return []byte(b.String())
}

// imageContexts finds, in the source's committed notes, the links and
// embeds that lead to each image of imgs (by path relative to the note,
// from the source root, or for a wikilink by file name anywhere, among
// all the source's images) and returns, by image path, the text around
// each: alt text, the note's title and the chunk the link is in.
func (ix *Indexer) imageContexts(sourceID string, all []string, imgs []file) (map[string][]string, error) {
	byRel := map[string]bool{}
	byName := map[string][]string{}
	for _, rel := range all {
		byRel[rel] = true
		n := strings.ToLower(path.Base(rel))
		byName[n] = append(byName[n], rel)
	}
	want := make(map[string]bool, len(imgs))
	for _, f := range imgs {
		want[f.rel] = true
	}
	entries, err := ix.Store.Entries(sourceID)
	if err != nil {
		return nil, err
	}
	rels := make([]string, 0, len(entries))
	for rel := range entries {
		rels = append(rels, rel)
	}
	sort.Strings(rels)
	out := map[string][]string{}
	for _, rel := range rels {
		d, err := ix.Store.Doc(entries[rel].DocID)
		if err != nil {
			return nil, err
		}
		if d == nil || d.Kind == index.KindImage || len(d.Links) == 0 {
			continue
		}
		var chunks []*index.Chunk
		for _, l := range d.Links {
			target := strings.TrimPrefix(l.Target, "/")
			if !IsImage(target) {
				continue
			}
			var img string
			switch local := path.Join(path.Dir(d.Path), target); {
			case byRel[local]:
				img = local
			case byRel[path.Clean(target)]:
				img = path.Clean(target)
			case len(byName[strings.ToLower(path.Base(target))]) == 1:
				img = byName[strings.ToLower(path.Base(target))][0]
			default:
				continue
			}
			if !want[img] || len(out[img]) >= maxImageContexts {
				continue
			}
			if chunks == nil {
				if chunks, err = ix.Store.Chunks(d.ChunkIDs); err != nil {
					return nil, err
				}
			}
			var b strings.Builder
			if l.Text != "" {
				b.WriteString(l.Text + "\n")
			}
			if l.Alt != "" {
				b.WriteString(l.Alt + "\n")
			}
			b.WriteString("In " + d.Title)
			for _, c := range chunks {
				if c != nil && c.StartLine <= l.Line && l.Line <= c.EndLine {
					if len(c.HeadingPath) > 0 {
						b.WriteString(" › " + strings.Join(c.HeadingPath, " › "))
					}
					b.WriteString(":\n" + unlink(c.Text))
					break
				}
			}
			out[img] = append(out[img], b.String())
		}
	}
	return out, nil
}

// unlink keeps a note's text from linking the image document anywhere:
// its embeds and links become plain text.
func unlink(s string) string {
	return strings.NewReplacer("![[", "", "[[", "", "]]", "", "](", "] (", "![", "[").Replace(s)
}
