package format

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/trevni-go/trevni/format/stats"
)

// PartError is an error of Concat about one of its inputs.
type PartError struct {
	Part int // index of the input in Concat's list
	Err  error
}

func (e *PartError) Error() string { return fmt.Sprintf("part %d: %v", e.Part, e.Err) }

// Unwrap returns the error about the part.
func (e *PartError) Unwrap() error { return e.Err }

// concatMode is how the blocks of one column of one part reach the output.
type concatMode uint8

const (
	modeCopy    concatMode = iota // stored bytes as they are
	modeDropCRC                   // stored bytes without their checksum
	modeAddCRC                    // stored bytes, and a checksum of the decompressed block
	modeRecode                    // decompressed and compressed again
	modeNullCRC                   // null codec and crc32: stored bytes, checksum verified and made right
)

// concatPart is one column of one input, with what it takes in the output.
type concatPart struct {
	t     *blockTable
	mode  concatMode
	sizes []int // for modeRecode: the compressed size of every block
}

// ConcatOptions configures Concat. A nil *ConcatOptions means the
// defaults.
type ConcatOptions struct {
	// SameSchema, if set, is asked whether two parts' avro.schema texts
	// that are not the same bytes describe the same rows: it returns nil
	// if they do, or an error saying where they differ. Without it, the
	// texts must be equal. The front door (package trevni) passes one that
	// compares them as Avro schemas.
	SameSchema func(first, part []byte) error

	// Codec, if set, is the codec of every column of the output: the
	// file metadata's trevni.codec becomes it, and columns' own codecs
	// are dropped. Blocks stored with another codec are decompressed and
	// compressed again (their values are not decoded). Empty keeps the
	// first part's codecs.
	Codec string

	// Checksum, if set, is the checksum of every column of the output
	// ("null" or "crc32"), as Codec is the codec: checksums are dropped
	// or computed from the decompressed blocks. Empty keeps the first
	// part's checksums.
	Checksum string

	// DropStats leaves the per-block statistics out of every column.
	DropStats bool

	// Workers is how many goroutines compress again the blocks of parts
	// stored with another codec than the output's (the rest is copied):
	// 0 means runtime.GOMAXPROCS(0), 1 one. Each holds one block at a
	// time.
	Workers int
}

