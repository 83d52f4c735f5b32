package braid_test

import (
	"context"
	"testing"

	"github.com/braidsearch/braid"
	"github.com/braidsearch/braid/internal/testdata"
	"github.com/braidsearch/braid/internal/testenv"
)

// TestRealVaults indexes both markdown vaults into one index and checks the
// counts, that an unchanged re-index rewrites nothing, and that BM25 puts
// the right page in the top 5 for most natural-language questions.
func TestRealVaults(t *testing.T) {
	testenv.Slow(t, "indexes both real vaults")
	sb := testdata.Dir(t, "markdown/silverbullet/docs")
	dn := testdata.Dir(t, "markdown/dendron/vault")
	ctx := context.Background()
	e := openEngine(t, nil)
	sum, err := e.Index(ctx, []braid.SourceSpec{{Path: sb}, {Path: dn}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Errors) > 0 {
		t.Errorf("index errors: %v", sum.Errors)
	}
	st, err := e.Stats(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if st.Documents != 1237 {
		t.Errorf("documents = %d, want 1237 (225 + 1012)", st.Documents)
	}
	again, err := e.Index(ctx, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if again.Unchanged != 1237 || again.Added+again.Updated+again.Removed+again.Chunks != 0 {
		t.Errorf("unchanged re-index: %+v, want 1237 unchanged and no writes", again)
	}

	questions := []struct{ q, want string }{
		{"how does full text search work", "Full Text Search.md"},
		{"authenticate users with an authentication proxy", "Authentication Proxy.md"},
		{"what is the command palette", "Command Palette.md"},
		{"why move the backend to Go", "ADR/008 Go Backend.md"},
		{"how does the service worker cache files", "Architecture/Service Worker.md"},
		{"what is a linked mention", "Linked Mention.md"},
		{"how do slash commands work", "Slash Command.md"},
		{"how do I create a new note with lookup", "dendron.topic.lookup.create.md"},
		{"what are hierarchies", "dendron.topic.hierarchies.md"},
		{"link to a note in another vault", "dendron.topic.links.cross-vault-link.md"},
		{"how do backlinks work", "dendron.topic.links.backlink.md"},
		{"managed publishing quickstart", "dendron.topic.managed-publishing.quickstart.md"},
		{"import an obsidian vault", "dendron.topic.pod-v2.commands.import-obsidian-vault.md"},
		{"multi vault frequently asked questions", "dendron.topic.multi-vault.faq.md"},
		{"how to install node", "dendron._ref.install-node.md"},
		{"offline first progressive web app decision", "ADR/001 Offline-First PWA.md"},
	}
	found := 0
	for _, qa := range questions {
		res, err := e.Search(ctx, qa.q, braid.SearchOptions{Limit: 5})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		hit := false
		for _, h := range res.Results {
			got = append(got, h.Path)
			hit = hit || h.Path == qa.want
		}
		if hit {
			found++
		} else {
			t.Logf("miss: %q wants %s, top 5: %v", qa.q, qa.want, got)
		}
	}
	if found*4 < len(questions)*3 {
		t.Errorf("right page in the top 5 for %d of %d questions, want at least 75%%", found, len(questions))
	}
	t.Logf("right page in the top 5 for %d of %d questions", found, len(questions))
}
