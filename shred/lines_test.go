package shred

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/linkedin/goavro/v2"

	"github.com/trevni-go/trevni/internal/avrojson"
	"github.com/trevni-go/trevni/internal/testing/avrorand"
	"github.com/trevni-go/trevni/schema"
)

// randomLines returns n random records of a random schema as Avro JSON
// lines, with blank lines among them and no newline after the last.
func randomLines(t *testing.T, seed uint64, n int) (string, *schema.Schema, []byte) {
	t.Helper()
	g := avrorand.New(seed, avrorand.Options{})
	text := g.Schema()
	s, err := schema.Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	c, err := goavro.NewCodec(text)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	for i := 0; i < n; {
		j, err := c.TextualFromNative(nil, g.Value(s))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := avrojson.Decode(s, j); err != nil {
			continue // goavro's JSON of a value Avro's JSON cannot carry (a NaN)
		}
		i++
		b.Write(j)
		if i < n {
			b.WriteString("\n")
		}
		if i%17 == 3 {
			b.WriteString("  \t\n")
		}
	}
	return text, s, b.Bytes()
}

// writeLines writes the lines with WriteLines on the given workers.
func writeLines(text string, s *schema.Schema, in []byte, workers int, progress func(int64, int64)) ([]byte, error) {
	var out bytes.Buffer
	aw, err := NewAvroWriter(&out, text, &Options{WriterOptions: smallBlocks, Workers: workers, Progress: progress})
	if err != nil {
		return nil, err
	}
	decode := func(line []byte) (any, error) { return avrojson.Decode(s, line) }
	if err := aw.WriteLines(context.Background(), bytes.NewReader(in), decode); err != nil {
		aw.Abort()
		return nil, err
	}
	if err := aw.Close(); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// Random records as JSON lines, with blank lines, written on 1, 2, 3 and
// 7 workers in small blocks and ranges: the same records; the last
// progress call counts every record and byte.
func TestWriteLinesParallel(t *testing.T) {
	t.Parallel()
	for seed := range uint64(8) {
		text, s, in := randomLines(t, seed, 400)
		var want string
		for _, workers := range []int{1, 2, 3, 7} {
			var rows, read int64
			out, err := writeLines(text, s, in, workers, func(r, b int64) { rows, read = r, b })
			if err != nil {
				t.Fatalf("seed %d, %d workers: %v", seed, workers, err)
			}
			if rows != 400 || read != int64(len(in)) {
				t.Fatalf("seed %d, %d workers: progress ended at %d rows, %d bytes, want 400, %d", seed, workers, rows, read, len(in))
			}
			got := toJSON(t, out)
			if workers == 1 {
				want = got
			}
			if got != want || strings.Count(got, "\n") != 400 {
				t.Fatalf("seed %d, %d workers: records differ from one worker's", seed, workers)
			}
		}
	}
}

// A line that does not decode, or a record that does not fit the schema,
// anywhere in the input, ends the writing with the error one worker gives
// (the same line and record numbers).
func TestWriteLinesParallelErrors(t *testing.T) {
	const text = `{"type":"record","name":"r","fields":[{"name":"a","type":"long"},{"name":"s","type":"string"}]}`
	s := schema.MustParse(text)
	for _, bad := range []int{0, 777, 2999} {
		for _, kind := range []string{`{"a": 1`, `{"a": "x", "s": "y"}`} {
			var b strings.Builder
			for i := range 3000 {
				if i == bad {
					b.WriteString(kind + "\n")
					continue
				}
				b.WriteString(`{"a": 1, "s": "abcdefgh"}` + "\n\n")
			}
			_, want := writeLines(text, s, []byte(b.String()), 1, nil)
			var le *LineError
			if !errors.As(want, &le) || le.Line != int64(2*bad+1) {
				t.Fatalf("line %d: one worker's error %v", bad, want)
			}
			for _, workers := range []int{2, 7} {
				_, err := writeLines(text, s, []byte(b.String()), workers, nil)
				if err == nil || err.Error() != want.Error() {
					t.Fatalf("%q at line %d, %d workers: error\n%v\nwant\n%v", kind, 2*bad+1, workers, err, want)
				}
			}
		}
	}
}

// failReader fails after its data.
type failReader struct{ r io.Reader }

func (f *failReader) Read(p []byte) (int, error) {
	n, err := f.r.Read(p)
	if err == io.EOF {
		return n, errors.New("disk on fire")
	}
	return n, err
}

// An input that fails to read, or a context cancelled, ends the writing
// with no temporary file left.
func TestWriteLinesParallelStops(t *testing.T) {
	text, s, in := randomLines(t, 3, 3000)
	dir := t.TempDir()
	newWriter := func(workers int, progress func(int64, int64)) *AvroWriter {
		o := &Options{WriterOptions: smallBlocks, Workers: workers, Progress: progress}
		o.TempDir, o.MemoryBudget = dir, 16<<10
		aw, err := NewAvroWriter(io.Discard, text, o)
		if err != nil {
			t.Fatal(err)
		}
		return aw
	}
	decode := func(line []byte) (any, error) { return avrojson.Decode(s, line) }
	var want error
	for _, workers := range []int{1, 3} {
		aw := newWriter(workers, nil)
		err := aw.WriteLines(context.Background(), &failReader{bytes.NewReader(in)}, decode)
		aw.Abort()
		var le *LineError
		if !errors.As(err, &le) || !strings.Contains(err.Error(), "disk on fire") {
			t.Fatalf("%d workers: %v", workers, err)
		}
		if workers == 1 {
			want = err
		} else if err.Error() != want.Error() {
			t.Fatalf("%d workers: %v, want %v", workers, err, want)
		}
		ctx, cancel := context.WithCancel(context.Background())
		var decoded atomic.Int64
		aw = newWriter(workers, nil)
		err = aw.WriteLines(ctx, bytes.NewReader(in), func(line []byte) (any, error) {
			if decoded.Add(1) == 100 {
				cancel()
			}
			return decode(line)
		})
		aw.Abort()
		cancel()
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("%d workers, cancelled: %v", workers, err)
		}
		if left, _ := os.ReadDir(dir); len(left) != 0 {
			t.Fatalf("%d workers: %d files left in the temporary directory", workers, len(left))
		}
	}
}
