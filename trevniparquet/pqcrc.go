package trevniparquet

import (
	"bufio"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
)

// Parquet page headers may carry a CRC-32 of the page's bytes as stored
// (after the header, compressed), which arrow-go (v18.8.0) reads past
// without checking: datapage_v1-corrupt-checksum.parquet read as good
// data. verifyChecksums checks them, reading each column chunk's page
// headers with a small Thrift compact-protocol reader: a chunk whose first
// page carries no CRC is passed over after that one header (writers set
// CRCs on every page of a chunk or none), so files without them cost a
// small read a chunk. Only a CRC that does not match is an error here:
// headers that do not decode and pages past their chunk are left to the
// reader of the pages, which names them.

// errThrift is the error of a page header that is not Thrift.
var errThrift = errors.New("its page header does not decode (the file is damaged)")

// thriftReader reads the Thrift compact protocol from a stream.
type thriftReader struct {
	r *bufio.Reader
}

func (t *thriftReader) byte() (byte, error) {
	b, err := t.r.ReadByte()
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return b, err
}

func (t *thriftReader) uvarint() (uint64, error) {
	var x uint64
	for shift := uint(0); shift < 64; shift += 7 {
		b, err := t.byte()
		if err != nil {
			return 0, err
		}
		x |= uint64(b&0x7f) << shift
		if b < 0x80 {
			return x, nil
		}
	}
	return 0, errThrift
}

func (t *thriftReader) varint() (int64, error) {
	u, err := t.uvarint()
	return int64(u>>1) ^ -int64(u&1), err
}

// skip skips a value of compact type typ.
func (t *thriftReader) skip(typ byte, depth int) error {
	if depth > 64 {
		return errThrift
	}
	switch typ {
	case 1, 2: // booleans, in the field header
		return nil
	case 3:
		_, err := t.byte()
		return err
	case 4, 5, 6:
		_, err := t.uvarint()
		return err
	case 7:
		_, err := t.r.Discard(8)
		return err
	case 8:
		n, err := t.uvarint()
		if err != nil {
			return err
		}
		if n > 1<<30 {
			return errThrift
		}
		_, err = t.r.Discard(int(n))
		return err
	case 9, 10:
		h, err := t.byte()
		if err != nil {
			return err
		}
		n, et := uint64(h>>4), h&0x0f
		if n == 15 {
			if n, err = t.uvarint(); err != nil {
				return err
			}
		}
		for range n {
			if et == 1 || et == 2 {
				if _, err := t.byte(); err != nil {
					return err
				}
				continue
			}
			if err := t.skip(et, depth+1); err != nil {
				return err
			}
		}
		return nil
	case 11:
		n, err := t.uvarint()
		if err != nil || n == 0 {
			return err
		}
		kv, err := t.byte()
		if err != nil {
			return err
		}
		for range n {
			for _, et := range []byte{kv >> 4, kv & 0x0f} {
				if et == 1 || et == 2 {
					if _, err := t.byte(); err != nil {
						return err
					}
					continue
				}
				if err := t.skip(et, depth+1); err != nil {
					return err
				}
			}
		}
		return nil
	case 12:
		return t.fields(depth+1, func(int16, byte) (bool, error) { return false, nil })
	}
	return errThrift
}

// fields reads a struct's fields, calling f with each field's id and type:
// f reads the value and says so, or it is skipped.
func (t *thriftReader) fields(depth int, f func(id int16, typ byte) (bool, error)) error {
	var last int16
	for {
		h, err := t.byte()
		if err != nil {
			return err
		}
		if h == 0 {
			return nil
		}
		typ := h & 0x0f
		id := last + int16(h>>4)
		if h>>4 == 0 {
			v, err := t.varint()
			if err != nil {
				return err
			}
			id = int16(v)
		}
		last = id
		done, err := f(id, typ)
		if err != nil {
			return err
		}
		if !done {
			if err := t.skip(typ, depth); err != nil {
				return err
			}
		}
	}
}

// pageHeader is what verifyChecksums needs of a page header.
type pageHeader struct {
	compressed int64
	crc        uint32
	hasCRC     bool
}

// readPageHeader reads a PageHeader (compressed_page_size is field 3, crc
// field 4).
func (t *thriftReader) readPageHeader() (pageHeader, error) {
	var h pageHeader
	seen := false
	err := t.fields(0, func(id int16, typ byte) (bool, error) {
		switch {
		case id == 3 && typ == 5:
			v, err := t.varint()
			h.compressed, seen = v, true
			return true, err
		case id == 4 && typ == 5:
			v, err := t.varint()
			h.crc, h.hasCRC = uint32(int32(v)), true
			return true, err
		}
		return false, nil
	})
	if err == nil && (!seen || h.compressed < 0) {
		err = errThrift
	}
	return h, err
}

// verifyChecksums checks the page CRCs of row group g.
func (p *File) verifyChecksums(g int) error {
	if p.src == nil {
		return nil
	}
	md := p.pf.MetaData()
	rg := md.RowGroup(g)
	for c := range rg.NumColumns() {
		col, err := rg.ColumnChunk(c)
		if err != nil {
			return fmt.Errorf("Parquet row group %d, column %d: %w", g, c, err)
		}
		start := col.DataPageOffset()
		if col.HasDictionaryPage() && col.DictionaryPageOffset() > 0 && start > col.DictionaryPageOffset() {
			start = col.DictionaryPageOffset()
		}
		n := col.TotalCompressedSize()
		name := md.Schema.Column(c).Path()
		t := &thriftReader{r: bufio.NewReaderSize(io.NewSectionReader(p.src, start, n), 64<<10)}
		crc := crc32.NewIEEE()
		for page := 0; ; page++ {
			if _, err := t.r.Peek(1); err == io.EOF {
				break
			}
			// A header that does not decode, a page that runs past
			// its chunk: the reader that follows says so, where
			// it reads them.
			h, err := t.readPageHeader()
			if err != nil || !h.hasCRC && page == 0 {
				break
			}
			crc.Reset()
			if _, err := io.CopyN(crc, t.r, h.compressed); err != nil {
				break
			}
			if h.hasCRC && crc.Sum32() != h.crc {
				return fmt.Errorf("Parquet row group %d, column %s, page %d: its CRC-32 is %08x, its bytes' %08x: the file is damaged (--skip-checksums reads it anyway)", g, name, page, h.crc, crc.Sum32())
			}
		}
	}
	return nil
}
