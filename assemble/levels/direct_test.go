package levels_test

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/linkedin/goavro/v2"
	"github.com/trevni-go/trevni/assemble/levels"
	"github.com/trevni-go/trevni/clmn"
	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/internal/testing/avrorand"
	"github.com/trevni-go/trevni/internal/testing/veclarge"
	"github.com/trevni-go/trevni/schema"
	"github.com/trevni-go/trevni/schema/layout"
	"github.com/trevni-go/trevni/trevni1"
)

// directTypes is a record of every shape the direct route reads (top-level
// fields, arrays and ["null", T] of each type, arrays of records) and some
// it does not (an enum's, a map's, a nested array's, an optional record's).
const directTypes = `{"type":"record","name":"D","fields":[
 {"name":"b","type":"boolean"},{"name":"i","type":"int"},{"name":"l","type":"long"},
 {"name":"f","type":"float"},{"name":"d","type":"double"},{"name":"s","type":"string"},
 {"name":"y","type":"bytes"},{"name":"e","type":{"type":"enum","name":"E","symbols":["P","Q","R"]}},
 {"name":"ab","type":{"type":"array","items":"boolean"}},{"name":"ai","type":{"type":"array","items":"int"}},
 {"name":"al","type":{"type":"array","items":"long"}},{"name":"af","type":{"type":"array","items":"float"}},
 {"name":"ad","type":{"type":"array","items":"double"}},{"name":"as","type":{"type":"array","items":"string"}},
 {"name":"ae","type":{"type":"array","items":"E"}},
 {"name":"ob","type":["null","boolean"]},{"name":"oi","type":["null","int"]},{"name":"ol","type":["null","long"]},
 {"name":"of","type":["null","float"]},{"name":"od","type":["null","double"]},{"name":"os","type":["null","string"]},
 {"name":"oy","type":["null","bytes"]},
 {"name":"pts","type":{"type":"array","items":{"type":"record","name":"P","fields":[
   {"name":"x","type":"float"},{"name":"n","type":"string"},{"name":"k","type":"long"},{"name":"t","type":"boolean"}]}}},
 {"name":"m","type":{"type":"map","values":"int"}},
 {"name":"aa","type":{"type":"array","items":{"type":"array","items":"int"}}},
 {"name":"orec","type":["null",{"type":"record","name":"O","fields":[{"name":"z","type":"int"}]}]}
]}`

