package braid

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/braidsearch/braid/blob"
	"github.com/braidsearch/braid/index"
	"github.com/braidsearch/braid/internal/confine"
	"github.com/braidsearch/braid/notes"
)

// Errors of the document store.
var (
	// ErrSourceFile means a delete named a document that lives in a user's
	// source: braid never deletes a user's files.
	ErrSourceFile = errors.New("braid: braid does not delete source files")
	// ErrBadName means a stored document's name is empty, absolute, leaves
	// the store with "..", or is not valid UTF-8.
	ErrBadName = errors.New("braid: invalid document name")
)

// Types of the document store, defined beside the bbolt store that keeps them.
type (
	Stored   = index.Stored
	Version  = index.Version
	Snapshot = index.Snapshot
)

// StoreSourceName is the name of the internal source of stored documents.
const StoreSourceName = "store"

const storeDir = "store"

// blobs is the index's content-addressed store.
func (e *Engine) blobs() *blob.Store { return blobsIn(e.dir) }

// blobsIn is the content-addressed store of the index in dir.
func blobsIn(dir string) *blob.Store { return blob.Open(filepath.Join(dir, storeDir, "blobs")) }

// storeSource returns the internal source of stored documents, registering
// it when create is set; nil when it does not exist yet.
func (e *Engine) storeSource(create bool) (*Source, error) {
	abs, err := filepath.Abs(filepath.Join(e.dir, storeDir))
	if err != nil {
		return nil, fmt.Errorf("braid: %w", err)
	}
	id := index.SourceID(abs)
	src, err := e.st.Source(id)
	if err != nil || src != nil || !create {
		return src, err
	}
	if err := os.MkdirAll(abs, 0o755); err != nil {
		return nil, fmt.Errorf("braid: create the document store: %w", err)
	}
	src = &Source{ID: id, Name: StoreSourceName, Path: abs, Kind: index.SourceStore, AddedAt: time.Now().UTC()}
	return src, e.st.PutSource(src)
}

// indexStore brings the index in step with the stored documents; refresh
// names documents to re-index even though their content did not change.
func (e *Engine) indexStore(ctx context.Context, src *Source, refresh map[string]bool) error {
	vs := e.vectors(nil)
	ix := &index.Indexer{Store: e.st, Lexical: e.lex, Opt: index.Options{Workers: e.opt.Workers, BatchDocs: e.opt.BatchDocs},
		Vectors: vs, Blobs: e.blobs(), Refresh: refresh}
	sum := &Summary{}
	err := ix.Index(ctx, src, sum)
	if err == nil && len(sum.Errors) > 0 {
		err = fmt.Errorf("braid: index %s: %s", sum.Errors[0].Path, sum.Errors[0].Err)
	}
	if serr := e.saveVectors(ctx, vs, err == nil); err == nil {
		err = serr
	}
	return err
}

// AddRequest is a document to store: either the file at Path, or Content
// under Name.
type AddRequest struct {
	Path    string // a text file to copy into the store (read with ReadDocument); its base name is the default Name
	Content string // the document's text, when Path is empty
	Data    []byte // the document's bytes, instead of Path or Content (as ReadDocument returned them)
	// Name is the document's path in the store ("notes/idea.md"): relative,
	// slash-separated; its extension picks the parser (.md is markdown).
	// Adding a name that exists stores a new version of it.
	Name       string
	Tags       []string          // added to the tags the content declares
	Metadata   map[string]string // key=value pairs, searchable with SearchOptions.Metadata
	Collection string            // a group for listing, snapshots and restore; empty keeps the current one
}

// readTimeout bounds how long ReadDocument waits for a file.
const readTimeout = 30 * time.Second

