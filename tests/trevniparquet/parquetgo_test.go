// Package trevniparquet_test holds the tests of trevniparquet that write
// their Parquet files with parquet-go (github.com/parquet-go/parquet-go),
// an independent writer that a user of the core module should not have
// in their build list: random schemas and rows, Go structs, the pages and
// encodings parquet-go writes that other writers do not, each read by
// fromparquet's code and compared with what DuckDB reads.
package trevniparquet_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	pqgo "github.com/parquet-go/parquet-go"
	pqgocompress "github.com/parquet-go/parquet-go/compress"
	"github.com/parquet-go/parquet-go/deprecated"
	"github.com/parquet-go/parquet-go/encoding"
	"github.com/parquet-go/parquet-go/format"

	"github.com/apache/arrow-go/v18/parquet/file"

	"github.com/trevni-go/trevni"
	"github.com/trevni-go/trevni/internal/frontdoor"
	"github.com/trevni-go/trevni/internal/testing/avrorand"
	"github.com/trevni-go/trevni/internal/testing/ducktest"
	"github.com/trevni-go/trevni/internal/testing/longtest"
	"github.com/trevni-go/trevni/schema"

	"github.com/trevni-go/trevni/trevniparquet"
)

// pqgoGen makes random parquet-go schemas (nested structs, lists, legacy
// repeated fields and maps, optional at every level, Parquet's logical
// types, every encoding parquet-go writes) and random rows of them, as the
// map[string]any rows parquet-go's GenericWriter takes with a schema.
type pqgoGen struct {
	r *rand.Rand
	// duck keeps to the encodings DuckDB reads: where another is drawn,
	// a leaf is PLAIN instead (the random draws are the same either
	// way, so the schema and the values are too).
	duck bool
	// deltaFixed lets fixed-size byte arrays be DELTA_BYTE_ARRAY, which
	// arrow-go's reader (so fromparquet) does not decode.
	deltaFixed bool
}

// pqValue makes one random value of a node.
type pqValue func() any

// encoded gives a leaf one of the encodings parquet-go allows for its
// physical type, or leaves it to the writer's default.
func (g *pqgoGen) encoded(n pqgo.Node, kind pqgo.Kind) pqgo.Node {
	// Each encoding, and whether DuckDB reads it here: DuckDB reads
	// BYTE_STREAM_SPLIT of floats only, and the delta encodings of byte
	// arrays as strings and blobs only (not enums or decimals).
	type enc struct {
		e    encoding.Encoding
		duck bool
	}
	var encs []enc
	def := true // whether the writer's default may be taken
	switch kind {
	case pqgo.Boolean:
		encs = []enc{{&pqgo.Plain, true}, {&pqgo.RLE, true}}
	case pqgo.Int32, pqgo.Int64:
		encs = []enc{{&pqgo.Plain, true}, {&pqgo.RLEDictionary, true}, {&pqgo.DeltaBinaryPacked, true}, {&pqgo.ByteStreamSplit, false}}
	case pqgo.Float, pqgo.Double:
		encs = []enc{{&pqgo.Plain, true}, {&pqgo.RLEDictionary, true}, {&pqgo.ByteStreamSplit, true}}
	case pqgo.ByteArray:
		encs = []enc{{&pqgo.Plain, true}, {&pqgo.RLEDictionary, true}, {&pqgo.DeltaLengthByteArray, true}, {&pqgo.DeltaByteArray, true}}
		if lt := n.Type().LogicalType(); lt != nil && lt.Value != nil {
			switch lt.Value.(type) {
			case *format.EnumType, *format.DecimalType:
				// parquet-go's default for byte arrays is
				// DELTA_LENGTH_BYTE_ARRAY.
				encs[2].duck, encs[3].duck, def = false, false, false
			}
		}
	case pqgo.FixedLenByteArray:
		encs = []enc{{&pqgo.Plain, true}, {&pqgo.RLEDictionary, true}, {&pqgo.ByteStreamSplit, false}}
		if g.deltaFixed {
			encs[2] = enc{&pqgo.DeltaByteArray, true}
		}
	}
	k := g.r.IntN(len(encs) + 1)
	switch {
	case k == len(encs) && def:
		return n
	case k == len(encs) || g.duck && !encs[k].duck:
		return pqgo.Encoded(n, &pqgo.Plain)
	}
	return pqgo.Encoded(n, encs[k].e)
}

// pick returns one of a few values most of the time (so that dictionaries
// pay), or a fresh one.
func pick[T any](g *pqgoGen, pool []T, fresh func() T) T {
	if g.r.IntN(3) > 0 {
		return pool[g.r.IntN(len(pool))]
	}
	return fresh()
}

// text returns a random string: ASCII, quotes and backslashes, control
// characters and multi-byte runes.
func (g *pqgoGen) text() string {
	const alphabet = "abcxyz 019\"\\'\n\t\x01é✓🦆"
	runes := []rune(alphabet)
	n := g.r.IntN(12)
	var sb strings.Builder
	for range n {
		sb.WriteRune(runes[g.r.IntN(len(runes))])
	}
	return sb.String()
}

// blob returns n random bytes (a random length when n < 0).
func (g *pqgoGen) blob(n int) []byte {
	if n < 0 {
		n = g.r.IntN(10)
	}
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(g.r.Uint32())
	}
	return b
}

