package shred

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/internal/fieldpath"
	"github.com/trevni-go/trevni/internal/ocf"
	"github.com/trevni-go/trevni/schema"
	"github.com/trevni-go/trevni/schema/layout"
)

// ErrBinary reports Avro binary data that does not decode with the schema.
var ErrBinary = errors.New("invalid Avro binary data")

// maxEmptyItems bounds the count of an array or map block whose items take
// no bytes (such as nulls), which the data cannot otherwise bound.
const maxEmptyItems = 1 << 24

// mapEntry locates one map entry in the binary data.
type mapEntry struct {
	key   []byte
	value int // offset of the value
}

// decoder reads Avro binary data.
type decoder struct {
	b   []byte
	pos int
}

func (d *decoder) errorf(format string, args ...any) error {
	return fieldpath.New(fmt.Errorf("%w at byte %d: %s", ErrBinary, d.pos, fmt.Sprintf(format, args...)))
}

func (d *decoder) long() (int64, error) {
	var u uint64
	for shift := uint(0); shift < 70; shift += 7 {
		if d.pos >= len(d.b) {
			return 0, d.errorf("truncated")
		}
		c := d.b[d.pos]
		d.pos++
		u |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return int64(u>>1) ^ -int64(u&1), nil
		}
	}
	return 0, d.errorf("varint longer than 10 bytes")
}

// skipVarint passes over a varint without decoding it.
func (d *decoder) skipVarint() error {
	end := min(len(d.b), d.pos+10)
	for i := d.pos; i < end; i++ {
		if d.b[i] < 0x80 {
			d.pos = i + 1
			return nil
		}
	}
	if end-d.pos == 10 {
		return d.errorf("varint longer than 10 bytes")
	}
	return d.errorf("truncated")
}

func (d *decoder) int() (int32, error) {
	v, err := d.long()
	if err != nil {
		return 0, err
	}
	if v < math.MinInt32 || v > math.MaxInt32 {
		return 0, d.errorf("int %d out of range", v)
	}
	return int32(v), nil
}

func (d *decoder) take(n int) ([]byte, error) {
	if n < 0 || n > len(d.b)-d.pos {
		return nil, d.errorf("%d bytes wanted, %d left", n, len(d.b)-d.pos)
	}
	v := d.b[d.pos : d.pos+n]
	d.pos += n
	return v, nil
}

func (d *decoder) bytes() ([]byte, error) {
	n, err := d.long()
	if err != nil {
		return nil, err
	}
	if n < 0 || n > int64(len(d.b)-d.pos) {
		return nil, d.errorf("length %d out of range", n)
	}
	return d.take(int(n))
}

// blockCount reads the count of the next block of an array or map and
// checks it against the bytes left.
func (d *decoder) blockCount(minSize int) (int64, error) {
	c, err := d.long()
	if err != nil {
		return 0, err
	}
	if c < 0 {
		if c == math.MinInt64 {
			return 0, d.errorf("block count out of range")
		}
		c = -c
		if _, err := d.long(); err != nil { // the block's size in bytes
			return 0, err
		}
	}
	if minSize > 0 && c > int64(len(d.b)-d.pos)/int64(minSize) || minSize == 0 && c > maxEmptyItems {
		return 0, d.errorf("block count %d out of range", c)
	}
	return c, nil
}

// WriteBinary writes one record given in Avro's binary encoding and returns
// the number of bytes it took from data. It is the fast path: the record is
// decoded straight into the columns, and the file is exactly what Write
// makes from the same record decoded by goavro. A record that does not
// decode is not written and gets a *ValueError.
func (aw *AvroWriter) WriteBinary(data []byte) (int, error) {
	if err := aw.w.StartRow(); err != nil {
		return 0, err
	}
	d := decoder{b: data}
	if err := aw.decode(aw.root, &d, 0); err != nil {
		aw.w.AbortRow()
		return d.pos, aw.valueError(err)
	}
	return d.pos, aw.endRow()
}

