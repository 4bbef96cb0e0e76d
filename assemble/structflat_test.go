package assemble

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/internal/testing/avrorand"
	"github.com/trevni-go/trevni/schema"
	"github.com/trevni-go/trevni/shred"
)

// scalarSchema has a top-level field of each type the flat path reads,
// and a field no struct below reads.
const scalarSchema = `{"type":"record","name":"S","fields":[
 {"name":"b","type":"boolean"},
 {"name":"i","type":"int"},
 {"name":"l","type":"long"},
 {"name":"f","type":"float"},
 {"name":"d","type":"double"},
 {"name":"s","type":"string"},
 {"name":"by","type":"bytes"},
 {"name":"arr","type":{"type":"array","items":"long"}}
]}`

// scalarStruct reads every scalar field, some into wider Go types.
type scalarStruct struct {
	B   bool    `avro:"b"`
	I   int     `avro:"i"`
	L   int64   `avro:"l"`
	F   float64 `avro:"f"`
	D   float64 `avro:"d"`
	S   string  `avro:"s"`
	By  []byte  `avro:"by"`
	I32 int32   `avro:"-"`
}

// twoStruct is the shape of the structread benchmark.
type twoStruct struct {
	ID   int    `avro:"l"`
	Name string `avro:"s"`
	Raw  string `avro:"by"`
	F32  int32  `avro:"i"`
}

