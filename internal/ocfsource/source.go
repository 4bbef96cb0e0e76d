// Package ocfsource reads an Avro object container file as a
// format.Source: the columns a Trevni 2 file of its records would have,
// so that the front door reads Avro files with the filters, field
// selections, limits, workers and memory bounds of any data set.
//
// Opening a file reads its header and walks its block headers (a record
// count and a size each, the data skipped) to learn its rows. A block of
// the Source is a group of consecutive Avro blocks (one, or several small
// ones): when a column asks for it, the group is read, decompressed and
// shredded (package shred's Avro binary path) into an in-memory Trevni
// file of one block per column, which the other columns then take their
// block from. Nothing is written to disk. The groups held at once (at
// most two, for readers of columns a little apart) are bounded by
// Options.Memory.
package ocfsource

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"sync"

	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/internal/avrobin"
	"github.com/trevni-go/trevni/internal/ocf"
	"github.com/trevni-go/trevni/schema/layout"
	"github.com/trevni-go/trevni/shred"
)

// Magic starts every Avro object container file.
const Magic = "Obj\x01"

// Options configures a Source. A nil *Options means the defaults.
type Options struct {
	// Layout bounds the column layout of the file's schema; nil means
	// layout's defaults.
	Layout *layout.Options
	// MaxBlockSize bounds the stored size of one Avro block and its
	// decompressed size; 0 means ocf.DefaultMaxBlockSize.
	MaxBlockSize int64
	// Memory bounds the bytes of the shredded groups a Source holds at
	// once; 0 means format.DefaultBlockMemory, negative no bound.
	Memory int64
	// KeepMapOrder keeps the entries of maps in the file's order (see
	// shred.Options.KeepMapOrder); by default they are sorted by key, as
	// a Trevni file converted from the Avro file holds them.
	KeepMapOrder bool
	// GroupBytes is the stored bytes up to which consecutive Avro blocks
	// are read as one block of the Source; 0 means 1 MiB for an
	// uncompressed file and 256 KiB for a compressed one (see group).
	GroupBytes int64
}

// Group targets: consecutive Avro blocks are read as one block of the
// Source while their stored bytes stay below these (an uncompressed file's
// stored bytes are its records' bytes; a compressed file's are a fraction
// of them, so that a group stays far below the largest block a Trevni
// column holds, format.MaxWriterBlockSize).
const (
	groupStoredNull       = 1 << 20
	groupStoredCompressed = 256 << 10
	groupMaxRows          = 1 << 20
)

// block is one Avro block of the file.
type block struct {
	offset int64 // of its header (count and size)
	end    int64 // after its sync marker
	count  int64
}

// group is one block of the Source: Avro blocks [first, last].
type group struct {
	first, last int
	firstRow    int64
	rows        int64
	stored      int64
}

// file is what a Source knows of its file, shared by the Sources of
// Reopen.
type file struct {
	ra       io.ReaderAt
	size     int64
	opts     Options
	text     string
	codec    string
	sync     [ocf.SyncSize]byte
	meta     format.MetaData
	colMeta  []format.MetaData
	names    []string
	blocks   []block
	groups   []group
	rows     int64
	header   *ocf.Reader // for NewDecompressor
	maxBlock int64
}

// Source is an Avro object container file as a format.Source. Its
// column readers may be used on several goroutines; a Source shreds each
// group once while it is held.
type Source struct {
	f *file

	mu    sync.Mutex
	dec   *ocf.Decompressor
	cache [2]*shredded
	tick  uint64
	raw   []byte // stored bytes of the group being read
	data  []byte // a decompressed block
}

// shredded is one group shredded: the in-memory Trevni file and each
// column's bytes in it.
type shredded struct {
	group int
	file  []byte
	cols  [][]byte
	used  uint64
}

