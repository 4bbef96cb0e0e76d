package format

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math"
	"os"
)

// block is a finished block: its descriptor and its stored bytes, either in
// memory or at an offset of the spill file.
type block struct {
	rows       int
	rawSize    int
	first      []byte
	data       []byte // compressed bytes followed by the checksum
	dataLen    int    // len(data), kept once data is spilled
	spillAt    int64  // offset in the spill file, or -1
	err        error
	compressed chan struct{} // closed once data and err are set; nil when done in line
}

// initialBuf is the most a new block buffer starts with: Java's 80 KiB.
// Buffers for larger blocks grow as they fill.
const initialBuf = DefaultBlockSize + DefaultBlockSize/4

func (w *Writer) getBuf() []byte {
	if p, ok := w.bufPool.Get().(*[]byte); ok {
		return (*p)[:0]
	}
	return make([]byte, 0, min(w.opts.BlockSize+w.opts.BlockSize/4, initialBuf))
}

func (w *Writer) putBuf(b []byte) {
	if cap(b) < min(w.opts.BlockSize, initialBuf) || cap(b) > 4*w.opts.BlockSize {
		return // keep only ordinary block buffers
	}
	b = b[:0]
	w.bufPool.Put(&b)
}

// cutBlock finishes column c's current block and hands it to compression.
func (w *Writer) cutBlock(c *columnWriter) error {
	c.flushRun()
	rows := w.rowCount - c.blockStart
	if rows == 0 {
		return nil
	}
	if len(c.enc.b) > math.MaxInt32 {
		return &Error{Offset: -1, Column: c.meta.Name, Index: c.index, Block: len(c.blocks), Row: w.rowCount,
			Err: fmt.Errorf("%w: block of %d bytes exceeds the format's 2 GiB limit", ErrUsage, len(c.enc.b))}
	}
	if rows > math.MaxUint32 {
		return &Error{Offset: -1, Column: c.meta.Name, Index: c.index, Block: len(c.blocks), Row: w.rowCount,
			Err: fmt.Errorf("%w: block of %d rows exceeds the format's limit; write fewer rows or lower BlockSize", ErrUsage, rows)}
	}
	b := &block{rows: int(rows), rawSize: len(c.enc.b), spillAt: -1}
	if c.st != nil {
		c.st.EndBlock(rows)
	}
	if c.hasFirst {
		b.first = append([]byte(nil), c.first...)
	}
	raw := c.enc.b
	c.enc.reset(w.getBuf())
	c.lenAt = -1
	c.blockStart, c.hasFirst = w.rowCount, false
	c.blocks = append(c.blocks, b)
	w.held += int64(cap(raw)) // the buffer is held until the block is written or spilled
	if w.sem == nil {
		w.compress(c, b, raw)
		if b.err != nil {
			return b.err
		}
	} else {
		b.compressed = make(chan struct{})
		w.sem <- struct{}{}
		w.pending.Add(1)
		go func() {
			defer w.pending.Done()
			w.compress(c, b, raw)
			close(b.compressed)
			<-w.sem
		}()
	}
	if b := w.opts.MemoryBudget; b > 0 && w.held+w.inflight > b-b/8 && w.held-w.shrunk.Load()+w.inflight > b-b/8 {
		return w.spillBlocks()
	}
	return nil
}

// compress fills b.data with the compressed raw bytes and their checksum.
func (w *Writer) compress(c *columnWriter, b *block, raw []byte) {
	var data []byte
	var err error
	isNull := isNullCodec(c.codec)
	if isNull {
		data = raw // stored as is: the buffer becomes the block
	} else {
		data, err = c.codec.Compress(w.getBuf(), raw)
		if err != nil {
			b.err = &Error{Offset: -1, Column: c.meta.Name, Index: c.index, Block: -1, Row: -1, Err: fmt.Errorf("compressing block: %w", err)}
			return
		}
		if int64(len(data)) > math.MaxInt32 {
			b.err = &Error{Offset: -1, Column: c.meta.Name, Index: c.index, Block: -1, Row: -1, Err: fmt.Errorf("%w: compressed block exceeds 2 GiB", ErrUsage)}
			return
		}
	}
	if c.checksum == 4 {
		data = binary.BigEndian.AppendUint32(data, crc32.Checksum(raw, crcTable))
	}
	if !isNull {
		w.putBuf(raw)
	}
	if cap(data) >= 2*len(data)+4096 {
		// A well compressed block keeps a buffer of its own size, not a
		// block buffer: the memory budget then holds as many blocks as
		// their compressed bytes allow.
		exact := make([]byte, len(data))
		copy(exact, data)
		w.putBuf(data)
		data = exact
	}
	w.shrunk.Add(int64(cap(raw) - cap(data)))
	b.data = data
	b.dataLen = len(data)
}

