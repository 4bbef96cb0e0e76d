package trevniarrow

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// The buffers of the arrays the builders fill: Go slices, grown by
// appending and handed to Arrow without a copy when a batch is finished.
// Nothing is allocated per value.

// bitmap is an Arrow bitmap being built.
type bitmap struct {
	bits []byte
	n    int
}

func (m *bitmap) append(v bool) {
	if m.n%8 == 0 {
		m.bits = append(m.bits, 0)
	}
	if v {
		m.bits[m.n/8] |= 1 << (m.n % 8)
	}
	m.n++
}

func (m *bitmap) take() *memory.Buffer {
	b := memory.NewBufferBytes(m.bits)
	m.bits, m.n = nil, 0
	return b
}

// validity is a column's validity bitmap: kept only for a nullable column.
type validity struct {
	on    bool
	bits  bitmap
	nulls int
}

func (v *validity) set(ok bool) {
	if !v.on {
		return
	}
	v.bits.append(ok)
	if !ok {
		v.nulls++
	}
}

func (v *validity) take() (*memory.Buffer, int) {
	if !v.on || v.nulls == 0 {
		v.bits.bits, v.bits.n, v.nulls = v.bits.bits[:0], 0, 0
		return nil, 0
	}
	n := v.nulls
	v.nulls = 0
	return v.bits.take(), n
}

// byteSlice views a slice of fixed-width values as bytes, for an Arrow
// buffer.
func byteSlice[T int8 | int32 | int64 | float32 | float64](s []T) []byte {
	return arrow.GetBytes(s)
}

// symbolArray returns an enum's symbols as a string array on Go memory, as
// every array of a batch is (nothing of a batch comes from an allocator).
func symbolArray(syms []string) *array.String {
	offsets := make([]int32, 1, len(syms)+1)
	var data []byte
	for _, sym := range syms {
		data = append(data, sym...)
		offsets = append(offsets, int32(len(data)))
	}
	d := array.NewData(arrow.BinaryTypes.String, len(syms), []*memory.Buffer{nil, memory.NewBufferBytes(byteSlice(offsets)), memory.NewBufferBytes(data)}, nil, 0, 0)
	defer d.Release()
	return array.NewStringData(d)
}
