package prompts

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"text/tabwriter"

	"gopkg.in/yaml.v3"

	"github.com/braidsearch/braid/indexdir"
	"github.com/braidsearch/braid/internal/confine"
)

// Errors a caller can tell apart.
var (
	// ErrNotFound is wrapped by the error of Get for a name no prompt has.
	ErrNotFound = errors.New("prompts: no such prompt")
	// ErrArgument is wrapped by the error of Render for a missing required
	// argument, an argument the prompt does not take or a bad value.
	ErrArgument = errors.New("prompts: bad argument")
)

// FilePrefix and FileExt frame the name of a prompt file:
// PROMPT-code-review.md holds the prompt code_review.
const (
	FilePrefix = "PROMPT-"
	FileExt    = ".md"
)

// maxFileBytes is the largest prompt file read; a prompt is a message, not
// a document.
const maxFileBytes = 256 << 10

// Prompt is a message template: a client shows it in a menu, asks for its
// arguments and sends the text Render makes.
type Prompt struct {
	Name        string     `json:"name"`
	Title       string     `json:"title,omitempty"`
	Description string     `json:"description"`
	Arguments   []Argument `json:"arguments,omitempty"`
	// Body is the message text, with {{name}} placeholders for the
	// arguments.
	Body string `json:"-"`
	// File is the file the prompt was read from; empty for a built-in.
	File string `json:"file,omitempty"`
}

// Argument is one value a prompt's text takes.
type Argument struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required,omitempty"`
	// Default replaces the placeholders of an optional argument not given;
	// empty means they are removed.
	Default string `json:"default,omitempty"`

	check func(string) error // nil accepts any value
}

// Set is the prompts on offer: the built-ins and the files of a folder.
type Set struct {
	// Dir is the folder the files were read from; empty when none was.
	Dir     string
	Prompts []Prompt // sorted by name

	broken map[string]error // why a prompt file was left out, by prompt name
}

// Dir picks the folder of PROMPT-*.md files to Load: dir when given,
// which must be an existing folder; else the prompts folder of the index
// directory index, when there is one; else "", the built-ins alone.
func Dir(dir, index string) (string, error) {
	if dir != "" {
		info, err := os.Stat(dir)
		switch {
		case errors.Is(err, os.ErrNotExist):
			return "", fmt.Errorf("prompts: Dir %s: no such folder; create it, or leave Dir empty for the built-in prompts", dir)
		case err != nil:
			return "", fmt.Errorf("prompts: Dir: %w", err)
		case !info.IsDir():
			return "", fmt.Errorf("prompts: Dir %s is a file; want the folder that holds the %s*%s files", dir, FilePrefix, FileExt)
		}
		return dir, nil
	}
	d := filepath.Join(index, indexdir.PromptsDir)
	if info, err := os.Stat(d); err == nil && info.IsDir() {
		return d, nil
	}
	return "", nil
}

// Load returns the built-in prompts and those of the PROMPT-*.md files in
// dir, a file replacing the built-in of the same name. An empty dir or one
// that does not exist gives the built-ins alone. Load reads the folder
// each time it is called, so edits show up at once. A file that cannot be
// used is left out, with the built-in it would replace, and named in the
// error, which comes with the set made of the rest: a caller may warn and
// go on; Get of its name gives the file's problem. Files are read as
// ReadFile reads them: a symbolic link, a FIFO, a socket or a device is
// left out this way without being read, so Load never blocks on one. The
// set is never nil.
func Load(dir string) (*Set, error) {
	set := &Set{Dir: dir, broken: map[string]error{}}
	byName := map[string]Prompt{}
	for _, p := range Builtin() {
		byName[p.Name] = p
	}
	var problems []error
	if dir != "" {
		entries, err := readDir(dir)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			problems = append(problems, fmt.Errorf("prompts: %w", err))
		}
		for _, ent := range entries { // sorted by name
			n := ent.Name()
			if ent.IsDir() || !strings.HasPrefix(n, FilePrefix) || !strings.HasSuffix(n, FileExt) {
				continue
			}
			// A link, FIFO, socket or device is refused by ReadFile
			// without being opened for reading, and named in the error.
			p, err := ReadFile(filepath.Join(dir, n))
			if err != nil {
				problems = append(problems, err)
				if name, ok := NameOf(n); ok {
					set.broken[name] = err
					delete(byName, name) // not the built-in it was meant to replace
				}
				continue
			}
			byName[p.Name] = *p
		}
	}
	for _, p := range byName {
		set.Prompts = append(set.Prompts, p)
	}
	slices.SortFunc(set.Prompts, func(a, b Prompt) int { return strings.Compare(a.Name, b.Name) })
	return set, errors.Join(problems...)
}

