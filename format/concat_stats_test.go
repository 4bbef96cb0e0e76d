package format_test

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/trevni-go/trevni/assemble"
	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/format/stats"
	"github.com/trevni-go/trevni/predicate"
	"github.com/trevni-go/trevni/schema"
	"github.com/trevni-go/trevni/schema/layout"
	"github.com/trevni-go/trevni/shred"
)

// emailParts reads Java's email data set (a file without statistics) and
// writes its records again, split in three, as Go files with statistics
// and small blocks, each with another codec and checksum.
func emailParts(t *testing.T) (java []byte, parts [][]byte, recs []any, schemaText string) {
	t.Helper()
	java, err := os.ReadFile(filepath.Join(concatInterop, "email", "email.null.none.trv"))
	if err != nil {
		t.Fatal(err)
	}
	st, err := os.ReadFile(filepath.Join(concatInterop, "email", "schema.avsc"))
	if err != nil {
		t.Fatal(err)
	}
	schemaText = string(st)
	ar, err := assemble.NewAvroReader(openBytes(t, java), nil)
	if err != nil {
		t.Fatal(err)
	}
	for rec, err := range ar.All() {
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, rec)
	}
	cuts := []int{0, 90, 200, len(recs)}
	for k, o := range []format.WriterOptions{
		{Codec: "null", Checksum: "crc32", BlockSize: 300},
		{Codec: "deflate", Checksum: "null", BlockSize: 200},
		{Codec: "snappy", Checksum: "crc32", BlockSize: 400},
	} {
		var buf bytes.Buffer
		aw, err := shred.NewAvroWriter(&buf, schemaText, &shred.Options{WriterOptions: o})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range recs[cuts[k]:cuts[k+1]] {
			if err := aw.Write(r); err != nil {
				t.Fatal(err)
			}
		}
		if err := aw.Close(); err != nil {
			t.Fatal(err)
		}
		parts = append(parts, buf.Bytes())
	}
	return java, parts, recs, schemaText
}

// fileStats returns the statistics FileStats finds for every column.
func fileStats(t *testing.T, rd *format.Reader) []*predicate.ColumnStats {
	t.Helper()
	out := make([]*predicate.ColumnStats, rd.NumColumns())
	for c := range out {
		cs, err := predicate.FileStats(rd, c, nil)
		if err != nil {
			t.Fatalf("column %d: %v", c, err)
		}
		out[c] = cs
	}
	return out
}

// filtered returns the records (as Avro JSON) that a filtered AvroReader
// returns, and those a brute-force evaluation of the predicate on every
// record of the file keeps.
func filtered(t *testing.T, data []byte, expr string, s *schema.Schema, l *layout.Layout) (got, want []string) {
	t.Helper()
	ar, err := assemble.NewAvroReader(openBytes(t, data), &assemble.Options{Filter: expr})
	if err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	var buf []byte
	for {
		buf, err = ar.ReadJSON(buf[:0])
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("%s: %v", expr, err)
		}
		got = append(got, string(buf))
	}
	p, err := predicate.Compile(expr, s, l)
	if err != nil {
		t.Fatal(err)
	}
	all := records(t, openBytes(t, data))
	natives, err := assemble.NewAvroReader(openBytes(t, data), nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; ; i++ {
		rec, err := natives.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if ok, err := p.Match(rec); err != nil {
			t.Fatal(err)
		} else if ok {
			want = append(want, all[i])
		}
	}
	return got, want
}

// TestConcatStats: the joined file's statistics are the parts'
// statistics in block order, whatever happens to the blocks (copied,
// checksum dropped or added, compressed again); a part without
// statistics (Java's) leaves every column without them; filters over
// either join keep exactly the records a brute-force filter keeps.
func TestConcatStats(t *testing.T) {
	java, parts, _, schemaText := emailParts(t)
	s, err := schema.Parse(schemaText)
	if err != nil {
		t.Fatal(err)
	}
	l, err := layout.New(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	var want [][]predicate.ColumnStats // column, then part
	for k, p := range parts {
		for c, cs := range fileStats(t, openBytes(t, p)) {
			if cs == nil {
				t.Fatalf("part %d column %d: no statistics", k, c)
			}
			if k == 0 {
				want = append(want, nil)
			}
			want[c] = append(want[c], *cs)
		}
	}
	exprs := []string{
		"id > 10 AND id < 500",
		"date < 0 OR from = 'trevni'",
		"received.sigs.algo = 'foo'",
		"NOT (received.host >= 'm') AND id != 7",
		"to IS NULL OR content IN ('naïve', 'tab\there')",
		"received.date > 4000000000000000000",
	}
	for _, order := range [][]int{{0, 1, 2}, {2, 0, 1}, {1, 1}} {
		var in [][]byte
		for _, k := range order {
			in = append(in, parts[k])
		}
		joined := concatBytes(t, in...)
		rd := openBytes(t, joined)
		for c, cs := range fileStats(t, rd) {
			if cs == nil {
				t.Fatalf("%v: column %d: no statistics in the joined file", order, c)
			}
			var blocks []stats.Block
			var first int64
			var firsts []int64
			for _, k := range order {
				p := want[c][k]
				for b := range p.Blocks {
					blocks = append(blocks, p.Blocks[b])
					firsts = append(firsts, first+p.FirstRows[b])
				}
				first += openBytes(t, parts[k]).RowCount()
			}
			if !reflect.DeepEqual(cs.Blocks, blocks) || !slices.Equal(cs.FirstRows, firsts) {
				t.Fatalf("%v: column %d: the joined statistics differ from the parts'", order, c)
			}
		}
		for _, e := range exprs {
			if got, want := filtered(t, joined, e, s, l); !slices.Equal(got, want) {
				t.Fatalf("%v: %s: %d records, brute force %d", order, e, len(got), len(want))
			}
		}
	}
	// A single part with statistics comes out byte for byte, as Java's do.
	for k, p := range parts {
		if !bytes.Equal(concatBytes(t, p), p) {
			t.Fatalf("part %d alone: Concat differs from it", k)
		}
	}
	// Java's part, anywhere, has no statistics: no column may claim any.
	for _, in := range [][][]byte{{parts[0], java, parts[2]}, {java, parts[1]}, {parts[2], java}} {
		joined := concatBytes(t, in...)
		for c, cs := range fileStats(t, openBytes(t, joined)) {
			if cs != nil {
				t.Fatalf("column %d has statistics though a part has none", c)
			}
		}
		for _, e := range exprs {
			if got, want := filtered(t, joined, e, s, l); !slices.Equal(got, want) || len(want) == 0 && e == exprs[0] {
				t.Fatalf("%s: %d records, brute force %d", e, len(got), len(want))
			}
		}
	}
}
