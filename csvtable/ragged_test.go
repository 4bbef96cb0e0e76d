package csvtable

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
)

// raggedText is a CSV like Debian's distro-info tables: later columns
// are missing from older rows, and one row is too long.
const raggedText = "version,name,eol,eol-esm\n" +
	"4.10,warty,2006-04-30\n" +
	"6.06,dapper,2009-07-14,2011-06-01\n" +
	"7.04,feisty\n" +
	"8.04,hardy,2011-05-12,2013-05-09,extra\n"

// readAll reads every row of src as CSV text, nulls as \N.
func readAll(t *testing.T, src Source) string {
	t.Helper()
	fields := src.Fields()
	cells := make([]Cell, len(fields))
	var b strings.Builder
	for {
		err := src.Next(cells)
		if err == io.EOF {
			return b.String()
		}
		if err != nil {
			t.Fatal(err)
		}
		for i := range cells {
			if i > 0 {
				b.WriteByte(',')
			}
			if cells[i].Null {
				b.WriteString(`\N`)
				continue
			}
			b.Write(AppendText(nil, &fields[i], &cells[i]))
		}
		b.WriteByte('\n')
	}
}

func TestRagged(t *testing.T) {
	// Error, the default: the long and short records are errors naming
	// their line, wrapping ErrRagged.
	_, _, err := Infer(strings.NewReader(raggedText), ',', nil)
	var ce *Error
	if !errors.As(err, &ce) || ce.Line != 2 || !errors.Is(err, ErrRagged) {
		t.Fatalf("Infer: %v, want line 2 wrapping ErrRagged", err)
	}

	// Pad: short records padded with nulls; the long one is still an error.
	_, _, err = Infer(strings.NewReader(raggedText), ',', &ReaderOptions{Ragged: RaggedPad})
	if !errors.As(err, &ce) || ce.Line != 5 || !errors.Is(err, ErrRagged) {
		t.Fatalf("Infer pad: %v, want line 5", err)
	}
	padText := strings.TrimSuffix(raggedText, "8.04,hardy,2011-05-12,2013-05-09,extra\n")
	opts := &ReaderOptions{Ragged: RaggedPad}
	fields, rows, err := Infer(strings.NewReader(padText), ',', opts)
	if err != nil || rows != 3 {
		t.Fatalf("Infer pad: %d rows, %v", rows, err)
	}
	want := []bool{false, false, true, true}
	for i, f := range fields {
		if f.Nullable != want[i] {
			t.Errorf("field %s: nullable %v, want %v", f.Name, f.Nullable, want[i])
		}
	}
	src, err := NewCSVSource(strings.NewReader(padText), fields, ',', opts)
	if err != nil {
		t.Fatal(err)
	}
	// Ubuntu's versions are decimals of scale 2: 4.10 stays 4.10.
	if f := fields[0]; f.Type != Decimal || f.Precision != 3 || f.Scale != 2 {
		t.Errorf("version: %+v, want decimal(3, 2)", f)
	}
	if got, want := readAll(t, src), "4.10,warty,2006-04-30,\\N\n6.06,dapper,2009-07-14,2011-06-01\n7.04,feisty,\\N,\\N\n"; got != want {
		t.Errorf("pad rows:\n%s\nwant\n%s", got, want)
	}
	// A padded cell of a field that is not nullable is an error naming it.
	strict := []Field{{Name: "version", Type: String}, {Name: "name", Type: String}, {Name: "eol", Type: String}, {Name: "eol-esm", Type: String, Nullable: true}}
	src, err = NewCSVSource(strings.NewReader(padText), strict, ',', opts)
	if err != nil {
		t.Fatal(err)
	}
	cells := make([]Cell, 4)
	for err == nil {
		err = src.Next(cells)
	}
	if !errors.As(err, &ce) || ce.Line != 4 || ce.Field != "eol" {
		t.Errorf("padding a non-nullable field: %v, want line 4, field eol", err)
	}

	// Drop: only the records of the header's width are read.
	opts = &ReaderOptions{Ragged: RaggedDrop}
	fields, rows, err = Infer(strings.NewReader(raggedText), ',', opts)
	if err != nil || rows != 1 {
		t.Fatalf("Infer drop: %d rows, %v", rows, err)
	}
	src, err = NewCSVSource(strings.NewReader(raggedText), fields, ',', opts)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := readAll(t, src), "6.06,dapper,2009-07-14,2011-06-01\n"; got != want {
		t.Errorf("drop rows: %q, want %q", got, want)
	}
	rd, err := NewReader(strings.NewReader(raggedText), ',', opts)
	if err != nil {
		t.Fatal(err)
	}
	for err == nil {
		_, err = rd.Read()
	}
	if err != io.EOF || rd.Dropped() != 3 {
		t.Errorf("Dropped %d (%v), want 3", rd.Dropped(), err)
	}
}

func TestNoHeader(t *testing.T) {
	text := "1,a,2.5\n2,,3\n"
	opts := &ReaderOptions{NoHeader: true}
	fields, rows, err := Infer(strings.NewReader(text), ',', opts)
	if err != nil || rows != 2 {
		t.Fatalf("Infer: %d rows, %v", rows, err)
	}
	got := fmt.Sprint(fields[0].Name, fields[0].Type, fields[1].Name, fields[1].Type, fields[1].Nullable, fields[2].Name, fields[2].Type)
	if want := "c1intc2string truec3double"; got != want {
		t.Errorf("fields %s, want %s", got, want)
	}
	src, err := NewCSVSource(strings.NewReader(text), fields, ',', opts)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := readAll(t, src), "1,a,2.5\n2,\\N,3\n"; got != want {
		t.Errorf("rows %q, want %q", got, want)
	}
	// Named by the fields, in order; a first record wider than the fields
	// is an error.
	named := []Field{{Name: "id", Type: Long}, {Name: "s", Type: String}, {Name: "x", Type: Double}}
	src, err = NewCSVSource(strings.NewReader(text), named, ',', opts)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	sink, _ := NewCSVSink(&out, named, ',')
	if _, err := Copy(t.Context(), sink, src, nil); err != nil {
		t.Fatal(err)
	}
	if got, want := out.String(), "id,s,x\n"+text; got != want {
		t.Errorf("named: %q, want %q", got, want)
	}
	if _, err := NewCSVSource(strings.NewReader(text), named[:2], ',', opts); err == nil {
		t.Error("a first record wider than the fields was accepted")
	}
	if _, _, err := Infer(strings.NewReader(""), ',', opts); err == nil {
		t.Error("no record, no header: accepted")
	}
}
