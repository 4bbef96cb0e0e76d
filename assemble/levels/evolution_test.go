package levels_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/trevni-go/trevni/assemble"
	"github.com/trevni-go/trevni/assemble/levels"
	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/internal/testing/avrorand"
	"github.com/trevni-go/trevni/internal/testing/longtest"
	"github.com/trevni-go/trevni/schema"
	"github.com/trevni-go/trevni/schema/layout"
	"github.com/trevni-go/trevni/shred"
)

// evolver makes a reader schema of a random file's schema that the
// plan resolves through Alts and Default steps: union branches the
// reader drops where another it keeps is promoted from them (the file's
// int and long read as the reader's long; a union narrowed to
// ["null", T]; a union read as the one type its branches are promoted
// to), and added fields of defaults that hold levels of their own
// (arrays, maps, unions of several branches, records of them).
type evolver struct {
	r       *rand.Rand
	names   int
	merged  int // unions of branches merged
	added   int // fields of such defaults added
	narrow  int // unions read as ["null", T] or as T
	targets map[string][]string
}

// promotedTo lists the types a primitive is promoted to.
var promotedTo = map[string][]string{
	"int":    {"long", "float", "double"},
	"long":   {"float", "double"},
	"float":  {"double"},
	"string": {"bytes"},
	"bytes":  {"string"},
}

// merging returns the file's and the reader's types of a field whose
// union's branches the reader merges: primitives promoted to one, and
// records of the file's read as one of the reader's by its aliases
// (with a field of a default the file's lacks).
func (e *evolver) merging() (string, string) {
	e.names++
	k := e.names
	c := e.r.IntN(9)
	if c <= 4 && c != 2 {
		e.narrow++ // read as T or ["null", T]
	}
	switch c {
	case 0:
		return `["int","long"]`, `"long"`
	case 1:
		return `["null","int","long"]`, `["null","long"]`
	case 2:
		return `["int","long","string"]`, `["string","null","double"]`
	case 3:
		return `["null","float","double","int"]`, `["double","null"]`
	case 4:
		return `["string","bytes","null"]`, `["null","string"]`
	case 5:
		return `{"type":"array","items":["int","long","null"]}`, `{"type":"array","items":["null","long"]}`
	case 6:
		return `{"type":"map","values":["int","long"]}`, `{"type":"map","values":["long"]}`
	case 7:
		return fmt.Sprintf(`["null",{"type":"record","name":"MA%[1]d","fields":[{"name":"x","type":"int"}]},
			{"type":"record","name":"MB%[1]d","fields":[{"name":"x","type":"long"},{"name":"z","type":["int","string"]}]}]`, k),
			fmt.Sprintf(`[{"type":"record","name":"MB%[1]d","aliases":["MA%[1]d"],"fields":[{"name":"x","type":"double"},
			{"name":"z","type":["int","string"],"default":5},{"name":"w","type":{"type":"map","values":"int"},"default":{"a":1}}]},"null"]`, k)
	}
	return fmt.Sprintf(`{"type":"array","items":[{"type":"record","name":"MC%[1]d","fields":[{"name":"a","type":"int"}]},
		{"type":"record","name":"MD%[1]d","fields":[{"name":"a","type":"long"},{"name":"b","type":{"type":"array","items":"int"}}]}]}`, k),
		fmt.Sprintf(`{"type":"array","items":[{"type":"record","name":"MD%[1]d","aliases":["MC%[1]d"],"fields":[{"name":"a","type":"long"},
		{"name":"b","type":{"type":"array","items":"int"},"default":[1,2]}]}]}`, k)
}

// evolve returns a file's schema, text with fields of merging unions
// added, and its reader schema.
func (e *evolver) evolve(text string) (string, string) {
	var v, rv any
	d := json.NewDecoder(strings.NewReader(text))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		panic(err)
	}
	top := v.(map[string]any)
	readers := map[string]any{}
	for range 1 + e.r.IntN(2) {
		wt, rt := e.merging()
		var w, r any
		if err := json.Unmarshal([]byte(wt), &w); err != nil {
			panic(err)
		}
		if err := json.Unmarshal([]byte(rt), &r); err != nil {
			panic(err)
		}
		name := fmt.Sprintf("mg%d", e.names)
		fields := top["fields"].([]any)
		top["fields"] = slices.Insert(fields, e.r.IntN(len(fields)+1), any(map[string]any{"name": name, "type": w}))
		readers[name] = r
		e.merged++
	}
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	text = string(b)
	if err := json.Unmarshal(b, &rv); err != nil {
		panic(err)
	}
	for _, f := range rv.(map[string]any)["fields"].([]any) {
		fm := f.(map[string]any)
		if r, ok := readers[fm["name"].(string)]; ok {
			fm["type"] = r
		}
	}
	rv = e.walk(rv, true)
	b, err = json.Marshal(rv)
	if err != nil {
		panic(err)
	}
	return text, string(b)
}

