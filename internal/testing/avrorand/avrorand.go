// Package avrorand generates random Avro schemas and random values for
// them, deterministically from a seed, for property tests and for the
// "trevni random" command.
//
// Schemas come as JSON text that both goavro and package schema accept:
// records nested in arrays, maps and unions, unions of many branches,
// enums, fixed, every logical type, named types defined once and reused by
// name, namespaces (inherited, explicit and dotted), docs, aliases, field
// defaults and extra properties, and top-level schemas of any type. They are
// never recursive.
//
// Values are goavro "native" values (see package typemap) that goavro's
// BinaryFromNative accepts and that decode back equal (see EqualNative),
// with edge cases well represented: empty strings, bytes, arrays and maps,
// multi-byte UTF-8, NaN, infinities and signed zeros, extreme integers,
// timestamps before 1970, null union branches.
package avrorand

import (
	"bytes"
	"encoding/json"
	"math"
	"math/big"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/trevni-go/trevni/schema"
	"github.com/trevni-go/trevni/typemap"
)

// Options bounds what a Generator makes. A zero field takes its default.
type Options struct {
	MaxDepth    int // nesting of complex types below the top (default 4)
	MaxFields   int // fields per record (default 6)
	MaxBranches int // branches per union (default 8)
	MaxLen      int // elements per array or map, runes per string, bytes per bytes (default 5)
}

func (o Options) withDefaults() Options {
	if o.MaxDepth <= 0 {
		o.MaxDepth = 4
	}
	if o.MaxFields <= 0 {
		o.MaxFields = 6
	}
	if o.MaxBranches <= 0 {
		o.MaxBranches = 8
	}
	if o.MaxLen <= 0 {
		o.MaxLen = 5
	}
	return o
}

// Generator makes random schemas and values. It is not safe for concurrent
// use.
type Generator struct {
	r    *rand.Rand
	opts Options
}

// New returns a Generator whose output depends only on seed and opts.
func New(seed uint64, opts Options) *Generator {
	return &Generator{r: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), opts: opts.withDefaults()}
}

// obj is a JSON object that keeps its keys in order.
type obj []member

type member struct {
	key string
	val any
}

