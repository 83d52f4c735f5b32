package notes

import "testing"

// A search for a word that only looks hex, without both a digit and a
// letter, or with a space, stays a search for words.
func TestLooksLikeHash(t *testing.T) {
	for q, want := range map[string]bool{
		"deadbeefcafe": false, "20240101": false, "ab12 cd34ef56": false, "ab12cd3": false,
		"ab12cd34": true, "AB12CD34EF": true,
	} {
		if got := LooksLikeHash(q); got != want {
			t.Errorf("LooksLikeHash(%q) = %v, want %v", q, got, want)
		}
	}
}
