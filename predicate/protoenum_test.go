package predicate

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/trevni-go/trevni/format/stats"
	"github.com/trevni-go/trevni/schema"
	"github.com/trevni-go/trevni/schema/layout"
)

// A protobuf enum, stored as an int with its symbols in the field's
// "protobuf.enum" property (as package protoschema writes it), compares
// by name exactly as by number: in Eval over random values, and in MayMatch
// over random blocks, for every operator and symbol.
func TestProtobufEnumByName(t *testing.T) {
	s, err := schema.Parse(`{"type":"record","name":"M","fields":[
	 {"name":"status","type":"int","protobuf.enum":{"UNKNOWN":0,"ACTIVE":1,"GONE":5}},
	 {"name":"history","type":{"type":"array","items":"int"},"protobuf.enum":{"UNKNOWN":0,"ACTIVE":1,"GONE":5}},
	 {"name":"plain","type":"int"}]}`)
	if err != nil {
		t.Fatal(err)
	}
	l, err := layout.New(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	syms := map[string]int{"UNKNOWN": 0, "ACTIVE": 1, "GONE": 5}
	rnd := rand.New(rand.NewPCG(3, 4))
	values := []int32{0, 1, 2, 5, 6, -1}
	for _, path := range []string{"status", "history"} {
		for _, op := range []string{"=", "!=", "<", "<=", ">", ">="} {
			for name, n := range syms {
				byName, err := Compile(fmt.Sprintf("%s %s '%s'", path, op, name), s, l)
				if err != nil {
					t.Fatal(err)
				}
				byNum, err := Compile(fmt.Sprintf("%s %s %d", path, op, n), s, l)
				if err != nil {
					t.Fatal(err)
				}
				for range 50 {
					hist := []any{}
					for range rnd.IntN(3) {
						hist = append(hist, values[rnd.IntN(len(values))])
					}
					rec := map[string]any{"status": values[rnd.IntN(len(values))], "history": hist, "plain": int32(0)}
					a, err1 := byName.Eval(rec)
					b, err2 := byNum.Eval(rec)
					if err1 != nil || err2 != nil || a != b {
						t.Fatalf("%s on %v: %v %v, by number %v %v", byName, rec, a, err1, b, err2)
					}
					lo, hi := values[rnd.IntN(len(values))], values[rnd.IntN(len(values))]
					col, blk := blockOf(t, l, "status", 2, func(a *stats.Accumulator) {
						a.AddInt(min(lo, hi))
						a.AddInt(max(lo, hi))
					})
					get := func(c int) (*stats.Block, int64, bool) { return &blk, 0, c == col }
					if path == "status" && byName.MayMatch(0, 2, get) != byNum.MayMatch(0, 2, get) {
						t.Fatalf("%s: MayMatch differs from by number on [%d, %d]", byName, lo, hi)
					}
				}
			}
		}
	}
	if _, err := Compile("status IN ('ACTIVE', 'GONE')", s, l); err != nil {
		t.Error(err)
	}
	for expr, msg := range map[string]string{
		"status = 'MARS'":  `protobuf enum has no symbol "MARS" (it has UNKNOWN, ACTIVE, GONE)`,
		"plain = 'ACTIVE'": "needs a number",
	} {
		if _, err := Compile(expr, s, l); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%s: %v, want %q", expr, err, msg)
		}
	}
}
