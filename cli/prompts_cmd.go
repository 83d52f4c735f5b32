package cli

import (
	"fmt"
	"strings"

	"github.com/braidsearch/braid/prompts"
)

// promptsFolder is the --prompts flag of serve and prompts.
type promptsFolder struct {
	Prompts string `help:"Folder of PROMPT-*.md files offered as MCP prompts beside the built-ins (default: the prompts folder in the index directory, when there is one)." env:"BRAID_PROMPTS" type:"path" placeholder:"DIR"`
}

// dir is the prompts folder (prompts.Dir): the one given, else the
// index directory's.
func (f promptsFolder) dir(g *Globals) (string, error) {
	return prompts.Dir(f.Prompts, g.Index)
}

// load reads the prompts, warning, with warn, of files that cannot be
// used.
func (f promptsFolder) load(g *Globals, warn bool) (*prompts.Set, error) {
	dir, err := f.dir(g)
	if err != nil {
		return nil, err
	}
	set, err := prompts.Load(dir)
	if err != nil && warn { // files left out; the rest are there
		for _, line := range strings.Split(err.Error(), "\n") {
			g.warn("%s (left out)", strings.TrimPrefix(line, "prompts: "))
		}
	}
	return set, nil
}

// PromptsCmd lists and renders the MCP prompts.
type PromptsCmd struct {
	List PromptsListCmd `cmd:"" default:"1" help:"List the prompts braid serve offers: the built-ins and the PROMPT-*.md files of the prompts folder."`
	Get  PromptsGetCmd  `cmd:"" help:"Print a prompt's messages with its arguments filled in, as an MCP client would get them."`
}

// PromptsListCmd lists the prompts.
type PromptsListCmd struct {
	promptsFolder
}

// Run lists the prompts.
func (c *PromptsListCmd) Run(g *Globals) error {
	set, err := c.load(g, true)
	if err != nil {
		return err
	}
	return g.print(map[string]any{"dir": set.Dir, "prompts": set.Prompts}, set.Text)
}

// PromptsGetCmd renders one prompt.
type PromptsGetCmd struct {
	Name string   `arg:"" help:"The prompt's name (see braid prompts list)."`
	Arg  []string `help:"An argument of the prompt as NAME=VALUE; repeat for each." placeholder:"NAME=VALUE" sep:"none"`
	promptsFolder
}

// Run prints the prompt's messages.
func (c *PromptsGetCmd) Run(g *Globals) error {
	args := make(map[string]string, len(c.Arg))
	for _, kv := range c.Arg {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return fmt.Errorf("--arg %q: want NAME=VALUE, e.g. --arg topic=\"release process\"", kv)
		}
		if _, dup := args[k]; dup {
			return fmt.Errorf("--arg %s is given twice; give each argument once", k)
		}
		args[k] = v
	}
	set, err := c.load(g, false) // Get names the problem of a file it needs
	if err != nil {
		return err
	}
	p, err := set.Get(c.Name)
	if err != nil {
		return err
	}
	msgs, err := p.Messages(args)
	if err != nil {
		return fmt.Errorf("%w; give arguments as --arg NAME=VALUE", err)
	}
	return g.print(map[string]any{"name": p.Name, "description": p.Description, "messages": msgs}, func() string { return prompts.Text(msgs) })
}
