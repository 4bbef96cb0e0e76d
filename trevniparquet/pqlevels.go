package trevniparquet

import (
	"errors"
	"fmt"
	"math/bits"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
)

// arrow-go (v18.8.0) decodes a page's levels and dictionary indices
// without checking them against the column: a definition level above the
// column's maximum is read as a null or a value as it happens, and a
// dictionary index bit width over 32 or an index past the dictionary fails
// with a message that names nothing. checkPages walks the pages of a row
// group's column chunks before they are decoded and refuses such a page
// with its row group, column and page (numbered from 0, a dictionary page
// counted, as the CRC check numbers them). A column of required,
// unrepeated values without a dictionary has nothing to check and is
// passed over unread; the others are decompressed a second time.
//
// A dictionary index bit width wider than the dictionary needs is not
// refused: the format does not forbid it and writers that size the width
// by a dictionary still growing write narrower ones, never wider, so
// only an index that the width lets past the dictionary is an error.

// errLevelsShort is the error of levels that end before the page's
// values: left to the decoder, which says so.
var errLevelsShort = errors.New("levels end early")

// hybridScan reads n values of width bits of Parquet's RLE/bit-packed
// hybrid encoding from b and returns the largest and how many equal
// limit, stopping at the first value above limit (then over is true).
func hybridScan(b []byte, width, n int, limit uint64) (most uint64, atLimit int, over bool, err error) {
	if width == 0 {
		if n > 0 && limit == 0 {
			atLimit = n
		}
		return 0, atLimit, false, nil
	}
	pos := 0
	for n > 0 {
		h, k := uvarintAt(b, pos)
		if k <= 0 {
			return most, atLimit, false, errLevelsShort
		}
		pos += k
		if h&1 == 0 { // a run of one value
			count := int(min(h>>1, uint64(n)))
			size := (width + 7) / 8
			if pos+size > len(b) {
				return most, atLimit, false, errLevelsShort
			}
			var v uint64
			for i := range size {
				v |= uint64(b[pos+i]) << (8 * i)
			}
			pos += size
			if v > limit {
				return v, atLimit, true, nil
			}
			most = max(most, v)
			if v == limit {
				atLimit += count
			}
			n -= count
			continue
		}
		groups := h >> 1
		if groups > uint64(len(b)) {
			return most, atLimit, false, errLevelsShort
		}
		size := int(groups) * width
		if pos+size > len(b) {
			return most, atLimit, false, errLevelsShort
		}
		values := min(int(groups)*8, n)
		mask := uint64(1)<<width - 1
		var acc uint64
		have, at := 0, pos
		for range values {
			for have < width {
				acc |= uint64(b[at]) << have
				at++
				have += 8
			}
			v := acc & mask
			acc >>= width
			have -= width
			if v > limit {
				return v, atLimit, true, nil
			}
			most = max(most, v)
			if v == limit {
				atLimit++
			}
		}
		pos += size
		n -= values
	}
	return most, atLimit, false, nil
}

// uvarintAt reads an unsigned LEB128 varint at b[pos:] and returns it and
// its size, or a size of 0 when it does not end within b or 10 bytes.
func uvarintAt(b []byte, pos int) (uint64, int) {
	var x uint64
	for i := 0; i < 10 && pos+i < len(b); i++ {
		c := b[pos+i]
		x |= uint64(c&0x7f) << (7 * i)
		if c < 0x80 {
			return x, i + 1
		}
	}
	return 0, 0
}

// levelWidth is the bit width of levels up to most.
func levelWidth(most int16) int { return bits.Len16(uint16(most)) }

// checkPages checks the levels and dictionary indices of row group g's
// pages (see above).
func (p *File) checkPages(g int) (err error) {
	md := p.pf.MetaData()
	rg := p.pf.RowGroup(g)
	for c := range rg.NumColumns() {
		descr := md.Schema.Column(c)
		maxDef, maxRep := descr.MaxDefinitionLevel(), descr.MaxRepetitionLevel()
		meta, err := rg.MetaData().ColumnChunk(c)
		if err != nil {
			return fmt.Errorf("Parquet row group %d, column %s: %w", g, descr.Path(), err)
		}
		if maxDef == 0 && maxRep == 0 && !meta.HasDictionaryPage() {
			continue
		}
		if err := checkChunk(rg, g, c, descr.Path(), maxDef, maxRep); err != nil {
			return err
		}
	}
	return nil
}