func (aw *AvroWriter) decode(n *layout.Node, d *decoder, depth int) error {
	w := aw.w
	switch n.Kind {
	case schema.Null:
		return nil
	case schema.Boolean:
		b, err := d.take(1)
		if err != nil {
			return err
		}
		if b[0] > 1 {
			return d.errorf("boolean byte %d", b[0])
		}
		w.WriteBool(n.Col, b[0] == 1)
	case schema.Int:
		v, err := d.int()
		if err != nil {
			return err
		}
		w.WriteInt(n.Col, v)
	case schema.Enum:
		v, err := d.int()
		if err != nil {
			return err
		}
		if v < 0 || int(v) >= len(n.Schema.Symbols) {
			return d.errorf("enum %s has no symbol %d", n.Schema.Name, v)
		}
		w.WriteInt(n.Col, v)
	case schema.Long:
		v, err := d.long()
		if err != nil {
			return err
		}
		w.WriteLong(n.Col, v)
	case schema.Float:
		b, err := d.take(4)
		if err != nil {
			return err
		}
		w.WriteFloat(n.Col, math.Float32frombits(binary.LittleEndian.Uint32(b)))
	case schema.Double:
		b, err := d.take(8)
		if err != nil {
			return err
		}
		w.WriteDouble(n.Col, math.Float64frombits(binary.LittleEndian.Uint64(b)))
	case schema.String:
		b, err := d.bytes() // the column writer checks UTF-8
		if err != nil {
			return err
		}
		w.WriteStringBytes(n.Col, b)
	case schema.Bytes:
		b, err := d.bytes()
		if err != nil {
			return err
		}
		w.WriteBytes(n.Col, b)
	case schema.Fixed:
		b, err := d.take(n.Schema.Size)
		if err != nil {
			return err
		}
		w.WriteBytes(n.Col, b)
	case schema.Record:
		for i, f := range n.Fields {
			if err := aw.decode(f, d, depth); err != nil {
				return fieldpath.At(err, n.Schema.Fields[i].Name)
			}
		}
	case schema.Array:
		return aw.decodeArray(n, d, depth)
	case schema.Map:
		return aw.decodeMap(n, d, depth)
	case schema.Union:
		b, err := d.long()
		if err != nil {
			return err
		}
		if b < 0 || b >= int64(len(n.Branches)) {
			return d.errorf("union branch %d out of range", b)
		}
		for i, col := range n.BranchCols {
			if col < 0 {
				continue
			}
			if int64(i) != b {
				w.WriteLength(col, 0)
				continue
			}
			w.WriteLength(col, 1)
			if err := aw.decode(n.Branches[i], d, depth); err != nil {
				return err
			}
		}
	}
	return nil
}

func (aw *AvroWriter) decodeArray(n *layout.Node, d *decoder, depth int) error {
	simple := n.Items.Col == n.Col
	if simple {
		// The length precedes the values in the same column: count first.
		scan := *d
		var total int64
		for {
			c, err := scan.blockCount(n.Items.MinSize)
			if err != nil {
				return err
			}
			if c == 0 {
				break
			}
			total += c
			if size := fixedSize(n.Items); size >= 0 {
				if _, err := scan.take(int(c) * size); err != nil { // c is bounded by the bytes left
					return err
				}
				continue
			}
			for ; c > 0; c-- {
				if err := skip(n.Items, &scan); err != nil {
					return err
				}
			}
		}
		if total > math.MaxInt32 {
			return d.errorf("array of %d items", total)
		}
		aw.w.WriteLength(n.Col, int(total))
	}
	i := 0
	for {
		c, err := d.blockCount(n.Items.MinSize)
		if err != nil {
			return err
		}
		if c == 0 {
			break
		}
		for ; c > 0; c-- {
			if err := aw.decode(n.Items, d, depth+1); err != nil {
				return fieldpath.At(err, fieldpath.Index(i))
			}
			i++
		}
	}
	if !simple {
		// Children hold the items: the length can follow them.
		aw.w.WriteLength(n.Col, i)
	}
	return nil
}

