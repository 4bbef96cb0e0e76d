package csvtable

import (
	"errors"
	"io"
	"math/rand/v2"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/trevni-go/trevni/schema"
)

// wideHeader produces a header row of n columns, c0 to c(n-1), and one
// record, without holding them.
type wideHeader struct {
	n, next int
	buf     []byte
	done    bool
}

func (w *wideHeader) Read(p []byte) (int, error) {
	for len(w.buf) < len(p) && !w.done {
		if w.next > 0 {
			w.buf = append(w.buf, ',')
		}
		w.buf = append(w.buf, 'c')
		w.buf = strconv.AppendInt(w.buf, int64(w.next), 10)
		if w.next++; w.next == w.n {
			w.buf = append(w.buf, '\n', '1')
			for range w.n - 1 {
				w.buf = append(w.buf, ",1"...)
			}
			w.buf = append(w.buf, '\n')
			w.done = true
		}
	}
	if len(w.buf) == 0 {
		return 0, io.EOF
	}
	k := copy(p, w.buf)
	w.buf = w.buf[k:]
	return k, nil
}

// TestHeaderColumnLimit: a header of 3 million columns stops at the limit
// while it is read, with an error naming its line and the first column
// past the limit, in little memory: with MaxColumns 10 and by default.
func TestHeaderColumnLimit(t *testing.T) {
	for _, tc := range []struct {
		max, want int
		alloc     uint64
	}{{10, 10, 64 << 10}, {0, DefaultMaxColumns, 32 << 20}} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		_, _, err := Infer(&wideHeader{n: 3_000_000}, ',', &ReaderOptions{MaxColumns: tc.max})
		runtime.ReadMemStats(&after)
		var e *Error
		if !errors.Is(err, schema.ErrTooLarge) || !errors.As(err, &e) || e.Line != 1 || e.Column != tc.want+1 ||
			!strings.Contains(err.Error(), "more than "+strconv.Itoa(tc.want)+" columns") {
			t.Fatalf("MaxColumns %d: %v", tc.max, err)
		}
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > tc.alloc {
			t.Errorf("MaxColumns %d: %d KiB allocated", tc.max, alloc>>10)
		}
	}
	// A header at the limit is read.
	fields, rows, err := Infer(&wideHeader{n: 1000}, ',', &ReaderOptions{MaxColumns: 1000})
	if err != nil || len(fields) != 1000 || rows != 1 {
		t.Fatalf("1,000 columns at a limit of 1,000: %d fields, %d rows, %v", len(fields), rows, err)
	}
	// NewCSVSource accepts no more header columns than it has fields.
	_, err = NewCSVSource(&wideHeader{n: 3_000_000}, []Field{{Name: "c0", Type: Int}, {Name: "c1", Type: Int}}, ',', nil)
	var e *Error
	if !errors.As(err, &e) || e.Column != 3 {
		t.Fatalf("NewCSVSource: %v", err)
	}
}

// TestHeaderGuardCounts: for random headers with quoted cells holding
// delimiters, quotes, line breaks, empty lines before them and CRLF line
// ends, the count as the bytes go by agrees with encoding/csv's: a limit
// of exactly the header's columns reads it, one less refuses it at the
// line of the column past the limit.
func TestHeaderGuardCounts(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, comma := range []rune{',', '\t', ';', '§', '😀'} {
		sep := string(comma)
		for range 300 {
			var b strings.Builder
			for range r.IntN(3) {
				b.WriteString([]string{"\n", "\r\n"}[r.IntN(2)])
			}
			n := 1 + r.IntN(8)
			line, lines := 1+strings.Count(b.String(), "\n"), []int{}
			for i := range n {
				if i > 0 {
					b.WriteString(sep)
				}
				lines = append(lines, line)
				name := "h" + strconv.Itoa(i)
				switch r.IntN(4) {
				case 0:
					b.WriteString(name)
				case 1:
					b.WriteString(`"` + name + sep + `""x"""`)
				case 2:
					b.WriteString(`"` + name + "\nnext" + sep + `"`)
					line++
				default:
					b.WriteString(`"` + name + `"`)
				}
			}
			b.WriteString([]string{"\n", "\r\n"}[r.IntN(2)])
			b.WriteString("1" + strings.Repeat(sep+"2", n-1) + "\n")
			text := b.String()
			rd, err := NewReader(strings.NewReader(text), comma, &ReaderOptions{MaxColumns: n})
			if err != nil || len(rd.Header()) != n {
				t.Fatalf("%q with limit %d: %v", text, n, err)
			}
			if n == 1 {
				continue
			}
			_, err = NewReader(strings.NewReader(text), comma, &ReaderOptions{MaxColumns: n - 1})
			var e *Error
			if !errors.Is(err, schema.ErrTooLarge) || !errors.As(err, &e) || e.Column != n || e.Line != lines[n-1] {
				t.Fatalf("%q with limit %d: %v (want line %d)", text, n-1, err, lines[n-1])
			}
		}
	}
}
