package cli

import (
	"fmt"
	"github.com/braidsearch/braid/doctor"
	"slices"
	"strings"
	"time"

	"github.com/braidsearch/braid"
	"github.com/braidsearch/braid/model"
)

// SourcesCmd lists or removes sources.
type SourcesCmd struct {
	List  SourcesListCmd  `cmd:"" default:"1" help:"List the registered sources."`
	Rm    SourcesRmCmd    `cmd:"" help:"Remove a source and its documents from the index (files are not touched)."`
	Trust SourcesTrustCmd `cmd:"" help:"Vouch for sources whose records this user's key does not seal (an index made by an older braid or on another machine): their files are read again."`
}

// SourcesTrustCmd seals sources with this user's key.
type SourcesTrustCmd struct {
	Sources []string `arg:"" optional:"" help:"Source ids or names (see braid sources); none means every source."`
}

// Run seals the sources.
func (c *SourcesTrustCmd) Run(g *Globals) error {
	e, done, err := g.open(false, "braid sources trust")
	if err != nil {
		return err
	}
	defer done()
	sealed, err := e.Sources().Trust(g.ctx, c.Sources...)
	if err != nil {
		return err
	}
	rows := []map[string]string{}
	for _, s := range sealed {
		rows = append(rows, map[string]string{"id": s.ID, "name": s.Name, "path": s.Path})
	}
	return g.print(map[string]any{"trusted": rows}, func() string {
		if len(sealed) == 0 {
			return "every source named was already trusted\n"
		}
		var b strings.Builder
		for _, s := range sealed {
			fmt.Fprintf(&b, "trusted source %s %s (%s)\n", s.ID, s.Name, s.Path)
		}
		return b.String()
	})
}

// SourcesListCmd lists sources.
type SourcesListCmd struct{}

// Run lists sources.
func (c *SourcesListCmd) Run(g *Globals) error {
	return g.withReader("braid sources", func(e *braid.Engine) error {
		st, err := e.Stats(g.ctx)
		switch {
		case err != nil:
			return err
		case g.JSON:
			return g.printJSON(map[string]any{"sources": st.Sources})
		case len(st.Sources) == 0:
			fmt.Fprintln(g.stderr, "no sources yet; add one with braid index PATH")
		}
		for _, s := range st.Sources {
			fmt.Fprintf(g.stdout, "%s  %-20s %-5s %5d docs  %s  (indexed %s)\n", s.ID, s.Name, s.Kind, s.Documents, s.Path, s.IndexedAt.Local().Format(time.DateTime))
			if s.Refused != "" {
				fmt.Fprintf(g.stdout, "    not read: %s\n", s.Refused)
			}
		}
		return nil
	})
}

// SourcesRmCmd removes a source.
type SourcesRmCmd struct {
	Source string `arg:"" help:"Source id or name (see braid sources)."`
}

// Run removes the source.
func (c *SourcesRmCmd) Run(g *Globals) error {
	e, done, err := g.open(false, "braid sources rm")
	if err != nil {
		return err
	}
	defer done()
	n, err := e.Sources().Remove(g.ctx, c.Source)
	if err != nil {
		return err
	}
	return g.print(map[string]any{"removed_documents": n, "source": c.Source}, func() string {
		return fmt.Sprintf("removed source %s and its %d documents\n", c.Source, n)
	})
}

// StatsCmd prints counts.
type StatsCmd struct{}

// Run prints stats.
func (c *StatsCmd) Run(g *Globals) error {
	var st *braid.Stats
	err := g.withReader("braid stats", func(e *braid.Engine) (err error) {
		st, err = e.Stats(g.ctx)
		return err
	})
	if err != nil {
		return err
	}
	device, noRerank := g.device(), g.noReranker()
	if g.JSON {
		return g.printJSON(struct {
			*braid.Stats
			Device   string `json:"device,omitempty"`
			NoRerank string `json:"no_rerank,omitempty"`
		}{st, device, noRerank})
	}
	fmt.Fprintf(g.stdout, "index %s (format %d): %d documents, %d chunks, %s indexed, %s on disk\n",
		st.Dir, st.SchemaVersion, st.Documents, st.Chunks, braid.FormatBytes(st.Bytes), braid.FormatBytes(st.IndexBytes))
	for _, s := range st.Sources {
		fmt.Fprintf(g.stdout, "  %s %-20s %6d docs %7d chunks %9s  %s\n", s.ID, s.Name, s.Documents, s.Chunks, braid.FormatBytes(s.Bytes), s.Path)
	}
	var set []string
	for _, s := range st.Settings {
		if s.Set {
			set = append(set, s.Name+"="+s.Value)
		}
	}
	if len(set) > 0 {
		fmt.Fprintf(g.stdout, "settings (braid config): %s\n", strings.Join(set, ", "))
	}
	if t := st.Tuned; t != nil {
		fmt.Fprintf(g.stdout, "tuned by braid tune on %s (%d queries) at %s: %s %.4f → %.4f\n", t.From, t.Queries, t.At, t.Metric, t.Before, t.After)
	}
	if device != "" {
		fmt.Fprintf(g.stdout, "models run on %s\n", device)
	}
	if noRerank != "" {
		fmt.Fprintf(g.stdout, "not reranked: %s; results are in fused order (braid doctor says more)\n", noRerank)
	}
	return nil
}

