package cli

import (
	"encoding/json"
	"regexp"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/braidsearch/braid/model"
)

// TestVersion checks that both spellings, braid version and braid
// --version, print the same report, as text and with --json.
func TestVersion(t *testing.T) {
	id := build()
	defaultModel := model.DefaultEmbedder().ID()
	ortVersion := regexp.MustCompile(`^\d+\.\d+\.\d+$`)

	var texts []string
	for _, args := range [][]string{{"version"}, {"--version"}} {
		out, errOut, code := runCLI(t, args...)
		if code != 0 || errOut != "" {
			t.Fatalf("braid %s: exit %d, stderr %q", strings.Join(args, " "), code, errOut)
		}
		for _, want := range []string{
			"braid " + id.version + "\n",
			"\ncommit       ",
			"\ngo           " + runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH + "\n",
			"\nonnxruntime  ",
			"\nmodel        " + defaultModel + " (default; not installed: braid models pull " + defaultModel + ")\n",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("braid %s printed %q, want it to hold %q", strings.Join(args, " "), out, want)
			}
		}
		texts = append(texts, out)
	}
	if diff := cmp.Diff(texts[0], texts[1]); diff != "" {
		t.Errorf("braid version and braid --version differ (-version +--version):\n%s", diff)
	}

	for _, args := range [][]string{{"version", "--json"}, {"--json", "version"}, {"--version", "--json"}, {"--json", "--version"}} {
		out, errOut, code := runCLI(t, args...)
		if code != 0 || errOut != "" {
			t.Fatalf("braid %s: exit %d, stderr %q", strings.Join(args, " "), code, errOut)
		}
		var got versionInfo
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("braid %s printed %q: %v", strings.Join(args, " "), out, err)
		}
		if got.Version != id.version || got.Commit != id.commit || got.Go != runtime.Version() ||
			got.Model != defaultModel || !got.ModelDefault || got.ModelDir != "" {
			t.Errorf("braid %s = %+v, want version %q, commit %q, go %s, model %s (default, not installed)",
				strings.Join(args, " "), got, id.version, id.commit, runtime.Version(), defaultModel)
		}
		if !ortVersion.MatchString(got.ONNXRuntime) && got.ONNXRuntime != "not found" {
			t.Errorf("braid %s: onnxruntime %q, want a version or \"not found\"", strings.Join(args, " "), got.ONNXRuntime)
		}
	}

	t.Run("runtime not found", func(t *testing.T) {
		missing := t.TempDir() + "/libonnxruntime.so.1"
		out, _, code := runCLI(t, "--version", "--json", "--ort-lib", missing, "--model", "none")
		var got versionInfo
		if err := json.Unmarshal([]byte(out), &got); code != 0 || err != nil {
			t.Fatalf("exit %d, %v: %q", code, err, out)
		}
		if got.ONNXRuntime != "not found" || !strings.Contains(got.ONNXRuntimeError, missing) || got.Model != "none" || got.ModelDefault {
			t.Errorf("got %+v, want onnxruntime \"not found\" naming %s, model none", got, missing)
		}
	})
}

func TestStamp(t *testing.T) {
	vcs := func(rev, modified string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: modified}}
	}
	const rev = "76c2ca10431fcb017239ee52dfd53ec0094746b8"
	tests := []struct {
		name            string
		version, commit string // stamped with -ldflags -X
		info            *debug.BuildInfo
		want            buildID
	}{
		{name: "make build stamps both", version: "76c2ca1-dirty", commit: rev,
			info: &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs("0000", "false")},
			want: buildID{"76c2ca1-dirty", rev}},
		{name: "go build in a checkout", info: &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20260101120000-76c2ca10431f+dirty"}, Settings: vcs(rev, "true")},
			want: buildID{"v0.0.0-20260101120000-76c2ca10431f+dirty", rev + "-dirty"}},
		{name: "go build in a clean checkout, vcs stamp off", info: &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs(rev, "false")},
			want: buildID{"dev", rev}},
		{name: "go install at a pseudo-version", info: &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20260101120000-76c2ca10431f"}},
			want: buildID{"v0.0.0-20260101120000-76c2ca10431f", "76c2ca10431f"}},
		{name: "go install after a tag", info: &debug.BuildInfo{Main: debug.Module{Version: "v1.2.4-0.20260101120000-76c2ca10431f"}},
			want: buildID{"v1.2.4-0.20260101120000-76c2ca10431f", "76c2ca10431f"}},
		{name: "go install at a tag", info: &debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}},
			want: buildID{"v1.2.3", ""}},
		{name: "no build information", want: buildID{"dev", ""}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := stamp(tc.version, tc.commit, tc.info)
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(buildID{})); diff != "" {
				t.Errorf("stamp (-want +got):\n%s", diff)
			}
		})
	}
}