// Open reads the container's header and block headers from ra (size
// bytes) and returns its Source. An error is an *ocf.Error for a
// container that is malformed, or one saying why its schema cannot be
// laid out as columns.
func Open(ra io.ReaderAt, size int64, opts *Options) (*Source, error) {
	f := &file{ra: ra, size: size}
	if opts != nil {
		f.opts = *opts
	}
	f.maxBlock = f.opts.MaxBlockSize
	if f.maxBlock <= 0 {
		f.maxBlock = ocf.DefaultMaxBlockSize
	}
	sr := io.NewSectionReader(ra, 0, size)
	hdr, err := ocf.NewReader(sr, ocf.WithMaxBlockSize(f.maxBlock), ocf.WithMaxDecompressedSize(f.maxBlock))
	if err != nil {
		return nil, err
	}
	f.header = hdr
	f.text, f.codec, f.sync = hdr.Schema(), hdr.Codec(), hdr.Sync()
	if _, err := hdr.NewDecompressor(); err != nil {
		return nil, err
	}
	// The columns: those of an empty Trevni file of the schema, as the
	// shredder lays them out.
	var empty bytes.Buffer
	aw, err := shred.NewAvroWriter(&empty, f.text, f.shredOptions())
	if err != nil {
		return nil, fmt.Errorf("its schema: %w", err)
	}
	if err := aw.Close(); err != nil {
		return nil, fmt.Errorf("its schema: %w", err)
	}
	rd, err := format.NewReader(bytes.NewReader(empty.Bytes()), int64(empty.Len()), nil)
	if err != nil {
		return nil, fmt.Errorf("its schema: %w", err)
	}
	f.colMeta = make([]format.MetaData, rd.NumColumns())
	f.names = make([]string, rd.NumColumns())
	for i := range f.colMeta {
		f.colMeta[i] = rd.RawColumnMeta(i).Clone()
		c, err := rd.Column(i)
		if err != nil {
			return nil, err
		}
		f.names[i] = c.Name
	}
	meta := hdr.Meta()
	// The container's metadata, avro.schema first, in key order after
	// it (a map has none of its own).
	f.meta.SetString(layout.MetaAvroSchema, f.text)
	for _, k := range slices.Sorted(maps.Keys(meta)) {
		if k != layout.MetaAvroSchema {
			f.meta.Set(k, meta[k])
		}
	}
	if err := f.walk(hdr.InputOffset()); err != nil {
		return nil, err
	}
	f.cut()
	return &Source{f: f}, nil
}

// shredOptions returns the options of the in-memory Trevni files: no
// codec, checksum or statistics, one block per column however large (up
// to 1 GiB: what a group may take is bounded by the block size and memory
// limits, checked in make), never spilled.
func (f *file) shredOptions() *shred.Options {
	return &shred.Options{
		WriterOptions: format.WriterOptions{
			Codec:        format.CodecNull,
			DisableStats: true,
			BlockSize:    math.MaxInt32 / 2,
			MaxBlockSize: math.MaxInt32,
			MemoryBudget: -1,
			Concurrency:  1,
		},
		Layout:       f.opts.Layout,
		Workers:      1,
		KeepMapOrder: f.opts.KeepMapOrder,
	}
}

// Sizes of the walk's reads. While every byte read so far is the file's
// start, and up to readThrough bytes of it, the walk reads on through the
// blocks in windows of walkWindow (small blocks: one read for many block
// headers), as long as the next block header is less than a window past
// what was read. Over a network the front door keeps the file's first
// bytes fetched while a part is opened (remote.HeaderReader) for the
// part's next opens, up to 4 MiB (the root's maxKeptHeader), and answers
// the reads of the records from them, so that the bytes read through are
// fetched once.
//
// Past that, a block smaller than the read-ahead window has its sync
// marker read with the window after it (the next blocks, headers and
// data: many small blocks a read), the window doubling from aheadMin up
// to aheadMax (or the reader's block memory, if less) while the blocks
// stay smaller than it; a block as large as the window has only its sync
// marker and the next block's header read, skipping its data, and the
// window starts again from aheadMin. A file of small blocks then takes
// a few reads whatever its size (its bytes past the first 4 MiB fetched
// twice over a network: by the walk, and by the reads of the records),
// one of large blocks one read a block and few of its bytes
// (tests/trevni's TestRemoteAvroWalk measures both).
const (
	walkWindow  = 1 << 20
	readThrough = 4 << 20
	aheadMin    = 64 << 10
	aheadMax    = 4 << 20
)

