package opensearch_test

import (
	"testing"

	"github.com/braidsearch/braid/opensearch"
)

// TestHashCode checks HashCode against Java's String.hashCode, which the
// cluster's script computes for RecordSum: a difference would make every
// check fail and every Sync read everything.
func TestHashCode(t *testing.T) {
	tests := []struct {
		s    string
		want int32
	}{
		{"", 0},
		{"a", 97},
		{"Aa", 2112},
		{"BB", 2112},
		{"hello", 99162322},
		{"polygenelubricants", -2147483648}, // Java's famous MIN_VALUE hash
		{"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", javaHash("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")},
		{"é😀", 31*(31*233+0xD83D) + 0xDE00}, // UTF-16 code units, a surrogate pair
	}
	for _, tc := range tests {
		if got := opensearch.HashCode(tc.s); got != tc.want {
			t.Errorf("HashCode(%q) = %d, want %d", tc.s, got, tc.want)
		}
	}
}

// javaHash is s.hashCode() for ASCII s, written out.
func javaHash(s string) int32 {
	var h int32
	for i := 0; i < len(s); i++ {
		h = h*31 + int32(s[i])
	}
	return h
}
