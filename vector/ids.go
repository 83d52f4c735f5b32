package vector

// idTable is the id of every slot: those of a version 3 file's slots as
// the file keeps them, mapped (a blob and the offsets into it, nothing
// decoded or hashed at load), and those of the slots after them, or of a
// graph built or decoded in memory, as strings.
type idTable struct {
	off  []uint64 // mapped: the file's slot s is blob[off[s]:off[s+1]]
	blob []byte
	keep *mapping // what off and blob are mapped from
	more []string // slots len(off)-1 on; "" for a tombstone
}

// filed is the number of slots whose ids are the file's.
func (t *idTable) filed() int { return max(len(t.off)-1, 0) }

// at returns slot s's id. A file's offsets are checked before they slice
// the blob: one out of order or past it (a damaged file, which Verify
// reports) gives "".
func (t *idTable) at(s uint32) string {
	if n := t.filed(); int(s) >= n {
		return t.more[int(s)-n]
	}
	a, b := t.off[s], t.off[s+1]
	if a > b || b > uint64(len(t.blob)) {
		return ""
	}
	return string(t.blob[a:b])
}

func (t *idTable) add(id string) { t.more = append(t.more, id) }

// clear forgets slot s's id, a tombstone's, where it is held in memory.
func (t *idTable) clear(s uint32) {
	if n := t.filed(); int(s) >= n {
		t.more[int(s)-n] = ""
	}
}

// id returns slot s's id; "" for a tombstone.
func (x *Index) id(s uint32) string {
	if x.g.isDead(s) {
		return ""
	}
	return x.ids.at(s)
}

// slots returns the map of live ids to their slots, made on first use: a
// graph loaded from a version 3 file has none until a mutation or a
// lookup by id needs it, so a search never pays for it. Callers hold mu
// (read or write); mutations change the map under the write lock. Were a
// damaged file to hold an id twice (Verify says so), the first slot is
// the one found by id.
func (x *Index) slots() map[string]uint32 {
	x.slotMu.Lock()
	defer x.slotMu.Unlock()
	if x.slot == nil {
		m := make(map[string]uint32, x.g.live)
		for s := range uint32(x.g.size()) {
			if x.g.isDead(s) {
				continue
			}
			id := x.ids.at(s)
			if _, dup := m[id]; !dup {
				m[id] = s
			}
		}
		x.slot = m
	}
	return x.slot
}
