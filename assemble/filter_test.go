package assemble

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/linkedin/goavro/v2"
	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/internal/testing/avrorand"
	"github.com/trevni-go/trevni/internal/testing/longtest"
	"github.com/trevni-go/trevni/internal/testing/predrand"
	"github.com/trevni-go/trevni/predicate"
	"github.com/trevni-go/trevni/schema"
	"github.com/trevni-go/trevni/schema/layout"
	"github.com/trevni-go/trevni/shred"
)

// newExprs returns a generator of random filter expressions over the
// records recs of s, each checked to compile, and s's layout.
func newExprs(t *testing.T, r *rand.Rand, s *schema.Schema, recs []any) (*predrand.Generator, *layout.Layout) {
	t.Helper()
	l, err := layout.New(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	g := predrand.New(r, s, recs)
	g.Check = func(e string) error {
		_, err := predicate.Compile(e, s, l)
		return err
	}
	return g, l
}

// filterTally counts what the property tests saw, so that they can check
// that filters both kept and dropped rows, and that blocks were skipped.
type filterTally struct {
	exprs, matched, dropped, skipped, pruned int
	proven                                   int64 // rows the statistics proved to match (ScanReport.RowsProven)
}

// checkFilter reads the file unfiltered, filters its records by brute
// force with the predicate, and compares with a filtered read (ReadBinary,
// Read and Validate), for n random expressions drawn on r. It returns the
// records.
func checkFilter(t *testing.T, file []byte, r *rand.Rand, n int, tally *filterTally) []any {
	t.Helper()
	rd := openBytes(t, file)
	all, err := NewAvroReader(rd, nil)
	if err != nil {
		t.Fatal(err)
	}
	var bins [][]byte
	var natives []any
	for {
		b, err := all.ReadBinary(nil)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		bins = append(bins, b)
	}
	all2, _ := NewAvroReader(rd, nil)
	for v, err := range all2.All() {
		if err != nil {
			t.Fatal(err)
		}
		natives = append(natives, v)
	}
	g, l := newExprs(t, r, all.fileSchema, natives)
	if len(g.Paths()) == 0 {
		return natives
	}
	for range n {
		src := g.Expr(2)
		p, err := predicate.Compile(src, all.fileSchema, l)
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		var want [][]byte
		for i, v := range natives {
			ok, err := p.Match(v)
			if err != nil {
				t.Fatalf("%s: record %d: %v", src, i, err)
			}
			if ok {
				want = append(want, bins[i])
			}
		}
		fr, err := NewAvroReader(rd, &Options{Filter: src})
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		var got [][]byte
		for {
			b, err := fr.ReadBinary(nil)
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", src, err)
			}
			got = append(got, b)
		}
		if len(got) != len(want) {
			t.Fatalf("%s: %d records, brute force %d", src, len(got), len(want))
		}
		for i := range got {
			if !bytes.Equal(got[i], want[i]) {
				t.Fatalf("%s: record %d differs", src, i)
			}
		}
		rep := fr.Report()
		if rep.RowsMatched != int64(len(want)) || rep.RowsScanned > int64(len(natives)) || rep.RowsScanned < rep.RowsMatched {
			t.Fatalf("%s: report %+v, want %d matched of %d", src, rep, len(want), len(natives))
		}
		for _, c := range rep.Columns {
			// A column the filter and the output both read is read once.
			if c.BlocksRead > c.Blocks {
				t.Fatalf("%s: column %s: %d of %d blocks read", src, c.Name, c.BlocksRead, c.Blocks)
			}
			tally.skipped += c.BlocksSkipped
		}
		if rep.RowsScanned < int64(len(natives)) {
			tally.pruned++
		}
		tally.proven += rep.RowsProven
		tally.exprs++
		tally.matched += len(want)
		tally.dropped += len(natives) - len(want)
		// Read and Validate see the same records.
		vr, _ := NewAvroReader(rd, &Options{Filter: src})
		k := 0
		for _, err := range vr.All() {
			if err != nil {
				t.Fatalf("%s: Read: %v", src, err)
			}
			k++
		}
		if k != len(want) {
			t.Fatalf("%s: Read returned %d records, want %d", src, k, len(want))
		}
		if err := vr.SeekRow(0); err != nil {
			t.Fatal(err)
		}
		if err := vr.Validate(t.Context()); err != nil {
			t.Fatalf("%s: Validate: %v", src, err)
		}
		if vr.Report().RowsMatched != int64(2*len(want)) {
			t.Fatalf("%s: Validate checked %d records, want %d", src, vr.Report().RowsMatched-int64(len(want)), len(want))
		}
	}
	return natives
}