// walk edits type v (at a record field's or the top's place when field).
func (e *evolver) walk(v any, field bool) any {
	switch t := v.(type) {
	case []any:
		for i := range t {
			t[i] = e.walk(t[i], false)
		}
		return e.union(t, field)
	case map[string]any:
		switch t["type"] {
		case "record":
			fields := t["fields"].([]any)
			for _, f := range fields {
				fm := f.(map[string]any)
				if _, has := fm["default"]; has || strings.HasPrefix(fm["name"].(string), "mg") {
					// A default stays a value of the type: not edited.
					continue
				}
				fm["type"] = e.walk(fm["type"], true)
			}
			for range e.r.IntN(3) {
				at := e.r.IntN(len(fields) + 1)
				fields = slices.Insert(fields, at, any(e.field()))
				e.added++
			}
			t["fields"] = fields
		case "array":
			t["items"] = e.walk(t["items"], false)
		case "map":
			t["values"] = e.walk(t["values"], false)
		}
	}
	return v
}

// union edits a union's branches: merges one promoted into another, or,
// at a field, reads it as ["null", T] or T.
func (e *evolver) union(u []any, field bool) any {
	for i, b := range u {
		name, _ := b.(string)
		for _, to := range promotedTo[name] {
			j := slices.IndexFunc(u, func(x any) bool { return x == to })
			if j < 0 {
				continue
			}
			switch e.r.IntN(4) {
			case 0, 1:
				e.merged++
				return slices.Delete(slices.Clone(u), i, i+1)
			case 2:
				if slices.Contains(u, any("null")) && len(u) > 2 {
					e.narrow++
					return []any{"null", to}
				}
			case 3:
				if len(u) == 2 {
					e.narrow++
					return to
				}
			}
		}
	}
	return u
}

// field returns a field of a random type holding levels of its own and
// a random default of it.
func (e *evolver) field() map[string]any {
	e.names++
	t, d := e.typ(2, true)
	return map[string]any{"name": fmt.Sprintf("dflt%d", e.names), "type": t, "default": d}
}

// typ returns a random type (a complex one when complex) and a random
// default of it, as a default's JSON gives it (a union's value that of
// its first branch).
func (e *evolver) typ(depth int, complex bool) (any, any) {
	k := e.r.IntN(9)
	if depth <= 0 || !complex && k < 5 {
		switch e.r.IntN(6) {
		case 0:
			return "int", e.r.IntN(200) - 100
		case 1:
			return "long", e.r.IntN(1 << 20)
		case 2:
			return "string", fmt.Sprintf("s%d", e.r.IntN(100))
		case 3:
			return "double", 0.5 * float64(e.r.IntN(9))
		case 4:
			return "boolean", e.r.IntN(2) == 0
		}
		e.names++
		syms := []any{"A", "B", "C"}
		return map[string]any{"type": "enum", "name": fmt.Sprintf("DE%d", e.names), "symbols": syms}, syms[e.r.IntN(3)]
	}
	n := e.r.IntN(4)
	switch k % 4 {
	case 0:
		it, _ := e.typ(depth-1, false)
		vals := []any{}
		for range n {
			_, v := e.again(it, depth-1)
			vals = append(vals, v)
		}
		return map[string]any{"type": "array", "items": it}, vals
	case 1:
		vt, _ := e.typ(depth-1, false)
		vals := map[string]any{}
		for i := range n {
			_, v := e.again(vt, depth-1)
			vals[fmt.Sprintf("k%d", (i*7)%5)] = v
		}
		return map[string]any{"type": "map", "values": vt}, vals
	case 2:
		// A union of several branches, the first the default's.
		first, v := e.typ(depth-1, false)
		if _, ok := first.([]any); ok {
			first, v = "int", 3
		}
		branches := []any{first}
		for _, b := range []any{"null", "string", "long"} {
			if e.r.IntN(2) == 0 && !slices.ContainsFunc(branches, func(x any) bool { return fmt.Sprint(x) == fmt.Sprint(b) }) {
				branches = append(branches, b)
			}
		}
		if len(branches) < 2 {
			// A second branch of another type than the first: a union
			// holds one array and one map at most.
			if m, ok := first.(map[string]any); ok && m["type"] == "array" {
				branches = append(branches, map[string]any{"type": "map", "values": "int"})
			} else {
				branches = append(branches, map[string]any{"type": "array", "items": "int"})
			}
		}
		if e.r.IntN(4) == 0 && !slices.Contains(branches, any("null")) {
			return append([]any{"null"}, branches...), nil
		}
		return branches, v
	}
	e.names++
	rname := fmt.Sprintf("DR%d", e.names)
	var fields []any
	vals := map[string]any{}
	for i := range 1 + e.r.IntN(3) {
		ft, fv := e.typ(depth-1, false)
		name := fmt.Sprintf("g%d", i)
		fields = append(fields, map[string]any{"name": name, "type": ft})
		vals[name] = fv
	}
	return map[string]any{"type": "record", "name": rname, "fields": fields}, vals
}