func (o obj) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(m.key)
		b.Write(k)
		b.WriteByte(':')
		v, err := json.Marshal(m.val)
		if err != nil {
			return nil, err
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// named is a named type defined so far in the schema being made.
type named struct {
	full, space string
	kind        schema.Kind
	symbol      string // an enum's first symbol
	done        bool   // a record is done once its fields are; until then it cannot be used
}

// schemaState is the state of one schema being made.
type schemaState struct {
	g     *Generator
	names []*named
	count int
}

var namespaces = []string{"a", "a.b", "org.example", "x.y.z", "vec"}

// Schema returns the JSON text of a new random schema.
func (g *Generator) Schema() string {
	st := &schemaState{g: g}
	var root any
	if g.r.IntN(10) < 7 {
		root, _ = st.record(g.opts.MaxDepth, "", true)
	} else {
		root, _ = st.anyType(g.opts.MaxDepth, "", true)
	}
	b, err := json.Marshal(root)
	if err != nil {
		panic(err) // only our own values are marshalled
	}
	return string(b)
}

// chance reports true with probability n/d.
func (g *Generator) chance(n, d int) bool { return g.r.IntN(d) < n }

// newName returns a name for a new named type and the namespace its
// children inherit, written the way chosen at random: inherited, with a
// "namespace" attribute, or dotted.
func (st *schemaState) newName(prefix string, ns string, top bool) (attrs obj, full, space string) {
	st.count++
	short := prefix + strconv.Itoa(st.count)
	g := st.g
	switch r := g.r.IntN(10); {
	case r < 5: // inherit
		full, space = short, ns
		if ns != "" {
			full = ns + "." + short
		}
		attrs = obj{{"name", short}}
	case r < 8:
		space = namespaces[g.r.IntN(len(namespaces))]
		full = space + "." + short
		attrs = obj{{"name", short}, {"namespace", space}}
	default:
		space = namespaces[g.r.IntN(len(namespaces))]
		full = space + "." + short
		attrs = obj{{"name", full}}
		if g.chance(1, 3) {
			attrs = append(attrs, member{"namespace", "ignored.ns"})
		}
	}
	if top && ns == "" && space == "" && g.chance(1, 4) {
		attrs = append(attrs, member{"namespace", ""})
	}
	return attrs, full, space
}

// extras adds optional documentation, aliases and properties.
func (st *schemaState) extras(o obj, aliases bool) obj {
	g := st.g
	if g.chance(1, 5) {
		o = append(o, member{"doc", "doc ✓ " + strconv.Itoa(g.r.IntN(100))})
	}
	if aliases && g.chance(1, 6) {
		o = append(o, member{"aliases", []string{"Alias" + strconv.Itoa(g.r.IntN(1000))}})
	}
	if g.chance(1, 8) {
		o = append(o, member{"x-prop", map[string]any{"n": g.r.IntN(10), "l": []any{true, nil, "s"}}})
	}
	return o
}

// record returns a new record type and its full name.
func (st *schemaState) record(depth int, ns string, top bool) (any, string) {
	g := st.g
	attrs, full, space := st.newName("R", ns, top)
	n := &named{full: full, space: space, kind: schema.Record}
	st.names = append(st.names, n)
	o := append(obj{{"type", "record"}}, attrs...)
	nf := g.r.IntN(g.opts.MaxFields + 1)
	if nf == 0 && g.chance(2, 3) {
		nf = 1
	}
	fields := make([]any, 0, nf)
	for i := range nf {
		t, info := st.anyType(depth-1, space, false)
		f := obj{{"name", fieldName(i, g)}, {"type", t}}
		if d, ok := st.fieldDefault(info); ok {
			f = append(f, member{"default", d})
		}
		if g.chance(1, 10) {
			f = append(f, member{"order", []string{"ascending", "descending", "ignore"}[g.r.IntN(3)]})
		}
		f = st.extras(f, true)
		fields = append(fields, f)
	}
	o = append(o, member{"fields", fields})
	n.done = true
	return st.extras(o, true), full
}

var fieldPrefixes = []string{"f", "value", "_x", "Name", "id"}

func fieldName(i int, g *Generator) string {
	return fieldPrefixes[g.r.IntN(len(fieldPrefixes))] + strconv.Itoa(i)
}

// typeInfo describes a generated type for unions and defaults.
type typeInfo struct {
	key     string // the name unions keep unique: the Avro full name of the type
	kind    schema.Kind
	logical bool
	symbol  string // an enum's first symbol
	union   bool
	first   *typeInfo // a union's first branch
}

func (st *schemaState) fieldDefault(info typeInfo) (any, bool) {
	g := st.g
	if !g.chance(1, 4) {
		return nil, false
	}
	if info.union {
		if info.first != nil && info.first.kind == schema.Null {
			return nil, true
		}
		return nil, false
	}
	if info.logical {
		return nil, false
	}
	switch info.kind {
	case schema.Null:
		return nil, true
	case schema.Boolean:
		return g.chance(1, 2), true
	case schema.Int, schema.Long:
		return g.r.IntN(2000) - 1000, true
	case schema.Float, schema.Double:
		return 1.5, true
	case schema.String:
		return "dflt", true
	case schema.Bytes:
		return "\u0001b", true
	case schema.Enum:
		return info.symbol, true
	}
	return nil, false
}

// anyType returns a random type and what it is.
func (st *schemaState) anyType(depth int, ns string, top bool) (any, typeInfo) {
	g := st.g
	r := g.r.IntN(100)
	if depth <= 0 {
		r = g.r.IntN(60) // simple types only
	}
	switch {
	case r < 25:
		return st.primitive(top)
	case r < 40:
		return st.logical(ns)
	case r < 50:
		return st.enumOrFixed(ns, top)
	case r < 60:
		if ref, info, ok := st.reuse(ns); ok {
			return ref, info
		}
		return st.primitive(top)
	case r < 72:
		r, full := st.record(depth, ns, top)
		return r, typeInfo{key: full, kind: schema.Record}
	case r < 82:
		items, _ := st.anyType(depth-1, ns, false)
		return st.extras(obj{{"type", "array"}, {"items", items}}, false), typeInfo{key: "array", kind: schema.Array}
	case r < 90:
		values, _ := st.anyType(depth-1, ns, false)
		return st.extras(obj{{"type", "map"}, {"values", values}}, false), typeInfo{key: "map", kind: schema.Map}
	default:
		return st.union(depth, ns)
	}
}

var primitiveKinds = []schema.Kind{schema.Null, schema.Boolean, schema.Int, schema.Long, schema.Float,
	schema.Double, schema.Bytes, schema.String}

func (st *schemaState) primitive(top bool) (any, typeInfo) {
	g := st.g
	k := primitiveKinds[g.r.IntN(len(primitiveKinds))]
	if k == schema.Null && !top && g.chance(1, 2) {
		k = schema.String
	}
	info := typeInfo{key: k.String(), kind: k}
	if g.chance(1, 6) {
		return st.extras(obj{{"type", k.String()}}, false), info
	}
	return k.String(), info
}

var logicalLongs = []schema.LogicalType{schema.LogicalTimeMicros, schema.LogicalTimestampMillis,
	schema.LogicalTimestampMicros, schema.LogicalTimestampNanos, schema.LogicalLocalTimestampMillis,
	schema.LogicalLocalTimestampMicros, schema.LogicalLocalTimestampNanos}

func (st *schemaState) logical(ns string) (any, typeInfo) {
	g := st.g
	switch g.r.IntN(9) {
	case 0:
		return obj{{"type", "int"}, {"logicalType", "date"}}, typeInfo{key: "int", kind: schema.Int, logical: true}
	case 1:
		return obj{{"type", "int"}, {"logicalType", "time-millis"}}, typeInfo{key: "int", kind: schema.Int, logical: true}
	case 2, 3:
		lt := logicalLongs[g.r.IntN(len(logicalLongs))]
		return obj{{"type", "long"}, {"logicalType", string(lt)}}, typeInfo{key: "long", kind: schema.Long, logical: true}
	case 4:
		prec := 1 + g.r.IntN(38)
		return obj{{"type", "bytes"}, {"logicalType", "decimal"}, {"precision", prec}, {"scale", g.r.IntN(prec + 1)}},
			typeInfo{key: "bytes", kind: schema.Bytes, logical: true}
	case 5:
		return obj{{"type", "bytes"}, {"logicalType", "big-decimal"}}, typeInfo{key: "bytes", kind: schema.Bytes, logical: true}
	case 6:
		return obj{{"type", "string"}, {"logicalType", "uuid"}}, typeInfo{key: "string", kind: schema.String, logical: true}
	case 7:
		size := 1 + g.r.IntN(16)
		prec := 1 + g.r.IntN(maxPrecision(size))
		attrs, full, space := st.newName("Dec", ns, false)
		st.names = append(st.names, &named{full: full, space: space, kind: schema.Fixed, done: true})
		o := append(append(obj{{"type", "fixed"}}, attrs...), member{"size", size}, member{"logicalType", "decimal"},
			member{"precision", prec})
		if g.chance(2, 3) {
			o = append(o, member{"scale", g.r.IntN(prec + 1)})
		}
		return o, typeInfo{key: full, kind: schema.Fixed, logical: true}
	default:
		size, lt := 12, "duration"
		if g.chance(1, 2) {
			size, lt = 16, "uuid"
		}
		attrs, full, space := st.newName("L", ns, false)
		st.names = append(st.names, &named{full: full, space: space, kind: schema.Fixed, done: true})
		o := append(append(obj{{"type", "fixed"}}, attrs...), member{"size", size}, member{"logicalType", lt})
		return o, typeInfo{key: full, kind: schema.Fixed, logical: true}
	}
}

// maxPrecision is the number of decimal digits a signed number of size
// bytes always holds.
func maxPrecision(size int) int { return int(math.Floor(math.Log10(2) * float64(8*size-1))) }

func (st *schemaState) enumOrFixed(ns string, top bool) (any, typeInfo) {
	g := st.g
	if g.chance(1, 2) {
		attrs, full, space := st.newName("E", ns, top)
		n := 1 + g.r.IntN(6)
		if g.chance(1, 10) {
			n = 20 + g.r.IntN(30)
		}
		symbols := make([]string, n)
		for i := range symbols {
			symbols[i] = []string{"S", "SYM_", "v", "_"}[g.r.IntN(4)] + strconv.Itoa(i)
		}
		st.names = append(st.names, &named{full: full, space: space, kind: schema.Enum, symbol: symbols[0], done: true})
		o := append(append(obj{{"type", "enum"}}, attrs...), member{"symbols", symbols})
		if g.chance(1, 4) {
			o = append(o, member{"default", symbols[g.r.IntN(n)]})
		}
		return st.extras(o, true), typeInfo{key: full, kind: schema.Enum, symbol: symbols[0]}
	}
	attrs, full, space := st.newName("F", ns, top)
	st.names = append(st.names, &named{full: full, space: space, kind: schema.Fixed, done: true})
	size := 1 + g.r.IntN(8)
	if g.chance(1, 10) {
		size = 16 + g.r.IntN(50)
	}
	o := append(append(obj{{"type", "fixed"}}, attrs...), member{"size", size})
	return st.extras(o, true), typeInfo{key: full, kind: schema.Fixed}
}

// reuse refers to a named type defined earlier, if there is one that is
// complete (not a record still being defined, which would make the schema
// recursive).
func (st *schemaState) reuse(ns string) (any, typeInfo, bool) {
	var done []*named
	for _, n := range st.names {
		if n.done {
			done = append(done, n)
		}
	}
	if len(done) == 0 {
		return nil, typeInfo{}, false
	}
	n := done[st.g.r.IntN(len(done))]
	ref := n.full
	if n.space == ns && n.space != "" && st.g.chance(1, 2) {
		ref = n.full[len(n.space)+1:] // short name, resolved in the enclosing namespace
	}
	var out any = ref
	if st.g.chance(1, 8) {
		out = obj{{"type", ref}}
	}
	return out, typeInfo{key: n.full, kind: n.kind, symbol: n.symbol}, true
}

func (st *schemaState) union(depth int, ns string) (any, typeInfo) {
	g := st.g
	n := 1 + g.r.IntN(g.opts.MaxBranches)
	if g.chance(1, 8) {
		n = g.opts.MaxBranches + g.r.IntN(5) // a wide one
	}
	seen := map[string]bool{}
	var branches []any
	var infos []typeInfo
	withNull := g.chance(2, 3)
	for tries := 0; len(branches) < n && tries < 3*n; tries++ {
		defined := len(st.names)
		t, info := st.anyType(depth-1, ns, false)
		if info.union || seen[info.key] {
			// Dropped: so are the named types it defined.
			st.names = st.names[:defined]
			continue
		}
		seen[info.key] = true
		branches = append(branches, t)
		infos = append(infos, info)
	}
	if withNull && !seen["null"] || len(branches) == 0 {
		// Null goes first mostly, anywhere now and then. The other
		// branches keep their order: a named type is defined in the first
		// branch that uses it.
		at := 0
		if len(branches) > 0 && g.chance(1, 3) {
			at = 1 + g.r.IntN(len(branches))
		}
		branches = append(branches[:at], append([]any{"null"}, branches[at:]...)...)
		infos = append(infos[:at], append([]typeInfo{{key: "null", kind: schema.Null}}, infos[at:]...)...)
	}
	first := infos[0]
	return branches, typeInfo{key: "union", kind: schema.Union, union: true, first: &first}
}

// Value returns a random goavro native value of type s. A recursive s is
// cut short by choosing null branches and empty arrays and maps once deep
// enough.
func (g *Generator) Value(s *schema.Schema) any { return g.value(s, 0) }

const maxValueDepth = 40

func (g *Generator) length(depth int) int {
	if depth > maxValueDepth || g.chance(1, 5) {
		return 0
	}
	n := g.opts.MaxLen
	if depth > 3 {
		n = max(1, n/2)
	}
	return g.r.IntN(n + 1)
}

func (g *Generator) value(s *schema.Schema, depth int) any {
	switch s.Kind {
	case schema.Null:
		return nil
	case schema.Boolean:
		return g.chance(1, 2)
	case schema.Int:
		switch s.Logical {
		case schema.LogicalDate:
			days := g.r.IntN(2_000_001) - 1_000_000
			if g.chance(1, 5) {
				days = []int{0, -1, 1, -719162, 2932896}[g.r.IntN(5)] // 1970, 1969, 0001-01-01, 9999-12-31
			}
			return time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, days).UTC()
		case schema.LogicalTimeMillis:
			ms := g.r.Int64N(86_400_000)
			if g.chance(1, 5) {
				ms = []int64{0, 86_399_999, -1, math.MaxInt32, math.MinInt32}[g.r.IntN(5)]
			}
			return time.Duration(ms) * time.Millisecond
		}
		return g.int32()
	case schema.Long:
		switch s.Logical {
		case schema.LogicalTimeMicros:
			us := g.r.Int64N(86_400_000_000)
			if g.chance(1, 5) {
				us = []int64{0, -1, math.MaxInt64 / 1000, math.MinInt64 / 1000}[g.r.IntN(4)]
			}
			return time.Duration(us) * time.Microsecond
		case schema.LogicalTimestampMillis:
			ms := g.r.Int64N(2e15) - 1e15
			if g.chance(1, 5) {
				ms = []int64{0, -1, 1, -62135596800000, 253402300799999}[g.r.IntN(5)]
			}
			return time.Unix(ms/1e3, ms%1e3*1e6).UTC()
		case schema.LogicalTimestampMicros:
			us := g.r.Int64N(2e17) - 1e17
			if g.chance(1, 5) {
				us = []int64{0, -1, 1, -62135596800000000}[g.r.IntN(4)]
			}
			return time.Unix(us/1e6, us%1e6*1e3).UTC()
		}
		return g.int64()
	case schema.Float:
		if g.chance(1, 4) {
			return []float32{0, float32(math.Copysign(0, -1)), float32(math.NaN()), float32(math.Inf(1)),
				float32(math.Inf(-1)), math.MaxFloat32, math.SmallestNonzeroFloat32, -1}[g.r.IntN(8)]
		}
		return float32(g.r.NormFloat64() * 1e3)
	case schema.Double:
		if g.chance(1, 4) {
			return []float64{0, math.Copysign(0, -1), math.NaN(), math.Inf(1), math.Inf(-1), math.MaxFloat64,
				math.SmallestNonzeroFloat64, -1}[g.r.IntN(8)]
		}
		return g.r.NormFloat64() * math.Pow(10, float64(g.r.IntN(40)-20))
	case schema.String:
		if s.Logical == schema.LogicalUUID {
			b := g.bytes(16)
			return hexString(b[:4]) + "-" + hexString(b[4:6]) + "-" + hexString(b[6:8]) + "-" +
				hexString(b[8:10]) + "-" + hexString(b[10:])
		}
		return g.string()
	case schema.Bytes:
		if s.Logical == schema.LogicalDecimal {
			return g.decimal(s.Precision, s.Scale, false)
		}
		return g.bytes(g.r.IntN(g.opts.MaxLen + 1))
	case schema.Fixed:
		if s.Logical == schema.LogicalDecimal {
			// goavro cannot write a zero decimal in a fixed of more than one byte.
			return g.decimal(s.Precision, s.Scale, s.Size > 1)
		}
		return g.bytes(s.Size)
	case schema.Enum:
		return s.Symbols[g.r.IntN(len(s.Symbols))]
	case schema.Array:
		n := g.length(depth)
		a := make([]any, n)
		for i := range a {
			a[i] = g.value(s.Items, depth+1)
		}
		return a
	case schema.Map:
		n := g.length(depth)
		m := make(map[string]any, n)
		for len(m) < n {
			m[g.string()] = g.value(s.Values, depth+1)
		}
		return m
	case schema.Union:
		i := g.r.IntN(len(s.Branches))
		if depth > maxValueDepth {
			for j, b := range s.Branches {
				if b.Kind == schema.Null {
					i = j
				}
			}
		}
		return typemap.WrapUnion(s, i, g.value(s.Branches[i], depth+1))
	case schema.Record:
		m := make(map[string]any, len(s.Fields))
		for _, f := range s.Fields {
			m[f.Name] = g.value(f.Type, depth+1)
		}
		return m
	}
	panic("avrorand: unknown kind " + s.Kind.String())
}

