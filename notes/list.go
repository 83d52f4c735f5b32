package notes

import (
	"cmp"
	"context"
	"fmt"
	"mime"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/braidsearch/braid/index"
)

// ListOptions filters and orders List. The zero value lists every
// document, stored and from sources, by name.
type ListOptions struct {
	Kind      string // document kind: markdown, text or beir; empty means any
	Extension string // file extension, with or without the dot (".md"); empty means any
	MIME      string // media type ("text/markdown" for markdown documents); a type ending in /* matches its family
	Stored    string // "stored" for documents added with Add, "source" for files of sources; empty means both
	Source    string // a source's id or name; empty means any
	// Within keeps only the documents of these source ids; nil keeps
	// any, empty (not nil) none.
	Within []string
	// Collection keeps only stored documents of this collection.
	Collection string
	Tags       []string          // all of these tags
	Metadata   map[string]string // all of these metadata pairs
	// Recent keeps documents modified within this long before now; zero
	// means no limit.
	Recent time.Duration
	// Time windows; a zero time is no bound. Created is when a stored
	// document was first added, or for a file its modification time (file
	// systems do not all record creation).
	CreatedAfter, CreatedBefore   time.Time
	ModifiedAfter, ModifiedBefore time.Time
	IndexedAfter, IndexedBefore   time.Time
	SortBy                        string // name (default), size, created, modified or indexed
	Descending                    bool
	Limit                         int // zero means all
	// Session keeps the documents the named session's pins select
	// (SessionDocs); empty means any.
	Session string
}

// Listed is one document in List's answer.
type Listed struct {
	ID         string            `json:"id"`
	Path       string            `json:"path"` // relative to its source; a stored document's name
	Title      string            `json:"title"`
	Source     string            `json:"source"` // the source's name ("store" for stored documents)
	SourceID   string            `json:"source_id"`
	Stored     bool              `json:"stored"`
	Collection string            `json:"collection,omitempty"`
	Kind       string            `json:"kind"`
	MIME       string            `json:"mime"`
	Size       int64             `json:"size"`
	Hash       string            `json:"hash"`
	Created    time.Time         `json:"created,omitzero"`
	Modified   time.Time         `json:"modified,omitzero"`
	Indexed    time.Time         `json:"indexed"`
	Tags       []string          `json:"tags,omitempty"`
	Metadata   map[string]string `json:"metadata,omitempty"`
}

// Listing is List's answer: Total documents matched, Documents the first
// Limit of them.
type Listing struct {
	Documents []Listed `json:"documents"`
	Total     int      `json:"total"`
	Session   string   `json:"session,omitempty"` // ListOptions.Session
}

// mimeType is a document's media type: text/markdown for what ingest
// parsed as markdown, else the system's type for its extension, else
// text/plain.
func mimeType(d *index.Document) string {
	if d.Kind == index.KindMarkdown {
		return "text/markdown"
	}
	ext := strings.ToLower(path.Ext(d.Path))
	if ext == "" {
		return "text/plain"
	}
	if t := mime.TypeByExtension(ext); t != "" {
		t, _, _ = strings.Cut(t, ";")
		return t
	}
	return "text/plain"
}

// ParseAge reads a duration such as "90m", "24h", "7d" or "2w".
func ParseAge(s string) (time.Duration, error) {
	if s == "" {
		return 0, nil
	}
	for suffix, unit := range map[string]time.Duration{"d": 24 * time.Hour, "w": 7 * 24 * time.Hour} {
		if n, ok := strings.CutSuffix(s, suffix); ok {
			v, err := strconv.ParseFloat(n, 64)
			if err != nil || v < 0 {
				return 0, fmt.Errorf("%w: duration %q, want e.g. 24h, 7d or 2w", index.ErrBadOption, s)
			}
			return time.Duration(v * float64(unit)), nil
		}
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("%w: duration %q, want e.g. 24h, 7d or 2w", index.ErrBadOption, s)
	}
	return d, nil
}