// ReadDocument reads a file to store with Add: a regular file of at most
// the per-document limit (8 MB), read within 30 seconds or ctx. A FIFO, a
// socket or a device (/dev/zero) is refused at once, never waited on or
// read without bound.
func ReadDocument(ctx context.Context, path string) ([]byte, error) {
	type result struct {
		data []byte
		err  error
	}
	done := make(chan result, 1)
	go func() {
		data, err := confine.ReadFile("", path, index.DefaultMaxFileSize)
		done <- result{data, err}
	}()
	timer := time.NewTimer(readTimeout)
	defer timer.Stop()
	var r result
	select {
	case r = <-done:
	case <-ctx.Done():
		return nil, fmt.Errorf("braid: read %s: %w", path, ctx.Err())
	case <-timer.C:
		return nil, fmt.Errorf("braid: read %s: no data within %v; braid stores files it can read at once", path, readTimeout)
	}
	switch {
	case r.err == nil:
		return r.data, nil
	case errors.Is(r.err, confine.ErrNotRegular):
		return nil, fmt.Errorf("%w: %s; braid stores regular files only", ErrBadOption, strings.TrimPrefix(r.err.Error(), "confine: "))
	case errors.Is(r.err, confine.ErrTooLarge):
		return nil, fmt.Errorf("%w: %s is over the %s limit per document", ErrBadOption, path, index.FormatBytes(index.DefaultMaxFileSize))
	case errors.Is(r.err, confine.ErrBadPath):
		return nil, fmt.Errorf("%w: %s", ErrBadOption, strings.TrimPrefix(r.err.Error(), "confine: "))
	}
	var pe *os.PathError
	if errors.As(r.err, &pe) {
		return nil, fmt.Errorf("braid: read %s: %w", path, pe.Err)
	}
	return nil, fmt.Errorf("braid: read %s: %w", path, r.err)
}

// AddResult says what Add stored.
type AddResult struct {
	ID           string `json:"id"`
	Name         string `json:"name"`
	Hash         string `json:"hash"`
	Version      int    `json:"version"`
	Replaced     bool   `json:"replaced"`      // the name existed with other content
	BytesStored  int64  `json:"bytes_stored"`  // bytes written to the blob store
	BytesDeduped int64  `json:"bytes_deduped"` // bytes not written because identical content was already stored
}

// cleanName checks a stored document's name and returns it cleaned.
func cleanName(name string) (string, error) {
	n := strings.TrimPrefix(filepath.ToSlash(strings.TrimSpace(name)), "./")
	switch {
	case n == "":
		return "", fmt.Errorf("%w: empty name; give the document a name such as notes/idea.md", ErrBadName)
	case !utf8.ValidString(n) || strings.ContainsAny(n, "\x00\\"):
		return "", fmt.Errorf("%w: %q holds a NUL, a backslash or invalid UTF-8", ErrBadName, name)
	case len(n) > 1024:
		return "", fmt.Errorf("%w: %d bytes long, want at most 1024", ErrBadName, len(n))
	case path.IsAbs(n) || !filepath.IsLocal(filepath.FromSlash(n)) || path.Clean(n) != n:
		return "", fmt.Errorf("%w: %q must be a clean relative path inside the store (no leading /, no ..)", ErrBadName, name)
	}
	return n, nil
}

