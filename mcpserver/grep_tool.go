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
		mcp.WithDescription("Run an RE2 regular expression over the current contents of the indexed files, line by line, and print "+
			"the matches as ripgrep does (rg --no-heading): path:line:text, with - instead of : for context lines and -- between groups. "+
			"Use it for exact text, code, patterns and exhaustive lists (every TODO, every link to a page); use search to find "+
			"documents about something. Prints \"no matches\" when nothing matched."),
		readOnly("Grep indexed files"),
		mcp.WithString("pattern", mcp.Required(), mcp.Description("RE2 regular expression (Go syntax: no lookaround or backreferences), "+
			"matched within single lines. Escape ( [ { . * + ? with \\ to match them literally.")),
		mcp.WithArray("paths", mcp.Description("Limit the search: absolute paths of indexed files (no other file is read) or "+
			"directories (standing for the indexed files under them), or s3://bucket/prefix URLs of indexed S3 objects. Default: "+
			"every indexed file."), mcp.WithStringItems()),
		mcp.WithBoolean("ignore_case", mcp.Description("Match case-insensitively (rg -i). Default false."), mcp.DefaultBool(false)),
		mcp.WithBoolean("word", mcp.Description("Match whole words only (rg -w). Default false."), mcp.DefaultBool(false)),
		mcp.WithBoolean("invert", mcp.Description("Print the lines that do not match (rg -v). Default false."), mcp.DefaultBool(false)),
		mcp.WithBoolean("line_numbers", mcp.Description("Print line numbers (rg -n). Default false."), mcp.DefaultBool(false)),
		mcp.WithBoolean("with_filename", mcp.Description("Print the file path on each line (rg -H). Default: true unless paths "+
			"names exactly one file.")),
		mcp.WithBoolean("count", mcp.Description("Print only path:count of matching lines per file with a match (rg -c). Default false."), mcp.DefaultBool(false)),
		mcp.WithBoolean("files_with_matches", mcp.Description("Print only the paths of files with a match (rg -l). Default false."), mcp.DefaultBool(false)),
		mcp.WithBoolean("files_without_match", mcp.Description("Print only the paths of files without a match. Default false."), mcp.DefaultBool(false)),
		mcp.WithInteger("context", mcp.Description("Lines of context before and after each match (rg -C). 0..100, default 0."), mcp.DefaultNumber(0), mcp.Min(0), mcp.Max(100)),
		mcp.WithInteger("before_context", mcp.Description("Lines of context before each match (rg -B); the larger of this and context wins. 0..100, default 0."), mcp.DefaultNumber(0), mcp.Min(0), mcp.Max(100)),
		mcp.WithInteger("after_context", mcp.Description("Lines of context after each match (rg -A); the larger of this and context wins. 0..100, default 0."), mcp.DefaultNumber(0), mcp.Min(0), mcp.Max(100)),
		mcp.WithInteger("max_count", mcp.Description("Stop reading a file after this many matching lines (rg -m). Default 0: no limit."), mcp.DefaultNumber(0), mcp.Min(0)),
	)
	return tool{def, adapt(s, "grep", grepArgs{}, func(ctx context.Context, c call, a *grepArgs) (any, error) {
		before, after := max(a.BeforeContext, a.Context), max(a.AfterContext, a.Context)
		opt := braid.GrepOptions{
			Options: grep.Options{IgnoreCase: a.IgnoreCase, Word: a.Word, Invert: a.Invert, Before: before, After: after,
				MaxCount: a.MaxCount, NoRanges: true},
			Paths: a.Paths,
		}
		withName := opt.ManyFiles()
		if a.WithFilename != nil {
			withName = *a.WithFilename
		}
		format := grep.Format{LineNumbers: a.LineNumbers, WithFilename: withName, Count: a.Count,
			FilesWithMatches: a.FilesWithMatches, FilesWithoutMatch: a.FilesWithoutMatch, Before: before, After: after}
		var out, problems bytes.Buffer
		err := c.e.Grep(ctx, a.Pattern, opt, func(r grep.Result) error {
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
		}
		out.Write(problems.Bytes())
		return out.String(), nil
	})}
}
