package csvtable

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/shred"
)

// cutCSV returns a CSV of rows records under a header, with quoted
// cells holding delimiters, quotes and line breaks, empty lines between
// records and both line ends; its fields; the string column's values;
// and the line each record starts on.
func cutCSV(seed uint64, rows int) (string, []Field, []string, []int) {
	r := rand.New(rand.NewPCG(seed, 1))
	fields := []Field{
		{Name: "s", Type: String, Nullable: true},
		{Name: "n", Type: Long},
		{Name: "x", Type: Double, Nullable: true},
		{Name: "b", Type: Boolean},
		{Name: "d", Type: Date},
		{Name: "m", Type: Decimal, Precision: 9, Scale: 2},
	}
	var b strings.Builder
	line := 1
	end := func() {
		if r.IntN(2) == 0 {
			b.WriteString("\r\n")
		} else {
			b.WriteString("\n")
		}
		line++
	}
	b.WriteString(`s,"n",x,b,d,m`)
	end()
	var strs []string
	var starts []int
	pieces := []string{"a", "é", ",", `"`, "\n", "\r\n", " ", "xyz", "0"}
	for i := range rows {
		for r.IntN(10) == 0 {
			end() // an empty line
		}
		starts = append(starts, line)
		var s strings.Builder
		for range r.IntN(6) {
			s.WriteString(pieces[r.IntN(len(pieces))])
		}
		str := s.String()
		if str == "" || strings.ContainsAny(str, ",\"\r\n") || r.IntN(3) == 0 {
			b.WriteString(`"` + strings.ReplaceAll(str, `"`, `""`) + `"`)
			line += strings.Count(str, "\n")
		} else {
			b.WriteString(str)
		}
		// encoding/csv reads a quoted \r\n as \n; an empty cell is null.
		strs = append(strs, strings.ReplaceAll(str, "\r\n", "\n"))
		fmt.Fprintf(&b, ",%d,", r.Int64()-r.Int64())
		if r.IntN(4) > 0 {
			b.WriteString(strconv.FormatFloat(r.NormFloat64()*1e3, 'g', -1, 64))
		}
		fmt.Fprintf(&b, ",%t,%04d-%02d-%02d,%d.%02d", r.IntN(2) == 0, 1900+r.IntN(200), 1+r.IntN(12), 1+r.IntN(28), r.IntN(1e6)-5e5, r.IntN(100))
		if i < rows-1 || r.IntN(2) == 0 {
			end()
		}
	}
	return b.String(), fields, strs, starts
}

// copyCSV writes text to Trevni on workers goroutines, in tiny blocks.
func copyCSV(text string, fields []Field, workers int, ropts *ReaderOptions, ctx context.Context, progress func(int64), tmp string) ([]byte, int64, error) {
	src, err := NewCSVSource(strings.NewReader(text), fields, ',', ropts)
	if err != nil {
		return nil, 0, err
	}
	var buf bytes.Buffer
	sink, err := NewTrevniSink(&buf, fields, &shred.Options{Workers: workers, WriterOptions: format.WriterOptions{Codec: "snappy", Checksum: "crc32", BlockSize: 256, MemoryBudget: 64 << 10, TempDir: tmp}})
	if err != nil {
		return nil, 0, err
	}
	n, err := Copy(ctx, sink, src, &CopyOptions{Progress: progress})
	return buf.Bytes(), n, err
}

// Random CSV written on 1, 2, 3 and 7 workers reads back the same, and
// its strings are the ones written.
func TestParallelCopyProperty(t *testing.T) {
	for seed := range uint64(3) {
		text, fields, strs, _ := cutCSV(seed, 1500)
		var want string
		for _, workers := range []int{1, 2, 3, 7} {
			file, n, err := copyCSV(text, fields, workers, nil, context.Background(), nil, "")
			if err != nil || n != int64(len(strs)) {
				t.Fatalf("seed %d, %d workers: %d rows, %v", seed, workers, n, err)
			}
			got, err := trevniToCSV(t, file, nil)
			if err != nil {
				t.Fatal(err)
			}
			if workers == 1 {
				want = got
				recs := parseAll(t, got)
				if len(recs) != len(strs)+1 {
					t.Fatalf("seed %d: %d records read back, want %d", seed, len(recs)-1, len(strs))
				}
				for i, s := range strs {
					if recs[i+1][0] != s {
						t.Fatalf("seed %d, row %d: string %q, want %q", seed, i, recs[i+1][0], s)
					}
				}
				continue
			}
			if got != want {
				t.Fatalf("seed %d, %d workers: the rows differ from one worker's", seed, workers)
			}
		}
	}
	// Without a header, the first record is a row.
	text, fields, strs, _ := cutCSV(7, 800)
	body := text[strings.IndexByte(text, '\n')+1:]
	ro := &ReaderOptions{NoHeader: true}
	one, n1, err1 := copyCSV(body, fields, 1, ro, context.Background(), nil, "")
	par, n3, err3 := copyCSV(body, fields, 3, ro, context.Background(), nil, "")
	if err1 != nil || err3 != nil || n1 != int64(len(strs)) || n3 != n1 {
		t.Fatalf("no header: %d and %d rows, %v, %v", n1, n3, err1, err3)
	}
	a, _ := trevniToCSV(t, one, nil)
	b, _ := trevniToCSV(t, par, nil)
	if a != b {
		t.Fatal("no header: the rows of 3 workers differ from one worker's")
	}
}