// leaf returns a random leaf node and its values.
func (g *pqgoGen) leaf() (pqgo.Node, pqValue) {
	r := g.r
	switch r.IntN(26) {
	case 0:
		return g.encoded(pqgo.Leaf(pqgo.BooleanType), pqgo.Boolean), func() any { return r.IntN(2) == 0 }
	case 1:
		pool := []int32{0, -1, math.MaxInt32, math.MinInt32, 7}
		return g.encoded(pqgo.Leaf(pqgo.Int32Type), pqgo.Int32), func() any { return pick(g, pool, func() int32 { return int32(r.Uint32()) }) }
	case 2:
		pool := []int64{0, -1, math.MaxInt64, math.MinInt64, 1 << 40}
		return g.encoded(pqgo.Leaf(pqgo.Int64Type), pqgo.Int64), func() any { return pick(g, pool, func() int64 { return int64(r.Uint64()) }) }
	case 3:
		return g.encoded(pqgo.Int(8), pqgo.Int32), func() any { return int8(r.Uint32()) }
	case 4:
		return g.encoded(pqgo.Int(16), pqgo.Int32), func() any { return int16(r.Uint32()) }
	case 5:
		return g.encoded(pqgo.Uint(8), pqgo.Int32), func() any { return uint8(r.Uint32()) }
	case 6:
		return g.encoded(pqgo.Uint(16), pqgo.Int32), func() any { return uint16(r.Uint32()) }
	case 7:
		return g.encoded(pqgo.Uint(32), pqgo.Int32), func() any { return r.Uint32() }
	case 8:
		// Avro's long holds the 64 bits (marked "uint64"), those of
		// 2^63 and up too.
		return g.encoded(pqgo.Uint(64), pqgo.Int64), func() any { return r.Uint64() }
	case 9:
		pool := []float32{0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), 1.5, math.MaxFloat32, math.SmallestNonzeroFloat32}
		return g.encoded(pqgo.Leaf(pqgo.FloatType), pqgo.Float), func() any { return pick(g, pool, func() float32 { return float32(r.NormFloat64() * 1e6) }) }
	case 10:
		pool := []float64{0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN(), 0.1, math.MaxFloat64, math.SmallestNonzeroFloat64}
		return g.encoded(pqgo.Leaf(pqgo.DoubleType), pqgo.Double), func() any { return pick(g, pool, func() float64 { return r.NormFloat64() * 1e12 }) }
	case 11, 12:
		pool := []string{"", "a", "duck", "✓ ok"}
		return g.encoded(pqgo.String(), pqgo.ByteArray), func() any { return pick(g, pool, g.text) }
	case 13:
		return g.encoded(pqgo.Leaf(pqgo.ByteArrayType), pqgo.ByteArray), func() any { return g.blob(-1) }
	case 14:
		size := 1 + r.IntN(6)
		return g.encoded(pqgo.Leaf(pqgo.FixedLenByteArrayType(size)), pqgo.FixedLenByteArray), func() any { return g.blob(size) }
	case 15:
		pool := []string{"RED", "GRÜN", "BLUE ✓"}
		return g.encoded(pqgo.Enum(), pqgo.ByteArray), func() any { return pool[r.IntN(len(pool))] }
	case 16:
		return pqgo.UUID(), func() any { return [16]byte(g.blob(16)) }
	case 17:
		// Days within DuckDB's DATE range.
		return g.encoded(pqgo.Date(), pqgo.Int32), func() any { return int32(r.IntN(2_000_000) - 1_000_000) }
	case 18:
		switch r.IntN(3) {
		case 0:
			return g.encoded(pqgo.TimeAdjusted(pqgo.Millisecond, r.IntN(2) == 0), pqgo.Int32), func() any { return int32(r.IntN(86400e3)) }
		case 1:
			return g.encoded(pqgo.TimeAdjusted(pqgo.Microsecond, r.IntN(2) == 0), pqgo.Int64), func() any { return r.Int64N(86400e6) }
		}
		return g.encoded(pqgo.TimeAdjusted(pqgo.Nanosecond, r.IntN(2) == 0), pqgo.Int64), func() any { return r.Int64N(86400e6) * 1000 }
	case 19:
		units := []pqgo.TimeUnit{pqgo.Millisecond, pqgo.Microsecond, pqgo.Nanosecond}
		per := []int64{1e3, 1e6, 1e9}
		k := r.IntN(3)
		// Within 9e9 s of 1970 (DuckDB's nanosecond timestamps end in
		// 2262); nanoseconds in whole microseconds (DuckDB keeps those).
		return g.encoded(pqgo.TimestampAdjusted(units[k], r.IntN(2) == 0), pqgo.Int64), func() any {
			v := (r.Int64N(18e9) - 9e9) * per[k] / 1000
			v += r.Int64N(per[k])
			if k == 2 {
				v -= v % 1000
			}
			return v
		}
	case 20:
		p := 1 + r.IntN(9)
		s := r.IntN(p + 1)
		return g.encoded(pqgo.Decimal(s, p, pqgo.Int32Type), pqgo.Int32), func() any { return int32(r.Int64N(2*pow10(p)-1) - pow10(p) + 1) }
	case 21:
		p := 10 + r.IntN(9)
		s := r.IntN(p + 1)
		return g.encoded(pqgo.Decimal(s, p, pqgo.Int64Type), pqgo.Int64), func() any { return r.Int64N(2*pow10(p)-1) - pow10(p) + 1 }
	case 22:
		// A fixed-size decimal of up to 38 digits: 16 bytes hold them.
		size := 9 + r.IntN(8)
		p := min(38, int(float64(8*size-1)*math.Log10(2)))
		s := r.IntN(p + 1)
		return g.encoded(pqgo.Decimal(s, p, pqgo.FixedLenByteArrayType(size)), pqgo.FixedLenByteArray), func() any { return g.decimalBytes(size, p) }
	case 23:
		// The INT96 timestamps of Impala and old Spark: nanoseconds of
		// the day, then the Julian day, in whole microseconds (DuckDB
		// keeps those) within DuckDB's range.
		return pqgo.Leaf(pqgo.Int96Type), func() any {
			ns := uint64(r.Int64N(86400e6)) * 1000
			return deprecated.Int96{uint32(ns), uint32(ns >> 32), uint32(2440588 - 100000 + r.IntN(200000))}
		}
	case 24:
		// An INTERVAL: months, days and milliseconds, little-endian.
		return pqgo.IntervalNode(), func() any {
			b := make([]byte, 12)
			binary.LittleEndian.PutUint32(b, uint32(r.IntN(1000)))
			binary.LittleEndian.PutUint32(b[4:], uint32(r.IntN(100)))
			binary.LittleEndian.PutUint32(b[8:], r.Uint32())
			return b
		}
	}
	p := 1 + r.IntN(38)
	s := r.IntN(p + 1)
	return g.encoded(pqgo.Decimal(s, p, pqgo.ByteArrayType), pqgo.ByteArray), func() any { return g.decimalBytes(-1, p) }
}