// device says where the models the flags name would run and why (the
// device check braid doctor prints), "" with no runtime or vectors off.
func (g *Globals) device() string {
	for _, c := range braid.ModelChecks(g.models()) {
		if c.Name == "device" {
			return optionFlags.Replace(c.Detail)
		}
	}
	return ""
}

// noReranker says why searches run without a cross-encoder because the
// one the flags name (the default when none) is not installed, or "" when
// it is, or reranking is turned off. Searches say nothing of it unless
// asked to rerank, so braid stats and braid doctor do. It loads nothing.
func (g *Globals) noReranker() string {
	if g.Reranker == "none" {
		return ""
	}
	if _, _, err := model.ResolveKind(g.Reranker, model.ModelsDir(g.Models), model.KindCrossEncoder); err != nil {
		return brief(err, g.Reranker, model.KindCrossEncoder)
	}
	return ""
}

// DoctorCmd checks the index.
type DoctorCmd struct {
	Repair bool `help:"Fix what can be fixed from the index itself: rewrite a garbled VERSION, remove a corrupt vectors-*.hnsw (the next braid index embeds its chunks again, with the model), rebuild a missing or damaged lexical.bleve from the stored chunks, remove blobs of the document store that nothing refers to."`
}

// Run checks the index and fails when something is wrong.
func (c *DoctorCmd) Run(g *Globals) error {
	var repaired []string
	if c.Repair && g.Backend != "" {
		return fmt.Errorf("--repair mends the files of an index directory; the index at --backend %s is the cluster's to keep", g.Backend)
	}
	if c.Repair {
		did, err := braid.Repair(g.Index)
		repaired = did
		if err != nil {
			for _, d := range did {
				fmt.Fprintf(g.stderr, "braid: repaired: %s\n", d)
			}
			return err
		}
	}
	index, err := c.indexChecks(g)
	if err != nil {
		return err
	}
	models := append(braid.ModelChecks(g.models()), doctor.RerankLatency(g.ctx, g.models()))
	for i := range models { // package model names options, not flags
		models[i].Detail = optionFlags.Replace(models[i].Detail)
	}
	checks := append(index, models...)
	healthy := !slices.ContainsFunc(checks, failed)
	if g.JSON {
		out := map[string]any{"healthy": healthy, "checks": checks}
		if c.Repair {
			out["repaired"] = append([]string{}, repaired...)
		}
		if err := g.printJSON(out); err != nil {
			return err
		}
	} else {
		for _, d := range repaired {
			fmt.Fprintf(g.stdout, "fixed %s\n", d)
		}
		for _, ch := range checks {
			fmt.Fprintln(g.stdout, ch)
		}
	}
	if !healthy {
		where := g.Index
		if g.Backend != "" {
			where = g.BackendIndex + " at " + g.Backend
		}
		return fmt.Errorf("index %s is not healthy (see above)", where)
	}
	return nil
}

func failed(ch braid.Check) bool { return !ch.OK }

// indexChecks checks the index's files and, when they are sound, opens
// the index (with the embedding model when it can be loaded, else with the
// reason it cannot, which a check of stored embeddings that go unsearched
// repeats) and runs the engine's consistency checks. When braid serve runs
// doctor for another process (forward.go), the server holds the index open
// for writing, and a second open of meta.db or lexical.bleve would wait on
// its locks: the server's engine checks the files through its own handles
// instead, beside its tool calls. Repair is never forwarded.
func (c *DoctorCmd) indexChecks(g *Globals) ([]braid.Check, error) {
	if e, release, err, ok := g.borrowed(true); ok {
		if err != nil {
			return nil, err
		}
		defer release()
		return e.Doctor(g.ctx, &braid.DoctorOptions{Files: true})
	}
	var files []braid.Check
	if g.Backend == "" { // a cluster has no index files here
		var err error
		if files, err = braid.CheckFiles(g.Index); err != nil {
			return nil, err
		}
	}
	if slices.ContainsFunc(files, failed) {
		return files, nil
	}
	e, done, err := g.openWith(true, "braid doctor")
	if err != nil {
		return nil, err
	}
	defer done()
	checks, err := e.Doctor(g.ctx, nil)
	if err != nil {
		return nil, err
	}
	return append(files, checks...), nil
}
