// Package budget bounds the bytes of block buffers that the column readers
// of one file reader hold at once (format.ReaderOptions.BlockMemory and
// trevni1.ReaderOptions.BlockMemory).
//
// Each column reader owns a Share, the bytes of its buffers; the Budget
// holds their sum. A reader dropped without releasing its share keeps it
// until it is found unreachable: when the budget runs out, Take runs the
// garbage collector once and takes back the shares of readers that are
// gone.
package budget

import (
	"runtime"
	"sync"
	"sync/atomic"
	"weak"
)

// Budget bounds the bytes that the Shares of readers of type T hold. The
// zero value has a limit of 0 bytes; set Limit before use. A Budget is safe
// for concurrent use.
type Budget[T any] struct {
	// Limit is the most bytes the shares may hold together; a negative
	// Limit means no bound. It must not change once shares are taken.
	Limit int64

	used atomic.Int64

	mu      sync.Mutex
	holders []holder[T]
	swept   int // len(holders) after the last sweep
}

// Share is the bytes one reader holds of a Budget.
type Share struct{ n atomic.Int64 }

type holder[T any] struct {
	reader weak.Pointer[T]
	share  *Share
}

// Register returns a new share for reader r, taken back when r becomes
// unreachable (if it was not released before).
func (b *Budget[T]) Register(r *T) *Share {
	s := &Share{}
	if b.Limit < 0 {
		return s
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.holders) >= max(64, 2*b.swept) {
		b.sweepLocked()
	}
	b.holders = append(b.holders, holder[T]{weak.Make(r), s})
	return s
}

// sweepLocked takes back the shares of readers that are gone.
func (b *Budget[T]) sweepLocked() {
	live := b.holders[:0]
	for _, h := range b.holders {
		if h.reader.Value() == nil {
			if n := h.share.n.Swap(0); n != 0 {
				b.used.Add(-n)
			}
			continue
		}
		live = append(live, h)
	}
	clear(b.holders[len(live):])
	b.holders = live
	b.swept = len(live)
}

// Take adds n bytes to s, or reports false when that would take the
// budget past its limit.
func (b *Budget[T]) Take(s *Share, n int64) bool {
	if n <= 0 || b.Limit < 0 {
		b.Adjust(s, n)
		return true
	}
	for collected := false; ; {
		used := b.used.Load()
		if used+n <= b.Limit {
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

// Adjust adds n bytes, which may be negative, to s without checking the
// limit.
func (b *Budget[T]) Adjust(s *Share, n int64) {
	if n != 0 {
		s.n.Add(n)
		b.used.Add(n)
	}
}

// Release gives back everything s holds.
func (b *Budget[T]) Release(s *Share) {
	if s != nil {
		b.used.Add(-s.n.Swap(0))
	}
}

// Used returns the bytes the shares hold now.
func (b *Budget[T]) Used() int64 { return b.used.Load() }
