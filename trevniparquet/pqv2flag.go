package trevniparquet

import (
	"fmt"
	"io"
	"slices"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
)

// parquet-cpp before Arrow 3.0 (pyarrow 2 and older, created_by
// "parquet-cpp version 1.5.1-SNAPSHOT" and below) wrote version 2 data
// pages flagged is_compressed = false whose values it had compressed
// (ARROW-10353; arrow-testing's ARROW-17100.parquet). Arrow C++ reads
// them as compressed when the writer is that old, as the file meant;
// arrow-go (v18.8.0) believes the flag and fails ("unexpected EOF"), and
// DuckDB refuses them too. So that they read as Arrow C++ reads them, the
// flag of each such page of a compressed column chunk reads as true: a
// Thrift compact boolean lives in its field header's type nibble, so the
// page header keeps its length, and every page stays where it is.

// mislabelledV2 says whether a file of this writer may hold such pages.
func mislabelledV2(rd *file.Reader) bool {
	v := rd.MetaData().WriterVersion()
	return v != nil && v.App == "parquet-cpp" && v.Version.Major < 2
}

// v2FlagOffsets returns the file offsets of the is_compressed = false
// field headers of the version 2 data pages of rd's compressed column
// chunks, in order. Headers that do not decode end the walk of their
// chunk: the page reader says what is wrong with them.
func v2FlagOffsets(src io.ReaderAt, rd *file.Reader) ([]int64, error) {
	var out []int64
	md := rd.MetaData()
	for g := range rd.NumRowGroups() {
		rg := md.RowGroup(g)
		for c := range rg.NumColumns() {
			col, err := rg.ColumnChunk(c)
			if err != nil {
				return nil, fmt.Errorf("Parquet row group %d, column %d: %w", g, c, err)
			}
			if col.Compression() == compress.Codecs.Uncompressed {
				continue
			}
			start := col.DataPageOffset()
			if col.HasDictionaryPage() && col.DictionaryPageOffset() > 0 && start > col.DictionaryPageOffset() {
				start = col.DictionaryPageOffset()
			}
			end := start + col.TotalCompressedSize()
			for pos := start; pos < end; {
				hdr, n, err := readHeaderAt(src, pos, end)
				if err != nil {
					break
				}
				var size int64 = -1
				for _, f := range hdr.fields {
					switch {
					case f.id == 3 && f.typ == tI32:
						v, _, _ := uvarint(hdr.b, f.val)
						size = int64(int32(v>>1) ^ -int32(v&1))
					case f.id == 8 && f.typ == tStruct:
						v2, _, err := readStruct(hdr.b, f.val, 1)
						if err != nil {
							break
						}
						for _, k := range v2 {
							if k.id == 7 && k.typ == tBoolFalse {
								out = append(out, pos+int64(k.start))
							}
						}
					}
				}
				if size < 0 {
					break
				}
				pos += int64(n) + size
			}
		}
	}
	slices.Sort(out)
	return out, nil
}

// pageHeaderBytes is a page header read from a file, and its fields.
type pageHeaderBytes struct {
	b      []byte
	fields []thriftField
}

// maxPageHeader bounds the bytes read for one page header (its statistics
// may be long; past this the page reader refuses it).
const maxPageHeader = 16 << 20

// readHeaderAt reads the page header at pos (before end) and returns it
// and its length.
func readHeaderAt(src io.ReaderAt, pos, end int64) (pageHeaderBytes, int, error) {
	for size := int64(4 << 10); ; size *= 4 {
		n := min(size, end-pos, maxPageHeader)
		b := make([]byte, n)
		if k, err := src.ReadAt(b, pos); k < len(b) {
			if err == nil {
				err = io.ErrUnexpectedEOF
			}
			return pageHeaderBytes{}, 0, err
		}
		fields, used, err := readStruct(b, 0, 0)
		if err == nil {
			return pageHeaderBytes{b: b[:used], fields: fields}, used, nil
		}
		if n < size { // the whole of what there is, and it does not decode
			return pageHeaderBytes{}, 0, err
		}
	}
}

// flagReader reads a file with the boolean field headers at flips read as
// true.
type flagReader struct {
	parquet.ReaderAtSeeker
	flips []int64
}

func (r *flagReader) ReadAt(b []byte, off int64) (int, error) {
	n, err := r.ReaderAtSeeker.ReadAt(b, off)
	i, _ := slices.BinarySearch(r.flips, off)
	for ; i < len(r.flips) && r.flips[i] < off+int64(n); i++ {
		at := r.flips[i] - off
		b[at] = b[at]&^0x0f | tBoolTrue
	}
	return n, err
}

// Close closes the file read, as arrow-go's reader closes its source when
// it can.
func (r *flagReader) Close() error {
	if c, ok := r.ReaderAtSeeker.(io.Closer); ok {
		return c.Close()
	}
	return nil
}
