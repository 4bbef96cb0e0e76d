package trevniparquet

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
)

// A version 2 data page of all nulls whose values region is stored
// compressed but holds nothing to decompress (see pqpages.go) must read
// as uncompressed, which its header says in one more byte than it has when
// its values region is empty (datapage_v2_empty_datapage.snappy.parquet:
// a 21-byte header, then 2 bytes of levels). Such a page's column chunk is
// moved: the file arrow-go reads is the file's bytes up to its footer,
// then the moved chunks, each the original's pages but those pages,
// rewritten (from the file's bytes where a page is unchanged: nothing is
// copied into memory but the rewritten pages), then a footer that says
// where the moved chunks are. The file is not changed.

// Field ids of FileMetaData, RowGroup, ColumnChunk, ColumnMetaData,
// Statistics and PageEncodingStats (parquet.thrift) that the move reads
// or rewrites.
const (
	chunkFileOffset      = 2
	columnTotalComp      = 7
	columnDataOffset     = 9
	columnIndexOffset    = 10
	columnDictOffset     = 11
	columnStatistics     = 12
	columnEncodingStats  = 13
	statsNullCount       = 3
	encodingStatsPageTyp = 1
	codecUncompressed    = 0
)

// segment is a stretch of the file arrow-go reads past the original's
// footer: n bytes of the original at off, or b.
type segment struct {
	off, n int64
	b      []byte
}

func (s segment) size() int64 {
	if s.b != nil {
		return int64(len(s.b))
	}
	return s.n
}

// moveEmptyPages returns meta (a FileMetaData) with the chunks that hold
// empty compressed pages moved past cut (the original's footer), and the
// segments of the moved chunks, in order; meta and nil when none is.
// With verify, the CRC-32 of each page rewritten is checked first (its
// rewritten header has none). Pages that do not decode, chunks that do
// not lie in the file, pages larger than maxPage are left to the page
// reader to refuse. The chunks walked are bounded by the file's size in
// all, so that a footer whose chunks overlap cannot make opening walk
// the file many times over.
func moveEmptyPages(src io.ReaderAt, meta []byte, cut, maxPage int64, verify bool) ([]byte, []segment, error) {
	top, _, err := readStruct(meta, 0, 0)
	if err != nil {
		return nil, nil, err
	}
	var (
		segs     []segment
		at       = cut
		newGroup = map[int][]byte{} // top-level field values rewritten
		budget   = cut              // the bytes of chunks still to walk
	)
	for ti, f := range top {
		if f.id != fileMetaRowGroups || f.typ != tList {
			continue
		}
		n, et, pos, err := listHeader(meta, f.val)
		if err != nil || et != tStruct {
			return nil, nil, errFooterThrift
		}
		groups := append([]byte(nil), meta[f.val:pos]...) // the list's header
		changedList := false
		for g := range n {
			rg, end, err := readStruct(meta, pos, 1)
			if err != nil {
				return nil, nil, err
			}
			groupRepl := map[int][]byte{}
			for _, cf := range rg {
				if cf.id != rowGroupColumns || cf.typ != tList {
					continue
				}
				m, et, cpos, err := listHeader(meta, cf.val)
				if err != nil || et != tStruct {
					return nil, nil, errFooterThrift
				}
				cols := append([]byte(nil), meta[cf.val:cpos]...)
				changedCols := false
				for c := range m {
					chunk, cend, err := readStruct(meta, cpos, 2)
					if err != nil {
						return nil, nil, err
					}
					moved, chunkSegs, err := moveChunk(src, meta, chunk, at, cut, maxPage, verify, &budget)
					if err != nil {
						return nil, nil, fmt.Errorf("Parquet row group %d, column %d: %w", g, c, err)
					}
					if moved != nil {
						cols = append(cols, moved...)
						segs = append(segs, chunkSegs...)
						for _, s := range chunkSegs {
							at += s.size()
						}
						changedCols = true
					} else {
						cols = append(cols, meta[cpos:cend]...)
					}
					cpos = cend
				}
				if changedCols {
					groupRepl[rowGroupColumns] = cols
				}
			}
			if len(groupRepl) > 0 {
				groups = appendStructWith(groups, meta, rg, groupRepl, nil)
				changedList = true
			} else {
				groups = append(groups, meta[pos:end]...)
			}
			pos = end
		}
		if changedList {
			newGroup[ti] = groups
		}
	}
	if len(segs) == 0 {
		return meta, nil, nil
	}
	out := make([]byte, 0, len(meta)+64)
	last := 0
	for i, f := range top {
		if b, ok := newGroup[i]; ok {
			out = appendFieldHeader(out, f.id, f.typ, last)
			out = append(out, b...)
		} else {
			out = appendFieldHeader(out, f.id, f.typ, last)
			out = append(out, meta[f.val:f.end]...)
		}
		last = f.id
	}
	return append(out, 0), segs, nil
}