// Concat writes to out one Trevni file holding the rows of the files ins in
// order, without decoding a value: the parts must have the same columns
// (names, types, parents, arrays, values flags) and the same schema: the
// same Avro schema (the text of file metadata avro.schema, byte for
// byte, or as opts.SameSchema judges) when any part has one, and otherwise the same
// column metadata but for codecs, checksums and statistics. A part that
// differs is a *PartError wrapping ErrUsage that names the first
// difference. Each column's blocks
// are copied as stored. The output takes the first part's file and column
// metadata (its codec and checksum included, unless opts.Codec or
// opts.Checksum names others; opts.DropStats leaves statistics out). A column's per-block
// statistics (package format/stats) are the parts' statistics joined in
// block order when every part that has blocks in the column has
// statistics agreeing with them (type, block count, rows per block), and
// are left out of the column otherwise, so that no block is claimed to be
// described by statistics it does not have. A part whose column has another codec has its blocks decompressed
// and compressed again; one that has only another checksum has the
// checksum dropped, or computed from the decompressed block, and its
// compressed bytes copied. Blocks of the null codec with CRC-32
// checksums are checked as they are copied (their stored bytes are the
// data): the all-zero CRC-32 Java writes for them is replaced by the
// right one, unless the part's ReaderOptions.StrictChecksums is set, and
// any other wrong checksum is an error wrapping ErrChecksum, so the
// output's checksums are right for Java's reader. The first values of trevni.values columns are
// copied with their blocks: they stay valid, since rows are numbered by
// the blocks' row counts alone.
//
// Memory is bounded by one block (or a copy buffer) at a time: the output's
// column starts are computed from the parts' block tables before any block
// is copied, which for a part that needs compressing again means
// compressing its blocks twice. It returns the rows written.
func Concat(ctx context.Context, out io.Writer, ins []*Reader, opts *ConcatOptions) (int64, error) {
	var o ConcatOptions
	if opts != nil {
		o = *opts
	}
	if len(ins) == 0 {
		return 0, fmt.Errorf("%w: Concat of no files", ErrUsage)
	}
	for _, in := range ins {
		if in.src != nil {
			return 0, errSourceFile("Concat")
		}
	}
	workers := o.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	first := ins[0]
	var outCodec Codec
	if o.Codec != "" {
		c, err := first.codecs.lookup(o.Codec)
		if err != nil {
			return 0, fmt.Errorf("%w: output codec: %w", ErrUsage, err)
		}
		outCodec = c
	}
	outChecksum := -1
	if o.Checksum != "" {
		n, err := checksumSize(o.Checksum)
		if err != nil {
			return 0, fmt.Errorf("%w: output checksum: %w", ErrUsage, err)
		}
		outChecksum = n
	}
	var rows int64
	for k, rd := range ins {
		if err := sameColumns(first, rd); err != nil {
			return 0, &PartError{Part: k, Err: fmt.Errorf("%w: %w", ErrUsage, err)}
		}
		if err := sameSchema(first, rd, o.SameSchema); err != nil {
			return 0, &PartError{Part: k, Err: fmt.Errorf("%w: %w", ErrUsage, err)}
		}
		if rd.rowCount > math.MaxInt64-rows {
			return 0, fmt.Errorf("%w: parts hold too many rows", ErrUsage)
		}
		rows += rd.rowCount
	}
	ncols := len(first.cols)
	parts := make([][]concatPart, ncols) // column, then part
	outs := make([]*blockTable, ncols)   // how the output stores each column's blocks
	sizes := make([]int64, ncols)
	blocks := make([]int, ncols)
	var scratch blockScratch
	for i := 0; i < ncols; i++ {
		out0, err := first.table(i)
		if err != nil {
			return 0, err
		}
		if outCodec != nil || outChecksum >= 0 {
			ot := &blockTable{codec: out0.codec, codecName: out0.codecName, checksum: out0.checksum}
			if outCodec != nil {
				ot.codec, ot.codecName = outCodec, o.Codec
			}
			if outChecksum >= 0 {
				ot.checksum = outChecksum
			}
			out0 = ot
		}
		outs[i] = out0
		parts[i] = make([]concatPart, len(ins))
		sizes[i] = 4
		for k, rd := range ins {
			if err := ctx.Err(); err != nil {
				return 0, err
			}
			t, err := rd.table(i)
			if err != nil {
				return 0, &PartError{Part: k, Err: err}
			}
			p := &parts[i][k]
			p.t = t
			switch {
			case !sameCodec(t, out0):
				p.mode = modeRecode
			case t.checksum == out0.checksum && t.checksum == 4 && isNullCodec(t.codec):
				p.mode = modeNullCRC
			case t.checksum == out0.checksum:
				p.mode = modeCopy
			case out0.checksum == 0:
				p.mode = modeDropCRC
			default:
				p.mode = modeAddCRC
			}
			blocks[i] += len(t.blocks)
			if blocks[i] > math.MaxInt32 {
				return 0, fmt.Errorf("%w: column %q would have more than %d blocks", ErrLimit, first.cols[i].Name, math.MaxInt32)
			}
			if p.mode == modeRecode {
				p.sizes = make([]int, len(t.blocks))
				if err := recodeSizes(ctx, rd, i, t, out0, p.sizes, workers, &scratch); err != nil {
					return 0, &PartError{Part: k, Err: err}
				}
			}
			for b := range t.blocks {
				bi := &t.blocks[b]
				n := bi.CompressedSize
				if p.mode == modeRecode {
					n = p.sizes[b]
				}
				sizes[i] += 12 + int64(len(bi.firstValue)) + int64(n) + int64(out0.checksum)
			}
		}
	}

	bw := bufio.NewWriterSize(out, 256<<10)
	var h encoder
	h.b = append(h.b, magic[:]...)
	h.writeFixed64(uint64(rows))
	h.writeFixed32(uint32(ncols))
	fm := first.meta
	if o.Codec != "" || o.Checksum != "" {
		fm = fm.Clone()
		if o.Codec != "" {
			fm.SetString(KeyCodec, o.Codec)
		}
		if o.Checksum != "" {
			ck := o.Checksum
			if ck == checksumCRC32 {
				ck = ChecksumCRC32
			}
			fm.SetString(KeyChecksum, ck)
		}
	}
	writeMeta(&h, &fm)
	for i := range first.rawMeta {
		m := first.rawMeta[i]
		var st []byte
		if !o.DropStats {
			st = concatStats(ins, parts[i], i)
		}
		override := (o.Codec != "" && m.Has(KeyCodec)) || (o.Checksum != "" && m.Has(KeyChecksum))
		if st != nil || m.Has(stats.MetaKey) || override {
			m = m.Clone()
			if st != nil {
				m.Set(stats.MetaKey, st)
			} else {
				m.Delete(stats.MetaKey)
			}
			if o.Codec != "" {
				m.Delete(KeyCodec)
			}
			if o.Checksum != "" {
				m.Delete(KeyChecksum)
			}
		}
		writeMeta(&h, &m)
	}
	start := int64(len(h.b)) + 8*int64(ncols)
	for i := range sizes {
		h.writeFixed64(uint64(start))
		start += sizes[i]
	}
	if _, err := bw.Write(h.b); err != nil {
		return 0, err
	}
	copyBuf := make([]byte, 256<<10)
	for i := 0; i < ncols; i++ {
		out0 := outs[i]
		h.reset(h.b[:0])
		h.writeFixed32(uint32(blocks[i]))
		for k := range ins {
			p := &parts[i][k]
			for b := range p.t.blocks {
				bi := &p.t.blocks[b]
				n := bi.CompressedSize
				if p.mode == modeRecode {
					n = p.sizes[b]
				}
				h.writeFixed32(uint32(bi.Rows))
				h.writeFixed32(uint32(bi.UncompressedSize))
				h.writeFixed32(uint32(n))
				h.b = append(h.b, bi.firstValue...)
			}
			if len(h.b) >= 64<<10 {
				if _, err := bw.Write(h.b); err != nil {
					return 0, err
				}
				h.reset(h.b[:0])
			}
		}
		if _, err := bw.Write(h.b); err != nil {
			return 0, err
		}
		for k, rd := range ins {
			if err := ctx.Err(); err != nil {
				return 0, err
			}
			p := &parts[i][k]
			if err := scratch.copyPart(bw, rd, i, p, out0, copyBuf, workers); err != nil {
				return 0, &PartError{Part: k, Err: err}
			}
		}
	}
	if err := bw.Flush(); err != nil {
		return 0, err
	}
	return rows, nil
}

