package docstore

import (
	"fmt"
	"strings"
	"time"

	"github.com/braidsearch/braid/index"
)

// Text says what was stored, under which id, version and hash, and how
// many bytes deduplication saved.
func (r *AddResult) Text() string {
	what := "stored"
	if r.Replaced {
		what = "stored a new version of"
	}
	return fmt.Sprintf("%s %s (id %s, version %d, hash %s): %s written, %s already stored\n", what, r.Name, r.ID, r.Version,
		r.Hash[:12], index.FormatBytes(r.BytesStored), index.FormatBytes(r.BytesDeduped))
}

// Text is the document's metadata and tags after the update.
func (r *UpdateResult) Text() string {
	return fmt.Sprintf("%s (id %s): metadata %s; tags %s\n", r.Path, r.ID, index.FormatMeta(r.Metadata), strings.Join(r.Tags, ", "))
}

// Text lists what was (or in a dry run would be) deleted and what that
// freed.
func (r *DeleteResult) Text() string {
	var b strings.Builder
	verb := "deleted"
	if r.DryRun {
		verb = "would delete"
	}
	for _, d := range r.Deleted {
		fmt.Fprintf(&b, "%s %s (id %s, %s)\n", verb, d.Name, d.ID, index.FormatBytes(d.Size))
	}
	if len(r.Deleted) == 0 {
		b.WriteString("no stored document matched; nothing deleted\n")
	} else if !r.DryRun {
		fmt.Fprintf(&b, "%d documents deleted; %d blobs (%s) no longer referenced were removed\n", len(r.Deleted), r.BlobsRemoved, index.FormatBytes(r.BytesFreed))
	}
	return b.String()
}

// Text is the document, then a line a version: number, hash, size, time,
// and whether it is current and its content kept.
func (l *VersionList) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (id %s)\n", l.Path, l.ID)
	for _, v := range l.Versions {
		note := ""
		if v.Current {
			note = "  current"
		}
		if !v.Kept {
			note += "  (content not kept)"
		}
		fmt.Fprintf(&b, "  v%-3d %s  %9s  %s%s\n", v.Version.Version, v.Hash[:12], index.FormatBytes(v.Size), v.Time.Local().Format(time.DateTime), note)
	}
	return b.String()
}

// Text is the unified diff, or a line saying the versions are identical.
func (c *Comparison) Text() string {
	if c.Diff == "" {
		return fmt.Sprintf("versions %d and %d of %s are identical\n", c.From.Version.Version, c.To.Version.Version, c.Path)
	}
	return c.Diff
}

// String is the collection's name, document count and size on one line.
func (c Collection) String() string {
	return fmt.Sprintf("%-20s %5d docs %9s", c.Name, c.Documents, index.FormatBytes(c.Bytes))
}

// String is the snapshot on one line: id, time, what it holds, counts and
// label.
func (s SnapshotInfo) String() string {
	what := "all stored documents"
	if s.Collection != "" {
		what = "collection " + s.Collection
	}
	return fmt.Sprintf("%-4s %s  %-28s %5d docs %9s  %s", s.ID, s.Created.Local().Format(time.DateTime), what, s.Documents, index.FormatBytes(s.Bytes), s.Label)
}

// Text lists the files written (or in a dry run to be written) and
// skipped, then counts them.
func (r *RestoreResult) Text() string {
	var b strings.Builder
	verb := "wrote"
	if r.DryRun {
		verb = "would write"
	}
	for _, w := range r.Written {
		note := ""
		if w.Replaced {
			note = " (replaced)"
		}
		fmt.Fprintf(&b, "%s %s%s\n", verb, w.File, note)
	}
	for _, s := range r.Skipped {
		fmt.Fprintf(&b, "skipped %s: %s\n", s.Name, s.Reason)
	}
	fmt.Fprintf(&b, "%d written, %d skipped under %s\n", len(r.Written), len(r.Skipped), r.Output)
	return b.String()
}