func (aw *AvroWriter) decodeMap(n *layout.Node, d *decoder, depth int) error {
	for len(aw.maps) <= depth {
		aw.maps = append(aw.maps, nil)
	}
	entries := aw.maps[depth][:0]
	for {
		c, err := d.blockCount(1 + n.Items.MinSize)
		if err != nil {
			return err
		}
		if c == 0 {
			break
		}
		for ; c > 0; c-- {
			k, err := d.bytes() // the key column's writer checks UTF-8
			if err != nil {
				return err
			}
			entries = append(entries, mapEntry{key: k, value: d.pos})
			if err := skip(n.Items, d); err != nil {
				return fieldpath.At(err, fieldpath.Key(string(k)))
			}
		}
	}
	aw.maps[depth] = entries
	end := d.pos
	if !slices.IsSortedFunc(entries, compareEntries) {
		slices.SortStableFunc(entries, compareEntries)
	}
	// As a decoded map would, keep only the last of equal keys.
	kept := entries[:0]
	for i, e := range entries {
		if i+1 < len(entries) && bytes.Equal(e.key, entries[i+1].key) {
			continue
		}
		kept = append(kept, e)
	}
	aw.w.WriteLength(n.Col, len(kept))
	for _, e := range kept {
		aw.w.WriteStringBytes(n.KeyCol, e.key)
		d.pos = e.value // the value, wherever it stands; d.pos is restored below
		if err := aw.decode(n.Items, d, depth+1); err != nil {
			return fieldpath.At(err, fieldpath.Key(string(e.key)))
		}
	}
	d.pos = end
	return nil
}

func compareEntries(a, b mapEntry) int { return bytes.Compare(a.key, b.key) }

// fixedSize returns the encoded size of every value of a simple node, or
// -1 when it varies.
func fixedSize(n *layout.Node) int {
	switch n.Kind {
	case schema.Null:
		return 0
	case schema.Boolean:
		return 1
	case schema.Float:
		return 4
	case schema.Double:
		return 8
	case schema.Fixed:
		return n.Schema.Size
	}
	return -1
}

// skip passes over one value of node n.
func skip(n *layout.Node, d *decoder) error {
	var err error
	switch n.Kind {
	case schema.Null:
	case schema.Boolean:
		_, err = d.take(1)
	case schema.Int, schema.Enum, schema.Long:
		err = d.skipVarint()
	case schema.Float:
		_, err = d.take(4)
	case schema.Double:
		_, err = d.take(8)
	case schema.String, schema.Bytes:
		_, err = d.bytes()
	case schema.Fixed:
		_, err = d.take(n.Schema.Size)
	case schema.Record:
		for _, f := range n.Fields {
			if err = skip(f, d); err != nil {
				return err
			}
		}
	case schema.Array, schema.Map:
		minSize := n.Items.MinSize
		if n.Kind == schema.Map {
			minSize++
		}
		for {
			c, err := d.long()
			if err != nil {
				return err
			}
			if c == 0 {
				return nil
			}
			if c < 0 {
				size, err := d.long()
				if err != nil {
					return err
				}
				if _, err := d.take(int(min(size, math.MaxInt32))); err != nil || size > math.MaxInt32 {
					return d.errorf("array block of %d bytes", size)
				}
				continue
			}
			if minSize > 0 && c > int64(len(d.b)-d.pos)/int64(minSize) || minSize == 0 && c > maxEmptyItems {
				return d.errorf("block count %d out of range", c)
			}
			for ; c > 0; c-- {
				if n.Kind == schema.Map {
					if _, err := d.bytes(); err != nil {
						return err
					}
				}
				if err := skip(n.Items, d); err != nil {
					return err
				}
			}
		}
	case schema.Union:
		b, err := d.long()
		if err != nil {
			return err
		}
		if b < 0 || b >= int64(len(n.Branches)) {
			return d.errorf("union branch %d out of range", b)
		}
		if br := n.Branches[b]; br != nil {
			return skip(br, d)
		}
	}
	return err
}