// Add stores a document in the index's own store and indexes it, so search,
// get and grep find it like a file of a source. Its content is kept once
// per distinct text (content-addressed); a name that exists gets a new
// version. The content is written and synced before the record that names
// it, so a crash leaves at worst an unreferenced blob.
func (e *Engine) Add(ctx context.Context, req AddRequest) (*AddResult, error) {
	if err := e.embeddedOnly("the document store (add)"); err != nil {
		return nil, err
	}
	if e.opt.ReadOnly {
		return nil, ErrReadOnly
	}
	data := []byte(req.Content)
	name := req.Name
	if req.Data != nil {
		if req.Content != "" || req.Path != "" {
			return nil, fmt.Errorf("%w: give one of path, content and data", ErrBadOption)
		}
		data = req.Data
	}
	if req.Path != "" {
		if req.Content != "" {
			return nil, fmt.Errorf("%w: give a path or content, not both", ErrBadOption)
		}
		var err error
		if data, err = ReadDocument(ctx, req.Path); err != nil {
			return nil, err
		}
		if name == "" {
			name = filepath.Base(req.Path)
		}
	}
	name, err := cleanName(name)
	if err != nil {
		return nil, err
	}
	switch {
	case int64(len(data)) > index.DefaultMaxFileSize:
		return nil, fmt.Errorf("%w: %s is %s, over the %s limit per document", ErrBadOption, name, index.FormatBytes(int64(len(data))), index.FormatBytes(index.DefaultMaxFileSize))
	case bytes.IndexByte(data, 0) >= 0 || !utf8.Valid(data):
		return nil, fmt.Errorf("%w: %s: braid stores UTF-8 text documents only", index.ErrNotText, name)
	}
	meta, err := metaPairs(req.Metadata)
	if err != nil {
		return nil, err
	}
	e.storeMu.Lock()
	defer e.storeMu.Unlock()
	src, err := e.storeSource(true)
	if err != nil {
		return nil, err
	}
	hash, written, err := e.blobs().Put(data)
	if err != nil {
		return nil, err
	}
	res := &AddResult{ID: index.DocID(src.ID, name), Name: name, Hash: hash}
	if written {
		res.BytesStored = int64(len(data))
	} else {
		res.BytesDeduped = int64(len(data))
	}
	now := time.Now().UTC()
	rec, err := e.st.Stored(name)
	if err != nil {
		return nil, err
	}
	if rec == nil {
		rec = &Stored{Name: name, Created: now, Modified: now}
	} else if rec.Hash != hash {
		res.Replaced = true
		rec.Modified = now
	}
	rec.Hash, rec.Size = hash, int64(len(data))
	rec.Tags = mergeTags(rec.Tags, req.Tags)
	if req.Collection != "" {
		rec.Collection = req.Collection
	}
	if err := e.st.PutStored(rec, res.ID); err != nil {
		return nil, err
	}
	if len(meta) > 0 {
		if _, err := e.st.UpdateDocMeta(res.ID, meta); err != nil {
			return nil, err
		}
	}
	if err := e.indexStore(ctx, src, map[string]bool{name: true}); err != nil {
		return nil, err
	}
	vs, err := e.st.Versions(res.ID)
	if err != nil {
		return nil, err
	}
	res.Version = len(vs)
	return res, nil
}

// mergeTags adds tags to have (case-insensitively new ones only); a tag
// written "-name" removes name instead.
func mergeTags(have, tags []string) []string {
	out := slices.Clone(have)
	for _, t := range tags {
		t = strings.TrimPrefix(strings.TrimSpace(t), "#")
		if rm, ok := strings.CutPrefix(t, "-"); ok {
			out = slices.DeleteFunc(out, func(x string) bool { return strings.EqualFold(x, rm) })
			continue
		}
		if t != "" && !slices.ContainsFunc(out, func(x string) bool { return strings.EqualFold(x, t) }) {
			out = append(out, t)
		}
	}
	return out
}

// metaPairs checks metadata keys.
func metaPairs(m map[string]string) (map[string]string, error) {
	for k := range m {
		if k == "" || strings.ContainsAny(k, "=\x00") || !utf8.ValidString(k) {
			return nil, fmt.Errorf("%w: metadata key %q: want a non-empty key without '='", ErrBadOption, k)
		}
	}
	return m, nil
}

// ParseMeta turns "key=value" pairs into a map; "key=" (an empty value)
// means remove the key when updating.
func ParseMeta(pairs []string) (map[string]string, error) {
	if len(pairs) == 0 {
		return nil, nil
	}
	m := make(map[string]string, len(pairs))
	for _, p := range pairs {
		k, v, ok := strings.Cut(p, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return nil, fmt.Errorf("%w: metadata %q: want key=value", ErrBadOption, p)
		}
		m[strings.TrimSpace(k)] = v
	}
	return m, nil
}

// resolve finds a document as Document does, and also a stored document
// by its name written the way Add accepts it (cleanName trims surrounding
// spaces and a leading ./), which Document alone does not.
func (e *Engine) resolve(ref string) (*Document, error) {
	d, err := e.nt.Document(ref)
	if err == nil || !errors.Is(err, ErrNotFound) {
		return d, err
	}
	src, serr := e.storeSource(false)
	if serr != nil || src == nil {
		return nil, err
	}
	if n, cerr := cleanName(ref); cerr == nil {
		if d, derr := e.st.DocByPath(src.ID, n); derr != nil || d != nil {
			return d, derr
		}
	}
	return nil, err
}

// UpdateRequest changes a document's metadata and, for a stored document,
// its tags.
type UpdateRequest struct {
	Ref string // a document name, id or content hash (prefix)
	// Metadata sets keys; an empty value removes the key.
	Metadata map[string]string
	// Tags adds tags to a stored document; "-tag" removes one. A source
	// document's tags live in its file: use Tag (braid tag) for those.
	Tags []string
}

