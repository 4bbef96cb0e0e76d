package predicate

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/format/stats"
	"github.com/trevni-go/trevni/schema"
	"github.com/trevni-go/trevni/schema/layout"
)

const fileSchema = `{"type":"record","name":"Order","fields":[
 {"name":"id","type":"long"},
 {"name":"amount","type":"double"},
 {"name":"region","type":"string"},
 {"name":"note","type":["null","string"]},
 {"name":"tags","type":{"type":"array","items":"string"}}]}`

// writeOrders writes n orders through format.Writer with small blocks,
// gathering statistics as a writer would and storing them in the column
// metadata. The writer's block boundaries are learnt from a first pass
// (statistics do not move them), so the statistics of the second pass
// describe its blocks. cutEvery, if not zero, cuts statistics blocks at
// that many rows instead, to make statistics that disagree with the file.
func writeOrders(t *testing.T, l *layout.Layout, n int, cutEvery int64) ([]byte, []map[string]any) {
	t.Helper()
	recs := make([]map[string]any, n)
	for i := range recs {
		var note any
		if i%3 == 0 {
			note = map[string]any{"string": fmt.Sprintf("note %d", i%7)}
		}
		tags := []any{}
		for j := 0; j < i%4; j++ {
			tags = append(tags, fmt.Sprintf("t%d", (i+j)%10))
		}
		recs[i] = map[string]any{
			"id": int64(i), "amount": float64(i) * 5000 / float64(n), // rising, as order books do
			"region": []string{"EU", "US", "ASIA"}[i%3], "note": note, "tags": tags,
		}
	}
	write := func(metas []format.ColumnMeta) []byte {
		var buf bytes.Buffer
		w, err := format.NewWriter(&buf, metas, &format.WriterOptions{BlockSize: 256, Codec: "null", Checksum: "null", DisableStats: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range recs {
			w.StartRow()
			w.WriteLong(0, r["id"].(int64))
			w.WriteDouble(1, r["amount"].(float64))
			w.WriteString(2, r["region"].(string))
			if r["note"] == nil {
				w.WriteLength(3, 0)
			} else {
				w.WriteLength(3, 1)
				w.WriteString(3, r["note"].(map[string]any)["string"].(string))
			}
			tags := r["tags"].([]any)
			w.WriteLength(4, len(tags))
			for _, tg := range tags {
				w.WriteString(4, tg.(string))
			}
			if err := w.EndRow(); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	metas := l.Metas()
	first := write(metas)
	rd, err := format.NewReader(bytes.NewReader(first), int64(len(first)), nil)
	if err != nil {
		t.Fatal(err)
	}
	for c := range metas {
		blocks, err := rd.Blocks(c)
		if err != nil {
			t.Fatal(err)
		}
		acc, err := stats.NewAccumulator(stats.Type(metas[c].Type), metas[c].Array, nil)
		if err != nil {
			t.Fatal(err)
		}
		var ends []int64
		for _, b := range blocks {
			ends = append(ends, b.FirstRow+b.Rows)
		}
		if cutEvery > 0 {
			ends = nil
			for e := cutEvery; e < int64(n); e += cutEvery {
				ends = append(ends, e)
			}
			ends = append(ends, int64(n))
		}
		s, _ := schema.Parse(fileSchema)
		var start int64
		for r, rec := range recs {
			one := []*stats.Accumulator{nil, nil, nil, nil, nil}
			one[c] = acc
			if err := shredStatsOnly(s, l.Root, rec, one); err != nil {
				t.Fatal(err)
			}
			if int64(r+1) == ends[0] {
				acc.EndBlock(ends[0] - start)
				start, ends = ends[0], ends[1:]
			}
		}
		metas[c].Meta.Set(stats.MetaKey, acc.Encode())
	}
	return write(metas), recs
}

// shredStatsOnly is shredStats for accumulators given for some columns only.
func shredStatsOnly(s *schema.Schema, n *layout.Node, v any, accs []*stats.Accumulator) error {
	all := make([]*stats.Accumulator, len(accs))
	for i := range all {
		if all[i] = accs[i]; all[i] == nil {
			all[i], _ = stats.NewAccumulator(stats.Null, true, nil) // a sink
		}
	}
	return shredStats(s, n, v, all)
}

// End to end on a Trevni file: statistics stored in column metadata, read
// back with FileStats, and Ranges skipping rows for a filter, never one
// that matches.
func TestFileRanges(t *testing.T) {
	s, err := schema.Parse(fileSchema)
	if err != nil {
		t.Fatal(err)
	}
	l, err := layout.New(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	const n = 3000
	file, recs := writeOrders(t, l, n, 0)
	rd, err := format.NewReader(bytes.NewReader(file), int64(len(file)), nil)
	if err != nil {
		t.Fatal(err)
	}
	if blocks, _ := rd.Blocks(1); len(blocks) < 10 {
		t.Fatalf("amount has %d blocks; the test wants many", len(blocks))
	}
	for _, c := range []struct {
		expr    string
		maxKept float64 // the most of the rows Ranges may keep
	}{
		{"amount > 4500", 0.15},
		{"id < 100 OR id >= 2900", 0.15},
		{"NOT (amount <= 4900)", 0.05},
		{"region = 'EU'", 1},
		{"note IS NULL AND id = 5", 0.1},
		{"tags = 't3' AND amount < 10", 0.05},
		{"note = 'nope'", 1},
	} {
		p, err := Compile(c.expr, s, l)
		if err != nil {
			t.Fatal(err)
		}
		rs := p.Ranges(rd.RowCount(), func(col int) *ColumnStats {
			cs, err := FileStats(rd, col, nil)
			if err != nil || cs == nil {
				t.Fatalf("%s: column %d: %v %v", c.expr, col, cs, err)
			}
			return cs
		})
		kept := make([]bool, n)
		total := 0
		for _, r := range rs {
			for x := r.First; x < r.First+r.Rows; x++ {
				kept[x] = true
				total++
			}
		}
		for i, rec := range recs {
			m, err := p.Match(rec)
			if err != nil {
				t.Fatal(err)
			}
			if m && !kept[i] {
				t.Fatalf("%s: row %d matches but Ranges %v skip it", c.expr, i, rs)
			}
		}
		if float64(total) > c.maxKept*n {
			t.Errorf("%s: Ranges keep %d rows of %d", c.expr, total, n)
		}
	}

	// Statistics that do not agree with the file's blocks are refused.
	file, _ = writeOrders(t, l, n, 7)
	rd, err = format.NewReader(bytes.NewReader(file), int64(len(file)), nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := FileStats(rd, 1, nil)
	if cs != nil || err == nil || !strings.Contains(err.Error(), `column "amount"`) {
		t.Errorf("mismatched statistics: %v, %v", cs, err)
	}
}

// On a file Java wrote, with the value index on a sorted long and a sorted
// string column, statistics derived from the index bound every value of
// every block.
func TestFileStatsValueIndex(t *testing.T) {
	rc, err := format.Open("../testdata/interop/raw_core/raw_core.trv")
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	rd := rc.Reader
	checked := 0
	for col := 0; col < rd.NumColumns(); col++ {
		meta, err := rd.Column(col)
		if err != nil {
			t.Fatal(err)
		}
		if cs, err := FileStats(rd, col, nil); cs != nil || err != nil {
			t.Errorf("column %q: statistics without asking: %v %v", meta.Name, cs, err)
		}
		cs, err := FileStats(rd, col, &FileStatsOptions{SortedValueIndex: true})
		if err != nil {
			t.Fatal(err)
		}
		if !meta.Values {
			if cs != nil {
				t.Errorf("column %q without an index has statistics", meta.Name)
			}
			continue
		}
		if cs == nil || len(cs.Blocks) < 2 {
			t.Fatalf("column %q: %v", meta.Name, cs)
		}
		cr, err := rd.Values(col)
		if err != nil {
			t.Fatal(err)
		}
		for row := int64(0); row < rd.RowCount(); row++ {
			if err := cr.StartRow(); err != nil {
				t.Fatal(err)
			}
			k := 0
			for k+1 < len(cs.FirstRows) && cs.FirstRows[k+1] <= row {
				k++
			}
			b := &cs.Blocks[k]
			var in bool
			switch stats.Type(meta.Type) {
			case stats.Long:
				v, err := cr.ReadLong()
				if err != nil {
					t.Fatal(err)
				}
				in = b.MinInt <= v && v <= b.MaxInt
			case stats.String:
				v, err := cr.ReadString()
				if err != nil {
					t.Fatal(err)
				}
				in = string(b.MinBytes) <= v && (b.NoMax || v <= string(b.MaxBytes))
			default:
				t.Fatalf("column %q: a %v index; the test reads long and string", meta.Name, meta.Type)
			}
			if !in {
				t.Fatalf("column %q row %d: value outside block %d's bounds %+v", meta.Name, row, k, *b)
			}
			checked++
		}
		cr.Close()
	}
	if checked == 0 {
		t.Fatal("no indexed column")
	}
}
