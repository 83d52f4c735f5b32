package lexical

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"sync"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/braidsearch/braid/indexdir"
	"github.com/braidsearch/braid/internal/confine"
	bolt "go.etcd.io/bbolt"
	"golang.org/x/sys/unix"
)

// LexicalFix is what to do about a damaged lexical index at path: it holds
// nothing that meta.db does not, so doctor rebuilds it from there.
func LexicalFix(path string) string {
	return fmt.Sprintf("braid --index %s doctor --repair rebuilds it from the chunks in meta.db", filepath.Dir(path))
}

func lexDamaged(path string, detail any) error {
	return &indexdir.CorruptError{Path: path, Detail: fmt.Sprint(detail), Fix: LexicalFix(path)}
}

// boltDamaged is what is wrong with the bbolt file at path (the index's
// root.bolt), for openVerified to name the index damaged with.
func boltDamaged(path string, detail any) error {
	return fmt.Errorf("%s: %v", filepath.Base(path), detail)
}

// guard runs f, which reads the lexical index, so that a damaged segment
// is an error rather than a crash (see the package's guard).
func (l *Index) guard(f func() error) error {
	return indexdir.Guard(func(r any) error { return lexDamaged(l.path, r) }, f)
}

// openVerified opens the existing lexical index at path read-only and
// checks that every segment it refers to is whole, before bleve reads
// it: bleve trusts a segment's footer and offsets, so a truncated or
// altered segment panics (in goroutines of bleve's own, where it cannot be
// recovered) at the first search or merge that reads the damaged part, or
// at the open itself asks for terabytes (a fatal error, which no guard
// recovers). Each segment is checked as checkSegment says. A segment that
// stamps (nil: none) says this user's braid checked already is not read
// again; it returns how many segments it read, and the names of those
// present, found whole or stamped.
func openVerified(path string, stamps *indexdir.Stamps) (bleve.Index, int, map[string]bool, error) {
	root := filepath.Join(path, "store", "root.bolt")
	if err := indexdir.CheckBolt(root, boltDamaged); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, 0, nil, lexDamaged(path, err)
	}
	if err := checkMeta(filepath.Join(path, "index_meta.json")); err != nil {
		if errors.Is(err, os.ErrPermission) {
			return nil, 0, nil, fmt.Errorf("open lexical index %s: %w", path, err)
		}
		return nil, 0, nil, lexDamaged(path, err)
	}
	var idx bleve.Index
	read := 0
	var whole map[string]bool
	err := indexdir.Guard(func(r any) error { return lexDamaged(path, r) }, func() error {
		var err error
		if read, whole, err = verifySegments(path, stamps); err != nil {
			if errors.Is(err, os.ErrPermission) {
				return fmt.Errorf("open lexical index %s: %w", path, err)
			}
			return lexDamaged(path, err)
		}
		i, err := bleve.OpenUsing(path, map[string]interface{}{"read_only": true})
		if err != nil {
			if errors.Is(err, os.ErrPermission) {
				return fmt.Errorf("open lexical index %s: %w", path, err)
			}
			return lexDamaged(path, err)
		}
		idx = i
		return nil
	})
	if err != nil {
		if idx != nil {
			idx.Close()
		}
		return nil, 0, nil, err
	}
	return idx, read, whole, nil
}

