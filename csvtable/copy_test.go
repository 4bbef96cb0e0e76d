package csvtable

import (
	"context"
	"errors"
	"io"
	"testing"

	"github.com/trevni-go/trevni/schema"
)

// countSource gives n rows of one long field.
type countSource struct{ n, next int64 }

func (s *countSource) Fields() []Field { return []Field{{Name: "i", Type: Long}} }

func (s *countSource) Next(cells []Cell) error {
	if s.next == s.n {
		return io.EOF
	}
	cells[0] = Cell{I: s.next}
	s.next++
	return nil
}

// recordSink counts what Copy does to it.
type recordSink struct {
	rows, sum     int64
	closed, abort bool
}

func (s *recordSink) Write(cells []Cell) error {
	s.rows++
	s.sum += cells[0].I
	return nil
}
func (s *recordSink) Close() error { s.closed = true; return nil }
func (s *recordSink) Abort()       { s.abort = true }

// Copy copies every row and closes the sink, calling Progress every
// checkEvery rows; a context cancelled on the way stops it at the next
// check, with the sink aborted and the rows copied so far counted.
func TestCopyContext(t *testing.T) {
	const n = 3*checkEvery + 17
	var calls []int64
	dst := &recordSink{}
	rows, err := Copy(t.Context(), dst, &countSource{n: n}, &CopyOptions{Progress: func(r int64) { calls = append(calls, r) }})
	if err != nil || rows != n || dst.rows != n || !dst.closed || dst.abort || dst.sum != n*(n-1)/2 {
		t.Fatalf("Copy = %d, %v; sink %+v", rows, err, dst)
	}
	if len(calls) != 3 || calls[0] != checkEvery || calls[2] != 3*checkEvery {
		t.Fatalf("Progress calls %v", calls)
	}

	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	dst = &recordSink{}
	rows, err = Copy(ctx, dst, &countSource{n: n}, &CopyOptions{Progress: func(r int64) {
		if r == 2*checkEvery {
			cancel()
		}
	}})
	if !errors.Is(err, context.Canceled) || rows != 2*checkEvery || dst.rows != rows || dst.closed || !dst.abort {
		t.Fatalf("cancelled Copy = %d, %v; sink %+v", rows, err, dst)
	}

	// Cancelled before it starts: nothing is copied.
	dst = &recordSink{}
	if rows, err := Copy(ctx, dst, &countSource{n: n}, nil); !errors.Is(err, context.Canceled) || rows != 0 || dst.rows != 0 || !dst.abort {
		t.Fatalf("Copy with a done context = %d, %v; sink %+v", rows, err, dst)
	}
}

// AvroNames are the names AvroSchema gives the fields, distinct and valid,
// and neither changes the fields.
func TestAvroNames(t *testing.T) {
	fields := []Field{
		{Name: "a b", Type: Int},
		{Name: "a_b", Type: String, Nullable: true},
		{Name: "1st", Type: Double},
		{Name: "ok", AvroName: "a_b", Type: Long},
		{Name: "", Type: Boolean},
	}
	before := append([]Field(nil), fields...)
	names := AvroNames(fields)
	want := []string{"a_b", "a_b_2", "_1st", "a_b_3", "_"}
	for i := range want {
		if names[i] != want[i] {
			t.Fatalf("AvroNames = %q, want %q", names, want)
		}
	}
	s, err := schema.Parse(AvroSchema("Row", fields))
	if err != nil {
		t.Fatal(err)
	}
	for i, f := range s.Fields {
		if f.Name != names[i] {
			t.Errorf("schema field %d is %q, AvroNames says %q", i, f.Name, names[i])
		}
		if v, ok := f.Prop(NameProp); (names[i] != fields[i].Name) != ok || ok && v != fields[i].Name {
			t.Errorf("field %q: %s = %v, %v", f.Name, NameProp, v, ok)
		}
	}
	for i := range fields {
		if fields[i].AvroName != before[i].AvroName {
			t.Fatalf("field %d's AvroName changed to %q", i, fields[i].AvroName)
		}
	}
}
