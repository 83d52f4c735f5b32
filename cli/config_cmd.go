package cli

import (
	"fmt"
	"strings"

	"github.com/braidsearch/braid"
	"github.com/braidsearch/braid/settings"
)

// ConfigCmd reads and changes the settings an index keeps.
type ConfigCmd struct {
	List  ConfigListCmd  `cmd:"" default:"1" help:"List every setting: its value, the built-in default, and what it accepts."`
	Get   ConfigGetCmd   `cmd:"" help:"Print one setting's value."`
	Set   ConfigSetCmd   `cmd:"" help:"Change a setting, checked against what it accepts; searches and a running braid serve use it at once."`
	Reset ConfigResetCmd `cmd:"" help:"Put a setting (or --all) back to the built-in default."`
}

// ConfigListCmd lists the settings.
type ConfigListCmd struct{}

// Run lists.
func (c *ConfigListCmd) Run(g *Globals) error {
	list, err := settingList(g)
	if err != nil {
		return err
	}
	if g.JSON {
		return g.printJSON(map[string]any{"settings": list})
	}
	fmt.Fprint(g.stdout, settings.Table(list))
	fmt.Fprintln(g.stdout, "* set in this index; braid config set NAME VALUE changes one, braid config reset NAME puts it back")
	return nil
}

// ConfigGetCmd prints a setting.
type ConfigGetCmd struct {
	Name string `arg:"" help:"The setting: vector_weight, fusion, normalize, doc_evidence, link_prior, title_weight, heading_weight, query_instruction, limit, candidates, rerank, rerank_budget, watch, name, language or timezone."`
}

// Run prints it.
func (c *ConfigGetCmd) Run(g *Globals) error {
	list, err := settingList(g)
	if err != nil {
		return err
	}
	s, err := settings.Find(list, c.Name)
	if err != nil {
		return err
	}
	return g.print(s, func() string { return s.Value + "\n" })
}

// ConfigSetCmd changes a setting.
type ConfigSetCmd struct {
	Name  string `arg:"" help:"The setting (braid config list names them)."`
	Value string `arg:"" help:"Its new value, in the range braid config list shows."`
}

// Run sets it.
func (c *ConfigSetCmd) Run(g *Globals) error {
	if strings.TrimSpace(c.Value) == "" {
		return fmt.Errorf("an empty value; braid config reset %s puts the default back", c.Name)
	}
	return setSettings(g, []string{c.Name}, map[string]string{c.Name: c.Value})
}

// ConfigResetCmd resets settings.
type ConfigResetCmd struct {
	Name []string `arg:"" optional:"" help:"The settings to reset."`
	All  bool     `help:"Reset every setting."`
}

// Run resets.
func (c *ConfigResetCmd) Run(g *Globals) error {
	if c.All == (len(c.Name) > 0) {
		return fmt.Errorf("name the settings to reset, or give --all")
	}
	names := c.Name
	if c.All {
		names = braid.SettingNames()
	}
	return setSettings(g, names, nil)
}

// settingList reads the index's settings.
func settingList(g *Globals) (list []braid.Setting, err error) {
	err = g.withReader("braid config", func(e *braid.Engine) error {
		list = e.Config().List()
		return nil
	})
	return list, err
}

// setSettings sets names to their values (none: the built-in default).
func setSettings(g *Globals, names []string, values map[string]string) error {
	e, done, err := g.open(false, "braid config")
	if err != nil {
		return err
	}
	defer done()
	var changed []*braid.Setting
	for _, name := range settings.Sort(names) {
		s, err := e.Config().Set(name, values[name])
		if err != nil {
			return err
		}
		changed = append(changed, s)
	}
	if g.JSON {
		return g.printJSON(map[string]any{"settings": changed})
	}
	for _, s := range changed {
		fmt.Fprintf(g.stdout, "%s = %s\n", s.Name, s.Value)
	}
	return nil
}