// verifySegments checks every segment file a snapshot in the index's
// root.bolt names (bleve opens the newest snapshot whose segments all
// open, so any of them may be read) but those stamps says were checked
// already, stamps those it read, and returns how many it read and the
// names of those present. A segment named but missing is left to bleve,
// which falls back to an older snapshot (Check then refuses the index as
// behind meta.db); a name that leaves the index's folder is damage.
func verifySegments(path string, stamps *indexdir.Stamps) (int, map[string]bool, error) {
	segs, err := snapshotSegments(filepath.Join(path, "store", "root.bolt"))
	if err != nil {
		return 0, nil, err
	}
	read := 0
	whole := map[string]bool{}
	for _, seg := range segs {
		name := seg.name
		if name == "" || name != filepath.Base(name) || name == "." || name == ".." {
			return read, nil, fmt.Errorf("root.bolt names a segment %q outside lexical.bleve/store", name)
		}
		checked, docs, err := checkSegment(filepath.Join(path, "store", name), stamps)
		if err != nil {
			return read, nil, err
		}
		if checked {
			read++
		}
		if docs < 0 {
			continue // missing: left to bleve
		}
		whole[name] = true
		for _, d := range seg.deleted {
			if err := checkDocs(d, uint64(docs), true); err != nil {
				return read, nil, fmt.Errorf("root.bolt's deleted documents of segment %s: %w", name, err)
			}
		}
	}
	stamps.Save()
	return read, whole, nil
}

// stampWritten stamps the segments the snapshots of the closed lexical
// index at path name but its open did not find (opened: the segments it
// found whole or stamped): those the writer's bleve wrote since,
// persisting a batch or merging, from what braid gave it or from segments
// checked already. They need no check of their own, which at a million
// chunks would read 1.7 GB again at the next open. Best effort, as
// Stamps.Save is: a segment left unstamped is checked at the next open.
func stampWritten(path string, stamps *indexdir.Stamps, opened map[string]bool) {
	if stamps == nil {
		return
	}
	names, err := segmentNames(filepath.Join(path, "store", "root.bolt"))
	if err != nil {
		return
	}
	for _, name := range names {
		if opened[name] || name == "" || name != filepath.Base(name) || name == "." || name == ".." {
			continue
		}
		p := filepath.Join(path, "store", name)
		f, err := confine.Open("", p)
		if err != nil {
			continue
		}
		if st, ok := indexdir.Fstat(f); ok {
			stamps.Add(p+segmentChecks, st)
		}
		f.Close()
	}
	stamps.Save()
}

// segmentNames lists the segment files the snapshots in the scorch root
// at root name, each once; none when root does not exist.
func segmentNames(root string) ([]string, error) {
	segs, err := snapshotSegments(root)
	names := make([]string, len(segs))
	for i, s := range segs {
		names[i] = s.name
	}
	return names, err
}

// snapshotSegment is a segment file the snapshots of a scorch root name,
// and what they say of it: the bitmaps of its deleted documents, which
// scorch drops from its searches and merges.
type snapshotSegment struct {
	name    string
	deleted [][]byte
}

// snapshotSegments lists the segment files the snapshots in the scorch
// root at root name, each once with each of its deleted bitmaps; none
// when root does not exist. A snapshot of another segment format than
// zap v16, or a segment with updated fields (what a mapping change leaves,
// which braid never makes: merges take other paths through zap for it) is
// refused.
func snapshotSegments(root string) ([]snapshotSegment, error) {
	if _, err := os.Lstat(root); errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	readOnly := func(path string, _ int, mode os.FileMode) (*os.File, error) {
		return os.OpenFile(path, os.O_RDONLY, mode) // bbolt would add O_CREATE
	}
	db, err := bolt.Open(root, 0o600, &bolt.Options{ReadOnly: true, OpenFile: readOnly})
	if err != nil {
		return nil, err
	}
	defer db.Close()
	var segs []snapshotSegment
	at := map[string]int{}
	err = db.View(func(tx *bolt.Tx) error {
		snaps := tx.Bucket(scorchSnapshots)
		if snaps == nil {
			return nil
		}
		return snaps.ForEachBucket(func(k []byte) error {
			snap := snaps.Bucket(k)
			if err := snapshotFormat(snap); err != nil {
				return err
			}
			if err := checkMapping(snap); err != nil {
				return err
			}
			return snap.ForEachBucket(func(k []byte) error {
				if len(k) == 0 || k[0] == scorchInternal || k[0] == scorchMeta {
					return nil
				}
				b := snap.Bucket(k)
				p := b.Get(scorchPath)
				if p == nil {
					return nil
				}
				if b.Get(scorchUpdatedFields) != nil {
					return fmt.Errorf("root.bolt says fields of segment %q were updated, which braid never does", p)
				}
				i, ok := at[string(p)]
				if !ok {
					i = len(segs)
					at[string(p)] = i
					segs = append(segs, snapshotSegment{name: string(p)})
				}
				if d := b.Get(scorchDeleted); d != nil {
					segs[i].deleted = append(segs[i].deleted, bytes.Clone(d))
				}
				return nil
			})
		})
	})
	return segs, err
}

