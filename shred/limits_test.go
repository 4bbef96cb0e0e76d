package shred

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/linkedin/goavro/v2"
	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/internal/ocf"
	"github.com/trevni-go/trevni/schema"
	"github.com/trevni-go/trevni/schema/layout"
)

// long appends Avro longs (zigzag varints, as encoding/binary writes them).
func long(b []byte, vs ...int64) []byte {
	for _, v := range vs {
		b = binary.AppendVarint(b, v)
	}
	return b
}

// nestedArrays returns the schema of a record whose one field is an array
// of arrays ... of ints, depth arrays deep.
func nestedArrays(depth int) string {
	return `{"type":"record","name":"R","fields":[{"name":"a","type":` +
		strings.Repeat(`{"type":"array","items":`, depth) + `"int"` + strings.Repeat(`}`, depth) + `}]}`
}

// TestDeepNesting checks that nesting is bounded by the layout, whatever
// the records claim: a schema nested deeper than layout.Options.MaxDepth
// is refused unless the option raises the limit, and the value walks of
// both paths, bound to the layout, go as deep as the schema and report
// the whole path of a bad value.
func TestDeepNesting(t *testing.T) {
	const depth = layout.DefaultMaxDepth + 200
	text := nestedArrays(depth)
	if _, err := NewAvroWriter(io.Discard, text, nil); !errors.Is(err, layout.ErrTooLarge) {
		t.Fatalf("a schema %d deep: %v, want ErrTooLarge", depth, err)
	}
	opts := &Options{Layout: &layout.Options{MaxDepth: depth + 10}}
	var out bytes.Buffer
	aw, err := NewAvroWriter(&out, text, opts)
	if err != nil {
		t.Fatal(err)
	}
	// One record: a single int at the bottom, as goavro values and binary.
	var v any = int32(7)
	for range depth {
		v = []any{v}
	}
	if err := aw.Write(map[string]any{"a": v}); err != nil {
		t.Fatal(err)
	}
	record := func(bottom int64) []byte {
		var bin []byte
		for range depth {
			bin = long(bin, 1)
		}
		bin = long(bin, bottom)
		for range depth {
			bin = long(bin, 0)
		}
		return bin
	}
	if err := aw.WriteBinary(record(-7)); err != nil {
		t.Fatal(err)
	}
	// A bad value at the bottom is reported with its whole path.
	wantPath := "a" + strings.Repeat("[0]", depth)
	var se *schema.Error
	if err := aw.WriteBinary(record(1 << 40)); !errors.As(err, &se) || se.Path != wantPath || se.Record != 2 ||
		!errors.Is(err, ErrBinary) || !strings.Contains(err.Error(), "out of range") {
		t.Fatalf("an int out of range at the bottom: %v", err)
	}
	var badValue any = "seven"
	for range depth {
		badValue = []any{badValue}
	}
	if err := aw.Write(map[string]any{"a": badValue}); !errors.As(err, &se) || se.Path != wantPath || se.Record != 2 {
		t.Fatalf("a string for the bottom int: %v", err)
	}
	// A value that contains itself goes no deeper than the schema.
	cyclic := []any{nil}
	cyclic[0] = cyclic
	if err := aw.Write(map[string]any{"a": cyclic}); !errors.As(err, &se) || se.Path != wantPath {
		t.Fatalf("a cyclic value: %v", err)
	}
	if err := aw.Close(); err != nil {
		t.Fatal(err)
	}
	if aw.RowCount() != 2 {
		t.Fatalf("%d rows, want 2", aw.RowCount())
	}
	rd, err := format.NewReader(bytes.NewReader(out.Bytes()), int64(out.Len()), nil)
	if err != nil {
		t.Fatal(err)
	}
	if rd.RowCount() != 2 || rd.NumColumns() != depth {
		t.Fatalf("%d rows, %d columns", rd.RowCount(), rd.NumColumns())
	}
}