// moveChunk returns the ColumnChunk (fields chunk, of meta) rewritten to
// lie at at, and its segments, when it holds an empty compressed page;
// nil when it does not (or does not lie before cut, or would take the
// budget of bytes walked past zero).
func moveChunk(src io.ReaderAt, meta []byte, chunk []thriftField, at, cut, maxPage int64, verify bool, budget *int64) ([]byte, []segment, error) {
	var cmd *thriftField
	for i := range chunk {
		if chunk[i].id == chunkMetaData && chunk[i].typ == tStruct {
			cmd = &chunk[i]
		}
	}
	if cmd == nil {
		return nil, nil, nil
	}
	fields, _, err := readStruct(meta, cmd.val, 3)
	if err != nil {
		return nil, nil, err
	}
	codec, total, data, dict := int64(-1), int64(-1), int64(-1), int64(-1)
	nulls, v2 := true, true
	for _, f := range fields {
		switch {
		case f.id == columnMetaCodec && f.typ == tI32:
			codec = zigzagAt(meta, f.val)
		case f.id == columnTotalComp && f.typ == tI64:
			total = zigzagAt(meta, f.val)
		case f.id == columnDataOffset && f.typ == tI64:
			data = zigzagAt(meta, f.val)
		case f.id == columnDictOffset && f.typ == tI64:
			dict = zigzagAt(meta, f.val)
		case f.id == columnStatistics && f.typ == tStruct:
			stats, _, err := readStruct(meta, f.val, 4)
			if err != nil {
				return nil, nil, err
			}
			for _, s := range stats {
				if s.id == statsNullCount && s.typ == tI64 && zigzagAt(meta, s.val) == 0 {
					nulls = false
				}
			}
		case f.id == columnEncodingStats && f.typ == tList:
			// The kinds of pages, when the writer says: a chunk of no
			// version 2 data page is passed over unread.
			k, et, p, err := listHeader(meta, f.val)
			if err != nil || et != tStruct {
				return nil, nil, errFooterThrift
			}
			v2 = false
			for range k {
				es, end, err := readStruct(meta, p, 4)
				if err != nil {
					return nil, nil, err
				}
				for _, e := range es {
					if e.id == encodingStatsPageTyp && e.typ == tI32 && zigzagAt(meta, e.val) == pageTypeDataV2 {
						v2 = true
					}
				}
				p = end
			}
		}
	}
	if codec == codecUncompressed || codec < 0 || !nulls || !v2 || total <= 0 || data < 0 {
		return nil, nil, nil
	}
	start := data
	if dict > 0 && dict < start {
		start = dict
	}
	end := start + total
	if start < 0 || total > cut-start || total > *budget {
		return nil, nil, nil
	}
	*budget -= total
	var (
		segs  []segment
		moved bool
		from  = start // the original's bytes not yet in segs
		size  int64
	)
	for pos := start; pos < end; {
		hdr, n, err := readHeaderAt(src, pos, end)
		if err != nil {
			break
		}
		h := parsePageHeader(hdr)
		if h.compressed < 0 || h.compressed > end-pos-int64(n) {
			break
		}
		next := pos + int64(n) + h.compressed
		if isEmptyV2(h) && h.compressed <= maxPage {
			body := make([]byte, h.compressed)
			if _, err := src.ReadAt(body, pos+int64(n)); err != nil {
				return nil, nil, err
			}
			if crc, ok := pageCRCOf(hdr); verify && ok && crc32.ChecksumIEEE(body) != crc {
				return nil, nil, fmt.Errorf("the page at byte %d: its CRC-32 is %08x, its bytes' %08x: the file is damaged (--skip-checksums reads it anyway)", pos, crc, crc32.ChecksumIEEE(body))
			}
			page := emptyPage(hdr, body[:h.levels])
			if page == nil {
				break
			}
			if pos > from {
				segs = append(segs, segment{off: from, n: pos - from})
				size += pos - from
			}
			segs = append(segs, segment{b: page})
			size += int64(len(page))
			from, moved = next, true
		}
		pos = next
	}
	if !moved {
		return nil, nil, nil
	}
	if end > from {
		segs = append(segs, segment{off: from, n: end - from})
		size += end - from
	}
	// The pages before the first data page (a dictionary page) are not
	// rewritten, so the data page's offset moves as the start does.
	repl := map[int][]byte{
		columnTotalComp:  binary.AppendUvarint(nil, zigzag(size)),
		columnDataOffset: binary.AppendUvarint(nil, zigzag(at+data-start)),
	}
	if dict > 0 {
		repl[columnDictOffset] = binary.AppendUvarint(nil, zigzag(at+dict-start))
	}
	newMeta := appendStructWith(nil, meta, fields, repl, map[int]bool{columnIndexOffset: true})
	return appendStructWith(nil, meta, chunk, map[int][]byte{chunkMetaData: newMeta}, nil), segs, nil
}

