package formattest

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"math"
)

// The zap v16 segment layout (bleve's zapx/v16, write.go and
// section_inverted_text_index.go) as far as an attacker needs it: a footer
// of numDocs, stored-index offset, fields-index offset, sections-index
// offset, doc-value offset (8 bytes each), chunk mode and version (4 each)
// and a CRC-32 (4, big endian) of all that precedes it; at the sections
// index, a count of fields and each field's address; at a field, its name,
// its sections (a 2-byte type and an 8-byte address each); at its
// inverted-text section, the start and end of its doc values, whose last
// 16 bytes are the length of its chunk offsets and its chunk count.
const zapFooter = 4 + 4 + 4 + 8 + 8 + 8 + 8 + 8

// FixZapCRC sets the last four bytes of the zap segment seg to the CRC-32
// of all that precedes them, as an attacker who edited it would.
func FixZapCRC(seg []byte) {
	if len(seg) >= 4 {
		binary.BigEndian.PutUint32(seg[len(seg)-4:], crc32.ChecksumIEEE(seg[:len(seg)-4]))
	}
}

// ZapFooter is where the footer fields of the zap segment seg lie:
// Footer.NumDocs is the offset of its document count, and so on, for a
// test to set any of them.
type ZapFooter struct {
	NumDocs, StoredIndex, FieldsIndex, SectionsIndex, DocValues, ChunkMode, Version int
}

// ZapFooterOf is the layout of the footer of the zap v16 segment seg.
func ZapFooterOf(seg []byte) ZapFooter {
	f := len(seg) - zapFooter
	return ZapFooter{NumDocs: f, StoredIndex: f + 8, FieldsIndex: f + 16, SectionsIndex: f + 24, DocValues: f + 32, ChunkMode: f + 40, Version: f + 44}
}

// ZapField is one field of a zap v16 segment, as ZapFields finds it: its
// name, and the offsets in the segment of its 16-byte doc-value header
// (the chunk offsets' length, then the chunk count, big endian; -1 when
// it has no doc values) and of its dictionary (a varint length, then a
// vellum FST; 0 when it has none).
type ZapField struct {
	Name           string
	DocValueHeader int
	Dict           int
}

// ZapFields lists the fields of the zap v16 segment seg that have an
// inverted-text section.
func ZapFields(seg []byte) ([]ZapField, error) {
	if len(seg) < zapFooter {
		return nil, errors.New("formattest: not a zap segment")
	}
	mem := seg[:len(seg)-zapFooter]
	ft := ZapFooterOf(seg)
	pos := binary.BigEndian.Uint64(seg[ft.SectionsIndex:])
	if pos == 0 || pos >= uint64(len(mem)) {
		return nil, errors.New("formattest: not a zap v16 segment")
	}
	uv := func(at uint64) (uint64, uint64, error) {
		if at >= uint64(len(mem)) {
			return 0, 0, errors.New("formattest: offset past the segment")
		}
		v, n := binary.Uvarint(mem[at:])
		if n <= 0 {
			return 0, 0, errors.New("formattest: bad varint")
		}
		return v, at + uint64(n), nil
	}
	numFields, pos, err := uv(pos)
	if err != nil {
		return nil, err
	}
	var out []ZapField
	for f := uint64(0); f < numFields; f++ {
		if pos+8 > uint64(len(mem)) {
			return nil, errors.New("formattest: fields past the segment")
		}
		addr := binary.BigEndian.Uint64(mem[pos:])
		pos += 8
		nameLen, at, err := uv(addr)
		if err != nil || at+nameLen > uint64(len(mem)) {
			return nil, errors.New("formattest: a field name past the segment")
		}
		name := string(mem[at : at+nameLen])
		sections, at, err := uv(at + nameLen)
		if err != nil {
			return nil, err
		}
		for range sections {
			if at+10 > uint64(len(mem)) {
				return nil, errors.New("formattest: sections past the segment")
			}
			typ, sec := binary.BigEndian.Uint16(mem[at:]), binary.BigEndian.Uint64(mem[at+2:])
			at += 10
			if typ != 0 || sec == 0 {
				continue
			}
			start, next, err := uv(sec)
			if err != nil {
				return nil, err
			}
			end, next, err := uv(next)
			if err != nil {
				return nil, err
			}
			dict, _, err := uv(next)
			if err != nil {
				return nil, err
			}
			f := ZapField{Name: name, DocValueHeader: -1, Dict: int(dict)}
			if start != math.MaxUint64 && end >= 16 && end <= uint64(len(mem)) {
				f.DocValueHeader = int(end - 16)
			}
			out = append(out, f)
		}
	}
	return out, nil
}

// CraftZapDocValueChunks is the zap v16 segment seg with the doc-value
// chunk count of its first field with doc values set to n and its CRC
// fixed: at n = 2^40, zap asks for 8 TiB when it opens the segment.
func CraftZapDocValueChunks(seg []byte, n uint64) ([]byte, error) {
	fields, err := ZapFields(seg)
	if err != nil {
		return nil, err
	}
	for _, f := range fields {
		if f.DocValueHeader >= 0 {
			out := append([]byte(nil), seg...)
			binary.BigEndian.PutUint64(out[f.DocValueHeader+8:], n)
			FixZapCRC(out)
			return out, nil
		}
	}
	return nil, errors.New("formattest: no field with doc values in the segment")
}