// TestLyingCounts gives WriteBinary records whose counts and lengths claim
// far more than their bytes hold: each must fail at once, allocating next
// to nothing, and writing must go on.
func TestLyingCounts(t *testing.T) {
	const text = `{"type":"record","name":"R","fields":[
		{"name":"s","type":"string"},
		{"name":"ints","type":{"type":"array","items":"int"}},
		{"name":"recs","type":{"type":"array","items":{"type":"record","name":"P","fields":[{"name":"x","type":"long"}]}}},
		{"name":"m","type":{"type":"map","values":{"type":"map","values":"null"}}},
		{"name":"nulls","type":{"type":"array","items":{"type":"array","items":"null"}}},
		{"name":"empty","type":{"type":"array","items":{"type":"record","name":"E","fields":[]}}},
		{"name":"u","type":["null","string"]}]}`
	codec, err := goavro.NewCodec(text)
	if err != nil {
		t.Fatal(err)
	}
	good, err := codec.BinaryFromNative(nil, map[string]any{
		"s": "x", "ints": []any{1, 2}, "recs": []any{map[string]any{"x": 3}},
		"m":     map[string]any{"k": map[string]any{"a": nil}},
		"nulls": []any{[]any{nil, nil}}, "empty": []any{map[string]any{}}, "u": map[string]any{"string": "y"},
	})
	if err != nil {
		t.Fatal(err)
	}
	tail := long(nil, 0, 0, 0, 0, 0, 0) // ints, recs, m, nulls, empty, u: all empty/null
	huge := int64(1) << 62
	cases := []struct {
		name string
		rec  []byte
		want string
	}{
		{"string length 2^62", append(long(nil, huge), tail...), "length"},
		{"negative string length", append(long(nil, -5), tail...), "length"},
		{"int block count 2^62", append(long(nil, 0, huge), long(nil, 0, 0, 0, 0, 0)...), "block count"},
		{"record block count 2^62", append(long(nil, 0, 0, huge), long(nil, 0, 0, 0, 0)...), "block count"},
		{"negative block count -2^62", append(long(nil, 0, -huge, 8), make([]byte, 8)...), "block count"},
		{"most negative block count", long(nil, 0, math.MinInt64), "block count"},
		{"negative block size", append(long(nil, 0, -2, -3, 1, 2, 0), long(nil, 0, 0, 0, 0, 0)...), "block size"},
		{"block size past the end", append(long(nil, 0, -2, 1000, 1, 2, 0), long(nil, 0, 0, 0, 0, 0)...), "block size"},
		{"map block count 2^62", append(long(nil, 0, 0, 0, huge), long(nil, 0, 0, 0)...), "block count"},
		{"null items 2^62", append(long(nil, 0, 0, 0, 0, 1, huge), long(nil, 0, 0, 0, 0)...), "items of no bytes"},
		{"empty records 2^62", append(long(nil, 0, 0, 0, 0, 0, huge), long(nil, 0, 0)...), "items of no bytes"},
		{"union branch 2^62", long(nil, 0, 0, 0, 0, 0, 0, huge), "union branch"},
	}
	// Blocks of null items, each within the limit, that add up past it:
	// the limit holds for the record, not the block.
	many := long(nil, 0, 0, 0, 0, 4) // s, ints, recs, m; four inner arrays
	for range 4 {
		many = long(many, MaxEmptyItems/3, 0)
	}
	many = long(many, 0, 0, 0)
	cases = append(cases, struct {
		name string
		rec  []byte
		want string
	}{"null items adding up", many, "items of no bytes"})

	aw, err := NewAvroWriter(io.Discard, text, &Options{WriterOptions: format.WriterOptions{Concurrency: 1}})
	if err != nil {
		t.Fatal(err)
	}
	defer aw.Abort()
	if err := aw.WriteBinary(good); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		start := time.Now()
		err := aw.WriteBinary(c.rec)
		elapsed := time.Since(start)
		runtime.ReadMemStats(&after)
		var se *schema.Error
		if !errors.As(err, &se) || se.Record != 1 || !errors.Is(err, ErrBinary) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want a record error about the %s", c.name, err, c.want)
		}
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<10 {
			t.Errorf("%s: allocated %d bytes", c.name, grew)
		}
		if elapsed > 60*time.Second {
			t.Errorf("%s: took %v", c.name, elapsed)
		}
	}
	if err := aw.WriteBinary(good); err != nil {
		t.Fatalf("after the lying records: %v", err)
	}
	// Up to the limit, items of no bytes are fine.
	ok := long(nil, 0, 0, 0, 0, 2, MaxEmptyItems/2, 0, MaxEmptyItems/2, 0, 0, 0, 0)
	if err := aw.WriteBinary(ok); err != nil {
		t.Fatalf("%d null items: %v", MaxEmptyItems, err)
	}
	if aw.RowCount() != 3 {
		t.Fatalf("%d rows, want 3", aw.RowCount())
	}
}

