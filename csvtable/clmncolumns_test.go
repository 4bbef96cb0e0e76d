package csvtable

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/trevni-go/trevni/assemble"
	"github.com/trevni-go/trevni/clmn"
	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/shred"
)

// readJSON reads every record of rd as JSON, through the assembler, with
// a filter when where is not "".
func readJSON(t *testing.T, rd *format.Reader, where string) []string {
	t.Helper()
	ar, err := assemble.NewAvroReader(rd, &assemble.Options{Filter: where})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for {
		b, err := ar.ReadJSON(nil)
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(b))
	}
}

// TestCLMNColumnsReadsAsTheTrevniCopy: random CSV tables written as CLMN
// read, through CLMNColumns (the file's columns in place), as the Trevni 2
// file of the same rows (CLMN source to Trevni sink, the copy the front
// door used to make) reads: the same schema, the same records, with and
// without a filter, after seeks, with blocks of many sizes.
func TestCLMNColumnsReadsAsTheTrevniCopy(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for iter := 0; iter < 80; iter++ {
		table := randomCSV(r)
		text := quoteAll(table)
		fields, _, err := Infer(strings.NewReader(text), ',', nil)
		if err != nil {
			t.Fatal(err)
		}
		data := toCLMN(t, text, ForCLMN(fields))
		rd, err := clmn.NewReader(bytes.NewReader(data), int64(len(data)), nil)
		if err != nil {
			t.Fatal(err)
		}
		direct, err := CLMNColumns(rd, nil, []int{0, 16, 1000}[iter%3])
		if err != nil {
			t.Fatal(err)
		}
		src, err := NewCLMNSource(rd, nil)
		if err != nil {
			t.Fatal(err)
		}
		var v2 bytes.Buffer
		sink, err := NewTrevniSink(&v2, src.Fields(), &shred.Options{WriterOptions: format.WriterOptions{BlockSize: 256}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Copy(context.Background(), sink, src, nil); err != nil {
			t.Fatal(err)
		}
		copied, err := format.NewReader(bytes.NewReader(v2.Bytes()), int64(v2.Len()), nil)
		if err != nil {
			t.Fatal(err)
		}
		if a, b := direct.Meta().GetString("avro.schema"), copied.Meta().GetString("avro.schema"); a != b {
			t.Fatalf("iter %d: schema %s, the copy's %s", iter, a, b)
		}
		want := readJSON(t, copied, "")
		got := readJSON(t, direct, "")
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("iter %d:\n got %q\nwant %q", iter, got, want)
		}
		// A filter on the first field, against one of its values.
		if len(want) > 0 {
			ar, err := assemble.NewAvroReader(copied, nil)
			if err != nil {
				t.Fatal(err)
			}
			name := ar.Schema().Fields[0].Name
			rec, err := ar.Read()
			if err != nil {
				t.Fatal(err)
			}
			where := ""
			switch v := rec.(map[string]any)[name].(type) {
			case int32, int64, float64:
				where = name + " >= 0"
			case string:
				where = name + " != '" + strings.ReplaceAll(v, "'", "''") + "'"
			}
			if where != "" {
				if g, w := readJSON(t, direct, where), readJSON(t, copied, where); strings.Join(g, "\n") != strings.Join(w, "\n") {
					t.Fatalf("iter %d, where %s:\n got %q\nwant %q", iter, where, g, w)
				}
			}
			ar, err = assemble.NewAvroReader(direct, nil)
			if err != nil {
				t.Fatal(err)
			}
			for k := 0; k < 4; k++ {
				row := r.IntN(len(want))
				if err := ar.SeekRow(int64(row)); err != nil {
					t.Fatal(err)
				}
				b, err := ar.ReadJSON(nil)
				if err != nil || string(b) != want[row] {
					t.Fatalf("iter %d: record %d after a seek: %s, %v; want %s", iter, row, b, err, want[row])
				}
			}
		}
	}
}