// checkChunk checks the pages of column c of row group g, whose levels go
// up to maxDef and maxRep. A page that does not read is the decoder's to
// name (pageError), where it reads it.
func checkChunk(rg *file.RowGroupReader, g, c int, path string, maxDef, maxRep int16) error {
	pr, err := rg.GetColumnPageReader(c)
	if err != nil {
		return fmt.Errorf("Parquet row group %d, column %s: %w", g, path, err)
	}
	defer pr.Close()
	dict := -1
	for page := 0; pr.Next(); page++ {
		msg := ""
		switch pg := pr.Page().(type) {
		case *file.DictionaryPage:
			dict = int(pg.NumValues())
		case *file.DataPageV1:
			msg = checkDataPage(pg.Data(), int(pg.NumValues()), maxDef, maxRep, dict, int32(pg.Encoding()),
				pg.RepetitionLevelEncoding() == parquet.Encodings.RLE, pg.DefinitionLevelEncoding() == parquet.Encodings.RLE, -1, -1)
		case *file.DataPageV2:
			msg = checkDataPage(pg.Data(), int(pg.NumValues()), maxDef, maxRep, dict, int32(pg.Encoding()),
				true, true, int(pg.RepetitionLevelByteLen()), int(pg.DefinitionLevelByteLen()))
		}
		if msg != "" {
			return fmt.Errorf("Parquet row group %d, column %s, page %d: %s: the file is damaged", g, path, page, msg)
		}
	}
	return nil
}

// Parquet's dictionary encodings, as format.Encoding numbers them.
const (
	encPlainDictionary = 2
	encRLEDictionary   = 8
)

// checkDataPage checks one data page's bytes: repetition levels, then
// definition levels (each after a 4-byte length in a version 1 page,
// repLen and defLen bytes in a version 2 one, where those are not -1),
// then, in a dictionary encoding, the indices' bit width and the indices
// against a dictionary of dict entries. It returns what is wrong, or "".
// Levels in the deprecated BIT_PACKED encoding are not checked.
func checkDataPage(data []byte, n int, maxDef, maxRep int16, dict int, enc int32, repRLE, defRLE bool, repLen, defLen int) string {
	pos := 0
	levels := func(most int16, rle bool, size int, what string) (int, string) {
		if most == 0 {
			// A version 2 page may hold levels of a column that has
			// none (rle_boolean_encoding.parquet: 2 bytes of them).
			pos += max(size, 0)
			return n, ""
		}
		width := levelWidth(most)
		if !rle {
			pos += (n*width + 7) / 8
			return -1, ""
		}
		if size < 0 {
			if pos+4 > len(data) {
				return -1, ""
			}
			size = int(uint32(data[pos]) | uint32(data[pos+1])<<8 | uint32(data[pos+2])<<16 | uint32(data[pos+3])<<24)
			pos += 4
		}
		if size > len(data)-pos || size < 0 {
			return -1, ""
		}
		top, at, over, err := hybridScan(data[pos:pos+size], width, n, uint64(most))
		pos += size
		if over {
			return -1, fmt.Sprintf("%s level %d above the column's maximum %d", what, top, most)
		}
		if err != nil {
			return -1, ""
		}
		return at, ""
	}
	if _, msg := levels(maxRep, repRLE, repLen, "repetition"); msg != "" {
		return msg
	}
	values, msg := levels(maxDef, defRLE, defLen, "definition")
	if msg != "" || (enc != encPlainDictionary && enc != encRLEDictionary) || pos >= len(data) || values < 0 {
		return msg
	}
	width := int(data[pos])
	if width > 32 {
		return fmt.Sprintf("dictionary index bit width %d (at most 32)", width)
	}
	if dict < 0 {
		return ""
	}
	limit := uint64(0)
	if dict > 0 {
		limit = uint64(dict - 1)
	}
	top, _, over, err := hybridScan(data[pos+1:], width, values, limit)
	switch {
	case over || dict == 0 && values > 0:
		return fmt.Sprintf("dictionary index %d past the dictionary's %d entries", top, dict)
	case err != nil:
		return fmt.Sprintf("its dictionary indices (%d bits each) end before its %d values", width, values)
	}
	return ""
}