// concatStats returns the encoded statistics of column i of the joined
// file, whose part k has the block table parts[k].t: the parts' blocks in
// order. It returns nil when a part holding blocks of the column has no
// statistics for it, or statistics that do not agree with its blocks
// (Reader.BlockStats), or when no part has blocks. A part without blocks
// (no rows) contributes nothing and needs none.
func concatStats(ins []*Reader, parts []concatPart, i int) []byte {
	var out *stats.Column
	for k, rd := range ins {
		if len(parts[k].t.blocks) == 0 {
			continue
		}
		c, err := rd.BlockStats(i)
		if c == nil || err != nil {
			return nil
		}
		if out == nil {
			out = c
		} else {
			out.Blocks = append(out.Blocks, c.Blocks...)
		}
	}
	if out == nil {
		return nil
	}
	return stats.Encode(out)
}

// sameColumns checks that rd has the columns of first.
func sameColumns(first, rd *Reader) error {
	if len(rd.cols) != len(first.cols) {
		return fmt.Errorf("%d columns, the first part %d", len(rd.cols), len(first.cols))
	}
	for i := range rd.cols {
		a, b := &first.cols[i], &rd.cols[i]
		if a.Name != b.Name || a.Type != b.Type || a.Parent != b.Parent || a.Array != b.Array || a.Values != b.Values {
			return fmt.Errorf("column %d is %s, in the first part %s", i, describeColumn(b), describeColumn(a))
		}
	}
	return nil
}

// metaAvroSchema is the file metadata key of the Avro schema a file's
// records were written with (layout.MetaAvroSchema).
const metaAvroSchema = "avro.schema"

// sameSchema checks that rd's rows mean what first's do: the same Avro
// schema (avro.schema) when either has one, and otherwise the same column
// metadata (but for codecs, checksums and statistics, which Concat
// handles). Columns alike are not enough: an Avro int and an enum are
// both int columns.
func sameSchema(first, rd *Reader, same func(first, part []byte) error) error {
	ta, oka := first.meta.Get(metaAvroSchema)
	tb, okb := rd.meta.Get(metaAvroSchema)
	switch {
	case oka != okb:
		has := map[bool]string{true: "has", false: "has no"}
		return fmt.Errorf("it %s %s, the first part %s", has[okb], metaAvroSchema, has[oka])
	case oka:
		// The schema's text is metadata like any other here: format
		// knows nothing of Avro. Callers that do (the front door's data
		// sets) name the first difference of two schemas before this.
		switch {
		case bytes.Equal(ta, tb):
			return nil
		case same != nil:
			return same(ta, tb)
		}
		return fmt.Errorf("its %s differs from the first part's", metaAvroSchema)
	}
	for i := range first.cols {
		ma, mb := &first.cols[i].Meta, &rd.cols[i].Meta
		if key, ok := firstMetaDifference(ma, mb); !ok {
			return fmt.Errorf("column %d (%q): metadata %q is %q, in the first part %q", i, first.cols[i].Name, key, mb.GetString(key), ma.GetString(key))
		}
	}
	return nil
}

