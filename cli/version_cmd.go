package cli

import (
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"

	"github.com/alecthomas/kong"

	"github.com/braidsearch/braid/model"
)

// Version and Commit identify the build. cmd/braid sets them from what
// `make build` stamps in with -ldflags -X (git describe --always --dirty,
// and the commit hash); left empty, braid version takes them from the
// binary's build information (stamp), so a `go install …@latest` binary
// says its module version and commit too.
var Version, Commit string

// VersionCmd prints the version.
type VersionCmd struct{}

// versionFlag is --version: braid version, with the flags beside it
// (--json, --ort-lib, --model).
type versionFlag bool

// BeforeReset answers --version before kong asks for a command: it applies
// the flags and environment to g as the parse would, prints what braid
// version prints and ends the run with status 0.
func (versionFlag) BeforeReset(app *kong.Kong, ctx *kong.Context, g *Globals) error {
	if err := ctx.Reset(); err != nil {
		return err
	}
	if err := ctx.Resolve(); err != nil {
		return err
	}
	if _, err := ctx.Apply(); err != nil {
		return err
	}
	if err := (&VersionCmd{}).Run(g); err != nil {
		return err
	}
	app.Exit(0)
	return nil
}

// versionInfo is what braid version prints.
type versionInfo struct {
	Version string `json:"version"`
	Commit  string `json:"commit"` // "" when unknown
	Go      string `json:"go"`
	// Platform is GOOS/GOARCH.
	Platform string `json:"platform"`
	// ONNXRuntime is the version of the library that loaded, else "not found".
	ONNXRuntime    string `json:"onnxruntime"`
	ONNXRuntimeLib string `json:"onnxruntime_lib,omitempty"`
	// ONNXRuntimeError says why no library loaded.
	ONNXRuntimeError string `json:"onnxruntime_error,omitempty"`
	// Model is the embedding model searches use: --model (BRAID_MODEL),
	// else the registry's default.
	Model        string `json:"model"`
	ModelDefault bool   `json:"model_default"`
	// ModelDir is where the model is installed, "" when it is not.
	ModelDir string `json:"model_dir,omitempty"`
}

// Run prints the version, the commit, the Go release, the ONNX Runtime
// that loads and the embedding model.
func (c *VersionCmd) Run(g *Globals) error {
	id := build()
	v := versionInfo{Version: id.version, Commit: id.commit, Go: runtime.Version(),
		Platform: runtime.GOOS + "/" + runtime.GOARCH, ONNXRuntime: "not found", Model: g.Model}
	lib, err := model.FindRuntime(g.ORTLib)
	if err == nil {
		err = model.InitRuntime(lib)
	}
	switch {
	case err == nil:
		v.ONNXRuntime, v.ONNXRuntimeLib = model.RuntimeVersion(), model.RuntimePath()
	case errors.Is(err, model.ErrNoRuntime) && g.ORTLib != "":
		v.ONNXRuntimeError = g.ORTLib + " (--ort-lib or " + model.EnvRuntimeLib + ") is not a file; until then search is BM25 only"
	case errors.Is(err, model.ErrNoRuntime):
		v.ONNXRuntimeError = "run `make ort` in a braid checkout, or set " + model.EnvRuntimeLib + "; until then search is BM25 only"
	default:
		v.ONNXRuntime, v.ONNXRuntimeError = "not loaded", optionFlags.Replace(model.Clause(err))
	}
	if v.Model == "" {
		v.Model, v.ModelDefault = model.DefaultEmbedder().ID(), true
	}
	if v.Model != "none" {
		if dir, _, err := model.ResolveKind(v.Model, model.ModelsDir(g.Models), model.KindEmbedder); err == nil {
			v.ModelDir = dir
		}
	}
	return g.print(v, v.text)
}

// text is v as braid version prints it without --json.
func (v versionInfo) text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "braid %s\n", v.Version)
	commit := v.Commit
	if commit == "" {
		commit = "unknown"
	}
	fmt.Fprintf(&b, "commit       %s\n", commit)
	fmt.Fprintf(&b, "go           %s %s\n", v.Go, v.Platform)
	ort := v.ONNXRuntime
	switch {
	case v.ONNXRuntimeLib != "":
		ort += " (" + v.ONNXRuntimeLib + ")"
	case v.ONNXRuntimeError != "":
		ort += " (" + v.ONNXRuntimeError + ")"
	}
	fmt.Fprintf(&b, "onnxruntime  %s\n", ort)
	m := v.Model
	var notes []string
	if v.ModelDefault {
		notes = append(notes, "default")
	}
	switch {
	case v.Model == "none":
	case v.ModelDir != "":
		notes = append(notes, "installed in "+v.ModelDir)
	default:
		notes = append(notes, "not installed: braid models pull "+v.Model)
	}
	if len(notes) > 0 {
		m += " (" + strings.Join(notes, "; ") + ")"
	}
	fmt.Fprintf(&b, "model        %s\n", m)
	return b.String()
}

// buildID is a binary's version and commit.
type buildID struct{ version, commit string }

// build is this binary's buildID: Version and Commit, completed from the
// build information.
var build = sync.OnceValue(func() buildID {
	info, _ := debug.ReadBuildInfo()
	return stamp(Version, Commit, info)
})

// stamp completes a stamped version and commit from the build information
// (nil when the binary has none): the module's version when no version was
// stamped ("dev" when the module has none, as in a plain go build outside
// a checkout), and the commit from the VCS stamp Go puts in a build inside
// a checkout (with -dirty when it had changes), else from the module's
// pseudo-version (v0.0.0-20260101120000-abcdef123456), as go install
// …@latest builds it.
func stamp(version, commit string, info *debug.BuildInfo) buildID {
	if info != nil && version == "" && info.Main.Version != "(devel)" {
		version = info.Main.Version
	}
	if version == "" {
		version = "dev"
	}
	if commit != "" || info == nil {
		return buildID{version, commit}
	}
	var rev, modified string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	switch {
	case rev != "" && modified == "true":
		commit = rev + "-dirty"
	case rev != "":
		commit = rev
	default:
		commit = pseudoCommit(info.Main.Version)
	}
	return buildID{version, commit}
}

// pseudoCommit returns the commit prefix a Go pseudo-version ends with
// (v0.0.0-20260101120000-abcdef123456, v1.2.4-0.2026…-abcdef123456+dirty),
// or "" when v is not one.
func pseudoCommit(v string) string {
	v, _, _ = strings.Cut(v, "+")
	i := strings.LastIndexByte(v, '-')
	if i < 0 || len(v)-i-1 != 12 || strings.Count(v, "-") < 2 {
		return ""
	}
	rev := v[i+1:]
	if strings.Trim(rev, "0123456789abcdef") != "" {
		return ""
	}
	return rev
}
