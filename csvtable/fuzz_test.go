package csvtable

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/trevni-go/trevni/clmn"
	"github.com/trevni-go/trevni/format"
)

// FuzzCSV converts arbitrary text: bad CSV is an *Error, never a panic;
// good CSV goes to CLMN and to Trevni and comes back with the same values.
func FuzzCSV(f *testing.F) {
	for _, s := range []string{"a,b\n1,x\n", "a\n\"\"\n", "x,y,z\n1,2.5,true\n,,\n", "q\n\"a\"\"b\nc\"\n", "n\n007\n+1\n-0\n1e5\n", "d,t,s\n2004-03-05,10:00:00.5,2004-03-05T10:00:00.123456+01:00\n1969-12-31,23:59:59,1900-01-01T00:00:00Z\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		fields, _, err := Infer(strings.NewReader(text), ',', nil)
		if err != nil {
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("not an *Error: %v", err)
			}
			return
		}
		want, err := csvCells(text, fields)
		if err != nil {
			t.Fatal(err)
		}
		// Trevni.
		var trv bytes.Buffer
		src, err := NewCSVSource(strings.NewReader(text), fields, ',', nil)
		if err != nil {
			t.Fatal(err)
		}
		sink, err := NewTrevniSink(&trv, fields, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Copy(context.Background(), sink, src, nil); err != nil {
			t.Fatal(err)
		}
		rd, err := format.NewReader(bytes.NewReader(trv.Bytes()), int64(trv.Len()), nil)
		if err != nil {
			t.Fatal(err)
		}
		back, err := NewTrevniSource(rd, nil)
		if err != nil {
			t.Fatal(err)
		}
		compareSource(t, back, want)
		// CLMN (strings over 65,535 bytes cannot be stored).
		cf := ForCLMN(fields)
		if want, err = csvCells(text, cf); err != nil {
			t.Fatal(err)
		}
		var cb bytes.Buffer
		src, _ = NewCSVSource(strings.NewReader(text), cf, ',', nil)
		csink, err := NewCLMNSink(&cb, cf, &clmn.WriterOptions{TempDir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Copy(context.Background(), csink, src, nil); err != nil {
			var ce *clmn.Error
			if errors.As(err, &ce) {
				return
			}
			t.Fatal(err)
		}
		cr, err := clmn.NewReader(bytes.NewReader(cb.Bytes()), int64(cb.Len()), nil)
		if err != nil {
			t.Fatal(err)
		}
		cback, err := NewCLMNSource(cr, nil)
		if err != nil {
			t.Fatal(err)
		}
		compareSource(t, cback, want)
	})
}

// csvCells returns every row's cell text as tocsv writes it.
func csvCells(text string, fields []Field) ([][]string, error) {
	src, err := NewCSVSource(strings.NewReader(text), fields, ',', nil)
	if err != nil {
		return nil, err
	}
	return drain(src)
}

func drain(src Source) ([][]string, error) {
	fields := src.Fields()
	cells := make([]Cell, len(fields))
	var rows [][]string
	for {
		err := src.Next(cells)
		if err != nil {
			if err == io.EOF {
				return rows, nil
			}
			return rows, err
		}
		row := make([]string, len(fields))
		for i := range fields {
			row[i] = string(AppendText(nil, &fields[i], &cells[i]))
		}
		rows = append(rows, row)
	}
}

func compareSource(t *testing.T, src Source, want [][]string) {
	t.Helper()
	got, err := drain(src)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("%d rows back, want %d", len(got), len(want))
	}
	for i := range want {
		if strings.Join(got[i], "\x00") != strings.Join(want[i], "\x00") {
			t.Fatalf("row %d: %q, want %q", i, got[i], want[i])
		}
	}
}