// FromContainer converts an Avro object container file, of any codec the
// Avro specification names, into a Trevni file written to out, through the
// fast path. The Avro file's schema becomes the Trevni file's avro.schema.
// Reading and decompressing the Avro blocks runs in its own goroutine, ahead
// of shredding, while finished Trevni blocks are compressed on the other
// cores. progress, if not nil, is called after every Avro block with the
// records written so far and the container bytes consumed.
func FromContainer(out io.Writer, in io.Reader, opts *Options, progress func(rows, bytesIn int64)) (int64, error) {
	r, err := ocf.NewReader(in)
	if err != nil {
		return 0, err
	}
	aw, err := NewAvroWriter(out, r.Schema(), opts)
	if err != nil {
		return 0, err
	}
	if err := aw.appendContainer(r, progress); err != nil {
		aw.Abort()
		return aw.RowCount(), err
	}
	return aw.RowCount(), aw.Close()
}

// AppendContainer writes every record of an Avro object container file to
// the writer, through the fast path. The container's schema must have the
// writer's Parsing Canonical Form (the same binary encoding). progress is as
// for FromContainer, counting all records the writer has written.
func (aw *AvroWriter) AppendContainer(in io.Reader, progress func(rows, bytesIn int64)) error {
	r, err := ocf.NewReader(in)
	if err != nil {
		return err
	}
	s, err := schema.ParseOptions{AllowInvalidDefaults: true}.Parse(r.Schema())
	if err != nil {
		return fmt.Errorf("the container's schema: %w", err)
	}
	if s.Canonical() != aw.schema.Canonical() {
		return fmt.Errorf("the container's schema differs from the file's: %s, not %s", s.Canonical(), aw.schema.Canonical())
	}
	return aw.appendContainer(r, progress)
}

func (aw *AvroWriter) appendContainer(r *ocf.Reader, progress func(rows, bytesIn int64)) error {
	blocks, stop := readAhead(r)
	defer stop()
	for blk := range blocks {
		if blk.err != nil {
			return blk.err
		}
		data := blk.data
		for count := blk.count; count > 0; count-- {
			n, err := aw.WriteBinary(data)
			if err != nil {
				return fmt.Errorf("avro block %d: %w", blk.index, err)
			}
			data = data[n:]
		}
		if len(data) != 0 {
			return fmt.Errorf("avro block %d: %w: %d bytes left after its records", blk.index, ErrBinary, len(data))
		}
		blk.release()
		if progress != nil {
			progress(aw.RowCount(), blk.offset)
		}
	}
	return nil
}

// avroBlock is one decompressed block of an Avro container file.
type avroBlock struct {
	index  int
	count  int64
	data   []byte
	offset int64 // container bytes consumed after the block
	err    error
	free   chan []byte
}

func (b *avroBlock) release() { b.free <- b.data[:0] }

// readAhead reads the container's blocks in a goroutine, a few ahead of
// the consumer, in buffers that go round. stop ends the goroutine early.
func readAhead(r *ocf.Reader) (<-chan *avroBlock, func()) {
	const depth = 3
	free := make(chan []byte, depth)
	for i := 0; i < depth; i++ {
		free <- nil
	}
	out := make(chan *avroBlock, depth-1)
	done := make(chan struct{})
	go func() {
		defer close(out)
		for i := 0; ; i++ {
			var buf []byte
			select {
			case buf = <-free:
			case <-done:
				return
			}
			count, data, err := r.NextBlock()
			if err == io.EOF {
				return
			}
			blk := &avroBlock{index: i, count: count, data: append(buf, data...), offset: r.InputOffset(), err: err, free: free}
			select {
			case out <- blk:
			case <-done:
				return
			}
			if err != nil {
				return
			}
		}
	}()
	return out, func() {
		close(done)
		for range out { // let the goroutine finish
		}
	}
}

// Writer returns the underlying Trevni writer.
func (aw *AvroWriter) Writer() *format.Writer { return aw.w }
