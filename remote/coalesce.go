package remote

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"sync"
)

// Default sizes of a Coalescer.
const (
	DefaultBudget = 32 << 20 // bytes held in windows at most
	DefaultWindow = 1 << 20  // bytes fetched by a read outside every hinted range
)

// CoalescerOptions configures a Coalescer. The zero value is ready to use.
type CoalescerOptions struct {
	// Budget bounds the bytes held in fetched windows; 0 means
	// DefaultBudget. A read larger than half of it goes straight through.
	Budget int64
	// Window is how much a read outside every hinted range fetches; 0
	// means DefaultWindow.
	Window int64
	// FirstWindow, when positive and smaller than Window, is how much such
	// a read fetches when it does not start where a window held ends:
	// a read somewhere new (a column's block table) fetches FirstWindow,
	// and reads going on in order from there fetch Window, then four
	// times the window they go on from, each time, up to half an equal
	// share of the budget among the windows being read: a whole file read
	// column by column, with nothing hinted, comes in a few large reads
	// per column rather than one per Window. Inside a hinted range the
	// windows grow so too (a reader may stop early), and stop at its end.
	FirstWindow int64
}

// Coalescer is an io.ReaderAt that answers small reads from large windows
// it fetches from an underlying ReaderAt, so that reading the blocks of a
// column one after the other costs a few reads of the underlying source
// instead of one per block. Told the byte ranges about to be read
// (Prefetch, which format.ReaderOptions.Prefetch calls with each column's
// range), it fetches up to the end of the range and never past it, and
// shares its budget between the ranges so that columns read side by side
// each keep a window. It is safe for concurrent use; reads that miss are
// made one at a time.
type Coalescer struct {
	ra   io.ReaderAt
	size int64
	opts CoalescerOptions

	mu    sync.Mutex
	hints []span
	wins  []*window // least recently used first
	held  int64
	reads int64
	// fetched are the ranges fetched so far, in order, joined where they
	// touch (FetchedEnd).
	fetched []span
	// prefix is the source's first bytes, fetched already (Hold).
	prefix []byte
}

type span struct{ off, end int64 }

type window struct {
	off  int64
	b    []byte
	used int64 // the end of the bytes read from it so far, from off
}

// NewCoalescer wraps ra, whose content is size bytes long. opts may be nil.
func NewCoalescer(ra io.ReaderAt, size int64, opts *CoalescerOptions) *Coalescer {
	c := &Coalescer{ra: ra, size: size}
	if opts != nil {
		c.opts = *opts
	}
	if c.opts.Budget <= 0 {
		c.opts.Budget = DefaultBudget
	}
	if c.opts.Window <= 0 {
		c.opts.Window = DefaultWindow
	}
	c.opts.Window = min(c.opts.Window, c.opts.Budget)
	return c
}

// Prefetch records that the bytes [off, off+n) are about to be read in
// order. Its signature is that of format.ReaderOptions.Prefetch.
func (c *Coalescer) Prefetch(off, n int64) {
	if n <= 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, h := range c.hints {
		if h.off == off && h.end == off+n {
			return
		}
	}
	c.hints = append(c.hints, span{off, off + n})
}

// Reads returns how many reads the underlying ReaderAt was asked for.
func (c *Coalescer) Reads() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.reads
}

// Hold gives c the bytes [0, len(b)) of the source, fetched already (a
// header): reads inside them are answered from b, and windows stop short
// of them. They are held outside the budget and never evicted. b must not
// be changed afterwards.
func (c *Coalescer) Hold(b []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.prefix = b[:min(int64(len(b)), c.size)]
	c.record(0, int64(len(c.prefix)))
}