// UpdateResult is a document after Update.
type UpdateResult struct {
	ID       string            `json:"id"`
	Path     string            `json:"path"`
	Hash     string            `json:"hash"`
	Stored   bool              `json:"stored"`
	Metadata map[string]string `json:"metadata"`
	Tags     []string          `json:"tags"`
}

// Update sets a document's metadata (any document, stored or from a
// source; it survives re-indexing) and a stored document's tags.
func (e *Engine) Update(ctx context.Context, req UpdateRequest) (*UpdateResult, error) {
	if err := e.embeddedOnly("the document store (update)"); err != nil {
		return nil, err
	}
	if e.opt.ReadOnly {
		return nil, ErrReadOnly
	}
	if len(req.Metadata) == 0 && len(req.Tags) == 0 {
		return nil, fmt.Errorf("%w: nothing to update; give metadata key=value pairs or tags", ErrBadOption)
	}
	meta, err := metaPairs(req.Metadata)
	if err != nil {
		return nil, err
	}
	e.storeMu.Lock()
	defer e.storeMu.Unlock()
	d, err := e.resolve(req.Ref)
	if err != nil {
		return nil, err
	}
	src, err := e.storeSource(false)
	if err != nil {
		return nil, err
	}
	stored := src != nil && d.SourceID == src.ID
	if len(req.Tags) > 0 {
		if !stored {
			return nil, fmt.Errorf("%w: %s is a file of a source and its tags live in the file; braid tag (inject_tags) writes them there", ErrBadOption, d.Path)
		}
		rec, err := e.st.Stored(d.Path)
		if err != nil {
			return nil, err
		}
		if rec == nil {
			return nil, fmt.Errorf("%w: stored document %s has no record; run braid index", ErrNotFound, d.Path)
		}
		rec.Tags = mergeTags(rec.Tags, req.Tags)
		if err := e.st.PutStored(rec, d.ID); err != nil {
			return nil, err
		}
		if err := e.indexStore(ctx, src, map[string]bool{d.Path: true}); err != nil {
			return nil, err
		}
		if d, err = e.st.Doc(d.ID); err != nil || d == nil {
			return nil, fmt.Errorf("braid: re-read %s after tagging: %v", req.Ref, err)
		}
	}
	m, err := e.st.DocMeta(d.ID)
	if len(meta) > 0 {
		m, err = e.st.UpdateDocMeta(d.ID, meta)
	}
	if err != nil {
		return nil, err
	}
	if m == nil {
		m = map[string]string{}
	}
	return &UpdateResult{ID: d.ID, Path: d.Path, Hash: d.Hash, Stored: stored, Metadata: m, Tags: nonNil(d.Tags)}, nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// DeleteRequest names stored documents to delete.
type DeleteRequest struct {
	Names   []string // names, ids or content hashes of stored documents
	Pattern string   // a glob over stored names ("drafts/**")
	DryRun  bool     // list what would be deleted, delete nothing
}

// Deleted is one stored document a delete removed (or would remove).
type Deleted struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	Hash string `json:"hash"`
	Size int64  `json:"size"`
}

// DeleteResult says what DeleteByName did.
type DeleteResult struct {
	Deleted      []Deleted `json:"deleted"`
	DryRun       bool      `json:"dry_run"`
	BlobsRemoved int       `json:"blobs_removed"` // content no longer referenced by any document, version or snapshot
	BytesFreed   int64     `json:"bytes_freed"`
}

