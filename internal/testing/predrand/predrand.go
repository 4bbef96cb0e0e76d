// Package predrand makes random filter expressions of the --where grammar
// (see package predicate) over a schema and its records, for the property
// tests that compare filtered reads and block pruning with brute force.
//
// An expression is a random tree of AND, OR and NOT, with or without
// parentheses, over comparisons of the schema's field paths (through
// records; arrays, maps and unions passed through; names bare, "quoted" or
// `quoted`): every comparison operator in each of its spellings, IN and
// NOT IN with one to three literals, IS NULL and IS NOT NULL, IS NAN and IS
// NOT NAN on floats, STARTS WITH, LIKE and NOT LIKE on strings and bytes
// (prefixes of values, with % and _ for LIKE), and after a name that
// reaches a map, sometimes a lookup of one key (name['key'], a key of the
// records' maps or one they lack), of a key in that key's value where it
// is a map too (name['a']['b']), anywhere along the path (m['k'].x). Literals are
// taken from the records, so that comparisons hold for some rows and not
// others, and often nudged just beside a value: integers one above or
// below or halfway to the next, floats to the next float either way, to
// NaN, to an infinity or to -0 (and float values written as the shortest
// float32 text, which is not the float64 it reads as), strings and bytes
// cut short or extended, decimals by a hundredth and written finer than
// their scale, enums to another symbol. Bytes are written as X'hex' or as
// a string of U+0000 to U+00FF, booleans as TRUE or FALSE, dates, times and
// timestamps as their number or as text. The same seed and records give
// the same expressions.
package predrand

import (
	"encoding/hex"
	"maps"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/trevni-go/trevni/schema"
	"github.com/trevni-go/trevni/typemap"
)

// Generator makes random expressions over one schema and its records. It is
// not safe for concurrent use.
type Generator struct {
	// Check, when set, judges each comparison made (predicate.Compile
	// against the schema, typically): one it rejects, such as a literal
	// out of its field's range, is made again, up to 20 times, after which
	// the comparison is an IS NOT NULL.
	Check func(expr string) error
	// Counts, when not nil, counts what was made, by feature: "op <",
	// "op NOT IN", "AND", "lit int+1", "lit NaN", "path bare" and so on.
	Counts map[string]int

	s     *schema.Schema
	recs  []any
	paths []path
	r     *rand.Rand
}

// path is a field path of the schema and whether it ends at a value that
// can be compared (not a record).
type path struct {
	names  []string
	simple bool
}

// New returns a Generator of expressions over the records recs of s (goavro
// native values, as package avrorand and assemble.AvroReader make them),
// drawing on r.
func New(r *rand.Rand, s *schema.Schema, recs []any) *Generator {
	return &Generator{s: s, recs: recs, paths: fieldPaths(s), r: r}
}

// Paths returns the field paths expressions are made of. When there are
// none (a schema without records), Expr and Comparison return "".
func (g *Generator) Paths() [][]string {
	out := make([][]string, len(g.paths))
	for i, p := range g.paths {
		out[i] = p.names
	}
	return out
}

// fieldPaths lists the paths of s through records (arrays, maps and unions
// passed through), each once.
func fieldPaths(s *schema.Schema) []path {
	var out []path
	seen := map[string]bool{}
	var walk func(s *schema.Schema, names []string, depth int)
	walk = func(s *schema.Schema, names []string, depth int) {
		if depth > 40 { // a recursive schema
			return
		}
		switch s.Kind {
		case schema.Union:
			for _, b := range s.Branches {
				walk(b, names, depth+1)
			}
			return
		case schema.Array:
			walk(s.Items, names, depth+1)
			return
		case schema.Map:
			walk(s.Values, names, depth+1)
			return
		case schema.Record:
			for _, f := range s.Fields {
				walk(f.Type, append(append([]string(nil), names...), f.Name), depth+1)
			}
		}
		if k := strings.Join(names, "\x00"); len(names) > 0 && !seen[k] {
			seen[k] = true
			out = append(out, path{names: names, simple: s.Kind != schema.Record})
		}
	}
	walk(s, nil, 0)
	return out
}