// pow10 is 10 to the n, n at most 18.
func pow10(n int) int64 {
	v := int64(1)
	for range n {
		v *= 10
	}
	return v
}

// decimalBytes returns a random unscaled decimal of at most p digits, in
// size bytes of big-endian two's complement (the fewest when size < 0).
func (g *pqgoGen) decimalBytes(size, p int) []byte {
	digits := 1 + g.r.IntN(p)
	var x, ten = newBig(0), newBig(10)
	for range digits {
		x.Mul(x, ten)
		x.Add(x, newBig(int64(g.r.IntN(10))))
	}
	if g.r.IntN(2) == 0 {
		x.Neg(x)
	}
	return twosComplement(x, size)
}

// newBig is big.NewInt.
func newBig(v int64) *big.Int { return big.NewInt(v) }

// twosComplement returns x in size bytes of big-endian two's complement
// (the fewest that hold it when size < 0).
func twosComplement(x *big.Int, size int) []byte {
	if size < 0 {
		size = (x.BitLen() + 8) / 8
	}
	v := new(big.Int).Set(x)
	if v.Sign() < 0 {
		v.Add(v, new(big.Int).Lsh(big.NewInt(1), uint(8*size)))
	}
	return v.FillBytes(make([]byte, size))
}

// pqNode is a node of a random parquet-go schema: the parquet-go node,
// how its values are made, and how they are shredded into the values of
// its leaf columns with their repetition and definition levels.
type pqNode struct {
	node     pqgo.Node
	kind     int // pqLeaf, pqGroup or pqRepeated
	optional bool
	names    []string  // of a group's fields, in parquet-go's order
	kids     []*pqNode // a group's fields; a repeated node's item
	gen      pqValue
	phys     pqgo.Kind // of a leaf
	col      int       // of a leaf: its column
	isMap    bool      // a repeated node of a map's key_value group
}

const (
	pqLeaf = iota
	pqGroup
	pqRepeated // a legacy repeated field, a LIST's list or a MAP's key_value
)

// leafNode returns a random leaf.
func (g *pqgoGen) leafNode() *pqNode {
	n, gen := g.leaf()
	return &pqNode{node: n, kind: pqLeaf, gen: gen, phys: n.Type().Kind()}
}

