package assemble

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/linkedin/goavro/v2"
	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/internal/ocf"
	"github.com/trevni-go/trevni/internal/testing/avrorand"
	"github.com/trevni-go/trevni/internal/testing/longtest"
	"github.com/trevni-go/trevni/schema"
	"github.com/trevni-go/trevni/shred"
)

// The property tests below shred random records of random schemas, read
// them back, and compare with what an independent model written here says
// the reader must return: the resolver and the column walker at the end of
// this file, which follow the Avro specification and the Trevni layout
// rather than this package's code.

// propertyScale returns how many random schemas each property test tries
// and the most records a schema gets: the first 100 of the long form's 300
// schemas by default (the same seeds, so the same schemas and records),
// all 300 under TREVNI_LONG_TESTS=1, and 40 schemas of at most 10 records
// with -short.
func propertyScale() (schemas, records int) {
	if testing.Short() {
		return 40, 10
	}
	return longtest.Rounds(100, 300), 50
}

var propertyCodecs = []string{"null", "deflate", "snappy", "bzip2", "zstd"}

// randomWriterOptions picks a codec, a checksum, small blocks and, now and
// then, a memory budget small enough to spill.
func randomWriterOptions(r *rand.Rand, tempDir string) *shred.Options {
	o := &shred.Options{WriterOptions: format.WriterOptions{
		Codec:       propertyCodecs[r.IntN(len(propertyCodecs))],
		Checksum:    []string{"", "null", "crc32"}[r.IntN(3)],
		BlockSize:   []int{0, 1, 64, 512, 4096}[r.IntN(5)],
		Concurrency: r.IntN(3),
		TempDir:     tempDir,
	}}
	if o.Codec == "bzip2" && o.BlockSize > 0 && o.BlockSize < 4096 {
		// compress/bzip2 allocates megabytes per block read: tiny
		// blocks would take most of the test's time.
		o.BlockSize = 4096
	}
	if r.IntN(4) == 0 {
		o.MemoryBudget = 256
	}
	return o
}

// handPicked are schemas that every run includes, so that the shapes the
// generator makes only rarely are always covered.
var handPicked = []string{
	// A map of arrays of records, holding a union of many branches.
	`{"type":"map","values":{"type":"array","items":{"type":"record","name":"MA","fields":[
		{"name":"u","type":["null","int","long","float","double","string","bytes","boolean",
			{"type":"enum","name":"E","symbols":["A","B","C"]},{"type":"fixed","name":"F","size":3},
			{"type":"array","items":"int"},{"type":"map","values":"string"},
			{"type":"record","name":"In","fields":[{"name":"x","type":{"type":"int","logicalType":"date"}}]}]},
		{"name":"ts","type":{"type":"long","logicalType":"timestamp-micros"}},
		{"name":"d","type":{"type":"bytes","logicalType":"decimal","precision":9,"scale":2}}]}}}`,
	// Records in arrays in maps in unions, and arrays of arrays.
	`{"type":"record","name":"Deep","namespace":"d.e","fields":[
		{"name":"u","type":["null",{"type":"map","values":{"type":"array","items":{"type":"record","name":"L1","fields":[
			{"name":"kids","type":{"type":"array","items":{"type":"record","name":"L2","fields":[
				{"name":"m","type":{"type":"map","values":["string","null",{"type":"fixed","name":"Id","size":16,"logicalType":"uuid"}]}},
				{"name":"aa","type":{"type":"array","items":{"type":"array","items":"double"}}}]}}}]}}}]},
		{"name":"t","type":{"type":"int","logicalType":"time-millis"}}]}`,
	// Top-level non-record schemas.
	`{"type":"array","items":["null","string"]}`,
	`["null",{"type":"enum","name":"Only","symbols":["X"]},{"type":"array","items":{"type":"map","values":"long"}}]`,
	`"null"`,
	`{"type":"fixed","name":"Dur","size":12,"logicalType":"duration"}`,
	`{"type":"record","name":"Empty","fields":[]}`,
	// No columns at all, and columns of nothing but lengths.
	`["null"]`,
	`{"type":"array","items":"null"}`,
	`{"type":"map","values":["null"]}`,
}

// testSchema returns the JSON text of test schema i: the hand-picked ones
// first, then random ones, and the generator of its values.
func testSchema(i int, seed uint64) (string, *avrorand.Generator) {
	g := avrorand.New(seed, avrorand.Options{})
	if i < len(handPicked) {
		return handPicked[i], g
	}
	return g.Schema(), g
}

type fixture struct {
	text   string
	schema *schema.Schema
	codec  *goavro.Codec
	recs   []any
}

func newFixture(t *testing.T, i int, seed uint64, r *rand.Rand, maxRecs int) *fixture {
	t.Helper()
	text, g := testSchema(i, seed)
	s, err := schema.Parse(text)
	if err != nil {
		t.Fatalf("schema %s: %v", text, err)
	}
	codec, err := goavro.NewCodec(text)
	if err != nil {
		t.Fatalf("goavro rejects schema %s: %v", text, err)
	}
	f := &fixture{text: text, schema: s, codec: codec}
	for range r.IntN(maxRecs + 1) {
		f.recs = append(f.recs, g.Value(s))
	}
	return f
}

