package grep

import (
	"io"
	"strconv"
)

// Format prints Results as `rg --no-heading --no-config --color never` does
// with the matching flags. Modes take precedence in ripgrep's order: Count,
// then FilesWithMatches, then FilesWithoutMatch, else lines.
//
// A Format remembers whether it has printed anything, to put "--" between
// the context groups of consecutive files as ripgrep does: use one Format,
// by pointer, per output stream, and do not share it between goroutines.
type Format struct {
	LineNumbers       bool // -n: prefix lines with their number
	WithFilename      bool // -H: prefix lines (and -c counts) with File.Name
	Count             bool // -c: print name:count for files with selected lines
	FilesWithMatches  bool // -l: print the names of files with selected lines
	FilesWithoutMatch bool // --files-without-match: print the names of files without
	// Before and After are the context sizes the search used; when either is
	// positive, "--" separates non-adjacent groups of lines.
	Before, After int

	wrote bool   // printed a line before, in lines mode
	buf   []byte // reused output buffer
}

// Write prints r to w. It prints nothing for a binary file, as ripgrep does
// when it meets one while walking a directory, nor for r.Err, which the
// caller reports.
func (f *Format) Write(w io.Writer, r Result) error {
	if r.Err != nil || r.Binary {
		return nil
	}
	name := r.File.Name
	if name == "" {
		name = r.File.Path
	}
	b := f.buf[:0]
	switch {
	case f.Count:
		if r.Count > 0 {
			if f.WithFilename {
				b = append(b, name...)
				b = append(b, ':')
			}
			b = strconv.AppendInt(b, int64(r.Count), 10)
			b = append(b, '\n')
		}
	case f.FilesWithMatches:
		if r.Count > 0 {
			b = append(b, name...)
			b = append(b, '\n')
		}
	case f.FilesWithoutMatch:
		if r.Count == 0 {
			b = append(b, name...)
			b = append(b, '\n')
		}
	default:
		context := f.Before > 0 || f.After > 0
		prev := -1 // no line of this file yet
		for _, l := range r.Lines {
			if context && f.wrote && (prev < 0 || l.Number != prev+1) {
				b = append(b, "--\n"...)
			}
			prev = l.Number
			f.wrote = true
			sep := byte('-')
			if l.Match {
				sep = ':'
			}
			if f.WithFilename {
				b = append(b, name...)
				b = append(b, sep)
			}
			if p := r.File.Page(l.Number); p > 0 {
				b = append(b, "page "...)
				b = strconv.AppendInt(b, int64(p), 10)
				b = append(b, sep)
			}
			if f.LineNumbers {
				b = strconv.AppendInt(b, int64(l.Number), 10)
				b = append(b, sep)
			}
			b = append(b, l.Text...)
			b = append(b, '\n')
		}
	}
	f.buf = b
	if len(b) == 0 {
		return nil
	}
	_, err := w.Write(b)
	return err
}