// TestBlockedEncodingSkipped checks map values in blocks with byte sizes
// (Java's blocking encoder) that the map's listing passes over and then
// decodes: a size that disagrees with the items is not followed.
func TestBlockedEncodingSkipped(t *testing.T) {
	const text = `{"type":"map","values":{"type":"array","items":"long"}}`
	write := func(rec []byte, value any) []byte {
		var out bytes.Buffer
		aw, err := NewAvroWriter(&out, text, nil)
		if err != nil {
			t.Fatal(err)
		}
		if rec != nil {
			err = aw.WriteBinary(rec)
		} else {
			err = aw.Write(value)
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := aw.Close(); err != nil {
			t.Fatal(err)
		}
		return out.Bytes()
	}
	want := write(nil, map[string]any{"b": []any{int64(1), int64(2)}, "a": []any{int64(3)}})
	// {"b": [1, 2], "a": [3]}, the arrays in blocks with their sizes.
	rec := long(nil, 2)
	rec = long(append(long(rec, 1), 'b'), -2, 2, 1, 2, 0)
	rec = long(append(long(rec, 1), 'a'), -1, 1, 3, 0)
	rec = long(rec, 0)
	if got := write(rec, nil); !bytes.Equal(got, want) {
		t.Fatal("the blocked encoding wrote another file")
	}
	// The same with the first block's size claiming one byte too few: the
	// items are read all the same, and the record is the same.
	lie := bytes.Clone(rec)
	lie[4] = 2 // the size 2 -> 1 (zigzag)
	if got := write(lie, nil); !bytes.Equal(got, want) {
		t.Fatal("a lying block size changed the file")
	}
}

// TestContainerContext checks that FromContainer stops between blocks
// when its context is cancelled, and reports progress after each block.
func TestContainerContext(t *testing.T) {
	const text = `{"type":"record","name":"R","fields":[{"name":"x","type":"long"}]}`
	var container bytes.Buffer
	cw, err := ocf.NewWriter(&container, text, ocf.WriterOptions{Codec: "null"})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 10 { // ten blocks of ten records
		var block []byte
		for j := range 10 {
			block = long(block, int64(10*i+j))
		}
		if err := cw.WriteBlock(10, block); err != nil {
			t.Fatal(err)
		}
	}
	if err := cw.Close(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var calls []int64
	// One worker: progress after every block (several report after
	// every range; TestParallelCancel cancels them).
	opts := &Options{Workers: 1, Progress: func(rows, bytesIn int64) {
		calls = append(calls, rows)
		if rows == 30 {
			cancel()
		}
	}}
	n, err := FromContainer(ctx, io.Discard, bytes.NewReader(container.Bytes()), opts)
	if !errors.Is(err, context.Canceled) || n != 30 {
		t.Fatalf("cancelled after 30 rows: %d rows, %v", n, err)
	}
	if len(calls) != 3 || calls[0] != 10 || calls[2] != 30 {
		t.Fatalf("progress calls %v", calls)
	}
	calls = nil
	opts.Progress = func(rows, bytesIn int64) { calls = append(calls, rows) }
	if n, err := FromContainer(context.Background(), io.Discard, bytes.NewReader(container.Bytes()), opts); err != nil || n != 100 || len(calls) != 10 {
		t.Fatalf("%d rows, %d progress calls: %v", n, len(calls), err)
	}
}

// fuzzSchema has a value of every kind, nested: unions, maps, arrays of
// records, fixed, enums.
const fuzzSchema = `{"type":"record","name":"F","fields":[
	{"name":"i","type":"int"},
	{"name":"b","type":"boolean"},
	{"name":"d","type":"double"},
	{"name":"e","type":{"type":"enum","name":"E","symbols":["A","B"]}},
	{"name":"x","type":{"type":"fixed","name":"X","size":2}},
	{"name":"u","type":["null","string",{"type":"array","items":"long"}]},
	{"name":"m","type":{"type":"map","values":{"type":"array","items":["null","float"]}}},
	{"name":"r","type":{"type":"array","items":{"type":"record","name":"P","fields":[
		{"name":"s","type":"string"},{"name":"n","type":"null"}]}}}]}`

// FuzzWriteBinary checks that WriteBinary never panics, and that a record
// it takes is one goavro decodes, whole, to a value that Write turns into
// the same file.
func FuzzWriteBinary(f *testing.F) {
	codec, err := goavro.NewCodec(fuzzSchema)
	if err != nil {
		f.Fatal(err)
	}
	seed, err := codec.BinaryFromNative(nil, map[string]any{
		"i": 5, "b": true, "d": 1.5, "e": "B", "x": []byte("hi"),
		"u": map[string]any{"array": []any{int64(1), int64(-2)}},
		"m": map[string]any{"z": []any{nil, map[string]any{"float": float32(2)}}, "a": []any{}},
		"r": []any{map[string]any{"s": "t", "n": nil}},
	})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	f.Add(seed[:len(seed)/2])
	f.Add(long(nil, 0, 0, 0, 0, 0, 0, 0, 0, 1<<62))
	f.Add(long(nil, 0, 0, 0, 0, 0, 0, 0, 0, -(1 << 62), 3))
	f.Fuzz(func(t *testing.T, data []byte) {
		var fast, slow bytes.Buffer
		fw, err := NewAvroWriter(&fast, fuzzSchema, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer fw.Abort()
		if err := fw.WriteBinary(data); err != nil {
			var se *schema.Error
			if !errors.As(err, &se) || se.Record != 0 {
				t.Fatalf("error is not a record error: %v", err)
			}
			return
		}
		v, rest, err := codec.NativeFromBinary(data)
		if err != nil && strings.Contains(err.Error(), "duplicate key") {
			return // goavro refuses maps with equal keys; the last is kept here, as Java's HashMap would
		}
		if err != nil || len(rest) != 0 {
			t.Fatalf("WriteBinary took % x, which goavro does not decode whole: %v, %d bytes left", data, err, len(rest))
		}
		sw, err := NewAvroWriter(&slow, fuzzSchema, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer sw.Abort()
		if err := sw.Write(v); err != nil {
			t.Fatalf("Write of goavro's value %v: %v", v, err)
		}
		if err := fw.Close(); err != nil {
			t.Fatal(err)
		}
		if err := sw.Close(); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(fast.Bytes(), slow.Bytes()) {
			t.Fatalf("% x: WriteBinary and Write of goavro's value make different files", data)
		}
	})
}