// firstMetaDifference returns the first key, in a's order and then b's,
// whose value differs between a and b, ignoring the keys Concat handles.
func firstMetaDifference(a, b *MetaData) (string, bool) {
	for _, m := range [2][2]*MetaData{{a, b}, {b, a}} {
		for j := 0; j < m[0].Len(); j++ {
			k := m[0].Key(j)
			if k == KeyCodec || k == KeyChecksum || k == stats.MetaKey {
				continue
			}
			if v, ok := m[1].Get(k); !ok || !bytes.Equal(v, m[0].Value(j)) {
				return k, false
			}
		}
	}
	return "", true
}

func describeColumn(c *ColumnMeta) string {
	s := fmt.Sprintf("%q (%s", c.Name, c.Type)
	if c.Parent != "" {
		s += ", parent " + c.Parent
	}
	if c.Array {
		s += ", array"
	}
	if c.Values {
		s += ", values"
	}
	return s + ")"
}

// sameCodec reports whether blocks of table a are stored as those of b:
// codecs are known by name (comparing the Codec values could panic on a
// custom codec of an uncomparable type).
func sameCodec(a, b *blockTable) bool {
	return canonicalCodec(a.codecName) == canonicalCodec(b.codecName)
}

func canonicalCodec(name string) string {
	switch name {
	case "":
		return CodecNull
	case CodecZstandard:
		return CodecZstd
	}
	return name
}

// blockScratch holds the buffers of one block being re-encoded.
type blockScratch struct {
	raw, data, out []byte
}

// read reads the stored bytes of block b of column i of rd, checksum
// included, and when decompress is set decompresses them into s.data and
// checks the checksum.
func (s *blockScratch) read(rd *Reader, i, b int, t *blockTable, decompress bool) error {
	bi := &t.blocks[b]
	n := bi.CompressedSize + t.checksum
	if cap(s.raw) < n {
		s.raw = make([]byte, n)
	}
	s.raw = s.raw[:n]
	if k, err := rd.ra.ReadAt(s.raw, bi.Offset); k < n {
		if err == nil || err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return rd.colErr(i, b, bi.Offset, fmt.Errorf("reading block: %w", err))
	}
	if !decompress {
		return nil
	}
	if bi.UncompressedSize > rd.opts.MaxBlockSize {
		return rd.colErr(i, b, bi.Offset, fmt.Errorf("%w: block of %d uncompressed bytes exceeds the %d bytes of ReaderOptions.MaxBlockSize", ErrLimit, bi.UncompressedSize, rd.opts.MaxBlockSize))
	}
	if want := min(bi.UncompressedSize, maxExpansion(t.codec, bi.CompressedSize)) + 1; cap(s.data) < want {
		s.data = make([]byte, 0, want)
	}
	var err error
	if s.data, err = t.codec.Decompress(s.data[:0], s.raw[:bi.CompressedSize], bi.UncompressedSize); err != nil {
		return rd.colErr(i, b, bi.Offset, asFormat(err))
	}
	if t.checksum == 4 {
		want := binary.BigEndian.Uint32(s.raw[bi.CompressedSize:])
		got := crc32.Checksum(s.data, crcTable)
		if !rd.crcAccepted(want, got, isNullCodec(t.codec)) {
			return rd.colErr(i, b, bi.Offset, fmt.Errorf("%w: checksum %08x, the block's data has %08x", ErrChecksum, want, got))
		}
	}
	return nil
}

