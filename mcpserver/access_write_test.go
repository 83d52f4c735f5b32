package mcpserver_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/braidsearch/braid/internal/testenv"
	"github.com/braidsearch/braid/mcpserver"
)

// sameRefusal checks that refused, a call naming something of another
// source, is an error worded as unknown, the same call naming something
// that does not exist, once each name (its first mention) is replaced by X.
func sameRefusal(t *testing.T, what string, refused callResult, name string, unknown callResult, missing string) {
	t.Helper()
	if !refused.IsError || !unknown.IsError {
		t.Errorf("%s: refused %v %q, unknown %v %q; want both errors", what, refused.IsError, refused.Text, unknown.IsError, unknown.Text)
		return
	}
	if got, want := strings.Replace(refused.Text, name, "X", 1), strings.Replace(unknown.Text, missing, "X", 1); got != want {
		t.Errorf("%s: the refusal tells it from an unknown path:\n got %q\nwant %q", what, got, want)
	}
}

// TestAccessWritesWithinGrantedSources: wendy may write ruby and read
// jade; sam may write ruby and the document store. Their writes act
// within those sources' roots, and anything else (another source, by a
// link, by "..", by another spelling; a folder --allow grants; an S3
// URL) is refused as a path outside every allowed folder, or a document
// that does not exist.
func TestAccessWritesWithinGrantedSources(t *testing.T) {
	srv, dirs := team(t)
	root := filepath.Dir(dirs["ruby"])
	ruby, jade := dirs["ruby"], dirs["jade"]
	testenv.Must(t, os.Symlink(jade, filepath.Join(ruby, "tojade")))
	testenv.Must(t, os.Symlink(filepath.Join(jade, "jade-0.md"), filepath.Join(ruby, "jade-link.md")))
	testenv.Must(t, os.Mkdir(filepath.Join(ruby, "sub"), 0o755))
	testenv.Must(t, os.Mkdir(filepath.Join(root, "fresh"), 0o755))
	wendy, sam, admin := as(t, srv, "wendy"), as(t, srv, "sam"), as(t, srv, "admin")

	// Tools: the source writes for both, the store's for sam alone, the
	// whole index's for neither.
	for _, u := range []struct {
		m       *member
		offered []string
		absent  []string
	}{
		{wendy, []string{"index_path", "inject_tags", "update"}, []string{"add", "download", "delete_by_name", "create_snapshot", "restore",
			"configure", "remove_source", "session_start", "watch", "get_stats"}},
		{sam, []string{"index_path", "inject_tags", "update", "add", "download", "delete_by_name", "create_snapshot", "restore"},
			[]string{"configure", "remove_source", "session_start", "watch"}},
	} {
		got := u.m.tools()
		for _, name := range u.offered {
			if !slices.Contains(got, name) {
				t.Errorf("%s is not offered %s: %v", u.m.p.Name, name, got)
			}
		}
		for _, name := range u.absent {
			if slices.Contains(got, name) {
				t.Errorf("%s is offered %s", u.m.p.Name, name)
			}
			if r := u.m.call(name, map[string]any{"name": "limit", "value": "5", "source_id": "jade"}); !strings.Contains(r.Text, "not found") {
				t.Errorf("%s's %s: %q, want the unknown tool's error", u.m.p.Name, name, r.Text)
			}
		}
	}

	// index_path: their source, or a folder inside it (which re-indexes
	// the source), and nothing else.
	for _, p := range []string{ruby, filepath.Join(ruby, "sub"), ruby + "/./sub/.."} {
		var r struct {
			Source struct {
				Name string `json:"name"`
			} `json:"source"`
		}
		decode(t, wendy.ok("index_path", map[string]any{"path": p}), &r)
		if r.Source.Name != "ruby" {
			t.Errorf("wendy's index_path %s indexed source %q, want ruby", p, r.Source.Name)
		}
	}
	if r := wendy.call("index_path", map[string]any{"path": filepath.Join(ruby, "sub"), "pattern": "*.md"}); !r.IsError || !strings.Contains(r.Text, "inside source ruby") {
		t.Errorf("wendy's index_path of ruby/sub with a pattern: %q", r.Text)
	}
	missing := filepath.Join(root, "nosuch")
	unknown := wendy.call("index_path", map[string]any{"path": missing})
	for _, p := range []string{
		jade, jade + "/", ruby + "/../jade", "/" + jade, filepath.Join(ruby, "tojade"), filepath.Join(ruby, "tojade", "jade-0.md"),
		filepath.Join(ruby, "jade-link.md"), root, filepath.Join(root, "fresh"), "/",
	} {
		sameRefusal(t, "wendy's index_path "+p, wendy.call("index_path", map[string]any{"path": p}), p, unknown, missing)
	}
	sameRefusal(t, "wendy's index_path of an allowed S3 prefix", wendy.call("index_path", map[string]any{"path": "s3://teambucket/docs/a"}),
		"s3://teambucket/docs/a", wendy.call("index_path", map[string]any{"path": "s3://nosuch/a"}), "s3://nosuch/a")
	// The admin's --allow still stands for the admin.
	admin.ok("index_path", map[string]any{"path": filepath.Join(root, "fresh")})

	// inject_tags: a note of ruby by path or name; jade's by any name
	// answers as a note that does not exist.
	wendy.ok("inject_tags", map[string]any{"file_path": filepath.Join(ruby, "ruby-0.md"), "tags": []string{"w1"}})
	wendy.ok("inject_tags", map[string]any{"file_path": "ruby-1.md", "tags": []string{"w1"}})
	if b, err := os.ReadFile(filepath.Join(ruby, "ruby-1.md")); err != nil || !strings.Contains(string(b), "w1") {
		t.Errorf("ruby-1.md after wendy's inject_tags: %q %v", b, err)
	}
	absMissing := filepath.Join(root, "nosuch.md")
	unknownAbs := wendy.call("inject_tags", map[string]any{"file_path": absMissing, "tags": []string{"w"}})
	for _, p := range []string{filepath.Join(jade, "jade-0.md"), filepath.Join(ruby, "tojade", "jade-0.md"), filepath.Join(ruby, "jade-link.md"),
		ruby + "/../jade/jade-0.md"} {
		sameRefusal(t, "wendy's inject_tags "+p, wendy.call("inject_tags", map[string]any{"file_path": p, "tags": []string{"w"}}), p, unknownAbs, absMissing)
	}
	unknownName := wendy.call("inject_tags", map[string]any{"file_path": "nosuch.md", "tags": []string{"w"}})
	for _, name := range []string{"jade-0.md", "jade/jade-0.md", "jade-0"} {
		sameRefusal(t, "wendy's inject_tags "+name, wendy.call("inject_tags", map[string]any{"file_path": name, "tags": []string{"w"}}), name, unknownName, "nosuch.md")
	}
	if b, _ := os.ReadFile(filepath.Join(jade, "jade-0.md")); strings.Contains(string(b), "tags") {
		t.Errorf("jade-0.md was tagged:\n%s", b)
	}

	// update: a document of ruby; jade's answers as one that does not exist.
	wendy.ok("update", map[string]any{"id": "ruby-2.md", "metadata": []string{"status=ok"}})
	unknownDoc := wendy.call("update", map[string]any{"id": "nosuch.md", "metadata": []string{"status=x"}})
	for _, name := range []string{"jade-0.md", "jade/jade-0.md", filepath.Join(jade, "jade-0.md")} {
		sameRefusal(t, "wendy's update "+name, wendy.call("update", map[string]any{"id": name, "metadata": []string{"status=x"}}), name, unknownDoc, "nosuch.md")
	}

	// add and restore (sam): paths inside ruby only.
	sam.ok("add", map[string]any{"content": "# kept\n\nsam's note\n", "name": "notes/kept.md", "collection": "c"})
	sam.ok("add", map[string]any{"path": filepath.Join(ruby, "ruby-3.md"), "collection": "c"})
	unknownAdd := sam.call("add", map[string]any{"path": absMissing})
	for _, p := range []string{filepath.Join(jade, "jade-0.md"), filepath.Join(ruby, "tojade", "jade-0.md"), filepath.Join(ruby, "jade-link.md")} {
		sameRefusal(t, "sam's add "+p, sam.call("add", map[string]any{"path": p}), p, unknownAdd, absMissing)
	}
	sam.ok("restore", map[string]any{"collection": "c", "output_directory": filepath.Join(ruby, "out")})
	if _, err := os.Stat(filepath.Join(ruby, "out", "notes", "kept.md")); err != nil {
		t.Errorf("sam's restore into ruby: %v", err)
	}
	outMissing := filepath.Join(root, "nosuch", "out")
	unknownOut := sam.call("restore", map[string]any{"collection": "c", "output_directory": outMissing})
	for _, p := range []string{filepath.Join(jade, "out"), filepath.Join(ruby, "tojade", "out"), filepath.Join(root, "fresh")} {
		sameRefusal(t, "sam's restore to "+p, sam.call("restore", map[string]any{"collection": "c", "output_directory": p}), p, unknownOut, outMissing)
	}
	if _, err := os.Stat(filepath.Join(jade, "out")); err == nil {
		t.Error("sam's restore wrote into jade")
	}
	// delete_by_name of another source's file answers as a name not found.
	sameRefusal(t, "sam's delete_by_name of jade's file", sam.call("delete_by_name", map[string]any{"name": "jade-0.md", "dry_run": true}),
		"jade-0.md", sam.call("delete_by_name", map[string]any{"name": "nosuch.md", "dry_run": true}), "nosuch.md")
	sam.ok("delete_by_name", map[string]any{"name": "notes/kept.md", "dry_run": true})
	// sam's documents of the store are his to read.
	if got := sam.ok("search_keyword", map[string]any{"query": "sam's note"}); !strings.Contains(got, "kept.md") {
		t.Errorf("sam's search for his stored note: %.300s", got)
	}
}

// TestAccessResourcesListHidesSummary: the whole index's summary is not
// listed to a user who may not read it.
func TestAccessResourcesListHidesSummary(t *testing.T) {
	srv, _ := team(t)
	for _, u := range []struct {
		m    *member
		want bool
	}{{as(t, srv, "alice"), false}, {as(t, srv, "admin"), true}, {&member{t: t, srv: srv}, true}} {
		res, perr := u.m.rpc("resources/list", map[string]any{})
		if perr != "" {
			t.Fatalf("resources/list: %s", perr)
		}
		if got := strings.Contains(string(res), mcpserver.SummaryURI); got != u.want {
			t.Errorf("%v's resources/list shows the summary %v, want %v: %s", u.m.p, got, u.want, res)
		}
	}
}