// A bad cell, bad quoting or a record of the wrong width in any range
// gives the error one worker gives, naming the same line.
func TestParallelCopyErrors(t *testing.T) {
	text, fields, _, starts := cutCSV(11, 1500)
	// The start of row i's record in text: after its line's newline.
	lineStart := func(line int) int {
		pos := 0
		for range line - 1 {
			pos += strings.IndexByte(text[pos:], '\n') + 1
		}
		return pos
	}
	for _, row := range []int{0, 700, 1499} {
		pos := lineStart(starts[row])
		for _, bad := range []struct{ name, text string }{
			{"bad long", text[:pos] + "a,x12,1,true,2020-01-01,1.5\n" + text[pos:]},
			{"text after a quoted cell", text[:pos] + "\"a\"b,1,1,true,2020-01-01,1.5\n" + text[pos:]},
			{"ragged", text[:pos] + "a,1,1,true\n" + text[pos:]},
			{"bad decimal", text[:pos] + "a,1,1,true,2020-01-01,1.555\n" + text[pos:]},
			{"not UTF-8", text[:pos] + "a\xff,1,1,true,2020-01-01,1.5\n" + text[pos:]},
		} {
			_, n1, want := copyCSV(bad.text, fields, 1, nil, context.Background(), nil, "")
			if want == nil || !strings.Contains(want.Error(), fmt.Sprintf("line %d", starts[row])) || n1 != int64(row) {
				t.Fatalf("%s at row %d: one worker: %d rows, %v", bad.name, row, n1, want)
			}
			for _, workers := range []int{2, 3, 7} {
				_, n, err := copyCSV(bad.text, fields, workers, nil, context.Background(), nil, "")
				if err == nil || err.Error() != want.Error() || n != n1 {
					t.Fatalf("%s at row %d, %d workers: %d rows, %v; want %d, %v", bad.name, row, workers, n, err, n1, want)
				}
				var e *Error
				if !errors.As(err, &e) {
					t.Fatalf("%s at row %d, %d workers: %v is no *Error", bad.name, row, workers, err)
				}
			}
		}
	}
}

// Cancelling stops the workers, writes nothing and leaves no temporary
// file; --ragged drop stays on one goroutine and counts what it drops.
func TestParallelCopyCancel(t *testing.T) {
	text, fields, strs, _ := cutCSV(5, 3000)
	dir := t.TempDir()
	for _, after := range []int{1, 3, 20} {
		ctx, cancel := context.WithCancel(context.Background())
		calls := 0
		out, _, err := copyCSV(text, fields, 3, nil, ctx, func(int64) {
			if calls++; calls == after {
				cancel()
			}
		}, dir)
		cancel()
		if !errors.Is(err, context.Canceled) || !strings.HasPrefix(err.Error(), "csvtable: copy stopped at row ") || len(out) != 0 {
			t.Fatalf("cancelled after %d segments: %d bytes, %v", after, len(out), err)
		}
		if left, _ := os.ReadDir(dir); len(left) != 0 {
			t.Fatalf("cancelled after %d segments: %d files left in the temporary directory", after, len(left))
		}
	}
	ragged := strings.Replace(text, "\n", "\nshort,1\n", 1)
	src, err := NewCSVSource(strings.NewReader(ragged), fields, ',', &ReaderOptions{Ragged: RaggedDrop})
	if err != nil {
		t.Fatal(err)
	}
	if src.(*csvSource).cuttable() {
		t.Fatal("a source dropping records is cut")
	}
	sink, err := NewTrevniSink(&bytes.Buffer{}, fields, &shred.Options{Workers: 3})
	if err != nil {
		t.Fatal(err)
	}
	n, err := Copy(context.Background(), sink, src, nil)
	if err != nil || n != int64(len(strs)) || src.(*csvSource).Dropped() != 1 {
		t.Fatalf("ragged drop: %d rows, %d dropped, %v", n, src.(*csvSource).Dropped(), err)
	}
}

