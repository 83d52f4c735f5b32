package mcpserver_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/braidsearch/braid"
)

func TestConfigureTool(t *testing.T) {
	vault, c := lexicalServer(t, nil)
	var list struct {
		Settings []struct {
			Name, Value, Default, Allowed string
			Set                           bool
		}
	}
	decode(t, c.ok("configure", nil), &list)
	if len(list.Settings) != len(braid.SettingNames()) || list.Settings[0].Name != "vector_weight" || list.Settings[0].Value != "auto" {
		t.Fatalf("configure list: %+v", list)
	}
	decode(t, c.ok("configure", map[string]any{"name": "limit", "value": "2"}), &list)
	if len(list.Settings) != 1 || list.Settings[0].Value != "2" || !list.Settings[0].Set {
		t.Fatalf("configure set limit: %+v", list)
	}
	var sr searchJSON
	decode(t, c.ok("search", map[string]any{"query": "note number alpha"}), &sr)
	if len(sr.Results) != 2 {
		t.Errorf("search after configure limit 2: %d results", len(sr.Results))
	}
	decode(t, c.ok("search_keyword", map[string]any{"query": "alpha", "limit": 3}), &sr)
	if len(sr.Results) != 3 {
		t.Errorf("search with its own limit 3: %d results", len(sr.Results))
	}
	for _, bad := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"name": "limit", "value": "0"}, "a whole number from 1 to 1000"},
		{map[string]any{"name": "vector_weight", "value": "2"}, "from 0"},
		{map[string]any{"name": "limit", "value": ""}, "reset"},
		{map[string]any{"value": "3"}, "need the name"},
		{map[string]any{"name": "limit", "value": "3", "reset": true}, "not both"},
	} {
		if res := c.call("configure", bad.args); !res.IsError || !strings.Contains(res.Text, bad.want) {
			t.Errorf("configure %v: %+v, want an error saying %q", bad.args, res, bad.want)
		}
	}
	decode(t, c.ok("configure", map[string]any{"name": "limit", "reset": true}), &list)
	if list.Settings[0].Value != "10" || list.Settings[0].Set {
		t.Errorf("configure reset: %+v", list)
	}

	// watch on: a change to the vault is re-indexed without a call.
	decode(t, c.ok("configure", map[string]any{"name": "watch", "value": "true"}), &list)
	searchable(t, c, "wombats", func() { save(t, filepath.Join(vault, "note-0002.md"), "# Changed\n\nnow about wombats\n") })
	// watch off: changes wait for index_path.
	decode(t, c.ok("configure", map[string]any{"name": "watch", "value": "false"}), &list)
	time.Sleep(500 * time.Millisecond)
	if err := os.WriteFile(filepath.Join(vault, "note-0003.md"), []byte("# Changed\n\nnow about quokkas\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Second)
	decode(t, c.ok("search_keyword", map[string]any{"query": "quokkas"}), &sr)
	if sr.Total != 0 {
		t.Errorf("with the watch setting off, a change was re-indexed anyway")
	}
}
