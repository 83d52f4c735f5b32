package testdata

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Two contents whose sha256 share their first 8 hex digits (TwinPrefix),
// found by hashing "collision candidate N" for N = 0, 1, … until two
// agreed; the 9th digits differ.
const (
	TwinA      = "# Twin\n\ncollision candidate 77658\n"
	TwinB      = "# Twin\n\ncollision candidate 115489\n"
	TwinPrefix = "d6bb1836"
)

// SHA256Hex is the hex sha256 of s, as documents' hashes are written.
func SHA256Hex(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// WriteNavVault writes the navigation tests' vault into dir: nested
// folders, names to find, linked notes, a plan with headings long enough
// for several chunks, and the twins.
func WriteNavVault(tb testing.TB, dir string) {
	tb.Helper()
	plan := "---\ntitle: Alpha Plan\n---\n# Plan\n\nThe alpha project starts in spring.\n\n## Budget\n\n" +
		strings.Repeat("The budget covers tools, travel and people.\n", 12) + "\n### Q1\n\n" +
		strings.Repeat("First quarter spending is small.\n", 12)
	for name, body := range map[string]string{
		"notes/projects/alpha/plan.md": plan,
		"garden.md":                    "# Garden\n\nThe garden. See [[gardening]].\n",
		"gardening.md":                 "---\ntitle: Gardening Guide\n---\n# Gardening\n\nSee [[compost]].\n",
		"compost.md":                   "# Compost\n\nScraps to humus. Back to [[gardening]].\n",
		"notes/winter-garden.md":       "---\ntitle: Winter Garden\n---\nCold frames.\n",
		"twin-a.md":                    TwinA,
		"twin-b.md":                    TwinB,
	} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
}
