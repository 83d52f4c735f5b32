package index

import (
	"encoding/binary"
	"math"
	"math/rand"
	"testing"
)

// The store keeps embeddings in half precision and still reads the
// float32s a store written before holds; a value that is neither is no
// embedding (it is computed again).
func TestStoredVectors(t *testing.T) {
	st, err := OpenStore(t.TempDir()+"/meta.db", false)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	r := rand.New(rand.NewSource(2))
	v := make([]float32, 384)
	var norm float64
	for i := range v {
		v[i] = float32(r.NormFloat64())
		norm += float64(v[i]) * float64(v[i])
	}
	for i := range v {
		v[i] = float32(float64(v[i]) / math.Sqrt(norm))
	}
	if err := st.PutVectors("m", []string{"a"}, [][]float32{v}); err != nil {
		t.Fatal(err)
	}
	got, err := st.Vectors("m", []string{"a", "b"})
	if err != nil {
		t.Fatal(err)
	}
	if got[1] != nil || len(got[0]) != 384 {
		t.Fatalf("got %d and %d values, want 384 and none", len(got[0]), len(got[1]))
	}
	var dot float64
	for i := range v {
		if d := math.Abs(float64(got[0][i] - v[i])); d > math.Abs(float64(v[i]))/2048+1e-7 {
			t.Fatalf("value %d: %g read back as %g", i, v[i], got[0][i])
		}
		dot += float64(got[0][i]) * float64(v[i])
	}
	if math.Abs(dot-1) > 1e-4 {
		t.Errorf("cosine with the original %.6f, want 1 within 1e-4", dot)
	}
	old := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(old[4*i:], math.Float32bits(x))
	}
	if w := decodeVector(old); len(w) != 384 || w[7] != v[7] {
		t.Errorf("a float32 value read as %d values", len(w))
	}
	if w := decodeVector([]byte{1, 2, 3}); w != nil {
		t.Errorf("a 3-byte value read as %v, want none", w)
	}
}