// The property: over random schemas and data, written with statistics,
// without, and with string bounds cut to one byte (inexact), and with
// small blocks so that there is much to skip, a filtered read returns
// exactly the records a brute-force filter keeps. For half the schemas,
// so do the rows NextMatch finds, read schema-less (checkNextMatchRows:
// trevni dump --where's path).
func TestPropertyFilterNeverDropsAMatch(t *testing.T) {
	t.Parallel()
	nschemas, nrecs := propertyScale()
	var tally, rowsTally filterTally
	for i := range nschemas {
		seed := uint64(7000 + i)
		r := rand.New(rand.NewPCG(seed, 3))
		f := newFixture(t, i, seed, r, 4*nrecs)
		for _, mode := range []string{"stats", "none", "inexact"} {
			opts := &shred.Options{WriterOptions: format.WriterOptions{
				Codec:     []string{"null", "deflate", "snappy"}[r.IntN(3)],
				BlockSize: []int{1, 16, 64, 256}[r.IntN(4)],
			}}
			switch mode {
			case "none":
				opts.DisableStats = true
			case "inexact":
				opts.StatsMaxLen = 1
			}
			file := shredFast(t, f, opts)
			checkFilter(t, file, rand.New(rand.NewPCG(seed, 5)), 4, &tally)
			if i%2 == 0 {
				checkNextMatchRows(t, openBytes(t, file), f.recs, mode, rand.New(rand.NewPCG(seed, 6)), &rowsTally)
			}
		}
	}
	t.Logf("%+v; NextMatch with rows: %+v", tally, rowsTally)
	for _, tl := range []filterTally{tally, rowsTally} {
		if tl.matched == 0 || tl.dropped == 0 || tl.skipped == 0 || tl.pruned == 0 {
			t.Fatalf("the filters never kept, dropped or skipped: %+v", tl)
		}
	}
	if tally.proven == 0 {
		t.Fatalf("the statistics never proved a filter: %+v", tally)
	}
}

// TestFilterJavaFiles filters the records of Java-written files (without
// statistics: only what the predicate proves by itself may be skipped,
// such as a field of type null that IS NOT NULL) and compares with brute
// force, as well as the rows NextMatch finds, read schema-less. The
// vectors' other variants hold the same data.
func TestFilterJavaFiles(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join("..", "testdata", "interop", "*", "*.deflate.crc32.trv"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no interop files: %v", err)
	}
	var tally, rowsTally filterTally
	for i, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		rd, err := format.NewReader(bytes.NewReader(b), int64(len(b)), nil)
		if err != nil || rd.Meta().GetString(layout.MetaAvroSchema) == "" {
			continue // core-level files
		}
		t.Run(filepath.Base(name), func(t *testing.T) {
			// The default form tries the first 4 of the 12 random
			// filters on each file (see longtest).
			recs := checkFilter(t, b, rand.New(rand.NewPCG(uint64(i), 11)), longtest.Rounds(4, 12), &tally)
			checkNextMatchRows(t, rd, recs, filepath.Base(name), rand.New(rand.NewPCG(uint64(i), 13)), &rowsTally)
		})
	}
	for _, tl := range []filterTally{tally, rowsTally} {
		if tl.exprs == 0 || tl.matched == 0 || tl.dropped == 0 {
			t.Fatalf("tally %+v: want matches and drops", tl)
		}
	}
}