// node returns a random required node of at most depth levels of nesting.
// A group's field may be a legacy repeated field when repeated says so.
func (g *pqgoGen) node(depth int, repeated bool) *pqNode {
	r := g.r
	if depth <= 0 || r.IntN(3) == 0 {
		return g.leafNode()
	}
	k := r.IntN(4)
	if !repeated {
		k = r.IntN(3)
	}
	switch k {
	case 0:
		return g.group(depth-1, 1+r.IntN(3))
	case 1:
		// A LIST of three levels, its elements optional or not.
		elem := g.field(depth-1, false)
		return &pqNode{node: pqgo.List(elem.node), kind: pqRepeated, kids: []*pqNode{elem}, gen: func() any {
			a := make([]any, r.IntN(4))
			for i := range a {
				a[i] = elem.gen()
			}
			return a
		}}
	case 2:
		// A MAP of string or int keys.
		value := g.field(depth-1, false)
		key := &pqNode{node: pqgo.String(), kind: pqLeaf, phys: pqgo.ByteArray, gen: func() any { return g.text() }}
		if r.IntN(2) == 0 {
			key = &pqNode{node: pqgo.Leaf(pqgo.Int32Type), kind: pqLeaf, phys: pqgo.Int32, gen: func() any { return int32(r.IntN(100) - 50) }}
		}
		kv := &pqNode{node: pqgo.Group{"key": key.node, "value": value.node}, kind: pqGroup, names: []string{"key", "value"}, kids: []*pqNode{key, value}}
		return &pqNode{node: pqgo.Map(key.node, value.node), kind: pqRepeated, isMap: true, kids: []*pqNode{kv}, gen: func() any {
			var entries []any
			seen := map[any]bool{}
			for range r.IntN(4) {
				k := key.gen()
				if !seen[k] {
					seen[k] = true
					entries = append(entries, map[string]any{"key": k, "value": value.gen()})
				}
			}
			return entries
		}}
	}
	// A legacy repeated field (a list of required items, in two levels),
	// of a primitive or a group. Not a group of one field: DuckDB reads a
	// repeated group of one field, outside a LIST, as a list of that
	// field, where the Parquet format (and arrow-go) says a list of the
	// group.
	item := g.leafNode()
	if r.IntN(2) == 0 {
		item = g.group(depth-1, 2+r.IntN(2))
	}
	return &pqNode{node: pqgo.Repeated(item.node), kind: pqRepeated, kids: []*pqNode{item}, gen: func() any {
		a := make([]any, r.IntN(4))
		for i := range a {
			a[i] = item.gen()
		}
		return a
	}}
}

// field returns a random node, optional or required (or a legacy repeated
// field, when it is a group's field and repeated says so).
func (g *pqgoGen) field(depth int, repeated bool) *pqNode {
	n := g.node(depth, repeated)
	if n.node.Repeated() || g.r.IntN(2) == 0 {
		return n
	}
	gen := n.gen
	n.node, n.optional = pqgo.Optional(n.node), true
	n.gen = func() any {
		if g.r.IntN(4) == 0 {
			return nil
		}
		return gen()
	}
	return n
}

// group returns a random group of n fields.
func (g *pqgoGen) group(depth, n int) *pqNode {
	grp := pqgo.Group{}
	fields := map[string]*pqNode{}
	for i := range n {
		// Some names are not Avro names (AvroSchema keeps them in
		// "arrow.name"): spaces, dots, dashes, a leading digit, letters
		// beyond ASCII.
		name := fmt.Sprintf([]string{"f%d_%d", "f%d_%d", "f%d_%d", "f%d %d", "%d.f%d", "f%d-%d", "ü%d_%d"}[g.r.IntN(7)], i, g.r.IntN(100))
		fields[name] = g.field(depth, true)
		grp[name] = fields[name].node
	}
	out := &pqNode{node: grp, kind: pqGroup}
	// parquet-go orders a group's fields by name.
	for _, f := range grp.Fields() {
		out.names = append(out.names, f.Name())
		out.kids = append(out.kids, fields[f.Name()])
	}
	out.gen = func() any {
		m := make(map[string]any, len(out.kids))
		for i, k := range out.kids {
			m[out.names[i]] = k.gen()
		}
		return m
	}
	return out
}

// number numbers the leaves under n from col on, in the schema's column
// order, and returns the next column.
func (n *pqNode) number(col int) int {
	if n.kind == pqLeaf {
		n.col = col
		return col + 1
	}
	for _, k := range n.kids {
		col = k.number(col)
	}
	return col
}

// nulls gives every leaf under n a null at levels rep and def.
func (n *pqNode) nulls(cols [][]pqgo.Value, rep, def int) {
	if n.kind == pqLeaf {
		cols[n.col] = append(cols[n.col], pqgo.Value{}.Level(rep, def, n.col))
		return
	}
	for _, k := range n.kids {
		k.nulls(cols, rep, def)
	}
}

// shred appends value v of n to the values of its leaf columns, at
// repetition level rep, definition level def, under depth repeated nodes.
func (n *pqNode) shred(cols [][]pqgo.Value, v any, rep, def, depth int) {
	if n.optional {
		if v == nil {
			n.nulls(cols, rep, def)
			return
		}
		def++
	}
	switch n.kind {
	case pqLeaf:
		cols[n.col] = append(cols[n.col], pqLeafValue(n.phys, v).Level(rep, def, n.col))
	case pqGroup:
		m := v.(map[string]any)
		for i, k := range n.kids {
			k.shred(cols, m[n.names[i]], rep, def, depth)
		}
	case pqRepeated:
		items := v.([]any)
		if len(items) == 0 {
			n.kids[0].nulls(cols, rep, def)
			return
		}
		for i, item := range items {
			r := rep
			if i > 0 {
				r = depth + 1
			}
			n.kids[0].shred(cols, item, r, def+1, depth+1)
		}
	}
}

