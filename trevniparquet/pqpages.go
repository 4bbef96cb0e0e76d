package trevniparquet

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"

	"github.com/apache/arrow-go/v18/parquet"
)

// Some valid pages arrow-go (v18.8.0) cannot decode with its own codecs:
//
//   - LZ4, the deprecated codec of Parquet files from Hadoop
//     (parquet-java) and older parquet-cpp: arrow-go has none
//     ("compression for LZ4 unimplemented"). Hadoop frames a page as
//     blocks, each a 4-byte big-endian decompressed size, a 4-byte
//     compressed size and a raw LZ4 block; parquet-cpp wrote one raw
//     block.
//   - a version 2 data page whose values are all null stores no values,
//     but its values region may still be "compressed": no bytes at all
//     (datapage_v2_empty_datapage.snappy.parquet; "the zero bytes must not
//     be attempted to be uncompressed"), or an empty brotli stream, which
//     arrow-go's brotli reader takes for more data than the page's size
//     (parquet-go writes such pages). DuckDB reads both.
//
// arrow-go takes codecs only from a process-wide registry
// (compress.RegisterCodec), which is not ours to change: a program that
// links this package beside another user of arrow-go would find that
// user's codecs replaced (this package did so in init before). So the
// pages are rewritten instead, as arrow-go reads them; the file is not
// changed:
//
//   - an LZ4 column chunk's codec in the footer reads as LZ4_RAW (the
//     same one-byte enum value), and each of its pages in Hadoop's framing
//     reads as one raw LZ4 block: the blocks' sequences are joined (a
//     block's closing literals become the first literals of the next
//     block's first sequence; Hadoop's blocks refer to nothing before
//     them), which is shorter than the framing, and the page header says
//     the shorter size and is padded to the length the page had. A page
//     that is one raw block already is left as it is.
//   - a version 2 data page of all nulls whose values region is stored
//     compressed but decompresses to nothing (the header's sizes say so)
//     reads as uncompressed, its values region empty: its column chunk is
//     moved (pqrelocate.go), since saying so may take a byte more than
//     the page has.
//
// Headers are padded with a field of an id Parquet does not use, which
// Thrift readers skip (its length a varint written long, so that any room
// of 8 bytes or more is filled exactly; joining the blocks saves 8 bytes a
// block at least). A rewritten page has no CRC
// (its bytes are not the ones the CRC is of); the CRCs are verified on the
// file's own bytes, before (pqcrc.go).

// pagePatch is the bytes at off that the file reads as.
type pagePatch struct {
	off int64
	b   []byte
}

// pageReader reads a file with some of its pages rewritten (the patches,
// sorted by offset, none overlapping). Patches are added as row groups
// are about to be read.
type pageReader struct {
	parquet.ReaderAtSeeker
	mu      sync.RWMutex
	patches []pagePatch
	// done says which row groups' pages were walked.
	done map[int]bool
	// maxPage bounds the pages rewritten: a larger one is left to the
	// page reader, which refuses it.
	maxPage int64
}

func (r *pageReader) ReadAt(b []byte, off int64) (int, error) {
	n, err := r.ReaderAtSeeker.ReadAt(b, off)
	r.mu.RLock()
	defer r.mu.RUnlock()
	// The first patch that ends after off.
	i, _ := slices.BinarySearchFunc(r.patches, off, func(p pagePatch, off int64) int {
		if p.off+int64(len(p.b)) <= off {
			return -1
		}
		return 1
	})
	for ; i < len(r.patches) && r.patches[i].off < off+int64(n); i++ {
		p := r.patches[i]
		lo, hi := max(p.off, off), min(p.off+int64(len(p.b)), off+int64(n))
		copy(b[lo-off:hi-off], p.b[lo-p.off:hi-p.off])
	}
	return n, err
}

