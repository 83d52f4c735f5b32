package cli

import (
	"bufio"
	"fmt"

	"github.com/braidsearch/braid"
	"github.com/braidsearch/braid/grep"
)

// GrepCmd runs a regular expression over the indexed files.
type GrepCmd struct {
	Pattern           string      `arg:"" help:"RE2 regular expression (https://github.com/google/re2/wiki/Syntax)."`
	Paths             []pathOrURL `arg:"" optional:"" help:"Indexed files to search (no other file is read), or directories standing for the indexed documents under them, or s3://bucket/prefix URLs of indexed S3 objects (default: every indexed file)."`
	Session           string      `help:"Only the documents this session pins (braid sessions)." placeholder:"NAME"`
	IgnoreCase        bool        `short:"i" help:"Match case-insensitively."`
	Word              bool        `short:"w" help:"Match whole words only."`
	Invert            bool        `short:"v" help:"Print lines that do not match."`
	LineNumber        bool        `short:"n" help:"Print line numbers."`
	WithFilename      bool        `short:"H" help:"Print the file name for each line (default when more than one file is searched)."`
	NoFilename        bool        `help:"Never print file names."`
	After             int         `short:"A" help:"Lines of context after each match." placeholder:"N"`
	Before            int         `short:"B" help:"Lines of context before each match." placeholder:"N"`
	Context           int         `short:"C" help:"Lines of context before and after each match." placeholder:"N"`
	Count             bool        `short:"c" help:"Print the number of matching lines per file."`
	FilesWithMatches  bool        `short:"l" help:"Print only the names of files with a match."`
	FilesWithoutMatch bool        `short:"L" help:"Print only the names of files without a match."`
	MaxCount          int         `short:"m" help:"Stop a file after N matching lines." placeholder:"N"`
}

// Run greps.
func (c *GrepCmd) Run(g *Globals) error {
	if c.After < 0 || c.Before < 0 || c.Context < 0 || c.MaxCount < 0 {
		return fmt.Errorf("-A, -B, -C and -m take a number of 0 or more")
	}
	before, after := c.Before, c.After
	if c.Context > 0 {
		before, after = max(before, c.Context), max(after, c.Context)
	}
	opt := braid.GrepOptions{
		Options: grep.Options{IgnoreCase: c.IgnoreCase, Word: c.Word, Invert: c.Invert, Before: before, After: after, MaxCount: c.MaxCount,
			NoRanges: !g.JSON}, // match ranges cost time and only JSON shows them
		Paths:   strs(c.Paths),
		Name:    g.displayPath,
		Session: c.Session,
	}
	if _, err := grep.Compile(c.Pattern, opt.Options); err != nil {
		return err
	}
	e, done, err := g.open(true, "braid grep")
	if err != nil {
		return err
	}
	defer done()
	withName := !c.NoFilename && (c.WithFilename || opt.ManyFiles())
	format := grep.Format{LineNumbers: c.LineNumber, WithFilename: withName, Count: c.Count,
		FilesWithMatches: c.FilesWithMatches, FilesWithoutMatch: c.FilesWithoutMatch, Before: before, After: after}
	js := &grep.JSON{Count: c.Count, FilesWithMatches: c.FilesWithMatches, FilesWithoutMatch: c.FilesWithoutMatch}
	w := bufio.NewWriterSize(g.stdout, 64<<10)
	defer w.Flush()
	matched := false
	err = e.Grep(g.ctx, c.Pattern, opt, func(r grep.Result) error {
		if r.Err != nil {
			g.warn("%s: %v", r.File.Name, r.Err)
			return nil
		}
		matched = matched || r.Count > 0
		if g.JSON {
			return js.Write(w, r)
		}
		return format.Write(w, r)
	})
	if err != nil {
		return err
	}
	if !matched && !c.FilesWithoutMatch {
		w.Flush()
		return errSilent // like grep and rg: exit 1 when nothing matched
	}
	return nil
}