// shredBoth writes the records through the generic path (Write), the
// fast path (WriteBinary of goavro's encoding) and the fast path again
// with arrays and maps encoded in random blocks, checks that all make the
// same bytes and returns the file.
func shredBoth(t *testing.T, f *fixture, opts *shred.Options, r *rand.Rand) []byte {
	t.Helper()
	var generic, fast, blocked bytes.Buffer
	gw, err := shred.NewAvroWriter(&generic, f.text, opts)
	if err != nil {
		t.Fatal(err)
	}
	fw, err := shred.NewAvroWriter(&fast, f.text, opts)
	if err != nil {
		t.Fatal(err)
	}
	bw, err := shred.NewAvroWriter(&blocked, f.text, opts)
	if err != nil {
		t.Fatal(err)
	}
	enc := &blockEncoder{r: r, codecs: map[*schema.Schema]*goavro.Codec{}}
	for i, rec := range f.recs {
		if err := gw.Write(rec); err != nil {
			t.Fatalf("record %d: Write: %v", i, err)
		}
		bin, err := f.codec.BinaryFromNative(nil, rec)
		if err != nil {
			t.Fatalf("record %d: goavro: %v", i, err)
		}
		if err := fw.WriteBinary(bin); err != nil {
			t.Fatalf("record %d: WriteBinary: %v", i, err)
		}
		bin = enc.encode(nil, f.schema, rec)
		if err := bw.WriteBinary(bin); err != nil {
			t.Fatalf("record %d: WriteBinary of blocked encoding % x: %v", i, bin, err)
		}
	}
	for _, w := range []*shred.AvroWriter{gw, fw, bw} {
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(generic.Bytes(), fast.Bytes()) {
		t.Fatalf("options %+v: Write made %d bytes, WriteBinary %d different ones", *opts, generic.Len(), fast.Len())
	}
	if !bytes.Equal(blocked.Bytes(), fast.Bytes()) {
		t.Fatalf("options %+v: WriteBinary made %d bytes from goavro's encoding, %d different ones from blocks", *opts, fast.Len(), blocked.Len())
	}
	return fast.Bytes()
}

// blockEncoder encodes native values in Avro binary as goavro does, but
// for arrays and maps, which it cuts in blocks of random sizes, some with
// a negative count followed by the block's size in bytes, and whose map
// entries it writes in random order, now and then after an entry of the
// same key that the later one overrides.
type blockEncoder struct {
	r      *rand.Rand
	codecs map[*schema.Schema]*goavro.Codec // goavro encodes the simple values
}

func (e *blockEncoder) encode(b []byte, s *schema.Schema, v any) []byte {
	switch s.Kind {
	case schema.Record:
		m := v.(map[string]any)
		for _, f := range s.Fields {
			b = e.encode(b, f.Type, m[f.Name])
		}
		return b
	case schema.Union:
		i, inner := writerBranch(s, v)
		return e.encode(binary.AppendVarint(b, int64(i)), s.Branches[i], inner)
	case schema.Array:
		items := v.([]any)
		return e.blocks(b, len(items), func(b []byte, i int) []byte { return e.encode(b, s.Items, items[i]) })
	case schema.Map:
		m := v.(map[string]any)
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		e.r.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
		values := make([]any, len(keys))
		for i, k := range keys {
			values[i] = m[k]
		}
		if len(keys) >= 2 && e.r.IntN(4) == 0 {
			// A key seen twice: the last value counts, as when decoding
			// into a map.
			keys = append([]string{keys[1]}, keys...)
			values = append([]any{values[0]}, values...)
		}
		return e.blocks(b, len(keys), func(b []byte, i int) []byte {
			b = binary.AppendVarint(b, int64(len(keys[i])))
			return e.encode(append(b, keys[i]...), s.Values, values[i])
		})
	}
	c, ok := e.codecs[s]
	if !ok {
		var err error
		if c, err = goavro.NewCodec(s.String()); err != nil {
			panic(err)
		}
		e.codecs[s] = c
	}
	b, err := c.BinaryFromNative(b, v)
	if err != nil {
		panic(err)
	}
	return b
}

func (e *blockEncoder) blocks(b []byte, n int, item func(b []byte, i int) []byte) []byte {
	for i := 0; i < n; {
		k := 1 + e.r.IntN(n-i)
		var body []byte
		for j := i; j < i+k; j++ {
			body = item(body, j)
		}
		if e.r.IntN(2) == 0 {
			b = binary.AppendVarint(binary.AppendVarint(b, -int64(k)), int64(len(body)))
		} else {
			b = binary.AppendVarint(b, int64(k))
		}
		b = append(b, body...)
		i += k
	}
	return binary.AppendVarint(b, 0)
}

// shredFast writes the records through the fast path only.
func shredFast(t *testing.T, f *fixture, opts *shred.Options) []byte {
	t.Helper()
	var out bytes.Buffer
	w, err := shred.NewAvroWriter(&out, f.text, opts)
	if err != nil {
		t.Fatal(err)
	}
	for i, rec := range f.recs {
		bin, err := f.codec.BinaryFromNative(nil, rec)
		if err != nil {
			t.Fatalf("record %d: goavro: %v", i, err)
		}
		if err := w.WriteBinary(bin); err != nil {
			t.Fatalf("record %d: %v", i, err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

func openBytes(t *testing.T, b []byte) *format.Reader {
	t.Helper()
	rd, err := format.NewReader(bytes.NewReader(b), int64(len(b)), nil)
	if err != nil {
		t.Fatal(err)
	}
	return rd
}

// show renders a native value for a failure message.
func show(codec *goavro.Codec, v any) string {
	if text, err := codec.TextualFromNative(nil, v); err == nil {
		return string(text)
	}
	return fmt.Sprintf("%#v", v)
}

// checkRecords reads every record with both paths and compares with want.
func checkRecords(t *testing.T, rd *format.Reader, opts *Options, codec *goavro.Codec, want []any) {
	t.Helper()
	generic, err := NewAvroReader(rd, opts)
	if err != nil {
		t.Fatal(err)
	}
	fast, err := NewAvroReader(rd, opts)
	if err != nil {
		t.Fatal(err)
	}
	var bin []byte
	for i, w := range want {
		if _, ok := w.(unreadable); ok {
			// The reader schema lacks this record's union branch or enum
			// symbol: both paths fail, and reading ends here.
			if _, err := generic.Read(); !errors.Is(err, ErrIncompatible) {
				t.Fatalf("record %d: Read: %v, want ErrIncompatible", i, err)
			}
			if _, err := fast.ReadBinary(bin[:0]); !errors.Is(err, ErrIncompatible) {
				t.Fatalf("record %d: ReadBinary: %v, want ErrIncompatible", i, err)
			}
			return
		}
		if _, ok := w.(notUTF8); ok {
			// Bytes read as a string must be UTF-8: both paths refuse
			// them as bad data, and reading ends here.
			if _, err := generic.Read(); !errors.Is(err, format.ErrFormat) {
				t.Fatalf("record %d: Read: %v, want ErrFormat", i, err)
			}
			if _, err := fast.ReadBinary(bin[:0]); !errors.Is(err, format.ErrFormat) {
				t.Fatalf("record %d: ReadBinary: %v, want ErrFormat", i, err)
			}
			return
		}
		got, err := generic.Read()
		if err != nil {
			t.Fatalf("record %d: Read: %v", i, err)
		}
		if !avrorand.EqualNative(got, w) {
			t.Fatalf("record %d: Read\n got %s\nwant %s", i, show(codec, got), show(codec, w))
		}
		if bin, err = fast.ReadBinary(bin[:0]); err != nil {
			t.Fatalf("record %d: ReadBinary: %v", i, err)
		}
		v, rest, err := codec.NativeFromBinary(bin)
		if err != nil || len(rest) != 0 {
			t.Fatalf("record %d: ReadBinary's %d bytes do not decode: %v (%d bytes left)", i, len(bin), err, len(rest))
		}
		if !avrorand.EqualNative(v, w) {
			t.Fatalf("record %d: ReadBinary\n got %s\nwant %s", i, show(codec, v), show(codec, w))
		}
	}
	if _, err := generic.Read(); err != io.EOF {
		t.Fatalf("after %d records, Read: %v, want EOF", len(want), err)
	}
	if _, err := fast.ReadBinary(nil); err != io.EOF {
		t.Fatalf("after %d records, ReadBinary: %v, want EOF", len(want), err)
	}
}

// checkContainer writes the file's records as an Avro container file
// through ToContainer and reads them back, decoding them with goavro.
// (goavro's own container reader rejects blocks of zero bytes, which
// records of schema "null" make.)
func checkContainer(t *testing.T, rd *format.Reader, f *fixture, codec string) {
	t.Helper()
	ar, err := NewAvroReader(rd, nil)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if n, err := ToContainer(context.Background(), &buf, ar, &ContainerOptions{Codec: codec}); err != nil || n != int64(len(f.recs)) {
		t.Fatalf("ToContainer wrote %d of %d records: %v", n, len(f.recs), err)
	}
	cr, err := ocf.NewReader(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if cr.Schema() != f.text || cr.Codec() != codec {
		t.Fatalf("container of schema %s, codec %s", cr.Schema(), cr.Codec())
	}
	i := 0
	for {
		count, data, err := cr.NextBlock()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		for ; count > 0; count-- {
			v, rest, err := f.codec.NativeFromBinary(data)
			if err != nil {
				t.Fatalf("container record %d: %v", i, err)
			}
			data = rest
			if i >= len(f.recs) || !avrorand.EqualNative(v, f.recs[i]) {
				t.Fatalf("container record %d: got %s", i, show(f.codec, v))
			}
			i++
		}
		if len(data) != 0 {
			t.Fatalf("%d bytes after the block's records", len(data))
		}
	}
	if i != len(f.recs) {
		t.Fatalf("container holds %d records, want %d", i, len(f.recs))
	}
}

// TestPropertyRoundTrip shreds random records of random schemas through
// both write paths, which must make the same file, and reads them back
// through both read paths, which must return the records written.
func TestPropertyRoundTrip(t *testing.T) {
	t.Parallel()
	schemas, maxRecs := propertyScale()
	tmp := t.TempDir()
	covered := map[string]int{}
	for i := range schemas {
		seed := uint64(i)
		r := rand.New(rand.NewPCG(seed, 1))
		f := newFixture(t, i, seed, r, maxRecs)
		opts := randomWriterOptions(r, tmp)
		ok := t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			rd := openBytes(t, shredBoth(t, f, opts, r))
			if rd.RowCount() != int64(len(f.recs)) {
				t.Fatalf("file has %d rows, want %d", rd.RowCount(), len(f.recs))
			}
			ar, err := NewAvroReader(rd, nil)
			if err != nil {
				t.Fatal(err)
			}
			cols := walkColumns(f.schema, f.schema)
			if cols.next != rd.NumColumns() {
				t.Fatalf("model lays out %d columns, the file has %d", cols.next, rd.NumColumns())
			}
			if got := ar.ColumnsRead(); !slices.Equal(cols.read(got), cols.need) {
				t.Errorf("reading with the file's schema reads columns %v, want all of %v", got, cols.need)
			}
			checkRecords(t, rd, nil, f.codec, f.recs)
			if i%4 == 0 {
				checkContainer(t, rd, f, []string{"null", "deflate", "snappy"}[i/4%3])
			}
		})
		if !ok {
			t.Fatalf("seed %d, options %+v, schema:\n%s", seed, *opts, f.text)
		}
		schemaFeatures(f.schema, true, map[*schema.Schema]bool{}, covered)
		for _, rec := range f.recs {
			valueFeatures(f.schema, rec, covered)
		}
	}
	t.Logf("covered: %v", covered)
	for _, feature := range []string{"top-level non-record", "union of 6+", "map of array of record",
		"enum", "fixed", "logical", "empty array", "empty map", "nil union"} {
		if covered[feature] == 0 {
			t.Errorf("no test schema or value has %s", feature)
		}
	}
}

func schemaFeatures(s *schema.Schema, top bool, seen map[*schema.Schema]bool, f map[string]int) {
	if top && s.Kind != schema.Record {
		f["top-level non-record"]++
	}
	if s.Logical != "" {
		f["logical"]++
	}
	if seen[s] {
		return
	}
	seen[s] = true
	f[s.Kind.String()]++
	switch s.Kind {
	case schema.Record:
		for _, fd := range s.Fields {
			schemaFeatures(fd.Type, false, seen, f)
		}
	case schema.Array:
		schemaFeatures(s.Items, false, seen, f)
	case schema.Map:
		if s.Values.Kind == schema.Array && s.Values.Items.Kind == schema.Record {
			f["map of array of record"]++
		}
		schemaFeatures(s.Values, false, seen, f)
	case schema.Union:
		if len(s.Branches) >= 6 {
			f["union of 6+"]++
		}
		for _, b := range s.Branches {
			schemaFeatures(b, false, seen, f)
		}
	}
}

func valueFeatures(s *schema.Schema, v any, f map[string]int) {
	switch s.Kind {
	case schema.Record:
		m := v.(map[string]any)
		for _, fd := range s.Fields {
			valueFeatures(fd.Type, m[fd.Name], f)
		}
	case schema.Array:
		if len(v.([]any)) == 0 {
			f["empty array"]++
		}
		for _, e := range v.([]any) {
			valueFeatures(s.Items, e, f)
		}
	case schema.Map:
		if len(v.(map[string]any)) == 0 {
			f["empty map"]++
		}
		for _, e := range v.(map[string]any) {
			valueFeatures(s.Values, e, f)
		}
	case schema.Union:
		if v == nil {
			f["nil union"]++
			return
		}
		i, inner := writerBranch(s, v)
		valueFeatures(s.Branches[i], inner, f)
	}
}

// TestPropertyEvolution reads random files with reader schemas derived
// from the writer's by random projections and evolutions, and compares
// with the model resolver, record by record, through both read paths. It
// also checks that only the columns the reader schema needs are read.
func TestPropertyEvolution(t *testing.T) {
	t.Parallel()
	schemas, maxRecs := propertyScale()
	tmp := t.TempDir()
	applied := map[string]int{}
	for i := range schemas {
		seed := uint64(100_000 + i)
		r := rand.New(rand.NewPCG(seed, 2))
		f := newFixture(t, i, seed, r, maxRecs)
		opts := randomWriterOptions(r, tmp)
		if opts.Codec == "bzip2" {
			opts.Codec = "deflate" // the round trip covers it; here it would only be slow
		}
		file := shredFast(t, f, opts)
		for k := range 3 {
			mu := &mutator{r: r, writer: f.schema, applied: applied}
			readerText := mu.evolve(f.text, 1+r.IntN(4))
			ok := t.Run(fmt.Sprintf("seed=%d/%d", seed, k), func(t *testing.T) {
				rs, err := schema.Parse(readerText)
				if err != nil {
					t.Fatal(err)
				}
				codec, err := goavro.NewCodec(readerText)
				if err != nil {
					t.Fatal(err)
				}
				rd := openBytes(t, file)
				ar, err := NewAvroReader(rd, &Options{ReaderSchema: readerText})
				if err != nil {
					t.Fatalf("NewAvroReader: %v", err)
				}
				cols := walkColumns(f.schema, rs)
				if got := ar.ColumnsRead(); !slices.Equal(cols.read(got), cols.need) {
					t.Errorf("reads columns %v, want %v (columns of nulls aside: %v)", got, cols.need, cols.nulls)
				}
				want := make([]any, len(f.recs))
				for j, rec := range f.recs {
					want[j] = resolveRecord(f.schema, rs, rec)
					if _, ok := want[j].(unmodelled); ok {
						want = want[:j]
						applied["(records not modelled: decimal read as string)"]++
						break
					}
					if _, ok := want[j].(unreadable); ok {
						want = want[:j+1]
						applied["(records the reader cannot read)"]++
						break
					}
					if _, ok := want[j].(notUTF8); ok {
						want = want[:j+1]
						applied["(bytes that are not UTF-8 read as string)"]++
						break
					}
				}
				checkRecords(t, rd, &Options{ReaderSchema: readerText}, codec, want)
			})
			if !ok {
				t.Fatalf("seed %d, options %+v\nwriter schema:\n%s\nreader schema:\n%s", seed, *opts, f.text, readerText)
			}
		}
	}
	t.Logf("evolutions applied: %v", applied)
	// Each kind of evolution is drawn about as often in every hundred
	// schemas: at least 20 in the 300 of the long form, 6 in the first
	// 100.
	least := longtest.Rounds(6, 20)
	if testing.Short() {
		least = 1
	}
	for _, kind := range []string{"drop field", "reorder fields", "add field", "add field in array, map or union",
		"promote", "rename with alias", "add enum symbol", "drop enum symbol to default", "reorder union",
		"add union branch", "wrap in union", "drop union branch", "unwrap union", "drop enum symbol",
		"rename type with alias", "(records the reader cannot read)"} {
		if applied[kind] < least {
			t.Errorf("%q applied %d times, want at least %d", kind, applied[kind], least)
		}
	}
}

// TestPropertyIncompatible makes one change that Avro forbids to random
// schemas, anywhere in them, and checks that NewAvroReader rejects the
// reader schema with ErrIncompatible, naming the first field at fault in
// the reading order, or accepts it where the model says nothing can fail
// before a record is read.
func TestPropertyIncompatible(t *testing.T) {
	t.Parallel()
	schemas, _ := propertyScale()
	rejected, deep := 0, 0
	for i := range schemas {
		seed := uint64(200_000 + i)
		r := rand.New(rand.NewPCG(seed, 3))
		f := newFixture(t, i, seed, r, 2)
		rd := openBytes(t, shredFast(t, f, &shred.Options{}))
		if _, err := NewAvroReader(rd, &Options{ReaderSchema: f.text}); err != nil {
			t.Fatalf("seed %d: the writer schema as reader schema: %v", seed, err)
		}
		for range 3 {
			mu := &mutator{r: r, applied: map[string]int{}}
			readerText, ok := mu.breakSchema(f.text)
			if !ok {
				continue
			}
			rs, err := schema.Parse(readerText)
			if err != nil {
				t.Fatal(err)
			}
			path, bad := firstIncompatible(f.schema, rs, "")
			_, err = NewAvroReader(rd, &Options{ReaderSchema: readerText})
			switch {
			case !bad && err != nil:
				t.Errorf("seed %d: the model finds nothing to reject, NewAvroReader says %v\nwriter: %s\nreader: %s", seed, err, f.text, readerText)
			case bad && !incompatibleAt(err, path):
				t.Errorf("seed %d: got %v, want ErrIncompatible at %s\nwriter: %s\nreader: %s", seed, err, path, f.text, readerText)
			case bad:
				rejected++
				if strings.Contains(path, "[]") {
					deep++
				}
			}
		}
	}
	t.Logf("%d reader schemas rejected, %d of them inside arrays or maps", rejected, deep)
	if least := schemas / 2; rejected < least || deep < least/4 {
		t.Errorf("%d rejections, %d deep: want at least %d and %d", rejected, deep, least, least/4)
	}
}

// TestIncompatibleDeepPaths checks the path named for changes deep inside
// maps, arrays and unions of records.
func TestIncompatibleDeepPaths(t *testing.T) {
	writer := `{"type":"record","name":"Top","fields":[
		{"name":"id","type":"long"},
		{"name":"m","type":{"type":"map","values":{"type":"array","items":{"type":"record","name":"Item","fields":[
			{"name":"n","type":"int"},
			{"name":"u","type":["null",{"type":"record","name":"Leaf","fields":[
				{"name":"s","type":"string"},
				{"name":"tags","type":{"type":"array","items":"long"}}]}]}]}}}}]}`
	f := &fixture{text: writer}
	var err error
	if f.codec, err = goavro.NewCodec(writer); err != nil {
		t.Fatal(err)
	}
	rd := openBytes(t, shredFast(t, f, nil))
	cases := []struct {
		edits []string // old, new, old, new...
		path  string
	}{
		{[]string{`{"name":"id","type":"long"}`, `{"name":"id","type":"int"}`}, "id"},
		{[]string{`{"name":"n","type":"int"}`, `{"name":"n","type":"string"}`}, "m[][].n"},
		{[]string{`{"name":"s","type":"string"}`, `{"name":"s","type":"int"}`}, "m[][].u.s"},
		{[]string{`"items":"long"`, `"items":"int"`}, "m[][].u.tags[]"},
		{[]string{`{"name":"n","type":"int"}`, `{"name":"n","type":"int"},{"name":"extra","type":"int"}`}, "m[][].extra"},
		{[]string{`{"name":"s","type":"string"}`, `{"name":"s","type":"string"},{"name":"more","type":"bytes"}`}, "m[][].u.more"},
		{[]string{`"values":{"type":"array","items"`, `"values":{"type":"map","values"`}, "m[]"},
	}
	for _, c := range cases {
		reader := strings.NewReplacer(c.edits...).Replace(writer)
		rs, err := schema.Parse(reader)
		if err != nil {
			t.Fatalf("%s: %v", c.path, err)
		}
		if got, bad := firstIncompatible(schema.MustParse(writer), rs, ""); !bad || got != c.path {
			t.Fatalf("model: %q %v, want %q", got, bad, c.path)
		}
		_, err = NewAvroReader(rd, &Options{ReaderSchema: reader})
		if !incompatibleAt(err, c.path) {
			t.Errorf("got %v, want ErrIncompatible at %s", err, c.path)
		}
	}
}

// mutator derives reader schemas from a writer schema by editing its JSON.
type mutator struct {
	r       *rand.Rand
	n       int            // names made so far
	writer  *schema.Schema // if set, edits must leave a reader schema NewAvroReader accepts
	applied map[string]int
}

// slot is a place in the schema's JSON that holds a type.
type slot struct {
	val    any
	set    func(any)
	branch bool           // a union's branch
	field  map[string]any // the field whose type it is, or nil
}

// record is a record's definition.
type record struct {
	obj  map[string]any
	deep bool // inside an array, a map or a union
}

// namedDef is the definition of a named type.
type namedDef struct {
	obj  map[string]any
	full string // its full name
}

type sites struct {
	records []record
	enums   []map[string]any
	fixeds  []map[string]any
	named   []namedDef
	slots   []slot
}

// collect notes the sites of type v, found in namespace ns.
func (st *sites) collect(v any, set func(any), ns string, branch bool, field map[string]any, deep bool) {
	st.slots = append(st.slots, slot{val: v, set: set, branch: branch, field: field})
	switch t := v.(type) {
	case []any:
		for i := range t {
			st.collect(t[i], func(x any) { t[i] = x }, ns, true, nil, true)
		}
	case map[string]any:
		kind := t["type"]
		if kind == "record" || kind == "enum" || kind == "fixed" {
			name := t["name"].(string)
			if i := strings.LastIndexByte(name, '.'); i >= 0 {
				ns = name[:i]
			} else {
				if space, ok := t["namespace"].(string); ok {
					ns = space
				}
				if ns != "" {
					name = ns + "." + name
				}
			}
			st.named = append(st.named, namedDef{t, name})
		}
		switch kind {
		case "record":
			st.records = append(st.records, record{t, deep})
			for _, fv := range t["fields"].([]any) {
				fm := fv.(map[string]any)
				st.collect(fm["type"], func(x any) { fm["type"] = x }, ns, false, fm, deep)
			}
		case "enum":
			st.enums = append(st.enums, t)
		case "fixed":
			st.fixeds = append(st.fixeds, t)
		case "array":
			st.collect(t["items"], func(x any) { t["items"] = x }, ns, false, nil, true)
		case "map":
			st.collect(t["values"], func(x any) { t["values"] = x }, ns, false, nil, true)
		}
	}
}

func decodeSchemaJSON(text string) any {
	d := json.NewDecoder(strings.NewReader(text))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		panic(err) // the texts are valid schemas
	}
	return v
}

// edit applies one random edit chosen by do to the schema text and returns
// the new text, if the edit applied and gave a schema that both Avro
// implementations accept.
func (m *mutator) edit(text string, do func(st *sites) string) (string, bool) {
	root := decodeSchemaJSON(text)
	st := &sites{}
	st.collect(root, func(x any) { root = x }, "", false, nil, false)
	kind := do(st)
	if kind == "" {
		return "", false
	}
	b, err := json.Marshal(root)
	if err != nil {
		panic(err)
	}
	out := string(b)
	if _, err := schema.Parse(out); err != nil {
		return "", false
	}
	if _, err := goavro.NewCodec(out); err != nil {
		return "", false
	}
	if m.writer != nil {
		if _, bad := firstIncompatible(m.writer, schema.MustParse(out), ""); bad {
			return "", false
		}
	}
	m.applied[kind]++
	return out, true
}

// evolve returns a reader schema made of up to n random evolutions that
// Avro allows, some of which fail for some records: a union branch or an
// enum symbol the reader lacks.
func (m *mutator) evolve(text string, n int) string {
	for tries := 0; n > 0 && tries < 40; tries++ {
		if out, ok := m.edit(text, m.evolution); ok {
			text = out
			n--
		}
	}
	return text
}

func (m *mutator) pick(n int) int { return m.r.IntN(n) }

func (m *mutator) name(prefix string) string {
	m.n++
	return fmt.Sprintf("%s%d", prefix, m.n)
}

// promotions lists the types each primitive can be read as.
var promotions = map[string][]string{
	"int":    {"long", "float", "double"},
	"long":   {"float", "double"},
	"float":  {"double"},
	"string": {"bytes"},
	"bytes":  {"string"},
}

// primitiveName returns the primitive type a slot holds, without a
// logical type, or "".
func primitiveName(v any) string {
	switch t := v.(type) {
	case string:
		return t
	case map[string]any:
		if _, ok := t["logicalType"]; ok {
			return ""
		}
		if s, ok := t["type"].(string); ok {
			return s
		}
	}
	return ""
}

func (m *mutator) evolution(st *sites) string {
	r := m.r
	switch m.pick(14) {
	case 0:
		if len(st.records) == 0 {
			return ""
		}
		rec := st.records[m.pick(len(st.records))].obj
		fields := rec["fields"].([]any)
		if len(fields) == 0 {
			return ""
		}
		k := m.pick(len(fields))
		rec["fields"] = slices.Delete(slices.Clone(fields), k, k+1)
		return "drop field"
	case 1:
		if len(st.records) == 0 {
			return ""
		}
		fields := st.records[m.pick(len(st.records))].obj["fields"].([]any)
		if len(fields) < 2 {
			return ""
		}
		r.Shuffle(len(fields), func(i, j int) { fields[i], fields[j] = fields[j], fields[i] })
		return "reorder fields"
	case 2:
		if len(st.records) == 0 {
			return ""
		}
		rec := st.records[m.pick(len(st.records))]
		fields := rec.obj["fields"].([]any)
		rec.obj["fields"] = slices.Insert(slices.Clone(fields), m.pick(len(fields)+1), any(m.newField()))
		if rec.deep {
			m.applied["add field in array, map or union"]++
		}
		return "add field"
	case 3:
		s := st.slots[m.pick(len(st.slots))]
		to := promotions[primitiveName(s.val)]
		if len(to) == 0 {
			return ""
		}
		s.set(to[m.pick(len(to))])
		return "promote"
	case 4:
		if len(st.records) == 0 {
			return ""
		}
		fields := st.records[m.pick(len(st.records))].obj["fields"].([]any)
		if len(fields) == 0 {
			return ""
		}
		f := fields[m.pick(len(fields))].(map[string]any)
		aliases, _ := f["aliases"].([]any)
		f["aliases"] = append(aliases, f["name"])
		f["name"] = m.name("ren_")
		return "rename with alias"
	case 5:
		if len(st.enums) == 0 {
			return ""
		}
		e := st.enums[m.pick(len(st.enums))]
		syms := e["symbols"].([]any)
		e["symbols"] = slices.Insert(slices.Clone(syms), m.pick(len(syms)+1), any(m.name("NEW_")))
		return "add enum symbol"
	case 6:
		if len(st.enums) == 0 {
			return ""
		}
		e := st.enums[m.pick(len(st.enums))]
		syms := e["symbols"].([]any)
		if len(syms) < 2 {
			return ""
		}
		k := m.pick(len(syms))
		syms = slices.Delete(slices.Clone(syms), k, k+1)
		e["symbols"] = syms
		e["default"] = syms[m.pick(len(syms))]
		return "drop enum symbol to default"
	case 7:
		s := st.slots[m.pick(len(st.slots))]
		u, ok := s.val.([]any)
		if !ok || len(u) < 2 {
			return ""
		}
		r.Shuffle(len(u), func(i, j int) { u[i], u[j] = u[j], u[i] })
		return "reorder union"
	case 8:
		s := st.slots[m.pick(len(st.slots))]
		u, ok := s.val.([]any)
		if !ok {
			return ""
		}
		at := m.pick(len(u) + 1)
		if _, hasDefault := s.field["default"]; hasDefault {
			at = max(at, 1) // the default is a value of the first branch
		}
		s.set(slices.Insert(slices.Clone(u), at, m.newBranch()))
		return "add union branch"
	case 10:
		s := st.slots[m.pick(len(st.slots))]
		u, ok := s.val.([]any)
		if !ok || len(u) < 2 {
			return ""
		}
		k := m.pick(len(u))
		s.set(slices.Delete(slices.Clone(u), k, k+1))
		return "drop union branch"
	case 11:
		s := st.slots[m.pick(len(st.slots))]
		u, ok := s.val.([]any)
		if !ok || len(u) == 0 || s.branch {
			return ""
		}
		s.set(u[m.pick(len(u))])
		return "unwrap union"
	case 12:
		if len(st.enums) == 0 {
			return ""
		}
		e := st.enums[m.pick(len(st.enums))]
		syms := e["symbols"].([]any)
		if len(syms) < 2 {
			return ""
		}
		k := m.pick(len(syms))
		if e["default"] == syms[k] {
			delete(e, "default")
		}
		e["symbols"] = slices.Delete(slices.Clone(syms), k, k+1)
		return "drop enum symbol"
	case 13:
		if len(st.named) == 0 {
			return ""
		}
		def := st.named[m.pick(len(st.named))]
		t, old := def.obj, def.full
		// The type keeps its namespace; only its name changes.
		space := ""
		if i := strings.LastIndexByte(old, '.'); i >= 0 {
			space = old[:i]
		}
		t["name"] = m.name("Renamed")
		t["namespace"] = space
		aliases, _ := t["aliases"].([]any)
		t["aliases"] = append(aliases, old)
		return "rename type with alias"
	default:
		s := st.slots[m.pick(len(st.slots))]
		if _, ok := s.val.([]any); ok || s.branch {
			return ""
		}
		u := []any{s.val, m.newBranch()}
		if _, hasDefault := s.field["default"]; !hasDefault && m.pick(2) == 0 {
			u[0], u[1] = u[1], u[0]
		}
		s.set(u)
		return "wrap in union"
	}
}

// newBranch returns a type to add to a union.
func (m *mutator) newBranch() any {
	switch k := m.pick(10); {
	case k < 8:
		return []string{"null", "boolean", "int", "long", "float", "double", "string", "bytes"}[k]
	case k == 8:
		return map[string]any{"type": "record", "name": m.name("NewRec"), "fields": []any{
			map[string]any{"name": "z", "type": "int"}}}
	default:
		return map[string]any{"type": "enum", "name": m.name("NewEnum"), "symbols": []any{"P", "Q"}}
	}
}

// newField returns a new field with a default.
func (m *mutator) newField() map[string]any {
	var typ, def any
	switch m.pick(16) {
	case 0:
		typ, def = "int", json.Number("7")
	case 1:
		typ, def = "long", json.Number("-3")
	case 2:
		typ, def = "float", json.Number("2.5")
	case 3:
		typ, def = "double", json.Number("-0.25")
	case 4:
		typ, def = "boolean", true
	case 5:
		typ, def = "string", "dé\u0000"
	case 6:
		typ, def = "bytes", "\u00ff\u0000a"
	case 7:
		typ, def = []any{"null", "int"}, nil
	case 8:
		typ, def = []any{"string", "null"}, "s"
	case 9:
		typ, def = map[string]any{"type": "array", "items": "int"}, []any{json.Number("1"), json.Number("2")}
	case 10:
		typ, def = map[string]any{"type": "map", "values": "long"}, map[string]any{"k": json.Number("5")}
	case 11:
		typ = map[string]any{"type": "record", "name": m.name("AddedRec"), "fields": []any{
			map[string]any{"name": "a", "type": "int"},
			map[string]any{"name": "b", "type": []any{"null", "string"}, "default": nil}}}
		def = map[string]any{"a": json.Number("4")}
	case 12:
		typ = map[string]any{"type": "enum", "name": m.name("AddedEnum"), "symbols": []any{"X", "Y"}}
		def = "Y"
	case 13:
		typ = map[string]any{"type": "fixed", "name": m.name("AddedFixed"), "size": 2}
		def = "\u0000a"
	case 14:
		typ = map[string]any{"type": "int", "logicalType": "date"}
		def = json.Number("3")
	default:
		typ = map[string]any{"type": "long", "logicalType": "timestamp-millis"}
		def = json.Number("1500")
	}
	return map[string]any{"name": m.name("added_"), "type": typ, "default": def}
}

// incompatibleTypes lists, for each primitive, types it cannot be read as.
var incompatibleTypes = map[string][]string{
	"null":    {"int", "string"},
	"boolean": {"int", "string"},
	"int":     {"string", "boolean", "bytes"},
	"long":    {"int", "string"},
	"float":   {"int", "long"},
	"double":  {"float", "long"},
	"string":  {"int", "double"},
	"bytes":   {"long", "boolean"},
}

// breakSchema returns the schema with one change Avro forbids.
func (m *mutator) breakSchema(text string) (string, bool) {
	for range 20 {
		if out, ok := m.edit(text, m.breakage); ok {
			return out, true
		}
	}
	return "", false
}

func (m *mutator) breakage(st *sites) string {
	switch m.pick(4) {
	case 0, 1:
		s := st.slots[m.pick(len(st.slots))]
		if s.branch {
			return "" // a union branch not in the reader fails only when read
		}
		var to []string
		switch t := s.val.(type) {
		case string:
			to = incompatibleTypes[t]
		case map[string]any:
			if p, ok := t["type"].(string); ok {
				to = incompatibleTypes[p]
			}
		}
		if len(to) == 0 {
			return ""
		}
		s.set(to[m.pick(len(to))])
		return "incompatible type"
	case 2:
		if len(st.records) == 0 {
			return ""
		}
		rec := st.records[m.pick(len(st.records))].obj
		fields := rec["fields"].([]any)
		f := map[string]any{"name": m.name("nodefault_"), "type": "int"}
		rec["fields"] = slices.Insert(slices.Clone(fields), m.pick(len(fields)+1), any(f))
		return "field without default"
	default:
		s := st.slots[m.pick(len(st.slots))]
		t, ok := s.val.(map[string]any)
		if !ok || s.branch {
			return ""
		}
		switch t["type"] {
		case "array":
			s.set(map[string]any{"type": "map", "values": t["items"]})
		case "map":
			s.set(map[string]any{"type": "array", "items": t["values"]})
		case "fixed":
			size, _ := t["size"].(json.Number).Int64()
			t["size"] = size + 1
		default:
			return ""
		}
		return "changed complex type"
	}
}

// The model: how Avro resolves a writer's values against a reader schema,
// and the columns Trevni lays out for a schema.

// goavroKey is the key goavro gives a union value of branch b: the type's
// full name, or for the logical types goavro converts, the type and the
// logical type.
func goavroKey(b *schema.Schema) string {
	switch {
	case b.Kind == schema.Int && (b.Logical == schema.LogicalDate || b.Logical == schema.LogicalTimeMillis),
		b.Kind == schema.Long && (b.Logical == schema.LogicalTimeMicros || b.Logical == schema.LogicalTimestampMillis ||
			b.Logical == schema.LogicalTimestampMicros),
		b.Kind == schema.Bytes && b.Logical == schema.LogicalDecimal:
		return b.Kind.String() + "." + string(b.Logical)
	case b.Kind == schema.Record || b.Kind == schema.Enum || b.Kind == schema.Fixed:
		return b.Name
	}
	return b.Kind.String()
}

// writerBranch returns the branch of union u a native value is in, and the
// value inside.
func writerBranch(u *schema.Schema, v any) (int, any) {
	if v == nil {
		return slices.IndexFunc(u.Branches, func(b *schema.Schema) bool { return b.Kind == schema.Null }), nil
	}
	for k, inner := range v.(map[string]any) {
		for i, b := range u.Branches {
			if goavroKey(b) == k {
				return i, inner
			}
		}
	}
	panic(fmt.Sprintf("no branch for %#v", v))
}

func promotable(from, to schema.Kind) bool {
	switch from {
	case schema.Int:
		return to == schema.Long || to == schema.Float || to == schema.Double
	case schema.Long:
		return to == schema.Float || to == schema.Double
	case schema.Float:
		return to == schema.Double
	case schema.String:
		return to == schema.Bytes
	case schema.Bytes:
		return to == schema.String
	}
	return false
}

// readerBranch returns the branch of the reader's union u that reads the
// writer's type w (not a union), as the specification says: the first of
// the same type (and name, or alias), else the first w promotes to; or -1.
func readerBranch(u, w *schema.Schema) int {
	for j, b := range u.Branches {
		if b.Kind == w.Kind && (!w.Kind.IsNamed() || b.Name == w.Name || slices.Contains(b.Aliases, w.Name)) {
			return j
		}
	}
	for j, b := range u.Branches {
		if promotable(w.Kind, b.Kind) {
			return j
		}
	}
	return -1
}

// canRead reports whether the reader's type r (not a union) reads the
// writer's w (not a union).
func canRead(w, r *schema.Schema) bool {
	if w.Kind == schema.Fixed && r.Kind == schema.Fixed {
		return w.Size == r.Size
	}
	return w.Kind == r.Kind || promotable(w.Kind, r.Kind)
}

// modelWriterField returns the field of writer record w that reader field rf
// reads: by name, else by one of its aliases.
func modelWriterField(w *schema.Schema, rf *schema.Field) *schema.Field {
	for _, f := range w.Fields {
		if f.Name == rf.Name {
			return f
		}
	}
	for _, f := range w.Fields {
		if slices.Contains(rf.Aliases, f.Name) {
			return f
		}
	}
	return nil
}

// unreadable stands for a record that the reader schema cannot read: it
// holds a union branch or an enum symbol the reader lacks.
type unreadable struct{}

// notUTF8 stands for a record holding bytes that are not UTF-8 where the
// reader schema wants a string: every read path refuses it as bad data.
type notUTF8 struct{}

// resolveRecord returns what reader schema rs reads from a native value v
// of writer schema ws, or unreadable{} or unmodelled{}.
func resolveRecord(ws, rs *schema.Schema, v any) (out any) {
	defer func() {
		if e := recover(); e != nil {
			switch e.(type) {
			case unreadable, unmodelled, notUTF8:
				out = e
			default:
				panic(e)
			}
		}
	}()
	return resolve(ws, rs, v)
}

// resolve returns what reader schema rs reads from a native value v of
// writer schema ws; it panics with unreadable{} if it cannot be read.
func resolve(ws, rs *schema.Schema, v any) any {
	if ws.Kind == schema.Union {
		i, inner := writerBranch(ws, v)
		return resolve(ws.Branches[i], rs, inner)
	}
	if rs.Kind == schema.Union {
		j := readerBranch(rs, ws)
		if j < 0 {
			panic(unreadable{})
		}
		b := rs.Branches[j]
		if b.Kind == schema.Null {
			return nil
		}
		return map[string]any{goavroKey(b): resolve(ws, b, v)}
	}
	if !canRead(ws, rs) {
		panic(unreadable{})
	}
	switch rs.Kind {
	case schema.Record:
		in := v.(map[string]any)
		out := make(map[string]any, len(rs.Fields))
		for _, rf := range rs.Fields {
			if wf := modelWriterField(ws, rf); wf != nil {
				out[rf.Name] = resolve(wf.Type, rf.Type, in[wf.Name])
				continue
			}
			if !rf.HasDefault {
				panic("no default for " + rf.Name)
			}
			out[rf.Name] = defaultNative(rf.Type, rf.Default)
		}
		return out
	case schema.Array:
		in := v.([]any)
		out := make([]any, len(in))
		for i, e := range in {
			out[i] = resolve(ws.Items, rs.Items, e)
		}
		return out
	case schema.Map:
		in := v.(map[string]any)
		out := make(map[string]any, len(in))
		for k, e := range in {
			out[k] = resolve(ws.Values, rs.Values, e)
		}
		return out
	case schema.Enum:
		if sym := v.(string); slices.Contains(rs.Symbols, sym) {
			return sym
		}
		if rs.EnumDefault == "" {
			panic(unreadable{})
		}
		return rs.EnumDefault
	}
	if ws.Kind == rs.Kind {
		return v
	}
	switch x := asStored(ws, v).(type) {
	case int32:
		switch rs.Kind {
		case schema.Long:
			return asLogical(rs, int64(x))
		case schema.Float:
			return float32(x)
		case schema.Double:
			return float64(x)
		}
	case int64:
		switch rs.Kind {
		case schema.Float:
			return float32(x)
		case schema.Double:
			return float64(x)
		}
	case float32:
		return float64(x)
	case string:
		return asLogical(rs, []byte(x))
	case []byte:
		if !utf8.Valid(x) {
			panic(notUTF8{})
		}
		return asLogical(rs, string(x))
	}
	panic(fmt.Sprintf("cannot promote %T to %s", v, rs.Kind))
}

// unmodelled stands for a value the model does not know how to resolve.
type unmodelled struct{}

// asStored returns the plain value under a native value of writer type
// ws that has a logical type.
func asStored(ws *schema.Schema, v any) any {
	switch ws.Logical {
	case schema.LogicalDate:
		return int32(v.(time.Time).Unix() / 86400)
	case schema.LogicalTimeMillis:
		return int32(v.(time.Duration) / time.Millisecond)
	case schema.LogicalTimeMicros:
		return int64(v.(time.Duration) / time.Microsecond)
	case schema.LogicalTimestampMillis:
		return v.(time.Time).UnixMilli()
	case schema.LogicalTimestampMicros:
		return v.(time.Time).UnixMicro()
	case schema.LogicalDecimal:
		panic(unmodelled{}) // the two's complement form is the implementation's choice
	}
	return v
}

// asLogical converts a value promoted to the reader's type rs to the
// native form of rs's logical type.
func asLogical(rs *schema.Schema, v any) any {
	switch rs.Logical {
	case schema.LogicalTimeMicros:
		return time.Duration(v.(int64)) * time.Microsecond
	case schema.LogicalTimestampMillis:
		return time.UnixMilli(v.(int64)).UTC()
	case schema.LogicalTimestampMicros:
		return time.UnixMicro(v.(int64)).UTC()
	case schema.LogicalDecimal:
		b := v.([]byte)
		n := new(big.Int).SetBytes(b)
		if len(b) > 0 && b[0]&0x80 != 0 { // two's complement
			n.Sub(n, new(big.Int).Lsh(big.NewInt(1), uint(8*len(b))))
		}
		return new(big.Rat).SetFrac(n, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(rs.Scale)), nil))
	}
	return v
}

// defaultNative returns the native value of the JSON default v of type
// s: bytes and fixed are strings of code points 0-255, a union's default
// is a value of its first branch.
func defaultNative(s *schema.Schema, v any) any {
	switch s.Kind {
	case schema.Null:
		return nil
	case schema.Boolean, schema.String, schema.Enum:
		return v
	case schema.Int:
		n, err := v.(json.Number).Int64()
		if err != nil {
			panic(err)
		}
		if s.Logical == schema.LogicalDate {
			return time.Unix(n*86400, 0).UTC()
		}
		return int32(n)
	case schema.Long:
		n, err := v.(json.Number).Int64()
		if err != nil {
			panic(err)
		}
		if s.Logical == schema.LogicalTimestampMillis {
			return time.UnixMilli(n).UTC()
		}
		return n
	case schema.Float, schema.Double:
		f, err := v.(json.Number).Float64()
		if err != nil {
			panic(err)
		}
		if s.Kind == schema.Float {
			return float32(f)
		}
		return f
	case schema.Bytes, schema.Fixed:
		var b []byte
		for _, c := range v.(string) {
			b = append(b, byte(c))
		}
		return b
	case schema.Array:
		var out []any
		for _, e := range v.([]any) {
			out = append(out, defaultNative(s.Items, e))
		}
		return out
	case schema.Map:
		out := map[string]any{}
		for k, e := range v.(map[string]any) {
			out[k] = defaultNative(s.Values, e)
		}
		return out
	case schema.Record:
		in := v.(map[string]any)
		out := map[string]any{}
		for _, f := range s.Fields {
			if e, ok := in[f.Name]; ok {
				out[f.Name] = defaultNative(f.Type, e)
			} else {
				out[f.Name] = defaultNative(f.Type, f.Default)
			}
		}
		return out
	case schema.Union:
		b := s.Branches[0]
		if b.Kind == schema.Null {
			return nil
		}
		return map[string]any{goavroKey(b): defaultNative(b, v)}
	}
	panic("no default for " + s.Kind.String())
}

// incompatibleAt reports whether err is NewAvroReader's report of a reader
// schema that cannot read the file at path.
func incompatibleAt(err error, path string) bool {
	var se *schema.Error
	return errors.Is(err, ErrIncompatible) && errors.As(err, &se) && se.Record == -1 && se.Path == path
}

// firstIncompatible returns the path of the first place, in reading order,
// where reader schema rs cannot read writer schema ws, as NewAvroReader
// must report it ("" for the root), and whether there is one.
// A writer union branch the reader lacks fails only when a record takes
// it, unless no branch at all can be read.
func firstIncompatible(ws, rs *schema.Schema, path string) (string, bool) {
	at := path
	if ws.Kind == schema.Union {
		readable := 0
		for _, wb := range ws.Branches {
			var target *schema.Schema
			if rs.Kind == schema.Union {
				if j := readerBranch(rs, wb); j >= 0 {
					target = rs.Branches[j]
				}
			} else if canRead(wb, rs) {
				target = rs
			}
			if target == nil {
				continue
			}
			readable++
			if wb.Kind == schema.Null {
				continue
			}
			if p, bad := firstIncompatible(wb, target, path); bad {
				return p, true
			}
		}
		return at, readable == 0
	}
	if rs.Kind == schema.Union {
		j := readerBranch(rs, ws)
		if j < 0 {
			return at, true
		}
		if rs.Branches[j].Kind == schema.Null {
			return "", false
		}
		return firstIncompatible(ws, rs.Branches[j], path)
	}
	if !canRead(ws, rs) {
		return at, true
	}
	switch rs.Kind {
	case schema.Record:
		for _, rf := range rs.Fields {
			p := rf.Name
			if path != "" {
				p = path + "." + rf.Name
			}
			wf := modelWriterField(ws, rf)
			if wf == nil {
				if !rf.HasDefault {
					return p, true
				}
				continue
			}
			if p, bad := firstIncompatible(wf.Type, rf.Type, p); bad {
				return p, true
			}
		}
	case schema.Array:
		return firstIncompatible(ws.Items, rs.Items, path+"[]")
	case schema.Map:
		return firstIncompatible(ws.Values, rs.Values, path+"[]")
	}
	return "", false
}

// columnWalk lays out the columns of a writer schema as Trevni's Avro
// layer does (a column per simple value; an array column per array, map
// and non-null union branch, holding simple elements itself), noting those
// a reader schema needs.
type columnWalk struct {
	next  int
	need  []int
	nulls []int // columns of null values: no data, so reading them or not is alike
}

// read returns the columns of cols that the model needs, ignoring columns
// of null values.
func (c *columnWalk) read(cols []int) []int {
	return slices.DeleteFunc(slices.Clone(cols), func(i int) bool { return slices.Contains(c.nulls, i) })
}

func walkColumns(ws, rs *schema.Schema) *columnWalk {
	c := &columnWalk{}
	c.walk(ws, rs)
	return c
}

func isSimple(s *schema.Schema) bool {
	return s.Kind.IsPrimitive() || s.Kind == schema.Enum || s.Kind == schema.Fixed
}

// column claims the next column, needed if read.
func (c *columnWalk) column(read bool) {
	if read {
		c.need = append(c.need, c.next)
	}
	c.next++
}

// walk lays out ws, read as rs, or not read at all if rs is nil.
func (c *columnWalk) walk(ws, rs *schema.Schema) {
	if ws.Kind == schema.Null {
		c.nulls = append(c.nulls, c.next)
		c.column(false)
		return
	}
	if isSimple(ws) {
		c.column(rs != nil)
		return
	}
	if rs != nil && rs.Kind == schema.Union && ws.Kind != schema.Union {
		rs = rs.Branches[readerBranch(rs, ws)]
	}
	switch ws.Kind {
	case schema.Record:
		for _, wf := range ws.Fields {
			var rt *schema.Schema
			if rs != nil {
				for _, rf := range rs.Fields {
					if modelWriterField(ws, rf) == wf {
						rt = rf.Type
					}
				}
			}
			c.walk(wf.Type, rt)
		}
	case schema.Array:
		c.column(rs != nil)
		if !isSimple(ws.Items) {
			c.walk(ws.Items, itemsOf(rs))
		}
	case schema.Map:
		c.column(rs != nil) // lengths
		c.column(rs != nil) // keys
		var values *schema.Schema
		if rs != nil {
			values = rs.Values
		}
		c.walk(ws.Values, values)
	case schema.Union:
		for _, b := range ws.Branches {
			if b.Kind == schema.Null {
				continue
			}
			c.column(rs != nil) // the branch's lengths, and its simple values
			if isSimple(b) {
				continue
			}
			var rt *schema.Schema
			if rs != nil {
				if rs.Kind == schema.Union {
					if j := readerBranch(rs, b); j >= 0 {
						rt = rs.Branches[j]
					}
				} else if canRead(b, rs) {
					rt = rs
				}
			}
			c.walk(b, rt)
		}
	}
}

func itemsOf(s *schema.Schema) *schema.Schema {
	if s == nil {
		return nil
	}
	return s.Items
}
