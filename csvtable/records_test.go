package csvtable

import (
	"errors"
	"io"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// TestRecordReader checks the reading of quotes and line breaks where
// RFC 4180 leaves room, as DuckDB's read_csv reads them (the command's
// TestCSVAsDuckDB compares with DuckDB itself): quotes inside an unquoted
// cell are text, CR LF inside a quoted cell is kept, and a quoted cell
// followed by text, or never closed, is an error naming its place.
func TestRecordReader(t *testing.T) {
	in := "a,b\r\n" +
		"12\" pizza,x\"y\"\n" +
		"\"a\r\nb\",\"c\nd\"\n" +
		"\n" +
		"\"say \"\"hi\"\"\",\"\"\n" +
		"é;,\"\"\"\"\r"
	want := [][]string{{"a", "b"}, {"12\" pizza", "x\"y\""}, {"a\r\nb", "c\nd"}, {"say \"hi\"", ""}, {"é;", "\""}}
	lines := []int{1, 2, 3, 7, 8}
	rd := newRecordReader(strings.NewReader(in), ',')
	for i := range want {
		rec, err := rd.Read()
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(rec, want[i]) {
			t.Errorf("record %d: %q, want %q", i, rec, want[i])
		}
		if line, _ := rd.FieldPos(0); line != lines[i] {
			t.Errorf("record %d starts on line %d, want %d", i, line, lines[i])
		}
	}
	if _, err := rd.Read(); err != io.EOF {
		t.Errorf("after the last: %v", err)
	}
	if rd.InputOffset() != int64(len(in)) {
		t.Errorf("offset %d, want %d", rd.InputOffset(), len(in))
	}
	for _, tc := range []struct {
		in        string
		line, col int
		err       error
	}{
		{"a,b\n\"x\"y,z\n", 2, 4, errQuote},
		{"a,b\n1,\"x\ny\n", 2, 3, errOpenQuote},
	} {
		rd := newRecordReader(strings.NewReader(tc.in), ',')
		var err error
		for err == nil {
			_, err = rd.Read()
		}
		var e *Error
		if !errors.As(err, &e) || e.Line != tc.line || e.Column != tc.col || !errors.Is(err, tc.err) {
			t.Errorf("%q: %v, want line %d column %d: %v", tc.in, err, tc.line, tc.col, tc.err)
		}
	}
}

// The record reader reads random inputs (delimiters, quotes, doubled
// quotes, CR, LF and CR LF, multi-byte text, lines longer than the
// bufio.Reader's buffer; with ',', ';', '\t' and the two-byte '¦' as the
// delimiter) exactly as refRecordReader, the reader before it scanned a
// record's lines in one buffer, does: the same records, the same
// positions of every cell, the same offsets, the same errors at the same
// places.
func TestRecordReaderAsBefore(t *testing.T) {
	rng := rand.New(rand.NewPCG(38, 1))
	pieces := []string{"a", "bc", "é", "12", ",", ";", "\t", "¦", "\"", "\"\"", "\n", "\r\n", "\r", " ", "x\"y"}
	for n := range 4000 {
		comma := []rune{',', ';', '\t', '¦'}[n%4]
		var b strings.Builder
		for range rng.IntN(60) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		if n%50 == 0 {
			b.WriteString(strings.Repeat("long,\"", 1500)) // past bufio's 4096 bytes
		}
		in := b.String()
		got, want := newRecordReader(strings.NewReader(in), comma), newRefRecordReader(strings.NewReader(in), comma)
		for rec := 0; ; rec++ {
			g, gerr := got.Read()
			w, werr := want.Read()
			if !reflect.DeepEqual(gerr, werr) {
				t.Fatalf("%q, delimiter %q, record %d: error %v, want %v", in, comma, rec, gerr, werr)
			}
			if !reflect.DeepEqual(g, w) {
				t.Fatalf("%q, delimiter %q, record %d: %q, want %q", in, comma, rec, g, w)
			}
			if got.InputOffset() != want.InputOffset() {
				t.Fatalf("%q, record %d: offset %d, want %d", in, rec, got.InputOffset(), want.InputOffset())
			}
			if gerr != nil {
				break
			}
			for i := -1; i <= len(g); i++ {
				gl, gc := got.FieldPos(i)
				wl, wc := want.FieldPos(i)
				if gl != wl || gc != wc {
					t.Fatalf("%q, record %d, cell %d: at %d:%d, want %d:%d", in, rec, i, gl, gc, wl, wc)
				}
			}
		}
	}
}