// mapKeys calls f with the keys of each map that names ends at in v
// (through unions; not through an array or map after the last name). With
// keys, it looks those up in turn first: the keys of the map that
// keys[0]'s value is (a map of maps), and so on.
func mapKeys(s *schema.Schema, v any, names, keys []string, f func(k string)) {
	switch s.Kind {
	case schema.Union:
		if k, inner, err := typemap.ResolveUnion(s, v); err == nil {
			mapKeys(s.Branches[k], inner, names, keys, f)
		}
	case schema.Array:
		if len(names) > 0 {
			a, _ := v.([]any)
			for _, e := range a {
				mapKeys(s.Items, e, names, keys, f)
			}
		}
	case schema.Map:
		m, _ := v.(map[string]any)
		switch {
		case len(names) > 0:
			for _, k := range slices.Sorted(maps.Keys(m)) {
				mapKeys(s.Values, m[k], names, keys, f)
			}
		case len(keys) > 0:
			if e, ok := m[keys[0]]; ok {
				mapKeys(s.Values, e, nil, keys[1:], f)
			}
		default:
			for _, k := range slices.Sorted(maps.Keys(m)) {
				f(k)
			}
		}
	case schema.Record:
		if len(names) > 0 {
			m, _ := v.(map[string]any)
			if fd := s.Field(names[0]); fd != nil {
				mapKeys(fd.Type, m[fd.Name], names[1:], keys, f)
			}
		}
	}
}

// lookups picks, now and then, map lookups for a path: after one of its
// names that reaches a map, a key the records' maps hold (or one they
// lack), and sometimes after it a key of that key's value, where that is a
// map too. It returns the position of the name the keys follow, or -1.
func (g *Generator) lookups(p path) (int, []string) {
	if g.r.IntN(3) != 0 {
		return -1, nil
	}
	var at []int
	for j := range p.names {
		for _, rec := range g.recs {
			found := false
			mapKeys(g.s, rec, p.names[:j+1], nil, func(string) { found = true })
			if found {
				at = append(at, j)
				break
			}
		}
	}
	if len(at) == 0 {
		return -1, nil
	}
	j := at[g.r.IntN(len(at))]
	var keys []string
	for len(keys) < 3 {
		var cands []string
		for _, rec := range g.recs {
			mapKeys(g.s, rec, p.names[:j+1], keys, func(k string) { cands = append(cands, k) })
		}
		if len(cands) == 0 || len(keys) > 0 && g.r.IntN(2) == 0 {
			break
		}
		k := cands[g.r.IntN(len(cands))]
		if g.r.IntN(4) == 0 {
			g.count("path ['missing key']")
			k += "\x00"
		}
		keys = append(keys, k)
	}
	switch {
	case len(keys) > 1:
		g.count("path ['key']['key']")
	case j < len(p.names)-1:
		g.count("path ['key'].name")
	default:
		g.count("path ['key']")
	}
	return j, keys
}

// values calls f with each leaf value that names reaches in v, and its
// schema.
func values(s *schema.Schema, v any, names []string, f func(s *schema.Schema, v any)) {
	switch s.Kind {
	case schema.Union:
		if k, inner, err := typemap.ResolveUnion(s, v); err == nil {
			values(s.Branches[k], inner, names, f)
		}
	case schema.Array:
		a, _ := v.([]any)
		for _, e := range a {
			values(s.Items, e, names, f)
		}
	case schema.Map:
		m, _ := v.(map[string]any)
		for _, k := range slices.Sorted(maps.Keys(m)) { // the same order every time
			values(s.Values, m[k], names, f)
		}
	case schema.Record:
		if len(names) == 0 {
			return
		}
		m, _ := v.(map[string]any)
		for _, fd := range s.Fields {
			if fd.Name == names[0] {
				values(fd.Type, m[fd.Name], names[1:], f)
			}
		}
	default:
		if len(names) == 0 {
			f(s, v)
		}
	}
}

func (g *Generator) count(feature string) {
	if g.Counts != nil {
		g.Counts[feature]++
	}
}

// Expr returns a random expression whose AND, OR and NOT nest at most
// depth deep.
func (g *Generator) Expr(depth int) string {
	if len(g.paths) == 0 {
		return ""
	}
	e, _ := g.expr(depth)
	return e
}

// expr returns an expression and whether it is a single comparison or NOT
// of one, which needs no parentheses as an operand.
func (g *Generator) expr(depth int) (string, bool) {
	if depth <= 0 || g.r.IntN(3) == 0 {
		return g.Comparison(), true
	}
	operand := func() string {
		e, atom := g.expr(depth - 1)
		if !atom || g.r.IntN(2) == 0 {
			g.count("parentheses")
			return "(" + e + ")"
		}
		return e
	}
	switch g.r.IntN(4) {
	case 0:
		g.count("NOT")
		e, atom := g.expr(depth - 1)
		if atom && g.r.IntN(2) == 0 {
			return "NOT " + e, true
		}
		g.count("parentheses")
		return "NOT (" + e + ")", atom
	case 1:
		g.count("OR")
		return operand() + " OR " + operand(), false
	}
	g.count("AND")
	return operand() + " AND " + operand(), false
}