// checkMeta checks bleve's index_meta.json at path says what bleve.New
// wrote for braid: a scorch index over boltdb, with no configuration. It
// names the index type bleve opens (another has other files and parsers)
// and a configuration scorch takes over its defaults (persister workers,
// merge plans) and that runtime options do not replace.
func checkMeta(path string) error {
	b, err := confine.ReadConfig(path, 4<<10)
	if err != nil {
		if errors.Is(err, os.ErrPermission) {
			return err
		}
		return fmt.Errorf("index_meta.json: %w", err)
	}
	var m struct {
		Storage   string         `json:"storage"`
		IndexType string         `json:"index_type"`
		Config    map[string]any `json:"config"`
	}
	if err := json.Unmarshal(b, &m); err != nil || m.Storage != "boltdb" || m.IndexType != "scorch" || len(m.Config) > 0 {
		return fmt.Errorf("index_meta.json is not what braid writes (a scorch index over boltdb, no configuration): %.80q", b)
	}
	return nil
}

// lexMappingJSON is lexMapping as bleve keeps it in an index, in the
// canonical form mappingJSON gives.
var lexMappingJSON = sync.OnceValue(func() string { return canonicalMapping(lexMapping()) })

// knownMappings are the mappings braid has written, in the canonical form
// mappingJSON gives: lexMapping's and the one before it, with doc values
// (buildMapping).
var knownMappings = sync.OnceValue(func() map[string]bool {
	return map[string]bool{lexMappingJSON(): true, canonicalMapping(buildMapping(true)): true}
})

func canonicalMapping(m *mapping.IndexMappingImpl) string {
	b, err := json.Marshal(m)
	if err != nil {
		panic("lexical: the built-in mapping does not marshal: " + err.Error()) // a programming error, caught by every test
	}
	s, _ := mappingJSON(b)
	return s
}

// mappingJSON is the mapping b (JSON) with its keys in order.
func mappingJSON(b []byte) (string, error) {
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return "", err
	}
	c, err := json.Marshal(v)
	return string(c), err
}

// checkMapping checks that the mapping a snapshot keeps (its internal
// bucket's _mapping, which bleve analyses every document and query with)
// is braid's: a custom analysis (an n-gram filter with a wide range, a
// tokenizer of its own) could make a chunk cost gigabytes to index.
func checkMapping(snap *bolt.Bucket) error {
	in := snap.Bucket([]byte{scorchInternal})
	if in == nil {
		return nil // bleve reads no mapping from this snapshot: it keeps the one it has
	}
	b := in.Get(scorchMapping)
	if b == nil {
		return nil
	}
	if m, err := mappingJSON(b); err != nil || !knownMappings()[m] {
		return errors.New("root.bolt holds a field mapping that is not braid's")
	}
	return nil
}