// The cutter reads a quote inside an unquoted cell as text, as the
// record reader does (12" pizza), so that it cuts where the reader's
// records end: its rows are the reader's, and cutting never stops.
func TestCutterBareQuote(t *testing.T) {
	good := "\"a\"\"\nb\",c\r\n\"\",\"x\"\n\n"
	rest := strings.Repeat("a,\"\n\"\n", 1000)
	for _, in := range []string{good + rest, good + "a,b\"c\n" + rest, good + "12\" pizza,\"x\"\"\"\n" + rest} {
		c := &csvCutter{br: bufio.NewReader(strings.NewReader(in)), comma: []byte{','}}
		r, err := c.cut(nil, 1<<20)
		if err != io.EOF || len(r.Data) != len(in) {
			t.Fatalf("%.30q: %d bytes cut, %v", in, len(r.Data), err)
		}
		rd := newRecordReader(strings.NewReader(in), ',')
		var rows int64
		for {
			if _, err := rd.Read(); err == io.EOF {
				break
			} else if err != nil {
				t.Fatalf("%.30q: %v", in, err)
			}
			rows++
		}
		if r.Rows != rows {
			t.Fatalf("%.30q: %d rows counted, the reader read %d", in, r.Rows, rows)
		}
	}
}

// Infer on 2, 3 and 7 workers, in ranges of 2 KiB, gives one worker's
// fields, count and errors, with and without a header, dropping or
// padding ragged records.
func TestParallelInfer(t *testing.T) {
	text, _, strs, starts := cutCSV(21, 1500)
	run := func(text string, o ReaderOptions, workers int) ([]Field, int64, error) {
		o.Workers = workers
		var in Inferrer
		rows, err := in.add(strings.NewReader(text), ',', &o, 2048)
		if err != nil {
			return nil, rows, err
		}
		return in.Fields(), rows, nil
	}
	pos := 0
	for range starts[900] - 1 {
		pos += strings.IndexByte(text[pos:], '\n') + 1
	}
	body := text[strings.IndexByte(text, '\n')+1:]
	for _, tc := range []struct {
		name string
		text string
		o    ReaderOptions
		rows int64 // -1: an error
	}{
		{"plain", text, ReaderOptions{}, int64(len(strs))},
		{"no header", body, ReaderOptions{NoHeader: true}, int64(len(strs))},
		{"a long", text[:pos] + "a,99999999999,1,true,2020-01-01,1.5\n" + text[pos:], ReaderOptions{}, int64(len(strs)) + 1},
		{"ragged, dropped", text[:pos] + "a,1,1\n" + text[pos:], ReaderOptions{Ragged: RaggedDrop}, int64(len(strs))},
		{"ragged, padded", text[:pos] + "a,1,1\n" + text[pos:], ReaderOptions{Ragged: RaggedPad}, int64(len(strs)) + 1},
		{"ragged", text[:pos] + "a,1,1\n" + text[pos:], ReaderOptions{}, -1},
		{"bare quote", text[:pos] + "a,1\"1,1,true,2020-01-01,1.5\n" + text[pos:], ReaderOptions{}, int64(len(strs)) + 1},
		{"text after a quoted cell", text[:pos] + "a,\"1\"1,1,true,2020-01-01,1.5\n" + text[pos:], ReaderOptions{}, -1},
		{"not UTF-8", text[:pos] + "a\xff,1,1,true,2020-01-01,1.5\n" + text[pos:], ReaderOptions{}, -1},
	} {
		want, n1, err1 := run(tc.text, tc.o, 1)
		if tc.rows >= 0 && (err1 != nil || n1 != tc.rows) || tc.rows < 0 && (err1 == nil || !strings.Contains(err1.Error(), fmt.Sprintf("line %d", starts[900])) || n1 != 900) {
			t.Fatalf("%s: one worker: %d rows, %v", tc.name, n1, err1)
		}
		for _, workers := range []int{2, 3, 7} {
			got, n, err := run(tc.text, tc.o, workers)
			if n != n1 || (err == nil) != (err1 == nil) || err != nil && err.Error() != err1.Error() || fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("%s, %d workers: %d rows, %v, %v; want %d, %v, %v", tc.name, workers, n, err, got, n1, err1, want)
			}
		}
	}
}