// wait blocks until every block handed to compression is done and returns
// the first compression error.
func (w *Writer) wait() error {
	w.pending.Wait()
	for _, c := range w.cols {
		for _, b := range c.blocks {
			if b.err != nil {
				return b.err
			}
		}
	}
	return nil
}

// spillBlocks is called when the blocks held, with those being spilled,
// pass seven eighths of the memory budget. Unless a batch is still being
// written and the budget itself is not reached yet, it moves finished
// blocks to the spill file until those left take five eighths of it: it
// chooses them here and hands them to a goroutine that writes them while
// the rows go on. So the bytes spilled, which Close copies again, are
// about what exceeds the budget, and memory stays within it unless the
// disk is slower than the rows.
func (w *Writer) spillBlocks() error {
	budget := w.opts.MemoryBudget
	if w.spilling != nil {
		select {
		case err := <-w.spilling: // the last batch is written
			w.spilling, w.inflight = nil, 0
			if err != nil {
				return err
			}
		default:
			if w.held-w.shrunk.Load()+w.inflight <= budget {
				return nil
			}
			if err := w.spillWait(); err != nil {
				return err
			}
		}
	}
	if err := w.wait(); err != nil {
		return err
	}
	var held int64
	for _, c := range w.cols {
		for _, b := range c.blocks {
			if b.spillAt < 0 {
				held += int64(cap(b.data))
			}
		}
	}
	w.held = held
	w.shrunk.Store(0)
	if held <= budget-budget/8 {
		return nil
	}
	if w.spill == nil {
		f, err := os.CreateTemp(w.opts.TempDir, "trevni-spill-*")
		if err != nil {
			return fmt.Errorf("trevni: creating spill file: %w", err)
		}
		w.spill = f
		w.spillBuf = bufio.NewWriterSize(f, 1<<20)
	}
	target := budget - 3*(budget/8)
	var batch []*block
spill:
	for _, c := range w.cols {
		for _, b := range c.blocks {
			if held <= target {
				break spill
			}
			if b.spillAt >= 0 {
				continue
			}
			b.spillAt = w.spillSize
			w.spillSize += int64(len(b.data))
			held -= int64(cap(b.data))
			w.inflight += int64(cap(b.data))
			batch = append(batch, b)
		}
	}
	w.held = held
	done := make(chan error, 1)
	w.spilling = done
	go func() { done <- w.writeSpill(batch) }()
	return nil
}

// writeSpill writes a batch of blocks to the spill file at the offsets
// chosen for them and frees their buffers. It runs on its own goroutine;
// the Writer touches neither the blocks' data nor the spill file until
// spillWait has its result.
func (w *Writer) writeSpill(batch []*block) error {
	for _, b := range batch {
		if _, err := w.spillBuf.Write(b.data); err != nil {
			return fmt.Errorf("trevni: writing spill file: %w", err)
		}
	}
	if err := w.spillBuf.Flush(); err != nil {
		return fmt.Errorf("trevni: writing spill file: %w", err)
	}
	for _, b := range batch {
		w.putBuf(b.data)
		b.data = nil
	}
	return nil
}

// spillWait waits for the batch being spilled, if any, and returns its
// error.
func (w *Writer) spillWait() error {
	if w.spilling == nil {
		return nil
	}
	err := <-w.spilling
	w.spilling, w.inflight = nil, 0
	return err
}

// Buffered returns the bytes of finished blocks the Writer holds in
// memory, as WriterOptions.MemoryBudget counts them (blocks being
// compressed at their buffer's size, compressed ones at theirs); the
// blocks still being filled are not counted.
func (w *Writer) Buffered() int64 { return w.held - w.shrunk.Load() + w.inflight }

// MemoryBudget returns the memory budget in force (see
// WriterOptions.MemoryBudget): negative when the Writer never spills.
func (w *Writer) MemoryBudget() int64 { return w.opts.MemoryBudget }

// SetMemoryBudget changes the memory budget from the next block on: 0
// means DefaultMemoryBudget and a negative value never spill, as for
// WriterOptions.MemoryBudget. A caller sharing one budget between this
// Writer and others (the segments of AppendWriter) gives it its share.
func (w *Writer) SetMemoryBudget(n int64) {
	if n == 0 {
		n = DefaultMemoryBudget
	}
	w.opts.MemoryBudget = n
}