// Comparison returns a random comparison or null test, which Check (if
// set) accepts unless 20 tries failed.
func (g *Generator) Comparison() string {
	if len(g.paths) == 0 {
		return ""
	}
	for try := 0; try < 20; try++ {
		p := g.paths[g.r.IntN(len(g.paths))]
		if !p.simple && g.r.IntN(2) == 0 {
			continue // a record: only null tests apply, so it is taken less often
		}
		e := g.comparison(p)
		if e == "" {
			continue
		}
		if g.Check == nil || g.Check(e) == nil {
			return e
		}
		g.count("rejected")
	}
	g.count("fallback")
	return g.quote(g.paths[0].names, -1, nil) + " IS NOT NULL"
}

// comparison makes a comparison of p, or "" when the records hold no value
// for it.
func (g *Generator) comparison(p path) string {
	j, keys := g.lookups(p)
	q := g.quote(p.names, j, keys)
	if !p.simple || g.r.IntN(6) == 0 {
		if g.r.IntN(2) == 0 {
			g.count("op IS NULL")
			return q + " IS NULL"
		}
		g.count("op IS NOT NULL")
		return q + " IS NOT NULL"
	}
	type sample struct {
		s *schema.Schema
		v any
	}
	var vals []sample
	for _, rec := range g.recs {
		values(g.s, rec, p.names, func(s *schema.Schema, v any) {
			if v != nil {
				vals = append(vals, sample{s, v})
			}
		})
	}
	if len(vals) == 0 {
		return ""
	}
	if x := vals[g.r.IntN(len(vals))]; x.s.Logical != schema.LogicalDecimal && g.r.IntN(4) == 0 {
		switch x.s.Kind {
		case schema.Float, schema.Double:
			if g.r.IntN(2) == 0 {
				g.count("op IS NAN")
				return q + " IS NAN"
			}
			g.count("op IS NOT NAN")
			return q + " IS NOT NAN"
		case schema.String, schema.Bytes, schema.Fixed:
			if e := g.prefix(q, x.s, x.v); e != "" {
				return e
			}
		}
	}
	var lits []string
	for n, tries := 1+g.r.IntN(3), 0; len(lits) < n && tries < 10; tries++ {
		x := vals[g.r.IntN(len(vals))]
		if l := g.literal(x.s, x.v); l != "" { // else a value without a literal
			lits = append(lits, l)
		}
	}
	if len(lits) == 0 {
		return ""
	}
	switch op := g.r.IntN(9); op {
	case 6:
		g.count("op IN")
		return q + " IN (" + strings.Join(lits, ", ") + ")"
	case 7:
		g.count("op NOT IN")
		return q + " NOT IN (" + strings.Join(lits, ", ") + ")"
	default:
		if op == 8 {
			op = 0
		}
		spelled := [][]string{{"=", "=="}, {"!=", "<>"}, {"<"}, {"<="}, {">"}, {">="}}[op]
		o := spelled[g.r.IntN(len(spelled))]
		g.count("op " + o)
		return q + " " + o + " " + lits[0]
	}
}

// prefix makes a STARTS WITH, LIKE or NOT LIKE of path q on a string or
// bytes value v of s: a prefix of v, or v cut or extended, and for LIKE a
// pattern with % and _ (after a prefix, in place of a character, or in
// front).
func (g *Generator) prefix(q string, s *schema.Schema, v any) string {
	st, err := typemap.ToStored(s, v)
	if err != nil {
		return ""
	}
	var text string
	switch st := st.(type) {
	case string:
		text = st
	case []byte:
		text = string(st)
	default:
		return ""
	}
	text = g.cutOrExtend(text)
	op := "STARTS WITH"
	switch g.r.IntN(3) {
	case 1:
		op = "LIKE"
	case 2:
		op = "NOT LIKE"
	}
	if op != "STARTS WITH" {
		if len(text) > 0 && g.r.IntN(3) == 0 {
			g.count("lit LIKE _")
			i := g.r.IntN(len(text))
			text = text[:i] + "_" + text[i+1:]
		}
		if g.r.IntN(4) == 0 {
			g.count("lit LIKE leading %")
			text = "%" + text
		}
		if g.r.IntN(4) != 0 {
			text += "%"
		}
	}
	g.count("op " + op)
	if s.Kind == schema.String {
		return q + " " + op + " '" + strings.ReplaceAll(text, "'", "''") + "'"
	}
	if op == "STARTS WITH" && g.r.IntN(2) == 0 {
		return q + " " + op + " X'" + hex.EncodeToString([]byte(text)) + "'"
	}
	var b strings.Builder
	b.WriteString(q + " " + op + " '")
	for i := 0; i < len(text); i++ {
		if text[i] == '\'' {
			b.WriteByte('\'')
		}
		b.WriteRune(rune(text[i]))
	}
	b.WriteByte('\'')
	return b.String()
}