// readDir lists the folder dir by name, as os.ReadDir does, but opens it
// without blocking: a FIFO put where the folder was must not stop a
// server's initialize or prompts/list.
func readDir(dir string) ([]os.DirEntry, error) {
	f, err := confine.Open("", dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("%s is %s, want a folder", dir, confine.Kind(info.Mode()))
	}
	entries, err := f.ReadDir(-1)
	slices.SortFunc(entries, func(a, b os.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return entries, err
}

// Names lists the prompts' names in order.
func (s *Set) Names() []string {
	names := make([]string, len(s.Prompts))
	for i, p := range s.Prompts {
		names[i] = p.Name
	}
	return names
}

// Get returns the prompt named name.
func (s *Set) Get(name string) (*Prompt, error) {
	for i := range s.Prompts {
		if s.Prompts[i].Name == name {
			return &s.Prompts[i], nil
		}
	}
	if err := s.broken[name]; err != nil {
		return nil, fmt.Errorf("%w named %q: its file could not be used: %w", ErrNotFound, name, err)
	}
	where := "write it to a " + FilePrefix + "NAME" + FileExt + " file in the prompts folder"
	if s.Dir != "" {
		where = fmt.Sprintf("write %s to %s", FileName(name), s.Dir)
	}
	return nil, fmt.Errorf("%w named %q: the prompts are %s; to add one, %s", ErrNotFound, name, strings.Join(s.Names(), ", "), where)
}

// FileName is the file that holds the prompt name: code_review is
// PROMPT-code-review.md.
func FileName(name string) string {
	return FilePrefix + strings.ReplaceAll(name, "_", "-") + FileExt
}

// NameOf is the prompt a file holds, from its name: PROMPT-code-review.md
// is code_review. ok is false for a file that is not a prompt file.
func NameOf(file string) (name string, ok bool) {
	base := filepath.Base(file)
	if !strings.HasPrefix(base, FilePrefix) || !strings.HasSuffix(base, FileExt) {
		return "", false
	}
	name = strings.ReplaceAll(strings.TrimSuffix(strings.TrimPrefix(base, FilePrefix), FileExt), "-", "_")
	return name, validName.MatchString(name)
}

var validName = regexp.MustCompile(`^[A-Za-z0-9_.]+$`)

// frontmatter is what a prompt file's YAML header may say.
type frontmatter struct {
	Title       string `yaml:"title"`
	Description string `yaml:"description"`
	Arguments   []struct {
		Name        string `yaml:"name"`
		Description string `yaml:"description"`
		Required    bool   `yaml:"required"`
		Default     string `yaml:"default"`
	} `yaml:"arguments"`
}

// ReadFile reads one prompt file: a regular file of at most 256 KiB, not
// a symbolic link, read without blocking (confine.ReadConfig); a link, a
// FIFO, a device or a larger file is refused. The prompt's name comes from
// the file's name; its description from the frontmatter's description, else the
// body's first non-empty line; its arguments from the frontmatter's
// arguments list, else one required argument per {{placeholder}} in the
// body, in order.
func ReadFile(file string) (*Prompt, error) {
	name, ok := NameOf(file)
	if !ok {
		return nil, fmt.Errorf("prompts: %s: want a name %sNAME%s where NAME has only letters, digits, dashes, underscores and dots", file, FilePrefix, FileExt)
	}
	data, err := confine.ReadConfig(file, maxFileBytes)
	switch {
	case errors.Is(err, confine.ErrNotRegular):
		return nil, fmt.Errorf("prompts: %w; a prompt is read from a regular file only, never through a link", err)
	case errors.Is(err, confine.ErrTooLarge):
		return nil, fmt.Errorf("prompts: %w, the most a prompt may have", err)
	case err != nil:
		return nil, fmt.Errorf("prompts: %w", err)
	}
	p, err := parse(name, data)
	if err != nil {
		return nil, fmt.Errorf("prompts: %s: %w", file, err)
	}
	p.File = file
	return p, nil
}

// parse makes the prompt name from a file's text.
func parse(name string, data []byte) (*Prompt, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	text := strings.ReplaceAll(string(data), "\r\n", "\n")
	var fm frontmatter
	if head, body, ok := splitFrontmatter(text); ok {
		if err := yaml.Unmarshal([]byte(head), &fm); err != nil {
			return nil, fmt.Errorf("frontmatter: %v; want description: TEXT and arguments: [{name, description, required, default}]", oneLine(err))
		}
		text = body
	}
	p := &Prompt{Name: name, Title: strings.TrimSpace(fm.Title), Description: strings.TrimSpace(fm.Description),
		Body: strings.TrimSpace(text)}
	if p.Body == "" {
		return nil, errors.New("the prompt has no text after its frontmatter")
	}
	if p.Description == "" {
		p.Description = firstLine(p.Body)
	}
	seen := map[string]bool{}
	for i, a := range fm.Arguments {
		if !argName.MatchString(a.Name) {
			return nil, fmt.Errorf("arguments[%d]: name %q: want letters, digits, dashes and underscores", i, a.Name)
		}
		if seen[a.Name] {
			return nil, fmt.Errorf("arguments[%d]: %s is listed twice", i, a.Name)
		}
		seen[a.Name] = true
		p.Arguments = append(p.Arguments, Argument{Name: a.Name, Description: strings.TrimSpace(a.Description),
			Required: a.Required, Default: a.Default})
	}
	if fm.Arguments == nil {
		for _, m := range placeholder.FindAllStringSubmatch(p.Body, -1) {
			if !seen[m[1]] {
				seen[m[1]] = true
				p.Arguments = append(p.Arguments, Argument{Name: m[1], Description: "Fills {{" + m[1] + "}} in the prompt.", Required: true})
			}
		}
	}
	return p, nil
}

var (
	argName     = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]*$`)
	placeholder = regexp.MustCompile(`\{\{\s*([A-Za-z_][A-Za-z0-9_-]*)\s*\}\}`)
)

// splitFrontmatter cuts a "---" line, YAML and a "---" or "..." line off
// the start of text.
func splitFrontmatter(text string) (head, body string, ok bool) {
	first, rest, found := strings.Cut(text, "\n")
	if !found || strings.TrimRight(first, " \t") != "---" {
		return "", text, false
	}
	var b strings.Builder
	for rest != "" {
		var line string
		line, rest, _ = strings.Cut(rest, "\n")
		if l := strings.TrimRight(line, " \t"); l == "---" || l == "..." {
			return b.String(), rest, true
		}
		b.WriteString(line)
		b.WriteByte('\n')
	}
	return "", text, false
}

// firstLine is the first non-empty line of text, without a heading's #s.
func firstLine(text string) string {
	for l := range strings.SplitSeq(text, "\n") {
		if l = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(l), "#")); l != "" {
			return l
		}
	}
	return ""
}

func oneLine(err error) string { return strings.ReplaceAll(err.Error(), "\n", " ") }

// Render fills the prompt's placeholders with args. Every required
// argument must be given and not blank; an argument the prompt does not
// take is refused. A placeholder that names no argument is left as it is.
func (p *Prompt) Render(args map[string]string) (string, error) {
	var unknown []string
	for k := range args {
		if !slices.ContainsFunc(p.Arguments, func(a Argument) bool { return a.Name == k }) {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		takes := "no arguments"
		if len(p.Arguments) > 0 {
			takes = strings.Join(p.argNames(), ", ")
		}
		return "", fmt.Errorf("%w: %s takes no argument %q; it takes %s", ErrArgument, p.Name, unknown[0], takes)
	}
	values := make(map[string]string, len(p.Arguments))
	for _, a := range p.Arguments {
		v, given := args[a.Name]
		switch {
		case given && strings.TrimSpace(v) != "":
			if a.check != nil {
				if err := a.check(v); err != nil {
					return "", fmt.Errorf("%w: %s: argument %s: %v", ErrArgument, p.Name, a.Name, err)
				}
			}
		case a.Required:
			what := ""
			if a.Description != "" {
				what = " (" + strings.TrimSuffix(a.Description, ".") + ")"
			}
			return "", fmt.Errorf("%w: %s needs argument %s%s", ErrArgument, p.Name, a.Name, what)
		default:
			v = a.Default
		}
		values[a.Name] = v
	}
	return placeholder.ReplaceAllStringFunc(p.Body, func(m string) string {
		name := placeholder.FindStringSubmatch(m)[1]
		if v, ok := values[name]; ok {
			return v
		}
		return m
	}), nil
}

// Message is one message of a prompt, as a client would send it.
type Message struct {
	Role string `json:"role"` // user
	Text string `json:"text"`
}

// Messages renders the prompt with args (see Render) as the messages a
// client sends: one user message.
func (p *Prompt) Messages(args map[string]string) ([]Message, error) {
	text, err := p.Render(args)
	if err != nil {
		return nil, err
	}
	return []Message{{Role: "user", Text: text}}, nil
}

func (p *Prompt) argNames() []string {
	names := make([]string, len(p.Arguments))
	for i, a := range p.Arguments {
		names[i] = a.Name
	}
	return names
}

// Text lists the prompts in aligned columns, as braid prompts list prints
// them: name, arguments (optional ones in brackets, with their default),
// the file it came from or "built-in", and its description.
func (s *Set) Text() string {
	var b strings.Builder
	w := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	for _, p := range s.Prompts {
		var args []string
		for _, a := range p.Arguments {
			switch {
			case a.Required:
				args = append(args, a.Name)
			case a.Default != "":
				args = append(args, "["+a.Name+"="+a.Default+"]")
			default:
				args = append(args, "["+a.Name+"]")
			}
		}
		from := "built-in"
		if p.File != "" {
			from = filepath.Base(p.File)
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", p.Name, strings.Join(args, " "), from, p.Description)
	}
	w.Flush()
	return b.String()
}

// Text writes messages for reading: each message's text, under a [role]
// line, a blank line between, when there are several.
func Text(msgs []Message) string {
	var b strings.Builder
	for i, m := range msgs {
		if len(msgs) > 1 {
			if i > 0 {
				b.WriteString("\n")
			}
			fmt.Fprintf(&b, "[%s]\n", m.Role)
		}
		b.WriteString(m.Text + "\n")
	}
	return b.String()
}
