package notes

import (
	"fmt"
	"strings"
	"time"

	"github.com/braidsearch/braid/index"
)

// Text is the ancestry as braid info prints it: one line a node, root
// first, indented by depth.
func (in *Info) Text() string {
	var b strings.Builder
	for depth, n := range in.Ancestry {
		fmt.Fprintf(&b, "%s%-8s  %s\n", strings.Repeat("  ", depth), n.Type, n.Line())
	}
	return b.String()
}

// Line describes the node: a source's name and path, a folder's path, a
// document's path and title, a heading's text, then its lines and id.
func (n InfoNode) Line() string {
	var parts []string
	switch n.Type {
	case "source":
		parts = append(parts, n.Name, n.Path)
	case "folder":
		parts = append(parts, n.Path+"/")
	case "document":
		parts = append(parts, n.Path, fmt.Sprintf("%q", n.Title))
	case "heading":
		parts = append(parts, n.Name)
	}
	if n.Lines != nil {
		if n.Lines.Start == n.Lines.End {
			parts = append(parts, fmt.Sprintf("line %d", n.Lines.Start))
		} else {
			parts = append(parts, fmt.Sprintf("lines %d-%d", n.Lines.Start, n.Lines.End))
		}
	}
	if n.ID != "" {
		parts = append(parts, "id "+n.ID)
	}
	return strings.Join(parts, "  ")
}

// Tree draws a source's root and the folders below it with their
// document counts, as braid tree prints them.
func (f *Folder) Tree() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%d)  %s\n", f.Name, f.Docs, f.Dir)
	drawFolders(&b, f.Folders, "")
	return b.String()
}

func drawFolders(b *strings.Builder, fs []*Folder, indent string) {
	for i, f := range fs {
		branch, more := "├── ", "│   "
		if i == len(fs)-1 {
			branch, more = "└── ", "    "
		}
		fmt.Fprintf(b, "%s%s%s (%d)\n", indent, branch, f.Name, f.Docs)
		drawFolders(b, f.Folders, indent+more)
	}
}

// Text is the citation as braid cite prints it: the markdown link, where
// the chunk is (file is its File as the reader should see it, e.g.
// relative to the current directory), and its text quoted.
func (c *Citation) Text(file string) string {
	where := fmt.Sprintf("%s:%d-%d", file, c.StartLine, c.EndLine)
	if c.File == "" {
		where = fmt.Sprintf("%s:%d-%d", c.Path, c.StartLine, c.EndLine)
	}
	if c.Page > 0 {
		where += fmt.Sprintf("  p. %d", c.Page)
	}
	if len(c.HeadingPath) > 0 {
		where += "  § " + strings.Join(c.HeadingPath, " › ")
	}
	return c.Tag + "\n" + where + "\n> " + c.Snippet + "\n"
}

// Text numbers the matches, each with how and where it matched, then
// counts them.
func (r *FindResults) Text() string {
	var b strings.Builder
	for i, f := range r.Results {
		fmt.Fprintf(&b, "%2d. %s  (%s)  %s %s  id %s\n", i+1, f.Title, f.Path, f.Match, f.Field, f.ID)
	}
	fmt.Fprintf(&b, "%d shown, %d matching, %.1f ms\n", len(r.Results), r.Total, r.TookMS)
	return b.String()
}

// Text is a line a document: id, source (and collection), size, time
// modified, path and metadata.
func (l *Listing) Text() string {
	var b strings.Builder
	for _, d := range l.Documents {
		where := d.Source
		if d.Collection != "" {
			where += "/" + d.Collection
		}
		meta := ""
		if len(d.Metadata) > 0 {
			meta = "  " + index.FormatMeta(d.Metadata)
		}
		fmt.Fprintf(&b, "%s  %-14s %9s  %s  %s%s\n", d.ID, where, index.FormatBytes(d.Size), d.Modified.Local().Format(time.DateTime), d.Path, meta)
	}
	return b.String()
}

// Text is the listing as braid contents prints it: the folder, then one
// line a child, its type, id and name.
func (c *Contents) Text() string {
	var b strings.Builder
	if c.Folder != nil {
		fmt.Fprintf(&b, "%s  %s (%d documents)\n", c.Folder.ID, c.Folder.Materialized, c.Folder.Docs)
	}
	if len(c.Items) == 0 {
		b.WriteString("  (empty)\n")
	}
	for _, p := range c.Items {
		switch p.Type {
		case PartFolder:
			fmt.Fprintf(&b, "  %-12s  %s/  (%d documents)\n", p.ID, p.Name, p.Docs)
		default:
			fmt.Fprintf(&b, "  %-12s  %s", p.ID, p.Name)
			if p.Title != "" && p.Title != p.Name {
				fmt.Fprintf(&b, "  %q", p.Title)
			}
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// Text is the lineage as braid lineage prints it: the summary, the
// document's kept versions, the edges and the versions holding the text.
func (l *Lineage) Text() string {
	var b strings.Builder
	b.WriteString(l.Summary + "\n")
	fmt.Fprintf(&b, "document %s %s\n", l.DocumentID, l.Path)
	for _, v := range l.Versions {
		cur := ""
		if v.Current {
			cur = "  (current)"
		}
		fmt.Fprintf(&b, "  version %d  %s  %s  %d chunks%s\n", v.Version, v.Hash[:min(12, len(v.Hash))], v.IndexedAt.Local().Format(time.DateTime), v.Chunks, cur)
	}
	if len(l.Edges) > 0 {
		b.WriteString("edges:\n")
	}
	for _, e := range l.Edges {
		fmt.Fprintf(&b, "  %s -> %s  %s  %s\n", e.Parent, e.Child, e.Relation, e.CreatedAt.Local().Format(time.DateTime))
	}
	b.WriteString("same text in:\n")
	for _, h := range l.SameText {
		cur := ""
		if h.Current {
			cur = "  (current)"
		}
		fmt.Fprintf(&b, "  %s  %s version %d  %s%s\n", h.ChunkID, h.Path, h.Version, h.IndexedAt.Local().Format(time.DateTime), cur)
	}
	return b.String()
}