// isEmptyV2 says whether a page is a version 2 data page of all nulls
// whose values region is flagged compressed but decompresses to nothing.
func isEmptyV2(h pageInfo) bool {
	return h.typ == pageTypeDataV2 && h.v2 != nil && h.v2Compressed && h.levels >= 0 &&
		h.levels <= h.compressed && h.numNulls == h.numValues && h.uncompressed == h.levels
}

// emptyPage returns the page of header hdr as uncompressed, with no CRC,
// its body levels; nil when the header does not decode.
func emptyPage(hdr pageHeaderBytes, levels []byte) []byte {
	repl := map[int][]byte{pageCompressed: binary.AppendUvarint(nil, zigzag(int64(len(levels))))}
	for _, f := range hdr.fields {
		if f.id == pageV2Header && f.typ == tStruct {
			kids, _, err := readStruct(hdr.b, f.val, 1)
			if err != nil {
				return nil
			}
			v2 := appendStructWith(nil, hdr.b, kids, nil, map[int]bool{v2IsCompressed: true})
			// The flag, false, before the stop byte: compact Thrift
			// writes a bool in its field header.
			last := 0
			for _, k := range kids {
				if k.id != v2IsCompressed {
					last = k.id
				}
			}
			v2 = appendFieldHeader(v2[:len(v2)-1], v2IsCompressed, tBoolFalse, last)
			repl[pageV2Header] = append(v2, 0)
		}
	}
	out := appendStructWith(nil, hdr.b, hdr.fields, repl, map[int]bool{pageCRC: true})
	return append(out, levels...)
}

// pageCRCOf returns the CRC a page header carries, if any.
func pageCRCOf(hdr pageHeaderBytes) (uint32, bool) {
	for _, f := range hdr.fields {
		if f.id == pageCRC && f.typ == tI32 {
			return uint32(int32(zigzagAt(hdr.b, f.val))), true
		}
	}
	return 0, false
}

// appendStructWith appends the struct of fields (of src) with the values
// of the ids in repl replaced (their bytes as given) and those in drop
// left out, and its stop byte.
func appendStructWith(out, src []byte, fields []thriftField, repl map[int][]byte, drop map[int]bool) []byte {
	last := 0
	for _, f := range fields {
		if drop[f.id] {
			continue
		}
		out = appendFieldHeader(out, f.id, f.typ, last)
		if b, ok := repl[f.id]; ok {
			out = append(out, b...)
		} else {
			out = append(out, src[f.val:f.end]...)
		}
		last = f.id
	}
	return append(out, 0)
}

// appendFieldHeader appends the header of a field of id and type typ
// written after a field of id last.
func appendFieldHeader(out []byte, id int, typ byte, last int) []byte {
	if d := id - last; d > 0 && d <= 15 {
		return append(out, byte(d<<4)|typ)
	}
	out = append(out, typ)
	return binary.AppendUvarint(out, uint64(uint16((id<<1)^(id>>15))))
}

// zigzagAt returns the zigzag varint at pos of b (-1 when it does not
// decode).
func zigzagAt(b []byte, pos int) int64 {
	v, _, err := uvarint(b, pos)
	if err != nil {
		return -1
	}
	return int64(v>>1) ^ -int64(v&1)
}

// zigzag returns v as compact Thrift writes a signed integer.
func zigzag(v int64) uint64 { return uint64(v<<1) ^ uint64(v>>63) }