// ReadAt reads len(p) bytes at off, from the windows that hold them; the
// bytes no window holds are fetched in a window that starts where those
// held end and stops where the next window held starts, so that no byte
// is fetched twice while it is held.
func (c *Coalescer) ReadAt(p []byte, off int64) (int, error) {
	want, short, err := clip(len(p), off, c.size)
	if want == 0 {
		return 0, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	end := off + want
	if end <= int64(len(c.prefix)) {
		copy(p, c.prefix[off:end])
		return int(want), short
	}
	if want > c.opts.Budget/2 {
		c.reads++
		n, err := c.ra.ReadAt(p, off)
		c.record(off, off+int64(n))
		return n, err
	}
	pos := off
	for pos < end {
		if pos < int64(len(c.prefix)) {
			pos += int64(copy(p[pos-off:want], c.prefix[pos:]))
			continue
		}
		w := c.holding(pos)
		if w == nil {
			if w, err = c.fetch(pos, end-pos); err != nil {
				return 0, err
			}
		}
		pos += int64(copy(p[pos-off:want], w.b[pos-w.off:]))
		w.used = max(w.used, pos-w.off)
	}
	return int(want), short
}

// holding returns the window that holds the byte at pos, made the most
// recently used, or nil.
func (c *Coalescer) holding(pos int64) *window {
	for i, w := range c.wins {
		if pos >= w.off && pos < w.off+int64(len(w.b)) {
			// Most recently used goes last.
			copy(c.wins[i:], c.wins[i+1:])
			c.wins[len(c.wins)-1] = w
			return w
		}
	}
	return nil
}

// fetch fetches a window at off, which no window holds, for a read of want
// bytes there: as windowSize says, cut where the next window held starts,
// and where the next range fetched before starts past off+want (a column
// read in order has read those bytes already: a window running into them
// would fetch them twice).
func (c *Coalescer) fetch(off, want int64) (*window, error) {
	n := c.windowSize(off, want)
	for _, w := range c.wins {
		if w.off > off && w.off < off+n {
			n = w.off - off
		}
	}
	i := sort.Search(len(c.fetched), func(i int) bool { return c.fetched[i].off > off })
	if i < len(c.fetched) && c.fetched[i].off < off+n {
		n = max(c.fetched[i].off-off, min(want, n))
	}
	// Evict windows to stay within the budget: first those read to
	// their end (a column read in order needs them no more), then the
	// least recently used.
	for len(c.wins) > 0 && c.held+n > c.opts.Budget {
		i := slices.IndexFunc(c.wins, func(w *window) bool { return w.used == int64(len(w.b)) })
		if i < 0 {
			i = 0
		}
		c.held -= int64(len(c.wins[i].b))
		c.wins = slices.Delete(c.wins, i, i+1)
	}
	b := make([]byte, n)
	c.reads++
	k, err := c.ra.ReadAt(b, off)
	if int64(k) < n {
		if err == nil || errors.Is(err, io.EOF) {
			err = fmt.Errorf("remote: read of %d bytes at %d returned %d: %w", n, off, k, io.ErrUnexpectedEOF)
		}
		return nil, err
	}
	c.record(off, off+n)
	w := &window{off: off, b: b}
	c.wins = append(c.wins, w)
	c.held += n
	return w, nil
}

// record adds [off, end) to the ranges fetched.
func (c *Coalescer) record(off, end int64) {
	if off >= end {
		return
	}
	i := sort.Search(len(c.fetched), func(i int) bool { return c.fetched[i].end >= off })
	j := i
	for j < len(c.fetched) && c.fetched[j].off <= end {
		off, end = min(off, c.fetched[j].off), max(end, c.fetched[j].end)
		j++
	}
	c.fetched = slices.Replace(c.fetched, i, j, span{off, end})
}

// FetchedEnd returns the end of the furthest byte of [off, end) that c
// has fetched from its ReaderAt so far (held now or not, and the bytes
// given by Hold), or off when it has none of them. It may be called while other goroutines
// read.
func (c *Coalescer) FetchedEnd(off, end int64) int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	i := sort.Search(len(c.fetched), func(i int) bool { return c.fetched[i].off >= end }) - 1
	if i < 0 || c.fetched[i].end <= off {
		return off
	}
	return min(c.fetched[i].end, end)
}

// clip bounds a read of n bytes at off from a source of size bytes, as
// io.ReaderAt has it: want is how many of them the source holds, and short
// the error to return with them (io.EOF when the read runs past the end).
// When want is 0 the read is answered already: err is what to return with
// no bytes (nil for an empty read, io.EOF at or past the end, an error for
// a negative offset).
func clip(n int, off, size int64) (want int64, short, err error) {
	switch {
	case off < 0:
		return 0, nil, fmt.Errorf("remote: negative offset %d", off)
	case n == 0:
		return 0, nil, nil
	case off >= size:
		return 0, nil, io.EOF
	}
	want = min(int64(n), size-off)
	if want < int64(n) {
		short = io.EOF
	}
	return want, short, nil
}

// windowSize returns how much to fetch for a read of want bytes at off: to
// the end of the hinted range holding off, within half an equal share of
// the budget per hinted range, or Window outside every range; never past the
// end of the source.
func (c *Coalescer) windowSize(off, want int64) int64 {
	size := c.opts.Window
	if f := c.opts.FirstWindow; f > 0 && f < size {
		size = f
		reading := int64(1) // the windows being read, this one's included
		var prev *window
		for _, w := range c.wins {
			if w.off+int64(len(w.b)) == off {
				prev = w
			} else if w.used < int64(len(w.b)) {
				reading++
			}
		}
		if prev != nil {
			// Going on in order: Window, then growing.
			grown := min(4*int64(len(prev.b)), c.opts.Budget/(2*reading))
			size = max(c.opts.Window, grown)
		}
	}
	end := off + size
	for _, h := range c.hints {
		if off >= h.off && off < h.end {
			if f := c.opts.FirstWindow; f > 0 && f < c.opts.Window {
				// Growing windows grow inside a range too (a reader
				// may stop early: a LIMIT), up to its end.
				end = min(h.end, end)
				break
			}
			// Half a share of the budget: a range's window and the
			// next one, fetched as a read runs past it, fit together.
			share := max(c.opts.Budget/int64(2*len(c.hints)), c.opts.Window)
			end = min(h.end, off+share)
			break
		}
	}
	end = min(max(end, off+want), c.size)
	return end - off
}
