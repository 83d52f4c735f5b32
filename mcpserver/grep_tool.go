package mcpserver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/braidsearch/braid"
	"github.com/braidsearch/braid/grep"
)

// maxGrepOutput stops a grep whose output would not be worth keeping even
// in the scratchpad.
const maxGrepOutput = 16 << 20

var errGrepFull = errors.New("grep output limit")

type grepArgs struct {
	Pattern           string   `json:"pattern"`
	Paths             []string `json:"paths"`
	IgnoreCase        bool     `json:"ignore_case"`
	Word              bool     `json:"word"`
	Invert            bool     `json:"invert"`
	LineNumbers       bool     `json:"line_numbers"`
	WithFilename      *bool    `json:"with_filename"`
	Count             bool     `json:"count"`
	FilesWithMatches  bool     `json:"files_with_matches"`
	FilesWithoutMatch bool     `json:"files_without_match"`
	Context           int      `json:"context"`
	BeforeContext     int      `json:"before_context"`
	AfterContext      int      `json:"after_context"`
	MaxCount          int      `json:"max_count"`
	Session           string   `json:"session"`
	UseSession        *bool    `json:"use_session"`
}

func (a *grepArgs) check() error {
	if a.Pattern == "" {
		return fmt.Errorf("%w: pattern is required: an RE2 regular expression such as \"TODO|FIXME\"", ErrBadArgument)
	}
	for _, c := range []struct {
		name string
		v    int
	}{{"context", a.Context}, {"before_context", a.BeforeContext}, {"after_context", a.AfterContext}} {
		if err := intRange(c.name, c.v, 0, 100); err != nil {
			return err
		}
	}
	if a.MaxCount < 0 {
		return argError("max_count", "%d is negative; want 0 (no limit) or more", a.MaxCount)
	}
	return nil
}

func (s *Server) grepTool() tool {
	def := mcp.NewTool("grep",
		mcp.WithDescription("RE2 regex over the indexed files as they are now, output as rg --no-heading. "+
			"Flags as rg: ignore_case -i, word -w, invert -v, line_numbers -n, with_filename -H, count -c, "+
			"files_with_matches -l, files_without_match, context -C, before_context -B, after_context -A, max_count -m."),
		readOnly(),
		mcp.WithString("pattern", mcp.Required(), mcp.Description("RE2, no lookaround.")),
		mcp.WithArray("paths", mcp.Description("Only these files or folders."), mcp.WithStringItems()),
		mcp.WithBoolean("ignore_case"),
		mcp.WithBoolean("word"),
		mcp.WithBoolean("invert"),
		mcp.WithBoolean("line_numbers"),
		mcp.WithBoolean("with_filename"),
		mcp.WithBoolean("count"),
		mcp.WithBoolean("files_with_matches"),
		mcp.WithBoolean("files_without_match"),
		mcp.WithInteger("context", mcp.Min(0), mcp.Max(100)),
		mcp.WithInteger("before_context", mcp.Min(0), mcp.Max(100)),
		mcp.WithInteger("after_context", mcp.Min(0), mcp.Max(100)),
		mcp.WithInteger("max_count", mcp.Min(0)),
		mcp.WithString("session", mcp.Description(descSession)),
		mcp.WithBoolean("use_session", mcp.Description(descUseSession)),
	)
	return tool{def, adapt(s, "grep", grepArgs{}, func(ctx context.Context, c call, a *grepArgs) (any, error) {
		before, after := max(a.BeforeContext, a.Context), max(a.AfterContext, a.Context)
		opt := braid.GrepOptions{
			Options: grep.Options{IgnoreCase: a.IgnoreCase, Word: a.Word, Invert: a.Invert, Before: before, After: after,
				MaxCount: a.MaxCount, NoRanges: true},
			Paths: a.Paths,
		}
		var err error
		if opt.Session, err = s.scope(ctx, c.e, a.Session, a.UseSession); err != nil {
			return nil, err
		}
		if opt.Within, err = s.within(ctx, c.e); err != nil { // access.go: only the user's sources' files
			return nil, err
		}
		withName := opt.ManyFiles()
		if a.WithFilename != nil {
			withName = *a.WithFilename
		}
		format := grep.Format{LineNumbers: a.LineNumbers, WithFilename: withName, Count: a.Count,
			FilesWithMatches: a.FilesWithMatches, FilesWithoutMatch: a.FilesWithoutMatch, Before: before, After: after}
		var out, problems bytes.Buffer
		err = c.e.Grep(ctx, a.Pattern, opt, func(r grep.Result) error {
			if r.Err != nil {
				fmt.Fprintf(&problems, "cannot read %s: %v\n", r.File.Name, r.Err)
				return nil
			}
			if err := format.Write(&out, r); err != nil {
				return err
			}
			if out.Len() > maxGrepOutput {
				return errGrepFull
			}
			return nil
		})
		switch {
		case errors.Is(err, errGrepFull):
			fmt.Fprintf(&out, "[grep stopped after %d MB of output; narrow the pattern or the paths, or use count or files_with_matches]\n", maxGrepOutput>>20)
		case errors.Is(err, grep.ErrBadPattern):
			return nil, fmt.Errorf("%w pattern: %s", ErrBadArgument, strings.TrimPrefix(message(err), "bad pattern "))
		case err != nil:
			return nil, err
		}
		if out.Len() == 0 {
			out.WriteString("no matches\n")
			if opt.Session != "" {
				fmt.Fprintf(&out, "(grep read only session %s's pinned documents; use_session false reads them all)\n", opt.Session)
			}
		}
		out.Write(problems.Bytes())
		return out.String(), nil
	})}
}