// again returns a random value of type t made by typ: t, and another of
// its values.
func (e *evolver) again(t any, depth int) (any, any) {
	switch tt := t.(type) {
	case string:
		switch tt {
		case "int":
			return t, e.r.IntN(200) - 100
		case "long":
			return t, e.r.IntN(1 << 20)
		case "string":
			return t, fmt.Sprintf("s%d", e.r.IntN(100))
		case "double":
			return t, 0.25 * float64(e.r.IntN(9))
		case "boolean":
			return t, e.r.IntN(2) == 0
		}
	case []any:
		if tt[0] == "null" {
			return t, nil
		}
		_, v := e.again(tt[0], depth)
		return t, v
	case map[string]any:
		switch tt["type"] {
		case "enum":
			syms := tt["symbols"].([]any)
			return t, syms[e.r.IntN(len(syms))]
		case "array":
			vals := []any{}
			for range e.r.IntN(3) {
				_, v := e.again(tt["items"], depth)
				vals = append(vals, v)
			}
			return t, vals
		case "map":
			vals := map[string]any{}
			for i := range e.r.IntN(3) {
				_, v := e.again(tt["values"], depth)
				vals[fmt.Sprintf("m%d", i)] = v
			}
			return t, vals
		case "record":
			vals := map[string]any{}
			for _, f := range tt["fields"].([]any) {
				fm := f.(map[string]any)
				_, v := e.again(fm["type"], depth)
				vals[fm["name"].(string)] = v
			}
			return t, vals
		}
	}
	panic(fmt.Sprintf("no value of %v", t))
}

