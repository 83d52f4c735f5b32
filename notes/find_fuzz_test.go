package notes

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/braidsearch/braid/index"
)

// FuzzNameScore feeds Find's matcher arbitrary queries and names: it must
// not panic, a score is 0 or a match kind plus a fraction, a name matches
// itself exactly, and a match implies the query's letters are in the name
// in order.
func FuzzNameScore(f *testing.F) {
	for _, s := range [][2]string{{"garden", "Gardening Guide"}, {"gdn", "garden"}, {"Ünï", "ÜNÏCODE"}, {"a-b", "A_B c"}, {"", "x"}, {"x\xff", "\xffx"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, query, name string) {
		q, n := normName(query), normName(name)
		if q == "" {
			return // Find refuses an empty query
		}
		s := nameScore(q, n)
		if s != 0 && (s < 1 || s >= 6) {
			t.Fatalf("nameScore(%q, %q) = %v, want 0 or 1..6", q, n, s)
		}
		if s > 0 && matchKinds[int(s)] == "" {
			t.Fatalf("nameScore(%q, %q) = %v names no match kind", q, n, s)
		}
		if got := nameScore(q, q); got != 5 {
			t.Fatalf("nameScore(%q, itself) = %v, want 5", q, got)
		}
		if s > 0 {
			rest := n
			for i := 0; i < len(q); i++ {
				k := strings.IndexByte(rest, q[i])
				if k < 0 {
					t.Fatalf("nameScore(%q, %q) = %v but the query's bytes are not in the name in order", q, n, s)
				}
				rest = rest[k+1:]
			}
		}
	})
}

// TestFindConcurrent runs finds from many goroutines while the name cache
// is dropped, for the race detector.
func TestFindConcurrent(t *testing.T) {
	st, err := index.OpenStore(filepath.Join(t.TempDir(), "meta.db"), false)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	r := NewReader(st, nil, Config{})
	done := make(chan error)
	for i := range 8 {
		go func() {
			var err error
			for range 20 {
				if i%2 == 0 {
					r.names.mu.Lock()
					r.names.ok = false
					r.names.mu.Unlock()
				}
				if _, err = r.Find("x", FindOptions{}); err != nil {
					break
				}
			}
			done <- err
		}()
	}
	for range 8 {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}