// v1File writes n records of schema text, drawn by g (or veclarge's
// generator for its schema), as a Trevni 1 file of small blocks; nil for
// a schema version 1 does not lay out.
func v1File(t *testing.T, text string, g *avrorand.Generator, n int, seed uint64) []byte {
	t.Helper()
	s, err := schema.Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	codec, err := goavro.NewCodec(text)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	rw, err := trevni1.NewRecordWriter(&buf, text, &trevni1.WriterOptions{BlockSize: 64 << (seed % 6)})
	if err != nil {
		return nil // a schema version 1 does not lay out
	}
	vl := veclarge.New()
	var bin []byte
	for i := range n {
		if text == veclarge.Schema {
			bin = vl.Append(bin[:0], i)
		} else if bin, err = codec.BinaryFromNative(bin[:0], g.Value(s)); err != nil {
			t.Fatal(err)
		}
		if _, err := rw.WriteBinary(bin); err != nil {
			t.Fatal(err)
		}
	}
	if err := rw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// directReads reads every leaf of the whole plan of a Trevni 1 file by
// segs, by the direct route where it applies (direct) or by the
// ColumnReaders: each leaf's levels and values, or its error; and how many
// leaves read by the direct route. An error opening the file is returned.
func directReads(t *testing.T, file []byte, segs []levels.Segment, direct bool) ([]string, int, error) {
	t.Helper()
	rd1, err := trevni1.NewReader(bytes.NewReader(file), int64(len(file)), nil)
	if err != nil {
		return nil, 0, err
	}
	src, err := trevni1.NewSource(rd1)
	if err != nil {
		return nil, 0, err
	}
	text, err := rd1.AvroSchema()
	if err != nil {
		return nil, 0, err
	}
	return sourceReads(t, src, text, segs, direct)
}

// sourceReads is directReads of a Source whose records are of schema text.
func sourceReads(t *testing.T, src format.Source, text string, segs []levels.Segment, direct bool) ([]string, int, error) {
	t.Helper()
	*levels.NoDirect = !direct
	defer func() { *levels.NoDirect = false }()
	rd, err := format.NewSourceReader(src, nil)
	if err != nil {
		return nil, 0, err
	}
	s, err := schema.Parse(text)
	if err != nil {
		return nil, 0, err
	}
	lay, err := layout.New(s, nil)
	if err != nil {
		return nil, 0, err
	}
	plan, err := levels.NewPlan(lay, nil)
	if err != nil {
		return nil, 0, err
	}
	var out []string
	used := 0
	for li := range plan.Leaves {
		l := &plan.Leaves[li]
		lr, err := levels.NewReader(l, func(c int) (*format.ColumnReader, error) { return rd.Values(c) })
		if err != nil {
			out = append(out, "open: "+err.Error())
			continue
		}
		if levels.IsDirect(lr) {
			used++
		}
		got, err := readLevels(context.Background(), lr, l, segs)
		lr.Close()
		if err != nil {
			out = append(out, fmt.Sprintf("%s: error %v", l.Path, err))
			continue
		}
		out = append(out, fmt.Sprintf("%s: %v", l.Path, got))
	}
	return out, used, nil
}

// directSegments returns ways of reading n rows: all of them, every
// third from row 1, two runs with a gap (a seek forward), and the second
// half before the first (a seek back).
func directSegments(n int) [][]levels.Segment {
	segs := [][]levels.Segment{{{First: 0, N: int64(n)}}}
	if n < 6 {
		return segs
	}
	keep := levels.Segment{First: 1, N: int64(n - 1)}
	for i := 1; i < n; i++ {
		keep.Keep = append(keep.Keep, (i-1)%3 == 0)
	}
	h, q := int64(n/2), int64(n/3)
	return append(segs, []levels.Segment{keep},
		[]levels.Segment{{First: 0, N: q}, {First: 2 * q, N: int64(n) - 2*q}},
		[]levels.Segment{{First: h, N: int64(n) - h}, {First: 0, N: h}})
}

// TestDirectAgainstColumnReaders reads the leaves of Trevni 1 files of
// random schemas and data, of every type the direct route reads, and of
// vec.Large, by the direct route and by the ColumnReaders over the
// version-2 blocks the Source makes: the levels and values (or the
// errors) must be the same, for whole reads, kept rows and seeks.
func TestDirectAgainstColumnReaders(t *testing.T) {
	used, leaves := 0, 0
	for seed := range uint64(60) {
		var text string
		g := avrorand.New(seed, avrorand.Options{MaxDepth: 2, MaxLen: 4})
		switch seed % 3 {
		case 0:
			text = directTypes
		case 1:
			text = g.Schema()
		default:
			text = veclarge.Schema
		}
		s, err := schema.Parse(text)
		if err != nil {
			t.Fatal(err)
		}
		if s.Kind != schema.Record {
			continue
		}
		if _, err := layout.New(s, nil); err != nil {
			continue
		}
		n := 1 + int(seed*37%300)
		file := v1File(t, text, g, n, seed)
		if file == nil {
			continue
		}
		for _, segs := range directSegments(n) {
			want, _, err := directReads(t, file, segs, false)
			if err != nil {
				t.Fatalf("seed %d: %v", seed, err)
			}
			got, u, err := directReads(t, file, segs, true)
			if err != nil {
				t.Fatalf("seed %d: %v", seed, err)
			}
			used += u
			leaves += len(want)
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("seed %d, segments %+v, leaf %d:\ndirect %s\n  want %s\n%s", seed, segs, i, got[i], want[i], text)
				}
			}
		}
	}
	// The direct route must have been taken, and not everywhere.
	if used < leaves/3 || used == leaves {
		t.Fatalf("%d of %d leaf reads by the direct route", used, leaves)
	}
}