// recode reads block b of column i of rd and compresses it again as the
// output column out stores blocks, into s.out (checksum not included).
func (s *blockScratch) recode(rd *Reader, i, b int, t, out *blockTable) error {
	if err := s.read(rd, i, b, t, true); err != nil {
		return err
	}
	var err error
	if s.out, err = out.codec.Compress(s.out[:0], s.data); err != nil {
		return rd.colErr(i, b, t.blocks[b].Offset, fmt.Errorf("compressing with %s: %w", out.codecName, err))
	}
	if len(s.out) > math.MaxInt32 {
		return rd.colErr(i, b, t.blocks[b].Offset, fmt.Errorf("%w: block compresses to %d bytes", ErrLimit, len(s.out)))
	}
	return nil
}

// copyPart writes the blocks of column i of rd, as part p of the output
// column stored as out.
func (s *blockScratch) copyPart(w io.Writer, rd *Reader, i int, p *concatPart, out *blockTable, buf []byte, workers int) error {
	bs := p.t.blocks
	if len(bs) == 0 {
		return nil
	}
	if p.mode == modeRecode && workers > 1 && len(bs) > 1 {
		return copyRecoded(w, rd, i, p, out, workers)
	}
	if p.mode == modeCopy {
		// The blocks are contiguous: one copy of all of them.
		off := bs[0].Offset
		last := &bs[len(bs)-1]
		end := last.Offset + int64(last.CompressedSize) + int64(p.t.checksum)
		if _, err := io.CopyBuffer(w, io.NewSectionReader(rd.ra, off, end-off), buf); err != nil {
			return rd.colErr(i, 0, off, fmt.Errorf("copying blocks: %w", err))
		}
		return nil
	}
	if p.mode == modeNullCRC {
		return copyNullCRC(w, rd, i, bs, buf)
	}
	var crc [4]byte
	for b := range bs {
		bi := &bs[b]
		var stored []byte
		switch p.mode {
		case modeDropCRC:
			if err := s.read(rd, i, b, p.t, false); err != nil {
				return err
			}
			stored = s.raw[:bi.CompressedSize]
		case modeAddCRC:
			if err := s.read(rd, i, b, p.t, true); err != nil {
				return err
			}
			stored = s.raw[:bi.CompressedSize]
		case modeRecode:
			if err := s.recode(rd, i, b, p.t, out); err != nil {
				return err
			}
			if len(s.out) != p.sizes[b] {
				return rd.colErr(i, b, bi.Offset, fmt.Errorf("the %s codec compressed the block to %d bytes, then to %d", out.codecName, p.sizes[b], len(s.out)))
			}
			stored = s.out
		}
		if _, err := w.Write(stored); err != nil {
			return err
		}
		if out.checksum == 4 {
			if p.t.checksum == 4 && p.mode != modeRecode && p.mode != modeAddCRC {
				copy(crc[:], s.raw[bi.CompressedSize:])
			} else {
				binary.BigEndian.PutUint32(crc[:], crc32.Checksum(s.data, crcTable))
			}
			if _, err := w.Write(crc[:]); err != nil {
				return err
			}
		}
	}
	return nil
}

// copyNullCRC writes the null-codec blocks bs of column i of rd, each
// followed by its CRC-32 computed from its bytes as they stream through
// buf (so that memory stays bounded by buf whatever the block size). A
// stored checksum that differs is an error, except the all-zero one Java
// writes for such blocks, as far as rd tolerates it.
func copyNullCRC(w io.Writer, rd *Reader, i int, bs []BlockInfo, buf []byte) error {
	var crc [4]byte
	for b := range bs {
		bi := &bs[b]
		if bi.CompressedSize != bi.UncompressedSize {
			return rd.colErr(i, b, bi.Offset, fmt.Errorf("%w: null-codec block holds %d bytes, stated size %d", ErrFormat, bi.CompressedSize, bi.UncompressedSize))
		}
		// The block is read in chunks of buf, the last one with the
		// stored checksum after it.
		off, left := bi.Offset, bi.CompressedSize
		var got, want uint32
		for {
			n := min(left, len(buf)-4)
			m := n
			if n == left {
				m += 4
			}
			if k, err := rd.ra.ReadAt(buf[:m], off); k < m {
				if err == nil || err == io.EOF {
					err = io.ErrUnexpectedEOF
				}
				return rd.colErr(i, b, bi.Offset, fmt.Errorf("reading block: %w", err))
			}
			got = crc32.Update(got, crcTable, buf[:n])
			if _, err := w.Write(buf[:n]); err != nil {
				return err
			}
			if n == left {
				want = binary.BigEndian.Uint32(buf[n:m])
				break
			}
			off += int64(n)
			left -= n
		}
		if !rd.crcAccepted(want, got, true) {
			return rd.colErr(i, b, bi.Offset, fmt.Errorf("%w: checksum %08x, the block's data has %08x", ErrChecksum, want, got))
		}
		binary.BigEndian.PutUint32(crc[:], got)
		if _, err := w.Write(crc[:]); err != nil {
			return err
		}
	}
	return nil
}