func hexString(b []byte) string {
	const digits = "0123456789abcdef"
	out := make([]byte, 2*len(b))
	for i, c := range b {
		out[2*i], out[2*i+1] = digits[c>>4], digits[c&15]
	}
	return string(out)
}

func (g *Generator) int32() int32 {
	if g.chance(1, 4) {
		return []int32{0, 1, -1, math.MaxInt32, math.MinInt32, 63, -64, 64}[g.r.IntN(8)]
	}
	return int32(g.r.Uint32() >> g.r.IntN(32))
}

func (g *Generator) int64() int64 {
	if g.chance(1, 4) {
		return []int64{0, 1, -1, math.MaxInt64, math.MinInt64, math.MaxInt32 + 1, math.MinInt32 - 1}[g.r.IntN(7)]
	}
	return int64(g.r.Uint64() >> g.r.IntN(64))
}

func (g *Generator) bytes(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(g.r.UintN(256))
	}
	return b
}

var stringPieces = []string{"a", "Z", "0", " ", "é", "ß", "日本", "€", "😀", "\u0301", "\x00", "\t", "\"", "\\", "ÿ", "𝄞"}

// string returns a random valid UTF-8 string, empty now and then.
func (g *Generator) string() string {
	if g.chance(1, 6) {
		return ""
	}
	n := 1 + g.r.IntN(g.opts.MaxLen)
	var b strings.Builder
	for range n {
		if g.chance(1, 2) {
			b.WriteByte(byte('a' + g.r.IntN(26)))
		} else {
			b.WriteString(stringPieces[g.r.IntN(len(stringPieces))])
		}
	}
	return b.String()
}

// decimal returns a random decimal of at most prec digits, scale of them
// after the point.
func (g *Generator) decimal(prec, scale int, nonZero bool) *big.Rat {
	digits := 1 + g.r.IntN(prec)
	var b strings.Builder
	for range digits {
		b.WriteByte(byte('0' + g.r.IntN(10)))
	}
	if g.chance(1, 8) {
		b.Reset()
		b.WriteString(strings.Repeat("9", prec)) // the largest
	}
	n, _ := new(big.Int).SetString(b.String(), 10)
	if n.Sign() == 0 && nonZero {
		n.SetInt64(1)
	}
	if g.chance(1, 2) {
		n.Neg(n)
	}
	return new(big.Rat).SetFrac(n, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(scale)), nil))
}
