package predicate

import (
	"fmt"
	"testing"

	"github.com/trevni-go/trevni/format/stats"
)

// Named cases of AllMatch on the block of threeRows: true only where every
// one of the 3 rows is TRUE, whatever their NULLs and NaNs.
func TestAllMatch(t *testing.T) {
	s, l, get := threeRows(t)
	for expr, want := range map[string]bool{
		"id = 5":                         true,
		"id >= 0":                        true,
		"id > 5":                         false,
		"id != 5":                        false,
		"NOT id > 5":                     true, // NOT of proven FALSE
		"NOT id = 5":                     false,
		"id IN (4, 5)":                   true,
		"id NOT IN (4, 6)":               true,
		"id > 4.5 AND id < 5.5":          true,
		"id = 5 AND region = 'EU'":       false,
		"id = 5 OR region = 'EU'":        true, // one disjunct suffices
		"region = 'EU' OR id = 5":        true,
		"region >= 'US'":                 true, // enums order by position: ASIA follows US
		"region = 'US'":                  false,
		"region IN ('US', 'ASIA')":       false, // IN is proven only where every value is one literal
		"amount >= 0":                    false, // NaN >= 0 is FALSE
		"amount != 7":                    true,  // NaN != 7 is TRUE
		"amount IS NAN":                  false,
		"NOT amount IS NAN":              false,
		"note >= ''":                     false, // the second row is NULL: UNKNOWN
		"NOT note < ''":                  false, // NOT UNKNOWN is UNKNOWN
		"note >= '' OR id = 5":           true,  // UNKNOWN OR TRUE is TRUE
		"note >= '' AND id = 5":          false, // UNKNOWN AND TRUE is UNKNOWN
		"note IS NULL OR note >= ''":     false, // proven row by row only
		"note IS NOT NULL":               false,
		"ship IS NOT NULL":               true,
		"NOT ship IS NULL":               true,
		"ship.city = 'Oslo'":             false, // no statistics
		"tags >= 'b'":                    true,  // every element, no empty array
		"tags = 'b'":                     false, // the third row's only element is d
		"NOT tags < 'b'":                 true,
		"price = 1":                      false, // no statistics
		"lines.qty >= 0":                 false,
		"NOT (id = 5 AND region = 'EU')": true,
		"NOT (id = 5 OR region = 'EU')":  false,
	} {
		p, err := Compile(expr, s, l)
		if err != nil {
			t.Fatalf("%s: %v", expr, err)
		}
		if got := p.AllMatch(0, 3, get); got != want {
			t.Errorf("AllMatch(%s) = %v, want %v", expr, got, want)
		}
	}
	// A block wider than the rows asked about: the counts of values still
	// prove a column without NULLs, never one with them.
	p, err := Compile("id >= 0", s, l)
	if err != nil {
		t.Fatal(err)
	}
	if !p.AllMatch(1, 1, get) {
		t.Errorf("AllMatch(id >= 0) on row 1 of the block = false")
	}
	if p, err = Compile("note >= 'a'", s, l); err != nil {
		t.Fatal(err)
	}
	if p.AllMatch(0, 1, get) || p.AllMatch(0, 3, get) {
		t.Errorf("AllMatch(note >= 'a') proven over a NULL")
	}
}

// Runs marks All the runs whose statistics prove every row, but never
// from statistics that are only assumed (a sorted value index), and keeps
// proven and unproven runs apart.
func TestRunsAll(t *testing.T) {
	s, l := orders(t)
	col, b := blockOf(t, l, "id", 4, func(a *stats.Accumulator) {
		for range 4 {
			a.AddLong(5)
		}
	})
	_, low := blockOf(t, l, "id", 4, func(a *stats.Accumulator) {
		for v := range 4 {
			a.AddLong(int64(v))
		}
	})
	p, err := Compile("id >= 3", s, l)
	if err != nil {
		t.Fatal(err)
	}
	for _, assumed := range []bool{false, true} {
		cs := &ColumnStats{FirstRows: []int64{0, 4, 8}, Blocks: []stats.Block{b, low, b}, Assumed: assumed}
		got := fmt.Sprint(p.Runs(12, func(c int) *ColumnStats {
			if c == col {
				return cs
			}
			return nil
		}))
		want := "[{{0 4} true} {{4 4} false} {{8 4} true}]"
		if assumed {
			want = "[{{0 12} false}]"
		}
		if got != want {
			t.Errorf("Runs(id >= 3), assumed %v = %s, want %s", assumed, got, want)
		}
	}
}
