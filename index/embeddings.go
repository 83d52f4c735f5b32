package index

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"math"

	"github.com/braidsearch/braid/internal/half"
	bolt "go.etcd.io/bbolt"
)

// The embeddings bucket (bucketVectors) holds, under model \x00 text hash,
// the embeddings a model's graph file does not hold yet: those computed
// (or taken from the graph for text that moved to another chunk) since
// the graph was last saved. It is what brings the graph in step after a
// crash between a commit and the graph's save (vecstore.Load); once a
// save makes the graph durable, the entries it holds are deleted
// (DeleteVectors, ClearVectors), so each embedding is kept once, in the
// graph file, not twice. The key model \x00 alone, with an empty value,
// records that the index was embedded with model (EmbeddingModels) when
// no entry of its is left.

// TextHash keys an embedding by the text it was computed from, so text that
// did not change is never embedded again, whatever its chunk is called.
func TextHash(text string) string {
	h := sha256.Sum256([]byte(text))
	return hex.EncodeToString(h[:16])
}

// packed is the fill of the pages bbolt splits in the buckets of large
// records (chunks and embeddings, about 1 KB each, four to a page): their
// keys are hashes, inserted in no order, and at bbolt's default of half a
// page each split leaves two pages of two records; filled whole, the
// pages come out about three quarters full instead of half (random
// order), and whole in key order (TestPackedPages). Small records (docs,
// paths, lineage, BM25 counts) keep the default: many to a page, a split
// filled whole there leaves a full page that the next insert splits again
// and pages some 40% full, against some 68% at half.
const packed = 1.0

// pack sets b's split fill to packed for this transaction and returns b.
func pack(b *bolt.Bucket) *bolt.Bucket {
	b.FillPercent = packed
	return b
}

// modelKey is the key that records that the index was embedded with
// model; every embedding of model's key starts with it.
func modelKey(model string) []byte { return []byte(model + "\x00") }

// Vectors returns the stored embeddings of texts (by TextHash) for a model;
// missing ones are nil.
func (s *Store) Vectors(model string, hashes []string) ([][]float32, error) {
	out := make([][]float32, len(hashes))
	err := s.view(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketVectors)
		if b == nil {
			return nil
		}
		for i, h := range hashes {
			if h == "" {
				continue
			}
			if v := b.Get([]byte(model + "\x00" + h)); v != nil {
				out[i] = decodeVector(v)
			}
		}
		return nil
	})
	return out, err
}

// EmbeddingModels lists the models the index was embedded with: those
// whose embeddings the store or a graph file holds.
func (s *Store) EmbeddingModels() ([]string, error) {
	var out []string
	err := s.view(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketVectors)
		if b == nil {
			return nil
		}
		c := b.Cursor()
		for k, _ := c.First(); k != nil; {
			m, _, _ := bytes.Cut(k, []byte{0})
			out = append(out, string(m))
			k, _ = c.Seek(append(bytes.Clone(m), 1)) // past every key of m
		}
		return nil
	})
	return out, err
}

// ForEachVector calls fn with every stored embedding, its model and text
// hash, inside one read transaction: fn must not use the store.
func (s *Store) ForEachVector(fn func(model, hash string, vec []float32) error) error {
	return s.view(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketVectors).ForEach(func(k, v []byte) error {
			model, hash, _ := bytes.Cut(k, []byte{0})
			if len(hash) == 0 {
				return nil // the model's record (modelKey)
			}
			return fn(string(model), string(hash), decodeVector(v))
		})
	})
}

// PutVectors stores embeddings by text hash for a model, in one
// transaction, and records that the index is embedded with model.
func (s *Store) PutVectors(model string, hashes []string, vecs [][]float32) error {
	return s.update(func(tx *bolt.Tx) error {
		b := pack(tx.Bucket(bucketVectors))
		if err := b.Put(modelKey(model), nil); err != nil {
			return err
		}
		for i, h := range hashes {
			if err := b.Put([]byte(model+"\x00"+h), encodeVector(vecs[i])); err != nil {
				return err
			}
		}
		return nil
	})
}

// CountVectors is how many embeddings the store holds for model: a walk
// over their keys, none decoded.
func (s *Store) CountVectors(model string) (int, error) {
	n := 0
	err := s.view(func(tx *bolt.Tx) error {
		prefix := modelKey(model)
		cur := tx.Bucket(bucketVectors).Cursor()
		w := newWalker(tx)
		for k, v := cur.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = cur.Next() {
			w.step(len(k) + len(v))
			if len(k) > len(prefix) {
				n++
			}
		}
		return nil
	})
	return n, err
}

// DeleteVectors deletes a model's embeddings of these text hashes, in one
// transaction: those a graph file now holds durably.
func (s *Store) DeleteVectors(model string, hashes []string) error {
	if len(hashes) == 0 {
		return nil
	}
	return s.updateReleasing(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketVectors)
		w := newWalker(tx)
		for _, h := range hashes {
			if h == "" {
				continue
			}
			w.step(len(h) + deleteBytes)
			if err := b.Delete([]byte(model + "\x00" + h)); err != nil {
				return err
			}
		}
		return nil
	})
}