// writeScalars writes n random records of scalarSchema in blocks of
// blockSize bytes.
func writeScalars(t testing.TB, seed uint64, n, blockSize int) []byte {
	t.Helper()
	s := schema.MustParse(scalarSchema)
	var buf bytes.Buffer
	aw, err := shred.NewAvroWriter(&buf, scalarSchema, &shred.Options{WriterOptions: format.WriterOptions{BlockSize: blockSize, Codec: "snappy"}})
	if err != nil {
		t.Fatal(err)
	}
	g := avrorand.New(seed, avrorand.Options{MaxLen: 40})
	for range n {
		if err := aw.Write(g.Value(s)); err != nil {
			t.Fatal(err)
		}
	}
	if err := aw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// twoReaders opens file twice as StructReader[T]: one takes the flat
// path, the other (its plan removed) the general one.
func twoReaders[T any](t testing.TB, file []byte, opts *Options) (flat, general *StructReader[T], err error) {
	open := func() (*StructReader[T], error) {
		rd, err := format.NewReader(bytes.NewReader(file), int64(len(file)), nil)
		if err != nil {
			return nil, err
		}
		return NewStructReader[T](rd, opts)
	}
	if flat, err = open(); err != nil {
		return nil, nil, err
	}
	if general, err = open(); err != nil {
		return nil, nil, err
	}
	if flat.flat == nil {
		t.Fatalf("%T: no flat plan", *new(T))
	}
	general.flat = nil
	return flat, general, nil
}

// readSame reads a batch of k records from both readers and fails unless
// they give the same records, count and error.
func readSame[T any](t *testing.T, what string, flat, general *StructReader[T], k int) (int, error) {
	t.Helper()
	a, b := make([]T, k), make([]T, k)
	n, err := flat.Read(a)
	m, gerr := general.Read(b)
	if n != m || fmt.Sprint(err) != fmt.Sprint(gerr) {
		t.Fatalf("%s: flat path read %d, %v; general path %d, %v", what, n, err, m, gerr)
	}
	if fmt.Sprint(a[:n]) != fmt.Sprint(b[:n]) {
		t.Fatalf("%s: flat path read\n%v\ngeneral path\n%v", what, a[:n], b[:n])
	}
	if flat.Reader().Row() != general.Reader().Row() {
		t.Fatalf("%s: flat path at row %d, general path at %d", what, flat.Reader().Row(), general.Reader().Row())
	}
	return n, err
}

// TestStructFlatMatchesGeneral reads random files of scalars by the flat
// path and by the general path in random batches, with seeks, StopAt,
// SetLimit, aliased strings and a small record budget, and checks that
// they read the same records.
func TestStructFlatMatchesGeneral(t *testing.T) {
	for it := range 30 {
		r := rand.New(rand.NewPCG(uint64(it), 11))
		rows := []int{0, 1, 50, 2000}[r.IntN(4)]
		file := writeScalars(t, uint64(it), rows, []int{64, 1000, 1 << 16}[r.IntN(3)])
		opts := &Options{}
		if r.IntN(4) == 0 {
			opts.MaxRecordBytes = 60 // some records pass it
		}
		var flat, general *StructReader[scalarStruct]
		var err error
		if it%2 == 0 {
			flat, general, err = twoReaders[scalarStruct](t, file, opts)
		} else {
			var f2, g2 *StructReader[twoStruct]
			f2, g2, err = twoReaders[twoStruct](t, file, opts)
			if err != nil {
				t.Fatal(err)
			}
			alias := r.IntN(2) == 0
			f2.AliasStrings(alias)
			g2.AliasStrings(alias)
			for step := range 40 {
				if _, err := readSame(t, fmt.Sprintf("iteration %d step %d", it, step), f2, g2, 1+r.IntN(300)); err != nil && err != io.EOF {
					break
				}
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		alias := r.IntN(2) == 0
		flat.AliasStrings(alias)
		general.AliasStrings(alias)
	steps:
		for step := range 60 {
			what := fmt.Sprintf("iteration %d step %d", it, step)
			switch r.IntN(8) {
			case 0:
				row := r.Int64N(int64(rows) + 1)
				if err := flat.Reader().SeekRow(row); err != nil {
					t.Fatal(err)
				}
				if err := general.Reader().SeekRow(row); err != nil {
					t.Fatal(err)
				}
			case 1:
				row := r.Int64N(int64(rows) + 2)
				flat.Reader().StopAt(row)
				general.Reader().StopAt(row)
			case 2:
				n := r.Int64N(500) - 1
				flat.Reader().SetLimit(n)
				general.Reader().SetLimit(n)
			default:
				if _, err := readSame(t, what, flat, general, 1+r.IntN(700)); err != nil && err != io.EOF {
					// An error (the record budget) ends the reader's use.
					break steps
				}
			}
		}
	}
}

// TestStructFlatDamaged damages random bytes of random files and checks
// that the flat path reads the same records and ends with the same error
// as the general path.
func TestStructFlatDamaged(t *testing.T) {
	t.Parallel()
	failed := 0
	for it := range 80 {
		r := rand.New(rand.NewPCG(uint64(it), 12))
		file := writeScalars(t, uint64(it), 1+r.IntN(1500), 300)
		for range 1 + r.IntN(3) {
			file[r.IntN(len(file))] = byte(r.Uint32())
		}
		flat, general, err := twoReaders[scalarStruct](t, file, nil)
		if err != nil {
			continue // the damage hit the header: no reader
		}
		for step := 0; ; step++ {
			_, err := readSame(t, fmt.Sprintf("iteration %d step %d", it, step), flat, general, 1+r.IntN(400))
			if err == io.EOF {
				break
			}
			if err != nil {
				failed++
				break
			}
		}
	}
	if failed == 0 {
		t.Fatal("no damaged file gave an error: the damage misses")
	}
}

// TestStructFlatPlan checks which structs take the flat path.
func TestStructFlatPlan(t *testing.T) {
	file := writeScalars(t, 1, 10, 1000)
	rd, err := format.NewReader(bytes.NewReader(file), int64(len(file)), nil)
	if err != nil {
		t.Fatal(err)
	}
	if sr, err := NewStructReader[scalarStruct](rd, nil); err != nil || sr.flat == nil {
		t.Errorf("scalarStruct: %v, flat plan %v; want one", err, sr != nil && sr.flat != nil)
	}
	if sr, err := NewStructReader[struct {
		Arr []int64 `avro:"arr"`
		L   int64   `avro:"l"`
	}](rd, nil); err != nil || sr.flat != nil {
		t.Errorf("a struct with an array: %v, flat plan %v; want none", err, sr != nil && sr.flat != nil)
	}
	if sr, err := NewStructReader[scalarStruct](rd, &Options{Filter: "l > 0"}); err != nil || sr.flat != nil {
		t.Errorf("with a filter: %v, flat plan %v; want none", err, sr != nil && sr.flat != nil)
	}
}
