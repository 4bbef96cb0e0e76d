package format

import (
	"sync"
	"unsafe"
)

// SharedTables holds the block tables of one file for the Readers opened
// on it again and again (a scan's ranges of rows, each opening the file
// on its own: ReaderOptions.Tables): the first Reader to need a column's
// table reads it, the others use it, not reading it again; one that needs
// it while it is read waits for it. A table is shared only between
// Readers that found the column at the same place in a file of the same
// size and rows (a file rewritten since is read anew); the caller
// shares a SharedTables only between opens of the same file (of one
// version of a remote object). A table that failed to read is not kept:
// the next Reader reads it itself. It is safe for concurrent use.
type SharedTables struct {
	mu      sync.Mutex
	entries map[int]*sharedTable
	room    func(bytes int64) bool
}

// sharedTable is a column's table, read or being read, and what the
// Reader that read it found of the column.
type sharedTable struct {
	size, rows, start, end int64
	codec, checksum        string
	values                 bool
	t                      *blockTable   // nil while read, and when it failed
	ready                  chan struct{} // closed once read or failed
}

// NewSharedTables returns an empty SharedTables. room, when not nil, is
// asked for the bytes of each table before it is kept (a bound on the
// memory of the tables a caller keeps in all): when it says no, the table
// is left to the Reader that read it, and the next Reader reads its own.
func NewSharedTables(room func(bytes int64) bool) *SharedTables {
	return &SharedTables{entries: map[int]*sharedTable{}, room: room}
}

// sharedKey returns what rd found of column i, to match with a shared table.
func (rd *Reader) sharedKey(i int) sharedTable {
	return sharedTable{size: rd.size, rows: rd.rowCount, start: rd.starts[i], end: rd.columnEnd(i),
		codec: rd.ColumnCodec(i), checksum: rd.ColumnChecksum(i), values: rd.cols[i].Values}
}

func (e *sharedTable) sameColumn(k *sharedTable) bool {
	return e.size == k.size && e.rows == k.rows && e.start == k.start && e.end == k.end &&
		e.codec == k.codec && e.checksum == k.checksum && e.values == k.values
}

// table returns column i's table for rd: one read by read (and then
// shared), or the one shared, which it reports.
func (s *SharedTables) table(rd *Reader, i int, read func() *blockTable) (*blockTable, bool) {
	k := rd.sharedKey(i)
	s.mu.Lock()
	e := s.entries[i]
	if e == nil {
		e = &k
		e.ready = make(chan struct{})
		s.entries[i] = e
		s.mu.Unlock()
		t := read()
		s.mu.Lock()
		if t.err == nil && (s.room == nil || s.room(t.bytes())) {
			e.t = t
		} else {
			delete(s.entries, i)
		}
		close(e.ready)
		s.mu.Unlock()
		return t, false
	}
	s.mu.Unlock()
	if e.sameColumn(&k) {
		<-e.ready
		if e.t != nil {
			return e.t, true
		}
	}
	return read(), false
}

// bytes returns about how many bytes the table holds.
func (t *blockTable) bytes() int64 {
	n := int64(unsafe.Sizeof(*t)) + int64(cap(t.blocks))*int64(unsafe.Sizeof(BlockInfo{}))
	for b := range t.blocks {
		n += int64(cap(t.blocks[b].firstValue))
		if s, ok := t.blocks[b].FirstValue.(string); ok {
			n += int64(len(s))
		}
	}
	return n
}
