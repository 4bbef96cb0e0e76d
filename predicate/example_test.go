package predicate_test

import (
	"fmt"

	"github.com/trevni-go/trevni/format/stats"
	"github.com/trevni-go/trevni/predicate"
	"github.com/trevni-go/trevni/schema"
	"github.com/trevni-go/trevni/schema/layout"
)

// A filter evaluated on a record, and on the statistics of two blocks of
// the amount column: the first holds no match, the second may hold some
// and every row of the third matches (All: no need to evaluate them).
func Example() {
	s := schema.MustParse(`{"type":"record","name":"Order","fields":[
		{"name":"id","type":"long"},{"name":"amount","type":"double"}]}`)
	l, _ := layout.New(s, nil)
	p, err := predicate.Compile("amount > 4500", s, l)
	if err != nil {
		fmt.Println(err)
		return
	}
	ok, _ := p.Match(map[string]any{"id": int64(1), "amount": 4600.0})
	fmt.Println("record matches:", ok)

	// Statistics as a writer gathers them: amounts 0..2999, 3000..5999,
	// then 6000..8999.
	acc, _ := stats.NewAccumulator(stats.Double, false, nil)
	for i := 0; i < 9000; i++ {
		acc.AddDouble(float64(i))
		if i%3000 == 2999 {
			acc.EndBlock(3000)
		}
	}
	col, _ := stats.Decode(acc.Encode()) // as stored under stats.MetaKey
	cs := &predicate.ColumnStats{FirstRows: []int64{0, 3000, 6000}, Blocks: col.Blocks}
	column := func(c int) *predicate.ColumnStats {
		if c == 1 { // the amount column
			return cs
		}
		return nil
	}
	fmt.Println("rows to read:", p.Ranges(9000, column))
	fmt.Println("runs:", p.Runs(9000, column))

	_, err = predicate.Compile("amount > 'x'", s, l)
	fmt.Println(err)
	// Output:
	// record matches: true
	// rows to read: [{3000 6000}]
	// runs: [{{3000 3000} false} {{6000 3000} true}]
	// amount: a double field needs a number at offset 9
	//   amount > 'x'
	//            ^
}
