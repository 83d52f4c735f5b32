package cli

import (
	"fmt"
	"time"

	"github.com/braidsearch/braid"
	"github.com/braidsearch/braid/notes"
)

// LsCmd lists documents with their metadata.
type LsCmd struct {
	Type           string            `help:"Only documents of this kind: markdown, text or beir." enum:",markdown,text,beir" default:""`
	Ext            string            `help:"Only documents with this extension (md, .txt, ...)." placeholder:"EXT"`
	Mime           string            `help:"Only documents of this media type (text/markdown, or a family like text/*)." placeholder:"TYPE"`
	Stored         bool              `help:"Only documents stored with braid add." xor:"origin"`
	Sources        bool              `help:"Only files of sources." xor:"origin"`
	Source         string            `help:"Only this source (id or name)." placeholder:"SOURCE"`
	Collection     string            `help:"Only stored documents of this collection." placeholder:"NAME"`
	Tag            []string          `help:"Only documents with this tag (repeatable: all must match)." placeholder:"TAG"`
	Meta           map[string]string `help:"Only documents with metadata KEY=VALUE (repeatable: all must match)." placeholder:"KEY=VALUE"`
	Recent         string            `help:"Only documents modified within this long (90m, 24h, 7d, 2w)." placeholder:"AGE"`
	CreatedAfter   time.Time         `help:"Only documents created after this date (YYYY-MM-DD)." placeholder:"DATE" format:"2006-01-02"`
	CreatedBefore  time.Time         `help:"Only documents created before this date." placeholder:"DATE" format:"2006-01-02"`
	ModifiedAfter  time.Time         `help:"Only documents modified after this date." placeholder:"DATE" format:"2006-01-02"`
	ModifiedBefore time.Time         `help:"Only documents modified before this date." placeholder:"DATE" format:"2006-01-02"`
	IndexedAfter   time.Time         `help:"Only documents indexed after this date." placeholder:"DATE" format:"2006-01-02"`
	IndexedBefore  time.Time         `help:"Only documents indexed before this date." placeholder:"DATE" format:"2006-01-02"`
	Sort           string            `help:"Order by name, size, created, modified or indexed." enum:"name,size,created,modified,indexed" default:"name"`
	Desc           bool              `help:"Reverse the order (largest or newest first)."`
	Limit          int               `help:"Print at most this many (0: all)." short:"n" default:"0"`
	PathsOnly      bool              `help:"Print only the paths."`
	Session        string            `help:"Only the documents this session pins (braid sessions)." placeholder:"NAME"`
}

// Run lists.
func (c *LsCmd) Run(g *Globals) error {
	age, err := notes.ParseAge(c.Recent)
	if err != nil {
		return err
	}
	opt := notes.ListOptions{Kind: c.Type, Extension: c.Ext, MIME: c.Mime, Source: c.Source, Collection: c.Collection, Tags: c.Tag,
		Metadata: c.Meta, Recent: age, CreatedAfter: c.CreatedAfter, CreatedBefore: c.CreatedBefore, ModifiedAfter: c.ModifiedAfter,
		ModifiedBefore: c.ModifiedBefore, IndexedAfter: c.IndexedAfter, IndexedBefore: c.IndexedBefore, SortBy: c.Sort,
		Descending: c.Desc, Limit: c.Limit, Session: c.Session}
	switch {
	case c.Stored:
		opt.Stored = "stored"
	case c.Sources:
		opt.Stored = "source"
	}
	return g.withReader("braid ls", func(e *braid.Engine) error {
		l, err := e.Notes().List(g.ctx, opt)
		if err != nil {
			return err
		}
		if c.PathsOnly {
			paths := make([]string, len(l.Documents))
			for i, d := range l.Documents {
				paths[i] = d.Path
			}
			if g.JSON {
				return g.printJSON(map[string]any{"paths": paths, "total": l.Total})
			}
			for _, p := range paths {
				fmt.Fprintln(g.stdout, p)
			}
		} else if err := g.print(l, l.Text); err != nil || g.JSON {
			return err
		}
		if len(l.Documents) < l.Total {
			fmt.Fprintf(g.stdout, "(%d of %d documents; raise --limit to see more)\n", len(l.Documents), l.Total)
		}
		return nil
	})
}