// quote writes a path, each name bare where the grammar allows and the
// dice say so, else quoted with " or `.
func (g *Generator) quote(names []string, at int, keys []string) string {
	parts := make([]string, len(names))
	for i, n := range names {
		switch {
		case g.r.IntN(2) == 0 && bare(n):
			g.count("path bare")
			parts[i] = n
		case g.r.IntN(4) == 0:
			g.count("path `quoted`")
			parts[i] = "`" + strings.ReplaceAll(n, "`", "``") + "`"
		default:
			g.count(`path "quoted"`)
			parts[i] = `"` + strings.ReplaceAll(n, `"`, `""`) + `"`
		}
		if i == at {
			for _, k := range keys {
				parts[i] += "['" + strings.ReplaceAll(k, "'", "''") + "']"
			}
		}
	}
	return strings.Join(parts, ".")
}

// bare reports whether a name may be written unquoted: an identifier that
// is not a keyword.
func bare(n string) bool {
	for i, c := range n {
		if !(c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || i > 0 && '0' <= c && c <= '9') {
			return false
		}
	}
	for _, k := range []string{"AND", "OR", "NOT", "IN", "IS", "NULL", "TRUE", "FALSE"} {
		if strings.EqualFold(n, k) {
			return false
		}
	}
	return n != ""
}

// literal writes a literal for the value v of the leaf schema s: v itself
// or, about one time in three, a value beside it. It returns "" for a value
// it cannot write.
func (g *Generator) literal(s *schema.Schema, v any) string {
	nudge := g.r.IntN(3) == 0
	if s.Logical == schema.LogicalDecimal {
		return g.decimal(s, v, nudge)
	}
	st, err := typemap.ToStored(s, v)
	if err != nil {
		return ""
	}
	switch st := st.(type) {
	case bool:
		g.count("lit boolean")
		return strings.ToUpper(strconv.FormatBool(st))
	case int32:
		switch {
		case s.Kind == schema.Enum:
			k := int(st)
			if nudge {
				g.count("lit enum other")
				k = g.r.IntN(len(s.Symbols))
			} else {
				g.count("lit enum")
			}
			return "'" + s.Symbols[k] + "'"
		case s.Logical == schema.LogicalDate && !nudge && g.r.IntN(2) == 0:
			if t := time.Unix(int64(st)*86400, 0).UTC(); t.Year() >= 1 && t.Year() <= 9999 {
				g.count("lit date text")
				return "'" + t.Format("2006-01-02") + "'"
			}
		case s.Logical == schema.LogicalTimeMillis && !nudge && g.r.IntN(2) == 0 && st >= 0 && st < 86400000:
			g.count("lit time text")
			return "'" + time.UnixMilli(int64(st)).UTC().Format("15:04:05.999") + "'"
		}
		return g.integer(int64(st), nudge)
	case int64:
		if !nudge && g.r.IntN(2) == 0 {
			if t := g.timeText(s, st); t != "" {
				return t
			}
		}
		return g.integer(st, nudge)
	case float32:
		if !nudge && g.r.IntN(2) == 0 && !math.IsNaN(float64(st)) && !math.IsInf(float64(st), 0) {
			g.count("lit float32 shortest")
			return strconv.FormatFloat(float64(st), 'g', -1, 32)
		}
		return g.float(float64(st), nudge)
	case float64:
		return g.float(st, nudge)
	case string:
		if nudge {
			st = g.cutOrExtend(st)
		} else {
			g.count("lit string")
		}
		return "'" + strings.ReplaceAll(st, "'", "''") + "'"
	case []byte:
		if nudge {
			st = []byte(g.cutOrExtend(string(st)))
		}
		if g.r.IntN(2) == 0 {
			g.count("lit bytes as text")
			var b strings.Builder
			b.WriteByte('\'')
			for _, x := range st {
				if x == '\'' {
					b.WriteByte('\'')
				}
				b.WriteRune(rune(x))
			}
			b.WriteByte('\'')
			return b.String()
		}
		g.count("lit bytes hex")
		return "X'" + hex.EncodeToString(st) + "'"
	}
	return ""
}