// walker reads the parts of the file the walk asks for: in windows from
// the file's start while they run on from what was read, else exactly.
type walker struct {
	f       *file
	buf     []byte // the file's bytes [at, at+len(buf))
	at      int64
	readEnd int64 // what was read runs on from the start up to here,
	prefix  bool  // while prefix holds
	scratch []byte
	win     int64 // the read-ahead window past the prefix
	maxWin  int64 // its largest
}

// get returns the file's bytes [off, off+n), clipped at its end, from
// what was read or read now; past the prefix, a read now reads the
// window after off too if ahead holds.
func (w *walker) get(off, n int64, ahead bool) ([]byte, error) {
	n = min(n, w.f.size-off)
	if off >= w.at && off+n <= w.at+int64(len(w.buf)) {
		return w.buf[off-w.at : off-w.at+n], nil
	}
	start, end := off, off+n
	if w.prefix && off-w.readEnd < walkWindow && end <= readThrough {
		// On from what was read, to the next multiple of walkWindow
		// (so that a prefix grown by doubling stays within readThrough).
		start = min(off, w.readEnd)
		end = max(end, min((start/walkWindow+1)*walkWindow, readThrough, w.f.size))
		w.readEnd = max(w.readEnd, end)
	} else {
		w.prefix = false
		if ahead {
			end = max(end, min(off+w.win, w.f.size))
			w.win = min(2*w.win, w.maxWin)
		} else {
			w.win = min(aheadMin, w.maxWin)
		}
	}
	if cap(w.scratch) < int(end-start) {
		w.scratch = make([]byte, end-start)
	}
	w.buf, w.at = w.scratch[:end-start], start
	k, err := w.f.ra.ReadAt(w.buf, start)
	if int64(k) < end-start {
		w.buf = w.buf[:0]
		if err == nil || err == io.EOF {
			err = fmt.Errorf("read %d of %d bytes at offset %d: %w", k, end-start, start, io.ErrUnexpectedEOF)
		}
		return nil, err
	}
	return w.buf[off-start : off-start+n], nil
}

// walk reads the block headers from off to the end of the file (see
// walkWindow for how).
func (f *file) walk(off int64) error {
	w := &walker{f: f, readEnd: off, prefix: true, maxWin: aheadMax}
	if m := f.opts.Memory; m == 0 {
		w.maxWin = min(w.maxWin, format.DefaultBlockMemory)
	} else if m > 0 {
		w.maxWin = min(w.maxWin, m)
	}
	w.win = min(aheadMin, w.maxWin)
	index := int64(0)
	for off < f.size {
		hdr, err := w.get(off, 2*binaryMaxVarint, false)
		if err != nil {
			return &ocf.Error{Block: index, Offset: off, Err: err}
		}
		count, c1 := avrobin.ConsumeLong(hdr)
		if c1 < 0 {
			return &ocf.Error{Block: index, Offset: off, Err: fmt.Errorf("%w: block count: %w", ocf.ErrFormat, avrobin.ParseError(c1))}
		}
		stored, c2 := avrobin.ConsumeLong(hdr[c1:])
		if c2 < 0 {
			return &ocf.Error{Block: index, Offset: off, Err: fmt.Errorf("%w: block size: %w", ocf.ErrFormat, avrobin.ParseError(c2))}
		}
		switch {
		case count < 0:
			return &ocf.Error{Block: index, Offset: off, Err: fmt.Errorf("%w: negative record count %d", ocf.ErrFormat, count)}
		case stored < 0:
			return &ocf.Error{Block: index, Offset: off, Err: fmt.Errorf("%w: negative block size %d", ocf.ErrFormat, stored)}
		case stored > f.maxBlock:
			return &ocf.Error{Block: index, Offset: off, Err: fmt.Errorf("%w: block size %d exceeds limit %d", ocf.ErrTooLarge, stored, f.maxBlock)}
		case count == 0 && stored > 0:
			return &ocf.Error{Block: index, Offset: off, Err: fmt.Errorf("%w: block of %d bytes holds no records", ocf.ErrFormat, stored)}
		}
		syncAt := off + int64(c1+c2) + stored
		end := syncAt + ocf.SyncSize
		if end > f.size {
			return &ocf.Error{Block: index, Offset: off, Err: fmt.Errorf("%w: block of %d bytes runs past the end of the file (%d bytes)", io.ErrUnexpectedEOF, stored, f.size)}
		}
		// The sync marker, and the next block's header with it; the
		// window after them too past a block smaller than the window.
		sync, err := w.get(syncAt, ocf.SyncSize+2*binaryMaxVarint, stored < w.win)
		if err != nil {
			return &ocf.Error{Block: index, Offset: off, Err: err}
		}
		if [ocf.SyncSize]byte(sync[:ocf.SyncSize]) != f.sync {
			return &ocf.Error{Block: index, Offset: off, Err: ocf.ErrSyncMarker}
		}
		if f.rows > math.MaxInt64-count {
			return &ocf.Error{Block: index, Offset: off, Err: fmt.Errorf("%w: record counts overflow", ocf.ErrFormat)}
		}
		if count > 0 {
			f.blocks = append(f.blocks, block{offset: off, end: end, count: count})
			f.rows += count
		}
		off = end
		index++
	}
	return nil
}