// pqLeafValue is a generated value as a Parquet value of a physical type.
func pqLeafValue(kind pqgo.Kind, v any) pqgo.Value {
	switch x := v.(type) {
	case bool:
		return pqgo.BooleanValue(x)
	case int8:
		return pqgo.Int32Value(int32(x))
	case int16:
		return pqgo.Int32Value(int32(x))
	case uint8:
		return pqgo.Int32Value(int32(x))
	case uint16:
		return pqgo.Int32Value(int32(x))
	case uint32:
		return pqgo.Int32Value(int32(x))
	case int32:
		return pqgo.Int32Value(x)
	case int64:
		return pqgo.Int64Value(x)
	case uint64:
		return pqgo.Int64Value(int64(x))
	case float32:
		return pqgo.FloatValue(x)
	case float64:
		return pqgo.DoubleValue(x)
	case string:
		return pqgo.ByteArrayValue([]byte(x))
	case [16]byte:
		return pqgo.FixedLenByteArrayValue(x[:])
	case deprecated.Int96:
		return pqgo.Int96Value(x)
	case []byte:
		if kind == pqgo.FixedLenByteArray {
			return pqgo.FixedLenByteArrayValue(x)
		}
		return pqgo.ByteArrayValue(x)
	}
	panic(fmt.Sprintf("no Parquet value of %T", v))
}

// pqgoCodecs are the codecs parquet-go writes, by name.
var pqgoCodecs = []struct {
	name  string
	codec pqgocompress.Codec
}{
	{"uncompressed", &pqgo.Uncompressed},
	{"snappy", &pqgo.Snappy},
	{"gzip", &pqgo.Gzip},
	{"zstd", &pqgo.Zstd},
	{"lz4raw", &pqgo.Lz4Raw},
	{"brotli", &pqgo.Brotli},
}