// TestDirectDamaged reads damaged Trevni 1 files (bytes of their blocks
// changed, no checksums to catch it) by both routes: neither panics, and
// where both read a leaf they read the same levels and values. Where one
// refuses a leaf the other reads, the damage lies where only one looks:
// the direct route checks every block's values area used up where the
// version-2 blocks' seek from one block to the next passes over it, and
// it reads no further than the rows asked for where the Source makes the
// version-2 block that holds them whole.
func TestDirectDamaged(t *testing.T) {
	r := rand.New(rand.NewPCG(33, 1))
	stricter, laxer, both := 0, 0, 0
	for seed := range uint64(12) {
		text := directTypes
		if seed%2 == 1 {
			text = veclarge.Schema
		}
		g := avrorand.New(seed, avrorand.Options{MaxDepth: 2, MaxLen: 4})
		n := 20 + int(seed*13%100)
		file := v1File(t, text, g, n, seed)
		for range 12 {
			bad := bytes.Clone(file)
			for range 1 + r.IntN(3) {
				at := len(bad)/4 + r.IntN(len(bad)-len(bad)/4)
				bad[at] ^= byte(1 + r.IntN(255))
			}
			for _, segs := range directSegments(n) {
				want, _, err := directReads(t, bad, segs, false)
				if err != nil {
					continue // the file does not open
				}
				got, _, err := directReads(t, bad, segs, true)
				if err != nil {
					t.Fatalf("seed %d: opens once, not twice: %v", seed, err)
				}
				for i := range want {
					wantErr := bytes.Contains([]byte(want[i]), []byte(": error "))
					gotErr := bytes.Contains([]byte(got[i]), []byte(": error "))
					switch {
					case !wantErr && !gotErr && got[i] != want[i]:
						t.Fatalf("seed %d, leaf %d:\ndirect %s\n  want %s", seed, i, got[i], want[i])
					case wantErr && gotErr:
						both++
					case wantErr:
						laxer++
					case gotErr:
						stricter++
					}
				}
			}
		}
	}
	t.Logf("leaf reads refused by both routes %d, by the direct route only %d, by the ColumnReaders only %d", both, stricter, laxer)
	if both == 0 {
		t.Fatal("no damage found by either route")
	}
}