// DeleteByName removes stored documents from the index and the store,
// with their versions; blobs no other document, version or snapshot refers
// to are removed too. It never deletes a file of a source: a name that
// resolves only to a source's document is refused with ErrSourceFile, and
// nothing is deleted.
func (e *Engine) DeleteByName(ctx context.Context, req DeleteRequest) (*DeleteResult, error) {
	if err := e.embeddedOnly("the document store (delete)"); err != nil {
		return nil, err
	}
	if e.opt.ReadOnly && !req.DryRun {
		return nil, ErrReadOnly
	}
	if len(req.Names) == 0 && req.Pattern == "" {
		return nil, fmt.Errorf("%w: name the stored documents to delete, or give a pattern", ErrBadOption)
	}
	var glob *index.Matcher
	if req.Pattern != "" {
		var err error
		if glob, err = index.NewMatcher([]string{req.Pattern}); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrBadOption, err)
		}
	}
	if !e.opt.ReadOnly {
		e.storeMu.Lock()
		defer e.storeMu.Unlock()
	}
	src, err := e.storeSource(false)
	if err != nil {
		return nil, err
	}
	res := &DeleteResult{Deleted: []Deleted{}, DryRun: req.DryRun}
	picked := map[string]bool{}
	pick := func(rec *Stored) {
		if !picked[rec.Name] {
			picked[rec.Name] = true
			res.Deleted = append(res.Deleted, Deleted{ID: index.DocID(src.ID, rec.Name), Name: rec.Name, Hash: rec.Hash, Size: rec.Size})
		}
	}
	for _, ref := range req.Names {
		var rec *Stored
		if src != nil {
			if n, err := cleanName(ref); err == nil {
				if rec, err = e.st.Stored(n); err != nil {
					return nil, err
				}
			}
		}
		if rec == nil {
			d, err := e.resolve(ref)
			if err != nil {
				return nil, err
			}
			if src == nil || d.SourceID != src.ID {
				return nil, fmt.Errorf("%w: %q is %s, a file of a source; delete removes only documents added with braid add. "+
					"braid sources rm (remove_source) drops a whole source from the index, leaving its files alone", ErrSourceFile, ref, d.Path)
			}
			if rec, err = e.st.Stored(d.Path); err != nil {
				return nil, err
			}
			if rec == nil {
				return nil, fmt.Errorf("%w: stored document %s has no record; run braid index", ErrNotFound, d.Path)
			}
		}
		pick(rec)
	}
	if glob != nil && src != nil {
		if err := e.st.ForEachStored(func(rec *Stored) error {
			if glob.Match(rec.Name) {
				pick(rec)
			}
			return nil
		}); err != nil {
			return nil, err
		}
	}
	sort.Slice(res.Deleted, func(i, j int) bool { return res.Deleted[i].Name < res.Deleted[j].Name })
	if req.DryRun || len(res.Deleted) == 0 {
		return res, nil
	}
	names, ids := make([]string, len(res.Deleted)), make([]string, len(res.Deleted))
	for i, d := range res.Deleted {
		names[i], ids[i] = d.Name, d.ID
	}
	if err := e.st.DeleteStored(names, ids); err != nil {
		return nil, err
	}
	if err := e.indexStore(ctx, src, nil); err != nil {
		return nil, err
	}
	removed, n, err := e.sweepBlobs()
	res.BlobsRemoved, res.BytesFreed = len(removed), n
	return res, err
}

// sweepBlobs removes the blobs nothing refers to any more.
func (e *Engine) sweepBlobs() ([]string, int64, error) {
	refs, err := e.st.BlobRefs()
	if err != nil {
		return nil, 0, err
	}
	return e.blobs().Sweep(func(h string) bool { return refs[h] })
}

// metaDocs returns the ids of the documents whose metadata has every pair
// of want, sorted; nil when want is empty (no filter).
func (e *Engine) metaDocs(want map[string]string) ([]string, error) {
	if len(want) == 0 {
		return nil, nil
	}
	ids := []string{}
	err := e.st.ForEachDocMeta(func(id string, m map[string]string) error {
		if notes.MetaMatch(m, want) {
			ids = append(ids, id)
		}
		return nil
	})
	return ids, err
}

// storedFiles maps the blob file of each stored document to the name grep
// shows for it ("store:NAME"); several names may share one blob, and the
// first in name order is shown.
func (e *Engine) storedFiles() (map[string]string, error) {
	out := map[string]string{}
	src, err := e.storeSource(false)
	if err != nil || src == nil {
		return out, err
	}
	entries, err := e.st.Entries(src.ID)
	if err != nil {
		return nil, err
	}
	b := e.blobs()
	names := make([]string, 0, len(entries))
	for n := range entries {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if f := b.Path(entries[n].Hash); out[f] == "" {
			out[f] = StoreSourceName + ":" + n
		}
	}
	return out, nil
}