// binaryMaxVarint is the most bytes of an Avro long.
const binaryMaxVarint = 10

// cut groups the blocks into the Source's blocks.
func (f *file) cut() {
	target := int64(groupStoredCompressed)
	if f.codec == "null" || f.codec == "" {
		target = groupStoredNull
	}
	if f.opts.GroupBytes > 0 {
		target = f.opts.GroupBytes
	}
	var row int64
	for i := 0; i < len(f.blocks); {
		g := group{first: i, firstRow: row}
		for i < len(f.blocks) {
			b := f.blocks[i]
			n := b.end - b.offset
			if i > g.first && (g.stored+n > target || g.rows+b.count > groupMaxRows) {
				break
			}
			g.stored += n
			g.rows += b.count
			i++
		}
		g.last = i - 1
		row += g.rows
		f.groups = append(f.groups, g)
	}
}

// Reopen returns a Source of the same file read through ra (the file
// opened again, of the same size and contents), with a cache of its own:
// its header and block headers are not read again.
func (s *Source) Reopen(ra io.ReaderAt) *Source {
	f := *s.f
	f.ra = ra
	return &Source{f: &f}
}

// Schema returns the container's schema, as stored.
func (s *Source) Schema() string { return s.f.text }

// Codec returns the container's codec ("null" when it names none).
func (s *Source) Codec() string { return s.f.codec }

// AvroBlocks returns the number of Avro blocks holding records.
func (s *Source) AvroBlocks() int { return len(s.f.blocks) }

// RowCount returns the file's records.
func (s *Source) RowCount() int64 { return s.f.rows }

// Size returns the file's size.
func (s *Source) Size() int64 { return s.f.size }

// Meta returns the container's metadata (avro.schema, avro.codec and the
// writer's own keys).
func (s *Source) Meta() *format.MetaData { return &s.f.meta }

// NumColumns returns the columns of the file's schema.
func (s *Source) NumColumns() int { return len(s.f.colMeta) }

// RawColumnMeta returns column i's metadata as a Trevni 2 file of the
// records stores it.
func (s *Source) RawColumnMeta(i int) *format.MetaData { return &s.f.colMeta[i] }

// Blocks returns column i's blocks: one a group of Avro blocks, whose
// stored bytes (shared by the columns) stand for their size.
func (s *Source) Blocks(i int) ([]format.BlockInfo, error) {
	if i < 0 || i >= len(s.f.colMeta) {
		return nil, fmt.Errorf("%w: no column %d", format.ErrUsage, i)
	}
	cols := int64(max(1, len(s.f.colMeta)))
	out := make([]format.BlockInfo, len(s.f.groups))
	for b, g := range s.f.groups {
		out[b] = format.BlockInfo{
			Rows:             g.rows,
			FirstRow:         g.firstRow,
			UncompressedSize: int(min(g.stored/cols, format.MaxWriterBlockSize)),
			CompressedSize:   int(g.stored),
			Offset:           s.f.blocks[g.first].offset,
		}
	}
	return out, nil
}

// OpenColumn returns a reader of column i's blocks.
func (s *Source) OpenColumn(i int) (format.SourceColumn, error) {
	if i < 0 || i >= len(s.f.colMeta) {
		return nil, fmt.Errorf("%w: no column %d", format.ErrUsage, i)
	}
	return &column{s: s, i: i}, nil
}