// clmnFile writes n random rows of a CLMN file of an int, a long, a double
// and a string column (strings of ASCII, or not, of up to 300 bytes) and
// returns it with the Avro schema of its columns.
func clmnFile(t testing.TB, r *rand.Rand, n int) ([]byte, string) {
	t.Helper()
	cols := []clmn.Column{{Name: "i", Type: clmn.Int32}, {Name: "l", Type: clmn.Int64}, {Name: "d", Type: clmn.Float64}, {Name: "s", Type: clmn.String}}
	var buf bytes.Buffer
	w, err := clmn.NewWriter(&buf, cols, &clmn.WriterOptions{TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	long := r.IntN(2) == 0
	for range n {
		w.WriteInt32(0, int32(r.Uint32()>>r.IntN(32)))
		w.WriteInt64(1, int64(r.Uint64()>>r.IntN(64)))
		w.WriteFloat64(2, r.NormFloat64())
		k := r.IntN(20)
		if long && r.IntN(10) == 0 {
			k = r.IntN(300)
		}
		str := make([]rune, k)
		for j := range str {
			str[j] = rune('a' + r.IntN(26))
			if r.IntN(40) == 0 {
				str[j] = 'é'
			}
		}
		w.WriteString(3, []byte(string(str)))
		if err := w.EndRow(); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), `{"type":"record","name":"C","fields":[{"name":"i","type":"int"},{"name":"l","type":"long"},{"name":"d","type":"double"},{"name":"s","type":"string"}]}`
}

// clmnReads is directReads of a CLMN file, cut into Source blocks of
// about size bytes.
func clmnReads(t *testing.T, file []byte, text string, size int, segs []levels.Segment, direct bool) ([]string, int, error) {
	t.Helper()
	rd, err := clmn.NewReader(bytes.NewReader(file), int64(len(file)), nil)
	if err != nil {
		return nil, 0, err
	}
	var meta format.MetaData
	meta.SetString("avro.schema", text)
	src, err := clmn.NewSource(rd, &clmn.SourceOptions{Meta: &meta, BlockSize: size})
	if err != nil {
		return nil, 0, err
	}
	return sourceReads(t, src, text, segs, direct)
}

// TestDirectCLMN reads random CLMN files, whole and damaged, by the
// direct route and by the ColumnReaders over the Source's Trevni 2
// blocks: where both read a leaf, the values are the same; the whole
// files read, and by the direct route.
func TestDirectCLMN(t *testing.T) {
	r := rand.New(rand.NewPCG(33, 3))
	both := 0
	for iter := range 16 {
		n := []int{1, 7, 500, 2000}[iter%4]
		file, text := clmnFile(t, r, n)
		size := []int{1, 100, 0}[iter%3]
		for _, segs := range directSegments(n) {
			want, _, err := clmnReads(t, file, text, size, segs, false)
			if err != nil {
				t.Fatal(err)
			}
			got, used, err := clmnReads(t, file, text, size, segs, true)
			if err != nil {
				t.Fatal(err)
			}
			if used != 4 {
				t.Fatalf("%d of 4 leaves by the direct route", used)
			}
			for i := range want {
				if got[i] != want[i] || bytes.Contains([]byte(got[i]), []byte(": error ")) {
					t.Fatalf("iter %d, segments %+v, leaf %d:\ndirect %s\n  want %s", iter, segs, i, got[i], want[i])
				}
			}
		}
		if n < 500 {
			continue
		}
		for range 8 {
			bad := bytes.Clone(file)
			at := r.IntN(len(bad))
			bad[at] ^= byte(1 + r.IntN(255))
			segs := directSegments(n)[iter%3]
			want, _, err := clmnReads(t, bad, text, size, segs, false)
			if err != nil {
				continue
			}
			got, _, err := clmnReads(t, bad, text, size, segs, true)
			if err != nil {
				t.Fatal(err)
			}
			for i := range want {
				wantErr := bytes.Contains([]byte(want[i]), []byte(": error "))
				gotErr := bytes.Contains([]byte(got[i]), []byte(": error "))
				if !wantErr && !gotErr && got[i] != want[i] {
					t.Fatalf("damaged, leaf %d:\ndirect %s\n  want %s", i, got[i], want[i])
				}
				if wantErr && gotErr {
					both++
				}
			}
		}
	}
	if both == 0 {
		t.Fatal("no damage found by either route")
	}
}

// BenchmarkDirect reads every leaf of 20,000 vec.Large records of a
// Trevni 1 file (deflate) through its Source, by the direct route and by
// the ColumnReaders over the version-2 blocks the Source makes.
func BenchmarkDirect(b *testing.B) {
	const rows = 20_000
	var buf bytes.Buffer
	rw, err := trevni1.NewRecordWriter(&buf, veclarge.Schema, &trevni1.WriterOptions{Codec: "deflate"})
	if err != nil {
		b.Fatal(err)
	}
	g := veclarge.New()
	var bin []byte
	for i := range rows {
		bin = g.Append(bin[:0], i)
		if _, err := rw.WriteBinary(bin); err != nil {
			b.Fatal(err)
		}
	}
	if err := rw.Close(); err != nil {
		b.Fatal(err)
	}
	file := buf.Bytes()
	benchLeaves(b, veclarge.Schema, rows, func() (format.Source, error) {
		rd1, err := trevni1.NewReader(bytes.NewReader(file), int64(len(file)), nil)
		if err != nil {
			return nil, err
		}
		return trevni1.NewSource(rd1)
	})
}

// BenchmarkDirectCLMN reads the four leaves of 50,000 random rows of a
// CLMN file through its Source, by the direct route and by the
// ColumnReaders over the Trevni 2 blocks the Source makes.
func BenchmarkDirectCLMN(b *testing.B) {
	const rows = 50_000
	file, text := clmnFile(b, rand.New(rand.NewPCG(1, 2)), rows)
	benchLeaves(b, text, rows, func() (format.Source, error) {
		rd, err := clmn.NewReader(bytes.NewReader(file), int64(len(file)), nil)
		if err != nil {
			return nil, err
		}
		return clmn.NewSource(rd, nil)
	})
}

// benchLeaves reads every leaf of the rows of the Source open makes,
// whose records are of schema text, by the direct route and not.
func benchLeaves(b *testing.B, text string, rows int64, open func() (format.Source, error)) {
	s, err := schema.Parse(text)
	if err != nil {
		b.Fatal(err)
	}
	lay, err := layout.New(s, nil)
	if err != nil {
		b.Fatal(err)
	}
	plan, err := levels.NewPlan(lay, nil)
	if err != nil {
		b.Fatal(err)
	}
	segs := []levels.Segment{{First: 0, N: rows}}
	for _, direct := range []bool{true, false} {
		name := "direct"
		if !direct {
			name = "blocks"
		}
		b.Run(name, func(b *testing.B) {
			*levels.NoDirect = !direct
			defer func() { *levels.NoDirect = false }()
			for b.Loop() {
				src, err := open()
				if err != nil {
					b.Fatal(err)
				}
				rd, err := format.NewSourceReader(src, nil)
				if err != nil {
					b.Fatal(err)
				}
				for li := range plan.Leaves {
					lr, err := levels.NewReader(&plan.Leaves[li], func(c int) (*format.ColumnReader, error) { return rd.Values(c) })
					if err != nil {
						b.Fatal(err)
					}
					if err := lr.Read(context.Background(), segs, func(*levels.Run) error { return nil }); err != nil {
						b.Fatal(err)
					}
					lr.Close()
				}
			}
		})
	}
}