// The property of reader schemas: over random file schemas and reader
// schemas that merge union branches (Alts) and add fields of defaults
// holding levels (Default steps), each leaf's levels and values read
// through the plan are those striped from the records the row
// interpreter (assemble, Avro's resolution) reads as the reader schema,
// and a row it cannot read is an error of the columnar read too.
func TestLevelsAgainstRecordsEvolved(t *testing.T) {
	ctx := context.Background()
	e := &evolver{r: rand.New(rand.NewPCG(7, 7))}
	compared, failed := 0, 0
	for seed := range uint64(longtest.Rounds(120, 600)) {
		g := avrorand.New(seed, avrorand.Options{MaxDepth: 3, MaxLen: 3})
		text := g.Schema()
		s, err := schema.Parse(text)
		if err != nil {
			t.Fatal(err)
		}
		if s.Kind != schema.Record {
			continue
		}
		text, rtext := e.evolve(text)
		if s, err = schema.Parse(text); err != nil {
			t.Fatal(err)
		}
		lay, err := layout.New(s, nil)
		if err != nil {
			continue
		}
		rs, err := schema.Parse(rtext)
		if err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, rtext)
		}
		var buf bytes.Buffer
		w, err := shred.NewAvroWriter(&buf, text, &shred.Options{WriterOptions: format.WriterOptions{BlockSize: 64}})
		if err != nil {
			t.Fatal(err)
		}
		n := 1 + int(seed%30)
		for range n {
			if err := w.Write(g.Value(s)); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		rd, err := format.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()), nil)
		if err != nil {
			t.Fatal(err)
		}
		ar, err := assemble.NewAvroReader(rd, &assemble.Options{ReaderSchema: rtext})
		plan, perr := levels.NewPlan(lay, &levels.PlanOptions{Reader: rs})
		if err != nil {
			if perr == nil || !errors.Is(perr, assemble.ErrIncompatible) {
				t.Fatalf("seed %d: the row interpreter refuses the reader schema (%v), the plan %v\n%s\n%s", seed, err, perr, text, rtext)
			}
			continue
		}
		if perr != nil {
			t.Fatalf("seed %d: %v\n%s\n%s", seed, perr, text, rtext)
		}
		var recs []any
		var rerr error
		for v, err := range ar.All() {
			if err != nil {
				rerr = err
				break
			}
			recs = append(recs, v)
		}
		var unions []*levels.Node
		var walk func(n *levels.Node)
		walk = func(n *levels.Node) {
			if n.Kind == levels.Union {
				unions = append(unions, n)
			}
			for _, c := range n.Children {
				walk(c)
			}
		}
		walk(plan.Root)
		want := make([][]level, len(plan.Leaves))
		st := &striper{t: t, out: want, bout: make([][]level, len(unions))}
		if rerr == nil {
			for _, rec := range recs {
				st.leaf, st.union = 0, 0
				st.entry(rs, rec, 0, 0, 0)
				if st.leaf != len(plan.Leaves) || st.union != len(unions) {
					t.Fatalf("seed %d: %d leaves and %d unions striped, %d and %d planned\n%s", seed, st.leaf, st.union, len(plan.Leaves), len(unions), rtext)
				}
			}
		}
		all := slices.Clone(plan.Leaves)
		for _, u := range unions {
			bl, err := plan.BranchLeaf(u)
			if err != nil {
				t.Fatalf("seed %d: %v", seed, err)
			}
			all = append(all, bl)
			want = append(want, st.bout[len(all)-len(plan.Leaves)-1])
		}
		var lerr error
		segs := []levels.Segment{{First: 0, N: int64(n)}}
		for li := range all {
			l := &all[li]
			lr, err := levels.NewReader(l, func(c int) (*format.ColumnReader, error) { return rd.Values(c) })
			if err != nil {
				t.Fatalf("seed %d leaf %d: %v", seed, li, err)
			}
			got, err := readLevels(ctx, lr, l, segs)
			lr.Close()
			if err != nil {
				if rerr == nil {
					t.Fatalf("seed %d leaf %d (%s): %v; the row interpreter read every row\n%s\n%s", seed, li, l.Path, err, text, rtext)
				}
				lerr = err
				continue
			}
			if rerr == nil && fmt.Sprint(got) != fmt.Sprint(want[li]) {
				t.Fatalf("seed %d leaf %d (%s):\n got %v\nwant %v\n%s\n%s", seed, li, l.Path, got, want[li], text, rtext)
			}
		}
		if rerr != nil {
			if lerr == nil {
				t.Fatalf("seed %d: the row interpreter fails (%v), the leaves read every row\n%s\n%s", seed, rerr, text, rtext)
			}
			failed++
			continue
		}
		compared++
	}
	t.Logf("%d compared, %d failing as the records do; %d unions merged, %d narrowed, %d fields of defaults", compared, failed, e.merged, e.narrow, e.added)
	if compared < 50 || e.merged < 10 || e.narrow < 5 || e.added < 50 {
		t.Fatalf("%d compared, %d merged, %d narrowed, %d added", compared, e.merged, e.narrow, e.added)
	}
}

// readLevels reads a leaf's levels and values of the segments' rows.
func readLevels(ctx context.Context, lr *levels.Reader, l *levels.Leaf, segs []levels.Segment) ([]level, error) {
	var got []level
	err := lr.Read(ctx, segs, func(r *levels.Run) error {
		j := 0
		for i, d := range r.Defs {
			lv := level{def: d, rep: r.Reps[i]}
			if d == l.MaxDef() && !l.Null {
				lv.val = stored(l, r, j)
				if l.Branch != nil {
					lv.val = r.I32[j]
				}
				j++
			}
			got = append(got, lv)
		}
		return nil
	})
	return got, err
}