// TestFilterSkipsBlocks checks that a selective filter on a column with
// statistics reads only the blocks holding matches, in every column read,
// and that a bad expression is a *predicate.Error.
func TestFilterSkipsBlocks(t *testing.T) {
	text := `{"type":"record","name":"R","fields":[{"name":"id","type":"long"},{"name":"s","type":"string"}]}`
	var buf bytes.Buffer
	w, err := shred.NewAvroWriter(&buf, text, &shred.Options{WriterOptions: format.WriterOptions{BlockSize: 256}})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 10000 {
		if err := w.Write(map[string]any{"id": int64(i), "s": "row " + strconv.Itoa(i)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	rd := openBytes(t, buf.Bytes())
	ar, err := NewAvroReader(rd, &Options{Filter: "id >= 5000 AND id < 5010", Fields: []string{"s"}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for v, err := range ar.All() {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, v.(map[string]any)["s"].(string))
	}
	if len(got) != 10 || got[0] != "row 5000" || got[9] != "row 5009" {
		t.Fatalf("got %q", got)
	}
	rep := ar.Report()
	if len(rep.Columns) != 2 || rep.RowsMatched != 10 || rep.RowsScanned > 200 {
		t.Fatalf("report %+v", rep)
	}
	for _, c := range rep.Columns {
		if c.Blocks < 20 || c.BlocksRead > 3 || c.BlocksSkipped != c.Blocks-c.BlocksRead {
			t.Fatalf("column %s: %+v", c.Name, c)
		}
	}
	if rep.BytesRead*20 > rep.FileSize {
		t.Fatalf("read %d bytes of %d", rep.BytesRead, rep.FileSize)
	}
	_, err = NewAvroReader(rd, &Options{Filter: "idd > 3"})
	var pe *predicate.Error
	if !errors.As(err, &pe) || pe.Offset != 0 {
		t.Fatalf("bad filter: %v", err)
	}
}

// TestFieldsProjection selects random top-level fields of random schemas'
// records: Read returns the records with only those fields, and
// ReadBinary and ToJSON write them in the projected schema (decoded back
// with goavro, they are the same records).
func TestFieldsProjection(t *testing.T) {
	nschemas, nrecs := propertyScale()
	tried := 0
	for i := range nschemas {
		seed := uint64(9000 + i)
		r := rand.New(rand.NewPCG(seed, 1))
		f := newFixture(t, i, seed, r, nrecs)
		if f.schema.Kind != schema.Record || len(f.schema.Fields) < 2 {
			continue
		}
		var sel []string
		for _, fd := range f.schema.Fields {
			if r.IntN(2) == 0 {
				sel = append(sel, fd.Name)
			}
		}
		if len(sel) == 0 {
			sel = []string{f.schema.Fields[0].Name}
		}
		tried++
		file := shredFast(t, f, &shred.Options{})
		rd := openBytes(t, file)
		ar, err := NewAvroReader(rd, &Options{Fields: sel})
		if err != nil {
			t.Fatalf("%v: %v", sel, err)
		}
		codec, err := goavro.NewCodec(ar.Schema().String())
		if err != nil {
			// goavro resolves a reference to a type of the null
			// namespace made inside another namespace ("E" within
			// a.b) as a.b.E, where schema.String writes it so:
			// nothing to compare the records with.
			t.Logf("goavro refuses the projected schema %s: %v", ar.Schema(), err)
			continue
		}
		br, _ := NewAvroReader(rd, &Options{Fields: sel})
		for k, full := range f.recs {
			want := map[string]any{}
			for _, name := range sel {
				want[name] = full.(map[string]any)[name]
			}
			got, err := ar.Read()
			if err != nil {
				t.Fatal(err)
			}
			bin, err := br.ReadBinary(nil)
			if err != nil {
				t.Fatal(err)
			}
			dec, rest, err := codec.NativeFromBinary(bin)
			if err != nil || len(rest) != 0 {
				t.Fatalf("record %d: goavro cannot decode the projected record: %v", k, err)
			}
			ws := show(codec, want)
			if gs := show(codec, got); !sameJSONText(gs, ws) {
				t.Fatalf("%v record %d: Read %s, want %s", sel, k, gs, ws)
			}
			if ds := show(codec, dec); !sameJSONText(ds, ws) {
				t.Fatalf("%v record %d: ReadBinary %s, want %s", sel, k, ds, ws)
			}
		}
		jr, _ := NewAvroReader(rd, &Options{Fields: sel})
		var out bytes.Buffer
		if n, err := ToJSON(t.Context(), &out, jr, nil); err != nil || n != int64(len(f.recs)) {
			t.Fatalf("ToJSON: %d, %v", n, err)
		}
	}
	if tried < 5 {
		t.Fatalf("only %d schemas with fields to select", tried)
	}
}

// sameJSONText reports whether two JSON texts hold the same value,
// whatever the order of their objects' keys.
func sameJSONText(a, b string) bool {
	decode := func(s string) (any, error) {
		d := json.NewDecoder(strings.NewReader(s))
		d.UseNumber() // goavro writes infinities as 1e999
		var v any
		return v, d.Decode(&v)
	}
	x, err1 := decode(a)
	y, err2 := decode(b)
	if err1 != nil || err2 != nil {
		return a == b
	}
	return reflect.DeepEqual(x, y)
}

// The property with reader schemas: over random files and random
// evolutions of their schemas (fields added with defaults, renamed with
// aliases, promoted, dropped, unions and enums changed: the mutator of
// TestPropertyEvolution), a filter on the reader schema's fields, read
// with Options.ReaderSchema, returns exactly the records that the model
// resolver (resolveRecord) makes and a brute-force filter in Go keeps;
// statistics never rule out a block that holds a match.
func TestPropertyFilterReaderSchema(t *testing.T) {
	t.Parallel()
	nschemas, nrecs := propertyScale()
	applied := map[string]int{}
	var tally filterTally
	var onAdded, onRenamed int
	for i := range nschemas {
		seed := uint64(9000 + i)
		r := rand.New(rand.NewPCG(seed, 4))
		f := newFixture(t, i, seed, r, 4*nrecs)
		opts := &shred.Options{WriterOptions: format.WriterOptions{
			Codec:     []string{"null", "deflate", "snappy"}[r.IntN(3)],
			BlockSize: []int{1, 16, 64, 256}[r.IntN(4)],
		}}
		if r.IntN(4) == 0 {
			opts.StatsMaxLen = 1
		}
		file := shredFast(t, f, opts)
		rd := openBytes(t, file)
	readers:
		for range 3 {
			mu := &mutator{r: r, writer: f.schema, applied: applied}
			readerText := mu.evolve(f.text, 1+r.IntN(4))
			rs, err := schema.Parse(readerText)
			if err != nil {
				t.Fatal(err)
			}
			codec, err := goavro.NewCodec(readerText)
			if err != nil {
				t.Fatal(err)
			}
			want := make([]any, len(f.recs))
			for j, rec := range f.recs {
				want[j] = resolveRecord(f.schema, rs, rec)
				switch want[j].(type) {
				case unmodelled, unreadable, notUTF8:
					continue readers // records the reader cannot read: TestPropertyEvolution's part
				}
			}
			rlay, err := layout.New(rs, nil)
			if err != nil {
				t.Fatal(err)
			}
			g := predrand.New(rand.New(rand.NewPCG(seed, uint64(len(applied)))), rs, want)
			g.Check = func(e string) error {
				_, err := predicate.Compile(e, rs, rlay)
				return err
			}
			if len(g.Paths()) == 0 {
				continue
			}
			for range 4 {
				src := g.Expr(2)
				p, err := predicate.Compile(src, rs, rlay)
				if err != nil {
					t.Fatalf("%s: %v", src, err)
				}
				var keep []int
				for j, v := range want {
					ok, err := p.Match(v)
					if err != nil {
						t.Fatalf("%s: record %d: %v", src, j, err)
					}
					if ok {
						keep = append(keep, j)
					}
				}
				fr, err := NewAvroReader(rd, &Options{ReaderSchema: readerText, Filter: src})
				if err != nil {
					t.Fatalf("%s: %v\nwriter: %s\nreader: %s", src, err, f.text, readerText)
				}
				k := 0
				for got, err := range fr.All() {
					if err != nil {
						t.Fatalf("%s: %v", src, err)
					}
					if k >= len(keep) {
						t.Fatalf("%s: more records than the %d brute force keeps\nwriter: %s\nreader: %s", src, len(keep), f.text, readerText)
					}
					if !avrorand.EqualNative(got, want[keep[k]]) {
						t.Fatalf("%s: match %d is\n%s\nbrute force's is record %d\n%s\nwriter: %s\nreader: %s", src, k, show(codec, got), keep[k], show(codec, want[keep[k]]), f.text, readerText)
					}
					k++
				}
				if k != len(keep) {
					t.Fatalf("%s: %d records, brute force keeps %d\nwriter: %s\nreader: %s", src, k, len(keep), f.text, readerText)
				}
				rep := fr.Report()
				for _, c := range rep.Columns {
					tally.skipped += c.BlocksSkipped
				}
				if rep.RowsScanned < int64(len(want)) {
					tally.pruned++
				}
				tally.exprs++
				tally.matched += len(keep)
				tally.dropped += len(want) - len(keep)
				if strings.Contains(src, "added_") {
					onAdded++
				}
				if strings.Contains(src, "ren_") {
					onRenamed++
				}
			}
		}
	}
	t.Logf("%+v; on added fields %d, on renamed %d; evolutions %v", tally, onAdded, onRenamed, applied)
	if tally.matched == 0 || tally.dropped == 0 || tally.skipped == 0 || tally.pruned == 0 || onAdded == 0 || onRenamed == 0 || applied["promote"] == 0 {
		t.Fatalf("the filters never kept, dropped or skipped, or never named an added or renamed field: %+v, %d, %d, %v", tally, onAdded, onRenamed, applied)
	}
}