// snapshotFormat checks that the snapshot snap says its segments are zap
// v16, the only format braid writes and the one checkZap knows: scorch
// opens them with the segment plugin the snapshot names (v11 to v16).
func snapshotFormat(snap *bolt.Bucket) error {
	meta := snap.Bucket([]byte{scorchMeta})
	if meta == nil {
		return errors.New("root.bolt has a snapshot without its segment format")
	}
	typ, ver := meta.Get(scorchSegmentType), meta.Get(scorchSegmentVersion)
	// scorch reads the first 4 of the 5 bytes it writes (persister.go).
	if string(typ) != "zap" || len(ver) < 4 || binary.BigEndian.Uint32(ver) != zapVersion {
		return fmt.Errorf("root.bolt names segments of format %q version %x, not zap %d (the only one braid writes)", typ, ver, zapVersion)
	}
	return nil
}

// The keys of scorch's root.bolt (bleve's index/scorch and util/keys.go):
// the snapshots bucket, and in a snapshot the internal and metadata
// buckets beside one bucket per segment, whose path key names its file;
// in a segment's bucket, its deleted documents and updated fields; the
// metadata's segment type and version.
var (
	scorchSnapshots      = []byte{'s'}
	scorchPath           = []byte{'p'}
	scorchDeleted        = []byte{'d'}
	scorchUpdatedFields  = []byte("fields")
	scorchMapping        = []byte("_mapping")
	scorchSegmentType    = []byte("type")
	scorchSegmentVersion = []byte("version")
)

const (
	scorchInternal = 'i'
	scorchMeta     = 'm'
)

// checkSegment checks a segment file, unless stamps says the file, as its
// open descriptor describes it, was checked before: the CRC-32 of all but
// its last four bytes against those four (big endian, as zap writes them),
// which catches damage, then its structure (checkZap), which catches
// crafting: a CRC anyone can fix, and zap trusts every count and offset in
// the file. A file it checks is stamped as described before the read, so
// one written during it is read again next time. It says whether it read
// the file, and how many documents the segment holds: -1 when the file is
// missing, which is left to bleve (CheckEntries refused anything but a
// file).
func checkSegment(path string, stamps *indexdir.Stamps) (read bool, docs int64, err error) {
	f, err := confine.Open("", path)
	if errors.Is(err, os.ErrNotExist) {
		return false, -1, nil
	} else if err != nil {
		return false, -1, err
	}
	defer f.Close()
	name := filepath.Base(path)
	st, described := indexdir.Fstat(f)
	if described && stamps.Checked(path+segmentChecks, st) {
		var footer [zapFooterSize]byte
		if _, err := f.ReadAt(footer[:], st.Size-zapFooterSize); err != nil {
			return false, -1, fmt.Errorf("segment %s: %w", name, err)
		}
		return false, int64(binary.BigEndian.Uint64(footer[:])), nil
	}
	fi, err := f.Stat()
	if err != nil {
		return true, -1, err
	}
	if fi.Size() < 4 {
		return true, -1, fmt.Errorf("segment %s is truncated (%d bytes)", name, fi.Size())
	}
	if fi.Size() != int64(int(fi.Size())) {
		return true, -1, fmt.Errorf("segment %s is larger than this machine can map (%d bytes)", name, fi.Size())
	}
	data, err := unix.Mmap(int(f.Fd()), 0, int(fi.Size()), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return true, -1, fmt.Errorf("map segment %s: %w", name, err)
	}
	defer unix.Munmap(data)
	if crc32.ChecksumIEEE(data[:len(data)-4]) != binary.BigEndian.Uint32(data[len(data)-4:]) {
		return true, -1, fmt.Errorf("segment %s fails its checksum", name)
	}
	if err := checkZap(data); err != nil {
		return true, -1, fmt.Errorf("segment %s is not laid out as zap writes it: %w", name, err)
	}
	if described {
		stamps.Add(path+segmentChecks, st)
	}
	return true, int64(binary.BigEndian.Uint64(data[len(data)-zapFooterSize:])), nil
}

// segmentChecks tags a segment's stamp with what was checked: the CRC and
// the structure. A stamp an earlier braid made after reading the CRC only
// names the bare file, matches nothing, and is dropped at the next Save,
// so that segment is checked again in full.
const segmentChecks = "+structure"