// ClearVectors deletes every embedding of model, for a graph file that
// now holds every chunk's vector durably, and returns how many went. With
// keep it records (or keeps recording) that the index is embedded with
// model; without, the record goes too (a graph of no chunks).
func (s *Store) ClearVectors(model string, keep bool) (int, error) {
	n := 0
	err := s.updateReleasing(func(tx *bolt.Tx) error {
		prefix := modelKey(model)
		b := tx.Bucket(bucketVectors)
		var dead [][]byte // deleting while a cursor walks can skip keys
		cur := b.Cursor()
		w := newWalker(tx)
		for k, v := cur.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = cur.Next() {
			w.step(len(k) + len(v))
			if len(k) > len(prefix) {
				dead = append(dead, bytes.Clone(k))
			}
		}
		for _, k := range dead {
			w.step(len(k) + deleteBytes)
			if err := b.Delete(k); err != nil {
				return err
			}
		}
		n = len(dead)
		if keep {
			return b.Put(prefix, nil)
		}
		return b.Delete(prefix)
	})
	return n, err
}

// EmbedHashes maps the TextHash of what each chunk of these documents is
// embedded as (EmbedInput), as the store holds them now, to the chunk's
// id; documents it does not hold are skipped. Read before a commit that
// replaces them, it tells which new chunks repeat an old one's text, so
// their vectors can be taken from the graph instead of the model.
func (s *Store) EmbedHashes(docIDs []string) (map[string]string, error) {
	out := map[string]string{}
	err := s.view(func(tx *bolt.Tx) error {
		chunks := tx.Bucket(bucketChunks)
		for _, id := range docIDs {
			d, err := getDoc(tx, id)
			if err != nil || d == nil {
				if err != nil {
					return err
				}
				continue
			}
			title, sum := d.Title, d.Summary()
			for _, cid := range d.ChunkIDs {
				v := chunks.Get([]byte(cid))
				if v == nil {
					continue
				}
				var c Chunk
				if err := json.Unmarshal(v, &c); err != nil {
					return err
				}
				out[TextHash(EmbedInput(title, sum, &c))] = cid
			}
		}
		return nil
	})
	return out, err
}

// encodeVector writes a stored embedding: a tag byte (vectorHalf), then
// each value as a little-endian IEEE half, rounded to nearest. The
// embeddings the store keeps until the graph file holds them are in half
// precision, half the space of float32s (1.5 KiB a chunk for bge-small's
// 384 values), and a unit vector
// read back differs by at most 2⁻¹¹ of each value, a cosine by about
// 10⁻⁴ (TestVectorHalf).
func encodeVector(v []float32) []byte {
	b := make([]byte, 1+2*len(v))
	b[0] = vectorHalf
	for i, x := range v {
		binary.LittleEndian.PutUint16(b[1+2*i:], half.To(x))
	}
	return b
}

// vectorHalf tags a stored embedding written in half precision; one of
// float32s, as braid wrote them before, has a length divisible by 4.
const vectorHalf = 0x16

// decodeVector reads what encodeVector wrote, or the float32s of a store
// written before; nil for a value that is neither.
func decodeVector(b []byte) []float32 {
	switch {
	case len(b)%4 == 0:
		v := make([]float32, len(b)/4)
		for i := range v {
			v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
		}
		return v
	case len(b)%2 == 1 && b[0] == vectorHalf:
		v := make([]float32, len(b)/2)
		for i := range v {
			v[i] = half.From(binary.LittleEndian.Uint16(b[1+2*i:]))
		}
		return v
	}
	return nil
}

// filledKey is the meta key under which the store records the commit
// number at which model's graph was last saved holding every chunk
// (SetFilled).
func filledKey(model string) []byte { return []byte("filled\x00" + model) }

// Filled returns the commit number at which model's graph file was last
// saved holding every chunk of the store (SetFilled); ok is false when
// none is recorded.
func (s *Store) Filled(model string) (gen uint64, ok bool, err error) {
	err = s.view(func(tx *bolt.Tx) error {
		v := tx.Bucket(bucketMeta).Get(filledKey(model))
		if ok = len(v) == 8; ok {
			gen = binary.BigEndian.Uint64(v)
		}
		return nil
	})
	return gen, ok, err
}

// SetFilled records that model's graph file was just saved holding every
// chunk of the store at commit gen; with ok false it forgets that (a
// graph saved with chunks missing). Only a change is written.
func (s *Store) SetFilled(model string, gen uint64, ok bool) error {
	if old, had, err := s.Filled(model); err != nil || had == ok && (!ok || old == gen) {
		return err
	}
	return s.update(func(tx *bolt.Tx) error {
		meta := tx.Bucket(bucketMeta)
		if !ok {
			return meta.Delete(filledKey(model))
		}
		return meta.Put(filledKey(model), binary.BigEndian.AppendUint64(nil, gen))
	})
}