// Close closes the file read, as arrow-go's reader closes its source when
// it can.
func (r *pageReader) Close() error {
	if c, ok := r.ReaderAtSeeker.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

// add adds patches (of one row group's chunks).
func (r *pageReader) add(ps []pagePatch) {
	if len(ps) == 0 {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.patches = append(r.patches, ps...)
	slices.SortFunc(r.patches, func(a, b pagePatch) int {
		switch {
		case a.off < b.off:
			return -1
		case a.off > b.off:
			return 1
		}
		return 0
	})
}

// Field ids of PageHeader and DataPageHeaderV2 (parquet.thrift), and the
// page type of version 2 data pages.
const (
	pageType         = 1
	pageUncompressed = 2
	pageCompressed   = 3
	pageCRC          = 4
	pageV2Header     = 8
	v2NumValues      = 1
	v2NumNulls       = 2
	v2DefLen         = 5
	v2RepLen         = 6
	v2IsCompressed   = 7
	pageTypeDataV2   = 3
	// padFieldID is the id of the field that pads a rewritten header:
	// none of Parquet's structs has so many fields.
	padFieldID = 32000
)

// preparePages walks the pages of row group g's column chunks that were
// LZ4 (their codec now reads as LZ4_RAW), once, and adds the patches of
// those in Hadoop's framing.
func (p *File) preparePages(g int) error {
	r := p.pages
	if r == nil || len(p.lz4) == 0 {
		return nil
	}
	r.mu.Lock()
	done := r.done[g]
	r.done[g] = true
	r.mu.Unlock()
	if done {
		return nil
	}
	md := p.pf.MetaData()
	rg := md.RowGroup(g)
	var patches []pagePatch
	for c := range rg.NumColumns() {
		col, err := rg.ColumnChunk(c)
		if err != nil {
			return fmt.Errorf("Parquet row group %d, column %d: %w", g, c, err)
		}
		if !p.lz4[[2]int{g, c}] {
			continue
		}
		start := col.DataPageOffset()
		if col.HasDictionaryPage() && col.DictionaryPageOffset() > 0 && start > col.DictionaryPageOffset() {
			start = col.DictionaryPageOffset()
		}
		end := start + col.TotalCompressedSize()
		for pos := start; pos < end; {
			// A header that does not decode, a page that runs past its
			// chunk: the page reader says so, where it reads them.
			hdr, n, err := readHeaderAt(r.ReaderAtSeeker, pos, end)
			if err != nil {
				break
			}
			h := parsePageHeader(hdr)
			if h.compressed < 0 || h.compressed > end-pos-int64(n) {
				break
			}
			if h.compressed > r.maxPage || h.uncompressed > r.maxPage {
				break
			}
			if patch := rewritePage(r.ReaderAtSeeker, pos, hdr, n, h); patch != nil {
				patches = append(patches, *patch)
			}
			pos += int64(n) + h.compressed
		}
	}
	r.add(patches)
	return nil
}

// pageInfo is what rewritePage needs of a page header.
type pageInfo struct {
	typ                      int64
	uncompressed, compressed int64
	v2                       *thriftField // the DataPageHeaderV2, if any
	numValues, numNulls      int64
	levels                   int64 // the v2 levels' bytes
	v2Compressed             bool
}

// parsePageHeader reads what rewritePage needs of a page header.
func parsePageHeader(hdr pageHeaderBytes) pageInfo {
	h := pageInfo{typ: -1, uncompressed: -1, compressed: -1, v2Compressed: true}
	zz := func(pos int) int64 {
		v, _, err := uvarint(hdr.b, pos)
		if err != nil {
			return -1
		}
		return int64(v>>1) ^ -int64(v&1)
	}
	for i, f := range hdr.fields {
		switch {
		case f.id == pageType && f.typ == tI32:
			h.typ = zz(f.val)
		case f.id == pageUncompressed && f.typ == tI32:
			h.uncompressed = zz(f.val)
		case f.id == pageCompressed && f.typ == tI32:
			h.compressed = zz(f.val)
		case f.id == pageV2Header && f.typ == tStruct:
			h.v2 = &hdr.fields[i]
			kids, _, err := readStruct(hdr.b, f.val, 1)
			if err != nil {
				h.v2 = nil
				continue
			}
			var def, rep int64
			for _, k := range kids {
				switch {
				case k.id == v2NumValues && k.typ == tI32:
					h.numValues = zz(k.val)
				case k.id == v2NumNulls && k.typ == tI32:
					h.numNulls = zz(k.val)
				case k.id == v2DefLen && k.typ == tI32:
					def = zz(k.val)
				case k.id == v2RepLen && k.typ == tI32:
					rep = zz(k.val)
				case k.id == v2IsCompressed && (k.typ == tBoolFalse || k.typ == tBoolTrue):
					h.v2Compressed = k.typ == tBoolTrue
				}
			}
			h.levels = def + rep
			if def < 0 || rep < 0 {
				h.levels = -1
			}
		}
	}
	return h
}

// rewritePage returns the patch of the page (of a chunk that was LZ4)
// whose header hdr (of n bytes) is at pos: in Hadoop's framing, as one raw
// LZ4 block; nil when it reads as it is.
func rewritePage(src io.ReaderAt, pos int64, hdr pageHeaderBytes, n int, h pageInfo) *pagePatch {
	isV2 := h.typ == pageTypeDataV2 && h.v2 != nil && h.levels >= 0 && h.levels <= h.compressed
	if isV2 && !h.v2Compressed {
		return nil
	}
	// The values region: the body, or a version 2 page's after its levels.
	skip := int64(0)
	if isV2 {
		skip = h.levels
	}
	body := make([]byte, h.compressed)
	if _, err := src.ReadAt(body, pos+int64(n)); err != nil {
		return nil
	}
	raw, ok := hadoopToRawLZ4(body[skip:], h.uncompressed-skip)
	if !ok {
		return nil // one raw block already, or not LZ4: LZ4_RAW's decoder says
	}
	body = append(body[:skip:skip], raw...)
	head := padHeader(hdr, int64(len(body)), n+int(h.compressed)-len(body))
	if head == nil {
		return nil
	}
	return &pagePatch{off: pos, b: append(head, body...)}
}

// padHeader returns the page header hdr with compressed as its compressed
// size and no CRC, in exactly room bytes; nil when it does not fit them.
func padHeader(hdr pageHeaderBytes, compressed int64, room int) []byte {
	zz := zigzag(compressed)
	size := binary.AppendUvarint(nil, zz)
	out := appendStructWith(nil, hdr.b, hdr.fields, map[int][]byte{pageCompressed: size}, map[int]bool{pageCRC: true})
	d := room - len(out)
	switch {
	case d < 0:
		return nil
	case d == 0:
		return out
	case d >= 8:
		// A binary field of id padFieldID before the stop byte: its
		// header and 3-byte id, a 4-byte length (a varint written
		// long), zeros.
		last := 0
		for _, f := range hdr.fields {
			if f.id != pageCRC {
				last = f.id
			}
		}
		out = appendFieldHeader(out[:len(out)-1], padFieldID, tBinary, last)
		out = appendLongUvarint(out, uint64(d-8), 4)
		out = append(out, make([]byte, d-8)...)
		out = append(out, 0)
	default:
		return nil // less room than a pad takes: never so for LZ4 (a frame is 8 bytes)
	}
	if len(out) != room {
		return nil
	}
	return out
}

// appendLongUvarint appends v as a varint of exactly n bytes (n at least
// its shortest; the extra bytes are continuation bytes of zeros).
func appendLongUvarint(b []byte, v uint64, n int) []byte {
	for range n - 1 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

// errNotHadoop says a page is not in Hadoop's LZ4 framing.
var errNotHadoop = errors.New("not Hadoop's LZ4 framing")

// hadoopToRawLZ4 returns src, the values of a page in Hadoop's LZ4
// framing that decompress to size bytes, as one raw LZ4 block, and true;
// false when src is not that framing (its blocks' sizes do not tile src
// and add up to size, or a block's sequences do not parse).
func hadoopToRawLZ4(src []byte, size int64) ([]byte, bool) {
	var (
		out     = make([]byte, 0, len(src))
		pending []byte // the closing literals of the blocks before
		total   int64
	)
	for len(src) > 0 {
		if len(src) < 8 {
			return nil, false
		}
		raw := int64(binary.BigEndian.Uint32(src))
		comp := int64(binary.BigEndian.Uint32(src[4:]))
		src = src[8:]
		if comp > int64(len(src)) || raw > size-total {
			return nil, false
		}
		var err error
		if out, pending, err = joinLZ4Block(out, pending, src[:comp]); err != nil {
			return nil, false
		}
		total += raw
		src = src[comp:]
	}
	if total != size {
		return nil, false
	}
	// The closing sequence: the literals left.
	return appendLZ4Sequence(out, pending, nil), true
}

// joinLZ4Block appends the sequences of the raw LZ4 block b to out, the
// first with pending literals before its own; it returns the block's
// closing literals (those of its last sequence, which has no match) as the
// next pending.
func joinLZ4Block(out, pending, b []byte) ([]byte, []byte, error) {
	for pos := 0; ; {
		if pos >= len(b) {
			return nil, nil, errNotHadoop
		}
		seqStart := pos
		token := b[pos]
		pos++
		lits := int(token >> 4)
		if lits == 15 {
			for {
				if pos >= len(b) {
					return nil, nil, errNotHadoop
				}
				x := b[pos]
				pos++
				lits += int(x)
				if x != 255 {
					break
				}
			}
		}
		if lits > len(b)-pos {
			return nil, nil, errNotHadoop
		}
		lit := b[pos : pos+lits]
		pos += lits
		if pos == len(b) { // the block's last sequence
			return out, append(pending, lit...), nil
		}
		// The match: a 2-byte offset and the length's extension.
		if pos+2 > len(b) {
			return nil, nil, errNotHadoop
		}
		matchStart := pos
		pos += 2
		if token&15 == 15 {
			for {
				if pos >= len(b) {
					return nil, nil, errNotHadoop
				}
				x := b[pos]
				pos++
				if x != 255 {
					break
				}
			}
		}
		if len(pending) > 0 {
			at := len(out)
			out = appendLZ4Sequence(out, append(pending, lit...), b[matchStart:pos])
			out[at] |= token & 15
			pending = pending[:0]
		} else {
			out = append(out, b[seqStart:pos]...)
		}
	}
}

// appendLZ4Sequence appends a sequence of literals lit followed by the
// match bytes (its offset and length extension, the length's low bits to
// be set in the token by the caller), or, with no match, the closing
// literals.
func appendLZ4Sequence(out, lit, match []byte) []byte {
	n := len(lit)
	if n < 15 {
		out = append(out, byte(n)<<4)
	} else {
		out = append(out, 15<<4)
		for n -= 15; n >= 255; n -= 255 {
			out = append(out, 255)
		}
		out = append(out, byte(n))
	}
	out = append(out, lit...)
	return append(out, match...)
}
