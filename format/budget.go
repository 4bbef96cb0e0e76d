package format

import (
	"runtime"
	"sync"
	"sync/atomic"
	"weak"
)

// DefaultMaxBlockSize is the largest uncompressed block a Reader accepts
// unless ReaderOptions.MaxBlockSize says otherwise. Java cuts a block once
// it holds 64 KiB, so its blocks exceed that only by their last row; our
// Writer refuses a BlockSize above this value, so every file it writes
// with rows smaller than the rest of the block reads with the defaults.
const DefaultMaxBlockSize = 64 << 20

// DefaultBlockMemory is how many bytes of block buffers (stored and
// decompressed, read-ahead included) the ColumnReaders of one Reader may
// hold at once unless ReaderOptions.BlockMemory says otherwise. Reading
// every column of a file of Java's 64 KiB blocks takes at most about
// 300 KiB per column, so this admits some 1,700 columns read at once, and
// any eight blocks of DefaultMaxBlockSize.
const DefaultBlockMemory = 512 << 20

// blockBudget bounds the bytes that the ColumnReaders of one Reader hold in
// block buffers. Each ColumnReader owns a share, the bytes of its buffers;
// the budget holds the sum. A ColumnReader dropped without Close keeps its
// share until it is found unreachable: when the budget runs out, it runs
// the garbage collector once and takes back the shares of readers that
// are gone.
type blockBudget struct {
	limit int64 // < 0: no bound
	used  atomic.Int64

	mu      sync.Mutex
	holders []budgetHolder
	swept   int // len(holders) after the last sweep
}

// budgetShare is the bytes one ColumnReader holds.
type budgetShare struct{ n atomic.Int64 }

type budgetHolder struct {
	reader weak.Pointer[ColumnReader]
	share  *budgetShare
}

// register gives c a share of the budget.
func (b *blockBudget) register(c *ColumnReader) {
	c.share = &budgetShare{}
	if b.limit < 0 {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.holders) >= max(64, 2*b.swept) {
		b.sweepLocked()
	}
	b.holders = append(b.holders, budgetHolder{weak.Make(c), c.share})
}

// sweepLocked takes back the shares of ColumnReaders that are gone.
func (b *blockBudget) sweepLocked() bool {
	freed := false
	live := b.holders[:0]
	for _, h := range b.holders {
		if h.reader.Value() == nil {
			if n := h.share.n.Swap(0); n != 0 {
				b.used.Add(-n)
				freed = true
			}
			continue
		}
		live = append(live, h)
	}
	clear(b.holders[len(live):])
	b.holders = live
	b.swept = len(live)
	return freed
}

// take adds n bytes to s, or reports false when that would exceed the
// budget.
func (b *blockBudget) take(s *budgetShare, n int64) bool {
	if n <= 0 || b.limit < 0 {
		b.adjust(s, n)
		return true
	}
	for collected := false; ; {
		used := b.used.Load()
		if used+n <= b.limit {
			if b.used.CompareAndSwap(used, used+n) {
				s.n.Add(n)
				return true
			}
			continue
		}
		if collected {
			return false
		}
		collected = true
		runtime.GC()
		b.mu.Lock()
		b.sweepLocked()
		b.mu.Unlock()
	}
}

// adjust adds n bytes, which may be negative, to s without checking the
// budget.
func (b *blockBudget) adjust(s *budgetShare, n int64) {
	if n != 0 {
		s.n.Add(n)
		b.used.Add(n)
	}
}

// release gives back everything s holds.
func (b *blockBudget) release(s *budgetShare) {
	if s != nil {
		b.used.Add(-s.n.Swap(0))
	}
}
