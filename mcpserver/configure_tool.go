package mcpserver

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/braidsearch/braid"
)

type configureArgs struct {
	Name  string  `json:"name"`
	Value *string `json:"value"`
	Reset bool    `json:"reset"`
}

func (a *configureArgs) check() error {
	switch {
	case a.Name == "" && (a.Value != nil || a.Reset):
		return argError("name", "value and reset need the name of a setting")
	case a.Value != nil && a.Reset:
		return argError("reset", "give a value or reset, not both")
	case a.Value != nil && *a.Value == "":
		return argError("value", "is empty; use reset to put the default back")
	}
	return nil
}

func (s *Server) configureTool() tool {
	def := mcp.NewTool("configure",
		mcp.WithDescription("Read or change the settings this index keeps: the defaults a search uses when it names none "+
			"(vector_weight, fusion, normalize, doc_evidence, link_prior, title_weight, heading_weight, query_instruction, limit, candidates, rerank, rerank_budget) and whether the server keeps every source indexed "+
			"as files change (watch). No arguments: list them all with value, default and allowed range. name alone: that setting. "+
			"name and value: change it (checked against its range; used by the next search and by every braid process on this "+
			"index). name and reset: put the built-in default back. Returns {settings: [{name, value, default, set, allowed, help}]}."),
		writes("Configure the index", false),
		mcp.WithString("name", mcp.Description("The setting: vector_weight, fusion, normalize, doc_evidence, link_prior, title_weight, heading_weight, query_instruction, limit, candidates, rerank, rerank_budget, watch, name, language or timezone. "+
			"Default: list every setting."), mcp.Enum(braid.SettingNames()...)),
		mcp.WithString("value", mcp.Description("The new value, as text: \"0.7\", \"rrf\", \"20\", \"false\", \"500ms\". Default: read only.")),
		mcp.WithBoolean("reset", mcp.Description("Put the setting back to the built-in default. Default false."), mcp.DefaultBool(false)),
	)
	return tool{def, adapt(s, "configure", configureArgs{}, func(ctx context.Context, c call, a *configureArgs) (any, error) {
		if a.Value != nil || a.Reset {
			value := ""
			if a.Value != nil {
				value = *a.Value
			}
			var set *braid.Setting
			err := s.write(ctx, func() (err error) {
				set, err = c.e.Config().Set(a.Name, value)
				return err
			})
			if err != nil {
				return nil, err
			}
			if a.Name == "watch" { // the server acts on it at once
				if set.Value == "true" || s.opt.Watch {
					s.watchAll(c.e)
				} else {
					s.unwatchAll(c.e)
				}
			}
			return map[string]any{"settings": []*braid.Setting{set}}, nil
		}
		list := c.e.Config().List()
		if a.Name != "" {
			for _, st := range list {
				if st.Name == a.Name {
					list = []braid.Setting{st}
				}
			}
		}
		return map[string]any{"settings": list}, nil
	})}
}