// cutOrExtend returns a string just below s (a prefix) or just above it
// (s and one more character).
func (g *Generator) cutOrExtend(s string) string {
	if len(s) > 0 && g.r.IntN(2) == 0 {
		g.count("lit string/bytes cut")
		return s[:g.r.IntN(len(s))]
	}
	g.count("lit string/bytes extended")
	return s + []string{"\x00", "a", "\x7f"}[g.r.IntN(3)]
}

// decimal writes a decimal's value, possibly a hundredth off, with its
// scale's digits or finer.
func (g *Generator) decimal(s *schema.Schema, v any, nudge bool) string {
	r, ok := v.(*big.Rat)
	if !ok || r == nil {
		return ""
	}
	if nudge {
		g.count("lit decimal nudged")
		r = new(big.Rat).Add(r, big.NewRat(int64(g.r.IntN(3)-1), 100))
	} else {
		g.count("lit decimal")
	}
	return r.FloatString(s.Scale + g.r.IntN(3))
}

// timeText writes a time or timestamp as text, or returns "" for another
// type or a value text cannot write.
func (g *Generator) timeText(s *schema.Schema, v int64) string {
	var t time.Time
	layout := "2006-01-02T15:04:05.999999999"
	switch s.Logical {
	case schema.LogicalTimestampMillis, schema.LogicalLocalTimestampMillis:
		t = time.UnixMilli(v)
	case schema.LogicalTimestampMicros, schema.LogicalLocalTimestampMicros:
		t = time.UnixMicro(v)
	case schema.LogicalTimestampNanos, schema.LogicalLocalTimestampNanos:
		t = time.Unix(0, v)
	case schema.LogicalTimeMicros:
		if v < 0 || v >= 86400e6 {
			return ""
		}
		g.count("lit time text")
		return "'" + time.UnixMicro(v).UTC().Format("15:04:05.999999") + "'"
	default:
		return ""
	}
	t = t.UTC()
	if t.Year() < 1 || t.Year() > 9999 {
		return ""
	}
	switch s.Logical {
	case schema.LogicalTimestampMillis, schema.LogicalTimestampMicros, schema.LogicalTimestampNanos:
		layout += "Z07:00"
	}
	g.count("lit timestamp text")
	return "'" + t.Format(layout) + "'"
}

// integer writes v, or beside it: one above or below, or halfway to the
// next integer either way.
func (g *Generator) integer(v int64, nudge bool) string {
	if nudge {
		switch g.r.IntN(4) {
		case 0:
			g.count("lit int+1")
			if v < math.MaxInt64 {
				v++
			}
		case 1:
			g.count("lit int-1")
			if v > math.MinInt64 {
				v--
			}
		case 2:
			g.count("lit int+0.5")
			return strconv.FormatFloat(float64(v)+0.5, 'g', -1, 64)
		default:
			g.count("lit int-0.5")
			return strconv.FormatFloat(float64(v)-0.5, 'g', -1, 64)
		}
	} else {
		g.count("lit int")
	}
	return strconv.FormatInt(v, 10)
}

// float writes f, or beside it: the next float either way, NaN, an
// infinity or -0.
func (g *Generator) float(f float64, nudge bool) string {
	if nudge {
		switch g.r.IntN(6) {
		case 0:
			f = math.NaN()
		case 1:
			f = math.Inf(-1)
		case 2:
			f = math.Inf(1)
		case 3:
			g.count("lit -0")
			return "-0"
		case 4:
			g.count("lit float next up")
			f = math.Nextafter(f, math.Inf(1))
		default:
			g.count("lit float next down")
			f = math.Nextafter(f, math.Inf(-1))
		}
	}
	switch {
	case math.IsNaN(f):
		g.count("lit NaN")
		return "NaN"
	case math.IsInf(f, 1):
		g.count("lit Infinity")
		return "Infinity"
	case math.IsInf(f, -1):
		g.count("lit -Infinity")
		return "-Infinity"
	}
	if !nudge {
		g.count("lit float")
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}
