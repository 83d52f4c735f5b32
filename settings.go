package braid

import (
	"context"
	"errors"
	"fmt"

	"github.com/braidsearch/braid/rerank"
	"github.com/braidsearch/braid/settings"
)

// The index's settings, their parsing, checking and file live in package
// settings; these names keep the root package the one import of cli/ and
// mcpserver/.
type (
	// Settings are the defaults an index keeps (settings.Values).
	Settings = settings.Values
	// Setting describes one setting for braid config list and the
	// configure tool.
	Setting = settings.Setting
)

// ErrUnknownSetting is the error for a setting name braid does not have.
var ErrUnknownSetting = settings.ErrUnknown

// SettingNames lists the settings' names.
func SettingNames() []string { return settings.Names() }

// Built-in defaults of the settings (see package settings) and of the
// options that have none. The CLI's flags, the MCP tools, batch and braid
// config all read these (with DefaultVectorWeight); none restates them.
const (
	DefaultLimit      = settings.DefaultLimit
	DefaultCandidates = settings.DefaultCandidates
	// DefaultRerankTop is how many fused candidates the reranker reads
	// (Options.RerankTop).
	DefaultRerankTop = rerank.DefaultTop
	// DefaultSimilarity is how similar a word must be to match a fuzzy
	// search (SearchOptions.Similarity).
	DefaultSimilarity = 0.8
)

// Config is the index's settings: the defaults its searches take when
// they name none, kept in the index (settings.json, or the cluster
// index's metadata).
type Config struct{ e *Engine }

// Config is the index's settings.
func (e *Engine) Config() *Config { return &Config{e} }

// Values returns the index's settings (a copy).
func (c *Config) Values() Settings { return c.e.currentSettings() }

func (e *Engine) currentSettings() Settings {
	e.settingsMu.RLock()
	defer e.settingsMu.RUnlock()
	return *e.settings
}

// List describes every setting: its value in effect, the built-in
// default, whether the index sets it, and what it accepts.
func (c *Config) List() []Setting {
	s := c.e.currentSettings()
	return c.e.settingList(&s)
}

// Set checks and changes one setting and saves the index's settings at
// once; an empty value resets it to the built-in default. It takes effect
// for the searches that start after it.
func (c *Config) Set(name, value string) (*Setting, error) {
	e := c.e
	if e.opt.ReadOnly {
		return nil, ErrReadOnly
	}
	e.settingsMu.Lock()
	defer e.settingsMu.Unlock()
	next := *e.settings
	if err := next.Set(name, value); err != nil {
		if bad := (*settings.RangeError)(nil); errors.As(err, &bad) {
			return nil, fmt.Errorf("%w: %v", ErrBadOption, bad)
		}
		return nil, err
	}
	if err := e.saveSettings(&next); err != nil {
		return nil, err
	}
	for _, s := range e.settingList(&next) {
		if s.Name == name {
			return &s, nil
		}
	}
	return nil, nil
}

// saveSettings writes next and makes it the index's settings; the caller
// holds settingsMu.
func (e *Engine) saveSettings(next *Settings) error {
	var err error
	if e.cl != nil {
		var data []byte
		if data, err = next.Encode(); err == nil {
			err = e.cl.Remote().SetMeta(context.Background(), "settings", data)
		}
	} else {
		err = settings.Save(e.dir, next)
	}
	if err != nil {
		return fmt.Errorf("save settings: %w", err)
	}
	e.settings = next
	return nil
}

// SaveTuned stores settings braid tune chose, with where they came from,
// as the index's defaults (a search's own options still win). The other
// settings are kept.
func (c *Config) SaveTuned(t settings.Tuning, from settings.Tuned) error {
	e := c.e
	if e.opt.ReadOnly {
		return ErrReadOnly
	}
	e.settingsMu.Lock()
	defer e.settingsMu.Unlock()
	next := *e.settings
	next.SetTuned(t, from)
	return e.saveSettings(&next)
}

// settingList describes s with the engine's built-in rerank budget: its
// reranker's own, else settings.DefaultRerankBudget.
func (e *Engine) settingList(s *Settings) []Setting {
	budget := settings.DefaultRerankBudget
	if e != nil && e.opt.Reranker != nil {
		budget = e.opt.Reranker.Budget()
	}
	return s.List(budget)
}