// column is one column of a Source.
type column struct {
	s *Source
	i int
}

func (c *column) Block(b int, dst []byte) ([]byte, error) {
	s := c.s
	s.mu.Lock()
	defer s.mu.Unlock()
	sh, err := s.shred(b)
	if err != nil {
		return dst, err
	}
	return append(dst, sh.cols[c.i]...), nil
}

func (c *column) Close() {}

// shred returns group b shredded, from the cache or made now. s.mu is
// held.
func (s *Source) shred(b int) (*shredded, error) {
	if b < 0 || b >= len(s.f.groups) {
		return nil, fmt.Errorf("%w: no block %d", format.ErrUsage, b)
	}
	s.tick++
	for _, sh := range s.cache {
		if sh != nil && sh.group == b {
			sh.used = s.tick
			return sh, nil
		}
	}
	// The least recently used entry makes way.
	slot := 0
	if s.cache[0] != nil && (s.cache[1] == nil || s.cache[1].used < s.cache[0].used) {
		slot = 1
	}
	var reuse []byte
	if old := s.cache[slot]; old != nil {
		reuse = old.file[:0]
		s.cache[slot] = nil
	}
	sh, err := s.make(b, reuse)
	if err != nil {
		return nil, err
	}
	if limit := s.memory(); limit > 0 {
		held := int64(cap(sh.file))
		if other := s.cache[1-slot]; other != nil {
			held += int64(cap(other.file))
		}
		if held > limit {
			// Hold only this one: the other is dropped.
			s.cache[1-slot] = nil
			if int64(cap(sh.file)) > limit {
				return nil, s.f.memoryErr(b, "shredded take", int64(cap(sh.file)), limit)
			}
		}
	}
	sh.used = s.tick
	s.cache[slot] = sh
	return sh, nil
}

// memoryErr is the error about group b taking n bytes (what says how),
// past the reader's block memory limit.
func (f *file) memoryErr(b int, what string, n, limit int64) error {
	g := f.groups[b]
	return fmt.Errorf("%w: avro blocks %d to %d (%d records) %s %d bytes, past the %d bytes of the reader's block memory: raise it with --block-memory (format.ReaderOptions.BlockMemory) or convert the file with trevni fromavro", format.ErrLimit, g.first, g.last, g.rows, what, n, limit)
}

// blockSizeErr is the error about Avro block bi decompressing to more
// than the reader's block size limit.
func (f *file) blockSizeErr(bi int) error {
	return fmt.Errorf("%w: avro block %d (offset %d) decompresses to more than the %d bytes of the reader's block size limit: raise it with --max-block-size (format.ReaderOptions.MaxBlockSize)", format.ErrLimit, bi, f.blocks[bi].offset, f.maxBlock)
}

// memory returns the bound on the groups held.
func (s *Source) memory() int64 {
	switch m := s.f.opts.Memory; {
	case m == 0:
		return format.DefaultBlockMemory
	case m < 0:
		return 0
	default:
		return m
	}
}

