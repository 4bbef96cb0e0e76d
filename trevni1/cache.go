package trevni1

import (
	"sync"

	"github.com/trevni-go/trevni/internal/budget"
)

// blockCache holds the last decompressed blocks of one version-1 column,
// shared by the ColumnReaders of a Source that read the same column: the
// version-2 columns made from one version-1 column (an array's lengths and
// its first field's values) and the sibling checks, which read the
// column their parent's lengths come from. A body in the cache is
// immutable and charged once, to the cache's own share of the Reader's
// BlockMemory, from when it is put until it is dropped; a reader holding a
// body of the cache holds it charged to nobody else. A cache that cannot
// take a body (both its entries in use, or no memory left) leaves it to
// the reader that inflated it: a cache never fails a read.
//
// It has four entries: a reader holds its current block until it loads
// the next, and the readers of one columnar pass (an array's lengths and
// the sibling check of its second field, say) run up to a block apart
// while the readers of an earlier pass, kept open to the end of a row
// group, still hold their last blocks. With two, those held blocks left
// one entry to the pass, and each of its blocks was inflated once per
// reader (`toparquet big.trv1`: 14 million instructions, see
// docs/performance.md).
//
// Where some of the column's readers read its levels only (the lengths of
// an array whose items are records, the sibling checks), the cache also
// keeps the level arrays of every block inflated, checked as split checks
// them, for as long as it lives, in a sixteenth of the BlockMemory at most:
// a reader of levels only then reads a block again without inflating it
// (toparquet's second leaf of an array of records, whose lengths and
// sibling check come from the first leaf's column, read after the first
// leaf's whole row group).
type blockCache struct {
	mu    sync.Mutex
	ent   [4]cacheEntry
	tick  uint64
	bud   *budget.Budget[ColumnReader]
	owner *ColumnReader // holds the share in the budget while the cache lives
	share *budget.Share

	keep   bool          // keep the level arrays of the blocks inflated
	levels []blockLevels // by block, those kept
	kept   int64         // their bytes
}

// keptShare: the level arrays one cache keeps take at most this fraction
// of the reader's BlockMemory, which leaves the column readers nearly all
// the room for their blocks that they had without them.
const keptShare = 16

// blockLevels are the level arrays of a block inflated and checked, and
// the values it holds (entries of definition level MaxDef).
type blockLevels struct {
	reps, defs []byte
	count      int64
	ok         bool
}

type cacheEntry struct {
	block int // -1: empty
	body  []byte
	refs  int    // readers holding body
	used  uint64 // tick of the last get or put
}

func newBlockCache(rd *Reader) *blockCache {
	c := &blockCache{bud: &rd.budget, owner: &ColumnReader{}}
	c.share = rd.budget.Register(c.owner)
	for i := range c.ent {
		c.ent[i].block = -1
	}
	return c
}

// get returns block b's body and holds it for the caller, or nil.
func (c *blockCache) get(b int) []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := range c.ent {
		if e := &c.ent[i]; e.block == b {
			c.tick++
			e.refs++
			e.used = c.tick
			return e.body
		}
	}
	return nil
}

// put offers block b's body, held by the caller, and reports whether the
// cache took it (the caller then holds it as if got).
func (c *blockCache) put(b int, body []byte) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	victim := -1
	for i := range c.ent {
		e := &c.ent[i]
		if e.block == b {
			return false // another reader put it first
		}
		if e.refs == 0 && (victim < 0 || e.used < c.ent[victim].used) {
			victim = i
		}
	}
	if victim < 0 {
		return false
	}
	e := &c.ent[victim]
	c.bud.Adjust(c.share, -int64(cap(e.body)))
	*e = cacheEntry{block: -1}
	if !c.bud.Take(c.share, int64(cap(body))) {
		return false
	}
	c.tick++
	*e = cacheEntry{block: b, body: body, refs: 1, used: c.tick}
	return true
}

// release lets go of block b's body, held since get or put.
func (c *blockCache) release(b int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := range c.ent {
		if e := &c.ent[i]; e.block == b && e.refs > 0 {
			e.refs--
			return
		}
	}
}

// close drops the bodies no reader holds.
func (c *blockCache) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := range c.ent {
		if e := &c.ent[i]; e.refs == 0 && e.block >= 0 {
			c.bud.Adjust(c.share, -int64(cap(e.body)))
			*e = cacheEntry{block: -1}
		}
	}
}

// keepLevels keeps a copy of block b's level arrays, of a block split
// has checked, if the cache keeps levels and has room for them: within
// a keptShare-th of the reader's BlockMemory, and the budget has them.
func (c *blockCache) keepLevels(b int, reps, defs []byte, count int64) {
	if !c.keep {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if b < len(c.levels) && c.levels[b].ok {
		return
	}
	n := len(reps) + len(defs)
	if lim := c.bud.Limit; lim >= 0 && c.kept+int64(n) > lim/keptShare {
		return // leave the column readers their room
	}
	if !c.bud.Take(c.share, int64(n)) {
		return
	}
	c.kept += int64(n)
	buf := make([]byte, n)
	copy(buf, reps)
	copy(buf[len(reps):], defs)
	for len(c.levels) <= b {
		c.levels = append(c.levels, blockLevels{})
	}
	c.levels[b] = blockLevels{reps: buf[:len(reps):len(reps)], defs: buf[len(reps):], count: count, ok: true}
}

// levelsOf returns block b's level arrays if the cache keeps them.
func (c *blockCache) levelsOf(b int) (blockLevels, bool) {
	if !c.keep {
		return blockLevels{}, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if b < len(c.levels) && c.levels[b].ok {
		return c.levels[b], true
	}
	return blockLevels{}, false
}
