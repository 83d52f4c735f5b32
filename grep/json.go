package grep

import (
	"encoding/json"
	"io"
)

// JSON prints Results as JSON lines, as braid grep --json does: an object
// a line of a file ({"path", "line", "text", "match", "ranges"}), or with
// Count or FilesWithMatches {"path", "count"} for each file with selected
// lines, with FilesWithoutMatch {"path", "count": 0} for each file
// without. Paths are File.Name. Use one JSON, by pointer, per output
// stream.
type JSON struct {
	Count, FilesWithMatches, FilesWithoutMatch bool

	enc *json.Encoder
}

type jsonLine struct {
	Path   string      `json:"path"`
	Line   int         `json:"line"`
	Page   int         `json:"page,omitempty"` // a PDF's page the line is on
	Text   string      `json:"text"`
	Match  bool        `json:"match"`
	Ranges []jsonRange `json:"ranges,omitempty"`
}

type jsonRange struct {
	Start int `json:"start"`
	End   int `json:"end"`
}

type jsonCount struct {
	Path  string `json:"path"`
	Count int    `json:"count"`
}

// Write prints r to w; a result with an error is the caller's to report.
func (j *JSON) Write(w io.Writer, r Result) error {
	if r.Err != nil {
		return nil
	}
	if j.enc == nil {
		j.enc = json.NewEncoder(w)
		j.enc.SetEscapeHTML(false)
	}
	switch {
	case j.Count || j.FilesWithMatches:
		if r.Count > 0 {
			return j.enc.Encode(jsonCount{r.File.Name, r.Count})
		}
		return nil
	case j.FilesWithoutMatch:
		if r.Count == 0 {
			return j.enc.Encode(jsonCount{r.File.Name, 0})
		}
		return nil
	}
	for _, l := range r.Lines {
		jl := jsonLine{Path: r.File.Name, Line: l.Number, Page: r.File.Page(l.Number), Text: l.Text, Match: l.Match}
		for _, rg := range l.Ranges {
			jl.Ranges = append(jl.Ranges, jsonRange{rg[0], rg[1]})
		}
		if err := j.enc.Encode(jl); err != nil {
			return err
		}
	}
	return nil
}