// make reads, decompresses and shreds group b into a Trevni file in
// reuse's memory.
func (s *Source) make(b int, reuse []byte) (*shredded, error) {
	f := s.f
	g := f.groups[b]
	start, end := f.blocks[g.first].offset, f.blocks[g.last].end
	if cap(s.raw) < int(end-start) {
		s.raw = make([]byte, end-start)
	}
	raw := s.raw[:end-start]
	if _, err := f.ra.ReadAt(raw, start); err != nil {
		return nil, &ocf.Error{Block: int64(g.first), Offset: start, Err: err}
	}
	if s.dec == nil {
		d, err := f.header.NewDecompressor()
		if err != nil {
			return nil, err
		}
		s.dec = d
	}
	out := bytes.NewBuffer(reuse)
	aw, err := shred.NewAvroWriter(out, f.text, f.shredOptions())
	if err != nil {
		return nil, err
	}
	defer aw.Abort()
	var row, decompressed int64 = g.firstRow, 0
	limit := s.memory()
	for bi := g.first; bi <= g.last; bi++ {
		blk := f.blocks[bi]
		p := raw[blk.offset-start : blk.end-start]
		count, c1 := avrobin.ConsumeLong(p)
		stored, c2 := avrobin.ConsumeLong(p[max(c1, 0):])
		if c1 < 0 || c2 < 0 || count != blk.count || int64(c1+c2)+stored+ocf.SyncSize != int64(len(p)) {
			return nil, &ocf.Error{Block: int64(bi), Offset: blk.offset, Err: fmt.Errorf("%w: the block's header changed since the file was opened", ocf.ErrFormat)}
		}
		body := p[c1+c2 : len(p)-ocf.SyncSize]
		if [ocf.SyncSize]byte(p[len(p)-ocf.SyncSize:]) != f.sync {
			return nil, &ocf.Error{Block: int64(bi), Offset: blk.offset, Err: ocf.ErrSyncMarker}
		}
		rb := ocf.RawBlock{Index: int64(bi), Offset: blk.offset, End: blk.end, Count: count, Data: body}
		data, err := s.dec.Decompress(s.data[:0], &rb)
		if errors.Is(err, ocf.ErrTooLarge) {
			return nil, f.blockSizeErr(bi)
		}
		if err != nil {
			return nil, err
		}
		// What the group takes decompressed, about what its columns
		// take shredded: refused before it is shredded.
		if decompressed += int64(len(data)); limit > 0 && decompressed > limit {
			return nil, f.memoryErr(b, "take at least", decompressed, limit)
		}
		if !s.dec.Null() && cap(data) > cap(s.data) {
			s.data = data[:0]
		}
		if err := aw.WriteRecords(data, count, row); err != nil {
			return nil, fmt.Errorf("avro block %d (offset %d): %w", bi, blk.offset, err)
		}
		row += count
	}
	if err := aw.Close(); err != nil {
		return nil, fmt.Errorf("avro blocks %d to %d: %w", g.first, g.last, err)
	}
	file := out.Bytes()
	cols, err := Columns(file, f.names)
	if errors.Is(err, errColumnBlocks) {
		return nil, fmt.Errorf("%w: avro blocks %d to %d (%d records) hold %w: convert the file with trevni fromavro instead", format.ErrLimit, g.first, g.last, g.rows, err)
	}
	if err != nil {
		return nil, fmt.Errorf("avro blocks %d to %d shredded: %w", g.first, g.last, err)
	}
	for i, c := range cols {
		if int64(len(c)) > f.maxBlock {
			return nil, fmt.Errorf("%w: avro blocks %d to %d (%d records) shredded: column %s takes %d bytes, past the %d bytes of the reader's block size limit: raise it with --max-block-size (format.ReaderOptions.MaxBlockSize)", format.ErrLimit, g.first, g.last, g.rows, f.names[i], len(c), f.maxBlock)
		}
	}
	sh := &shredded{group: b, file: file, cols: cols}
	return sh, nil
}

// errColumnBlocks reports a column of an in-memory file cut into blocks.
var errColumnBlocks = errors.New("more than one block of a column can hold")

// Columns returns the bytes of each column of file, an in-memory Trevni
// file of no codec and no checksum whose columns (named names) hold one
// block each at most: the blocks in Trevni 2's value encoding, in file's
// memory (nil for a column without a block). A column of several blocks
// (more than format.MaxWriterBlockSize bytes) is an error naming it.
// The Avro source and other sources that shred a group of rows in memory
// (trevniparquet's) hand their blocks out from it.
func Columns(file []byte, names []string) ([][]byte, error) {
	rd, err := format.NewReader(bytes.NewReader(file), int64(len(file)), &format.ReaderOptions{MaxBlockSize: math.MaxInt32})
	if err != nil {
		return nil, err
	}
	cols := make([][]byte, rd.NumColumns())
	for i := range cols {
		blocks, err := rd.Blocks(i)
		if err != nil {
			return nil, err
		}
		switch len(blocks) {
		case 0:
		case 1:
			bi := blocks[0]
			end := bi.Offset + int64(bi.CompressedSize)
			cols[i] = file[bi.Offset:end:end]
		default:
			name := fmt.Sprint(i)
			if i < len(names) {
				name = names[i]
			}
			return nil, fmt.Errorf("%w (%d bytes) of column %s", errColumnBlocks, format.MaxWriterBlockSize, name)
		}
	}
	return cols, nil
}