// writeParquetGo writes rows random rows of a random schema (seed's) with
// parquet-go's Writer into a file, in row groups of a random size and
// pages of a random buffer size, data pages of version 1 or 2; g's duck
// and deltaFixed choose among the encodings.
func writeParquetGo(t *testing.T, name string, seed uint64, codec int, rows int, g pqgoGen) {
	t.Helper()
	g.r = rand.New(rand.NewPCG(seed, 24))
	root := g.group(4, 2+g.r.IntN(6))
	ncols := root.number(0)
	sch := pqgo.NewSchema("root", root.node)
	if len(sch.Columns()) != ncols {
		t.Fatalf("seed %d: %d columns, %d leaves\n%s", seed, len(sch.Columns()), ncols, sch)
	}
	f, err := os.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := pqgo.NewWriter(f, sch,
		pqgo.Compression(pqgoCodecs[codec].codec),
		pqgo.MaxRowsPerRowGroup(int64(20+g.r.IntN(80))),
		pqgo.PageBufferSize(256+g.r.IntN(4096)),
		pqgo.DataPageVersion(1+g.r.IntN(2)),
	)
	cols := make([][]pqgo.Value, ncols)
	for range rows {
		for i := range cols {
			cols[i] = cols[i][:0]
		}
		root.shred(cols, root.gen(), 0, 0, 0)
		var row pqgo.Row
		for _, c := range cols {
			row = append(row, c...)
		}
		if _, err := w.WriteRows([]pqgo.Row{row}); err != nil {
			t.Fatalf("seed %d: parquet-go: %v\n%s", seed, err, sch)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatalf("seed %d: parquet-go: %v\n%s", seed, err, sch)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// Parquet files parquet-go writes, of random schemas (structs, LISTs,
// legacy repeated fields, MAPs of string and int keys, nested in each
// other, optional at every level; Parquet's logical types) with random
// values, several row groups and pages, each codec parquet-go offers,
// random encodings: fromparquet converts each (the Avro schema inferred)
// into what DuckDB reads from it. The same values written with encodings
// DuckDB does not read (BYTE_STREAM_SPLIT of integers and fixed-size
// byte arrays, the delta encodings of enums and decimals) convert into the
// same records.
func TestParquetFromParquetGoRandom(t *testing.T) {
	dir := t.TempDir()
	seeds := uint64(longtest.Rounds(12, 48))
	var files []string
	for seed := range seeds {
		codec := int(seed) % len(pqgoCodecs)
		name := filepath.Join(dir, fmt.Sprintf("pqgo-%d-%s.parquet", seed, pqgoCodecs[codec].name))
		writeParquetGo(t, name, seed, codec, 120+int(seed%5)*40, pqgoGen{duck: true})
		groups, c := parquetInfo(t, name)
		if groups < 2 || c != strings.ReplaceAll(pqgoCodecs[codec].name, "lz4raw", "lz4_raw") {
			t.Fatalf("%s: %d row groups, codec %s", name, groups, c)
		}
		files = append(files, name)
	}
	reads := ducktest.ReadParquet(t, files...)
	for seed, name := range files {
		s, got, err := fromParquetFile(t, name, 1+seed*7)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := ducktest.Diff(s, got, reads[name]); err != nil {
			t.Fatalf("%s: %v\n%s", name, err, s)
		}
		other := filepath.Join(dir, fmt.Sprintf("pqgo-%d-all.parquet", seed))
		writeParquetGo(t, other, uint64(seed), seed%len(pqgoCodecs), 120+seed%5*40, pqgoGen{})
		s2, got2, err := fromParquetFile(t, other, 64)
		if err != nil {
			t.Fatalf("%s: %v", other, err)
		}
		if s2.String() != s.String() || len(got2) != len(got) {
			t.Fatalf("%s: %d records of\n%s\nof the %d of\n%s", other, len(got2), s2, len(got), s)
		}
		for i := range got {
			if !avrorand.EqualNative(got2[i], got[i]) {
				t.Fatalf("%s: record %d\n got %v\nwant %v", other, i, got2[i], got[i])
			}
		}
	}
}

// A version 2 data page of brotli whose values are all null has an empty
// values section (arrow-go's brotli codec failed on it): parquet-go writes
// such pages, DuckDB reads them, and fromparquet converts them into what
// DuckDB reads.
func TestParquetFromParquetGoEmptyBrotliPage(t *testing.T) {
	type row struct {
		ID   int64  `parquet:"id"`
		Note *int64 `parquet:"note,optional"`
	}
	name := filepath.Join(t.TempDir(), "empty.parquet")
	f, err := os.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	w := pqgo.NewGenericWriter[row](f, pqgo.Compression(&pqgo.Brotli), pqgo.DataPageVersion(2), pqgo.MaxRowsPerRowGroup(50))
	rows := make([]row, 120)
	for i := range rows {
		rows[i].ID = int64(i)
		if i >= 100 {
			n := int64(i) << 40
			rows[i].Note = &n
		}
	}
	if _, err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	reads := ducktest.ReadParquet(t, name)
	s, got, err := fromParquetFile(t, name, 32)
	if err != nil {
		t.Fatal(err)
	}
	ducktest.Check(t, name, s, got, reads[name])
}

// A column of fixed-size byte arrays in DELTA_BYTE_ARRAY (the Parquet
// format allows it, parquet-go writes it for a "delta" [N]byte field),
// which arrow-go's reader does not decode, is refused when the file is
// opened, with the row group, the column and the encoding named, instead
// of failing in the middle of a conversion.
func TestParquetDeltaFixedRefused(t *testing.T) {
	type row struct {
		ID  int64   `parquet:"id"`
		Key [4]byte `parquet:"key,delta"`
	}
	name := filepath.Join(t.TempDir(), "delta.parquet")
	f, err := os.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	w := pqgo.NewGenericWriter[row](f)
	if _, err := w.Write([]row{{1, [4]byte{1, 2, 3, 4}}, {2, [4]byte{1, 2, 3, 5}}}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	_, _, err = fromParquetFile(t, name, 16)
	if err == nil || !strings.Contains(err.Error(), "row group 0, column key: DELTA_BYTE_ARRAY encoding of FIXED_LEN_BYTE_ARRAY") {
		t.Fatalf("got %v, want the column and its encoding named", err)
	}
}

// pqgoItem and pqgoRecord are Go structs as parquet-go users write them:
// pointers for optional fields, slices as LISTs (or bare repeated fields),
// maps, nested structs, struct tags for logical types and encodings.
type pqgoItem struct {
	Name   string            `parquet:"name,dict"`
	Weight *float64          `parquet:"weight,optional"`
	Tags   []string          `parquet:"tags,list"`
	Attrs  map[string]*int32 `parquet:"attrs" parquet-value:",optional"`
}

type pqgoRecord struct {
	ID       int64              `parquet:"id,delta"`
	Small    int8               `parquet:"small,int(8)"`
	Unsigned uint32             `parquet:"unsigned,uint(32)"`
	Label    *string            `parquet:"label,optional,snappy"`
	Kind     string             `parquet:"kind,enum"`
	Day      int32              `parquet:"day,date"`
	At       int64              `parquet:"at,timestamp(microsecond)"`
	Local    int64              `parquet:"local,timestamp(millisecond:local)"`
	Amount   int64              `parquet:"amount,decimal(2:18)"`
	Key      [16]byte           `parquet:"key,uuid"`
	Blob     []byte             `parquet:"blob"`
	Ratio    float32            `parquet:"ratio,split"`
	Flags    []bool             `parquet:"flags"`
	Scores   []*float64         `parquet:"scores,list" parquet-element:",optional"`
	Main     *pqgoItem          `parquet:"main,optional"`
	Items    []pqgoItem         `parquet:"items,list"`
	Groups   map[string][]int64 `parquet:"groups"`
	ByNumber map[int32]pqgoItem `parquet:"by_number"`
	Nested   [][]string         `parquet:"nested,list" parquet-element:",list"`
	Optional map[string]*string `parquet:"optional_map,optional" parquet-value:",optional"`
}

// randomPQGoRecord returns a random pqgoRecord.
func randomPQGoRecord(g *pqgoGen) pqgoRecord {
	r := g.r
	ptr := func(v float64) *float64 {
		if r.IntN(4) == 0 {
			return nil
		}
		return &v
	}
	item := func() pqgoItem {
		it := pqgoItem{Name: []string{"a", "b", "é✓"}[r.IntN(3)], Weight: ptr(r.NormFloat64())}
		for range r.IntN(3) {
			it.Tags = append(it.Tags, g.text())
		}
		if r.IntN(3) > 0 {
			it.Attrs = map[string]*int32{}
			for range r.IntN(3) {
				v := int32(r.Uint32())
				p := &v
				if r.IntN(3) == 0 {
					p = nil
				}
				it.Attrs[g.text()] = p
			}
		}
		return it
	}
	rec := pqgoRecord{
		ID: r.Int64(), Small: int8(r.Uint32()), Unsigned: r.Uint32(), Kind: []string{"ON", "OFF"}[r.IntN(2)],
		Day: int32(r.IntN(100000) - 50000), At: (r.Int64N(18e9) - 9e9) * 1e6, Local: (r.Int64N(18e9) - 9e9) * 1e3,
		Amount: r.Int64N(2e18) - 1e18, Key: [16]byte(g.blob(16)), Blob: g.blob(-1), Ratio: float32(r.NormFloat64()),
	}
	if r.IntN(3) > 0 {
		s := g.text()
		rec.Label = &s
	}
	for range r.IntN(4) {
		rec.Flags = append(rec.Flags, r.IntN(2) == 0)
		rec.Scores = append(rec.Scores, ptr(r.Float64()))
		rec.Items = append(rec.Items, item())
	}
	if r.IntN(3) > 0 {
		m := item()
		rec.Main = &m
	}
	if r.IntN(2) == 0 {
		rec.Groups = map[string][]int64{}
		for range r.IntN(3) {
			rec.Groups[g.text()] = []int64{r.Int64(), -1}[:r.IntN(3)]
		}
		rec.ByNumber = map[int32]pqgoItem{int32(r.IntN(9)): item()}
		rec.Optional = map[string]*string{"k": nil, g.text(): rec.Label}
	}
	for range r.IntN(3) {
		var inner []string
		for range r.IntN(3) {
			inner = append(inner, g.text())
		}
		rec.Nested = append(rec.Nested, inner)
	}
	return rec
}

// Parquet files parquet-go's GenericWriter writes from Go structs (its
// usual use: struct tags for optional fields, lists, maps, logical types
// and encodings), with each codec and several row groups: fromparquet
// converts each into what DuckDB reads from it.
func TestParquetFromParquetGoStructs(t *testing.T) {
	dir := t.TempDir()
	var files []string
	for i, c := range pqgoCodecs {
		g := &pqgoGen{r: rand.New(rand.NewPCG(uint64(i), 7))}
		rows := make([]pqgoRecord, 250)
		for k := range rows {
			rows[k] = randomPQGoRecord(g)
		}
		name := filepath.Join(dir, "structs-"+c.name+".parquet")
		f, err := os.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		w := pqgo.NewGenericWriter[pqgoRecord](f, pqgo.Compression(c.codec), pqgo.MaxRowsPerRowGroup(60), pqgo.PageBufferSize(2048), pqgo.DataPageVersion(1+i%2))
		for k := 0; k < len(rows); k += 25 {
			if _, err := w.Write(rows[k : k+25]); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		files = append(files, name)
	}
	reads := ducktest.ReadParquet(t, files...)
	for i, f := range files {
		if groups, _ := parquetInfo(t, f); groups < 2 {
			t.Fatalf("%s: %d row groups", f, groups)
		}
		s, got, err := fromParquetFile(t, f, 10+i*20)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if err := ducktest.Diff(s, got, reads[f]); err != nil {
			t.Fatalf("%s: %v\n%s", f, err, s)
		}
	}
}

// fromParquetFile converts a Parquet file as fromparquet does, reading
// batches of batchRows rows, map entries in the file's order, and returns
// the Avro schema and the records of the Trevni file.
func fromParquetFile(t *testing.T, name string, batchRows int) (*schema.Schema, []any, error) {
	t.Helper()
	s, trv, err := convert(t, name, batchRows)
	if err != nil {
		return nil, nil, err
	}
	return s, readAll(t, trv), nil
}

// convert converts a Parquet file as fromparquet does (batches of
// batchRows rows, map entries in the file's order) and returns the Avro
// schema and the Trevni file's name.
func convert(t *testing.T, name string, batchRows int) (*schema.Schema, string, error) {
	t.Helper()
	in, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	pf, err := trevniparquet.Open(in, &trevniparquet.ReadOptions{BatchRows: batchRows})
	if err != nil {
		return nil, "", err
	}
	defer pf.Close()
	s, err := schema.Parse(pf.AvroSchema())
	if err != nil {
		return nil, "", err
	}
	out := filepath.Join(t.TempDir(), filepath.Base(name)+".trv")
	wo := &trevni.WriteOptions{}
	frontdoor.KeepMapOrder(wo) // a MAP's entries in the file's order, as fromparquet writes them
	w, err := trevni.Create(context.Background(), out, pf.AvroSchema(), wo)
	if err != nil {
		return nil, "", err
	}
	n, err := pf.WriteTo(context.Background(), w)
	if err != nil {
		w.Abort()
		return nil, "", err
	}
	if err := w.Close(); err != nil {
		return nil, "", err
	}
	if n != pf.NumRows() {
		return nil, "", fmt.Errorf("%d rows written of the file's %d", n, pf.NumRows())
	}
	return s, out, nil
}

// toParquet writes a Trevni file as toparquet does and returns the
// Parquet file's name.
func toParquet(t *testing.T, trv string) string {
	t.Helper()
	ctx := context.Background()
	ds, err := trevni.Open(ctx, trv, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	out := strings.TrimSuffix(trv, ".trv") + ".back.parquet"
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := trevniparquet.Write(ctx, f, ds, nil); err != nil {
		t.Fatalf("%s: toparquet: %v", trv, err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return out
}

// readAll reads every record of a Trevni file.
func readAll(t *testing.T, name string) []any {
	t.Helper()
	ds, err := trevni.Open(context.Background(), name, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	var out []any
	for v, err := range ds.All(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	return out
}

// parquetInfo returns the number of row groups of a Parquet file and the
// codec of its first column chunk.
func parquetInfo(t *testing.T, name string) (int, string) {
	t.Helper()
	rd, err := file.OpenParquetFile(name, false)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	cc, err := rd.MetaData().RowGroup(0).ColumnChunk(0)
	if err != nil {
		t.Fatal(err)
	}
	return rd.NumRowGroups(), strings.ToLower(cc.Compression().String())
}

// optionalKeyMap is a MAP group whose keys are optional, as Hive and old
// parquet-java wrote them (parquet-go's Map makes them required).
type optionalKeyMap struct{ pqgo.Group }

func (optionalKeyMap) Type() pqgo.Type { return pqgo.Map(pqgo.String(), pqgo.String()).Type() }

// writeOptionalKeyMap writes a file of one column, an optional MAP of
// optional string keys and values, of the rows given as key-value pairs
// (a nil row is a null map, a nil key a null key).
func writeOptionalKeyMap(t *testing.T, name string, rows [][][2]*string) {
	t.Helper()
	m := optionalKeyMap{pqgo.Group{"key_value": pqgo.Repeated(pqgo.Group{
		"key":   pqgo.Optional(pqgo.String()),
		"value": pqgo.Optional(pqgo.String()),
	})}}
	sch := pqgo.NewSchema("hive_schema", pqgo.Group{"my_map": pqgo.Optional(m)})
	f, err := os.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := pqgo.NewWriter(f, sch)
	leaf := func(v *string, rep, def, col int) pqgo.Value {
		if v == nil {
			return pqgo.Value{}.Level(rep, def, col)
		}
		return pqgo.ValueOf(*v).Level(rep, def+1, col)
	}
	for _, r := range rows {
		var keys, vals pqgo.Row
		switch {
		case r == nil:
			keys, vals = pqgo.Row{pqgo.Value{}.Level(0, 0, 0)}, pqgo.Row{pqgo.Value{}.Level(0, 0, 1)}
		case len(r) == 0:
			keys, vals = pqgo.Row{pqgo.Value{}.Level(0, 1, 0)}, pqgo.Row{pqgo.Value{}.Level(0, 1, 1)}
		}
		for i, kv := range r {
			rep := min(i, 1)
			keys = append(keys, leaf(kv[0], rep, 2, 0))
			vals = append(vals, leaf(kv[1], rep, 2, 1))
		}
		if _, err := w.WriteRows([]pqgo.Row{append(keys, vals...)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// A MAP of optional keys (incorrect_map_schema.parquet's schema, which
// arrow-go refuses) reads as a map, its entries in the file's order and
// its null maps null, as DuckDB reads it; a null key, which no map can
// hold, is refused naming the column.
func TestParquetMapOfOptionalKeys(t *testing.T) {
	s := func(v string) *string { return &v }
	name := filepath.Join(t.TempDir(), "optkeys.parquet")
	writeOptionalKeyMap(t, name, [][][2]*string{
		{{s("b"), s("x")}, {s("a"), nil}},
		nil,
		{},
		{{s("z"), s("1")}, {s("c"), s("2")}, {s("m"), s("3")}},
	})
	sch, got, err := fromParquetFile(t, name, 3)
	if err != nil {
		t.Fatal(err)
	}
	f := sch.Fields[0]
	if f.Name != "my_map" || f.Type.Kind != schema.Union || f.Type.Branches[1].Kind != schema.Map {
		t.Fatalf("read as %s, want a nullable map", sch)
	}
	if len(got) != 4 || got[1].(map[string]any)["my_map"] != nil {
		t.Fatalf("read %v", got)
	}
	ducktest.Check(t, name, sch, got, ducktest.ReadParquet(t, name)[name])
	// The order: the way back, as DuckDB prints both.
	_, trv, err := convert(t, name, 0)
	if err != nil {
		t.Fatal(err)
	}
	back := toParquet(t, trv)
	reads := ducktest.ReadParquet(t, name, back)
	for i, row := range reads[name].Rows {
		if i >= len(reads[back].Rows) || reads[back].Rows[i] != row {
			t.Errorf("row %d: %s, the way back %v", i, row, reads[back].Rows)
		}
	}
	if !strings.Contains(reads[name].Rows[3], `"z":"1","c":"2","m":"3"`) {
		t.Errorf("DuckDB reads %s, not in the file's order", reads[name].Rows[3])
	}

	bad := filepath.Join(t.TempDir(), "nullkey.parquet")
	writeOptionalKeyMap(t, bad, [][][2]*string{{{s("a"), s("x")}}, {{nil, s("y")}}})
	_, _, err = fromParquetFile(t, bad, 0)
	if err == nil || !strings.Contains(err.Error(), "my_map") || !strings.Contains(err.Error(), "null key") {
		t.Fatalf("a null key: %v", err)
	}
}