// List lists documents, stored and from sources, with their metadata.
func (r *Reader) List(ctx context.Context, opt ListOptions) (*Listing, error) {
	if err := r.sync(); err != nil {
		return nil, err
	}
	switch opt.SortBy {
	case "", "name", "size", "created", "modified", "indexed":
	default:
		return nil, fmt.Errorf("%w: sort by %q, want name, size, created, modified or indexed", index.ErrBadOption, opt.SortBy)
	}
	switch opt.Stored {
	case "", "stored", "source":
	default:
		return nil, fmt.Errorf("%w: stored %q, want stored, source or empty", index.ErrBadOption, opt.Stored)
	}
	if opt.Limit < 0 {
		return nil, fmt.Errorf("%w: limit %d, want 0 (all) or more", index.ErrBadOption, opt.Limit)
	}
	var only map[string]bool
	if opt.Session != "" {
		var err error
		if only, err = r.SessionDocs(opt.Session); err != nil {
			return nil, err
		}
	}
	srcs, err := r.st.Sources()
	if err != nil {
		return nil, err
	}
	names := map[string]string{}
	for _, s := range srcs {
		names[s.ID] = s.Name
	}
	var onlySrc string
	if opt.Source != "" {
		s, err := r.Source(ctx, opt.Source)
		if err != nil {
			return nil, err
		}
		onlySrc = s.ID
	}
	var store *index.Source
	if r.cfg.StoreSource != nil {
		if store, err = r.cfg.StoreSource(); err != nil {
			return nil, err
		}
	}
	stored := map[string]*index.Stored{}
	if err := r.st.ForEachStored(func(r *index.Stored) error { stored[r.Name] = r; return nil }); err != nil {
		return nil, err
	}
	meta := map[string]map[string]string{}
	if err := r.st.ForEachDocMeta(func(id string, m map[string]string) error { meta[id] = m; return nil }); err != nil {
		return nil, err
	}
	ext := strings.ToLower(opt.Extension)
	if ext != "" && !strings.HasPrefix(ext, ".") {
		ext = "." + ext
	}
	now := time.Now()
	in := func(t, after, before time.Time) bool {
		return (after.IsZero() || t.After(after)) && (before.IsZero() || t.Before(before))
	}
	out := []Listed{}
	err = r.st.ForEachDoc(func(d *index.Document) error {
		isStored := store != nil && d.SourceID == store.ID
		l := Listed{ID: d.ID, Path: d.Path, Title: d.Title, Source: names[d.SourceID], SourceID: d.SourceID, Stored: isStored,
			Kind: string(d.Kind), MIME: mimeType(d), Size: d.Size, Hash: d.Hash, Created: d.ModTime, Modified: d.ModTime,
			Indexed: d.IndexedAt, Tags: d.Tags, Metadata: meta[d.ID]}
		if r := stored[d.Path]; isStored && r != nil {
			l.Collection, l.Created, l.Modified = r.Collection, r.Created, r.Modified
		}
		switch {
		case only != nil && !only[d.ID],
			opt.Kind != "" && l.Kind != opt.Kind,
			ext != "" && strings.ToLower(path.Ext(d.Path)) != ext,
			opt.MIME != "" && !mimeMatch(l.MIME, opt.MIME),
			opt.Stored == "stored" && !isStored, opt.Stored == "source" && isStored,
			onlySrc != "" && d.SourceID != onlySrc,
			opt.Within != nil && !slices.Contains(opt.Within, d.SourceID),
			opt.Collection != "" && l.Collection != opt.Collection,
			opt.Recent > 0 && now.Sub(l.Modified) > opt.Recent,
			!in(l.Created, opt.CreatedAfter, opt.CreatedBefore),
			!in(l.Modified, opt.ModifiedAfter, opt.ModifiedBefore),
			!in(l.Indexed, opt.IndexedAfter, opt.IndexedBefore),
			len(opt.Metadata) > 0 && !MetaMatch(l.Metadata, opt.Metadata):
			return nil
		}
		for _, t := range opt.Tags {
			t = strings.TrimPrefix(t, "#")
			if !slices.ContainsFunc(d.Tags, func(x string) bool { return strings.EqualFold(x, t) }) {
				return nil
			}
		}
		out = append(out, l)
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.SortStableFunc(out, func(a, b Listed) int {
		c := 0
		switch opt.SortBy {
		case "size":
			c = cmp.Compare(a.Size, b.Size)
		case "created":
			c = a.Created.Compare(b.Created)
		case "modified":
			c = a.Modified.Compare(b.Modified)
		case "indexed":
			c = a.Indexed.Compare(b.Indexed)
		}
		if c == 0 {
			c = cmp.Or(strings.Compare(a.Path, b.Path), strings.Compare(a.Source, b.Source), strings.Compare(a.ID, b.ID))
		}
		if opt.Descending {
			return -c
		}
		return c
	})
	res := &Listing{Documents: out, Total: len(out), Session: opt.Session}
	if opt.Limit > 0 && len(out) > opt.Limit {
		res.Documents = out[:opt.Limit]
	}
	return res, nil
}

func mimeMatch(have, want string) bool {
	want = strings.ToLower(want)
	if fam, ok := strings.CutSuffix(want, "/*"); ok {
		return strings.HasPrefix(have, fam+"/")
	}
	return have == want
}