// recodeSizes fills sizes with the compressed size of every block of
// table t (column i of rd) compressed again as out stores blocks, on up to
// workers goroutines, each with a scratch of its own (s is the one of a
// single worker). An error is the first block's that fails, in block
// order, as one goroutine would meet it.
func recodeSizes(ctx context.Context, rd *Reader, i int, t, out *blockTable, sizes []int, workers int, s *blockScratch) error {
	if workers <= 1 || len(t.blocks) < 2 {
		for b := range t.blocks {
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := s.recode(rd, i, b, t, out); err != nil {
				return err
			}
			sizes[b] = len(s.out)
		}
		return nil
	}
	var next atomic.Int64
	errs := make([]error, len(t.blocks))
	var wg sync.WaitGroup
	for range min(workers, len(t.blocks)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var s blockScratch
			for {
				b := int(next.Add(1) - 1)
				if b >= len(t.blocks) {
					return
				}
				if err := ctx.Err(); err != nil {
					errs[b] = err
					return
				}
				// A failed block does not stop the others: the first
				// error in block order is the one returned, whichever
				// goroutine meets it first.
				if errs[b] = s.recode(rd, i, b, t, out); errs[b] == nil {
					sizes[b] = len(s.out)
				}
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// copyRecoded writes the blocks of column i of rd compressed again as out
// stores them (part p, mode modeRecode), each followed by its checksum
// if out has them, compressing a window of workers blocks at a time on as
// many goroutines and writing them in order.
func copyRecoded(w io.Writer, rd *Reader, i int, p *concatPart, out *blockTable, workers int) error {
	bs := p.t.blocks
	window := make([]blockScratch, min(workers, len(bs)))
	errs := make([]error, len(window))
	var crc [4]byte
	for start := 0; start < len(bs); start += len(window) {
		n := min(len(window), len(bs)-start)
		var wg sync.WaitGroup
		for k := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[k] = window[k].recode(rd, i, start+k, p.t, out)
			}()
		}
		wg.Wait()
		for k := range n {
			b := start + k
			if errs[k] != nil {
				return errs[k]
			}
			s := &window[k]
			if len(s.out) != p.sizes[b] {
				return rd.colErr(i, b, bs[b].Offset, fmt.Errorf("the %s codec compressed the block to %d bytes, then to %d", out.codecName, p.sizes[b], len(s.out)))
			}
			if _, err := w.Write(s.out); err != nil {
				return err
			}
			if out.checksum == 4 {
				binary.BigEndian.PutUint32(crc[:], crc32.Checksum(s.data, crcTable))
				if _, err := w.Write(crc[:]); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// SameColumns checks that file b (named bName) has the columns of file a
// (named aName): names, types, parents, arrays and first values, as a
// concatenation of the two needs. Otherwise it names the first column
// where they differ, in both files.
func SameColumns(aName string, a *Reader, bName string, b *Reader) error {
	na, nb := a.NumColumns(), b.NumColumns()
	for i := range max(na, nb) {
		var ca, cb *ColumnMeta
		if i < na {
			ca, _ = a.Column(i)
		}
		if i < nb {
			cb, _ = b.Column(i)
		}
		if ca != nil && cb != nil && ca.Name == cb.Name && ca.Type == cb.Type && ca.Parent == cb.Parent && ca.Array == cb.Array && ca.Values == cb.Values {
			continue
		}
		return fmt.Errorf("%s and %s cannot be joined: their schemas differ at column %d: %s in the first, %s in the second",
			aName, bName, i, describeJoinColumn(ca), describeJoinColumn(cb))
	}
	return nil
}

// describeJoinColumn names a column and its type for SameColumns'
// message; "absent" for nil.
func describeJoinColumn(c *ColumnMeta) string {
	if c == nil {
		return "absent"
	}
	s := fmt.Sprintf("%q (%s", c.Name, c.Type)
	if c.Array {
		s += ", array"
	}
	if c.Parent != "" {
		s += fmt.Sprintf(", in %q", c.Parent)
	}
	if c.Values {
		s += ", with first values"
	}
	return s + ")"
}
