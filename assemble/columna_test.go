package assemble

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/shred"
)

// The orders table of the Columna comparison (see README, "Reading less:
// Trevni against Columna"): 50,000 orders over two years, in order.
//
//   - order_id: 1,000,000 onwards, one per order;
//   - customer_id: uniform over 1 to 5,000;
//   - region: one of 5, product: one of 20 (uniform);
//   - quantity: 1 to 12, small quantities more likely (1 + the smaller of
//     two uniform draws);
//   - order_date: days since 2023-01-01, rising with the order number
//     (about 68 orders a day), an Avro date;
//   - amount: a double, in whole cents, drawn around a trend that rises
//     linearly from 200 to 4,000 over the two years, times a uniform factor
//     0.75 to 1.25: so the largest amounts come last, and amount > 4500
//     holds for about 1.4% of the orders, all in the last tenth of the file.
const ordersSchema = `{"type":"record","name":"Order","fields":[
	{"name":"order_id","type":"long"},{"name":"customer_id","type":"int"},
	{"name":"region","type":"string"},{"name":"product","type":"string"},
	{"name":"quantity","type":"int"},{"name":"amount","type":"double"},
	{"name":"order_date","type":{"type":"int","logicalType":"date"}}]}`

const ordersRows = 50000

func orders() (recs []map[string]any, csv []byte) {
	r := rand.New(rand.NewPCG(2024, 7))
	regions := []string{"north", "south", "east", "west", "central"}
	var products []string
	for i := range 20 {
		products = append(products, fmt.Sprintf("product-%02d", i))
	}
	var b strings.Builder
	b.WriteString("order_id,customer_id,region,product,quantity,amount,order_date\n")
	start := time.Date(2023, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range ordersRows {
		t := float64(i) / ordersRows
		amount := math.Round((200+3800*t)*(0.75+0.5*r.Float64())*100) / 100
		day := int32(i * 730 / ordersRows)
		rec := map[string]any{
			"order_id": int64(1000000 + i), "customer_id": int32(1 + r.IntN(5000)),
			"region": regions[r.IntN(len(regions))], "product": products[r.IntN(len(products))],
			"quantity": int32(1 + min(r.IntN(12), r.IntN(12))), "amount": amount,
			"order_date": start.AddDate(0, 0, int(day)),
		}
		recs = append(recs, rec)
		fmt.Fprintf(&b, "%d,%d,%s,%s,%d,%.2f,%s\n", rec["order_id"], rec["customer_id"], rec["region"], rec["product"],
			rec["quantity"], amount, start.AddDate(0, 0, int(day)).Format("2006-01-02"))
	}
	return recs, []byte(b.String())
}

// scanFigures are the three figures of the comparison for one file.
type scanFigures struct {
	size, oneColumn, filter int64
	filterBlocks, blocks    int
	perColumn               map[string]int64
}

// headerBytes returns the bytes a reader reads before any block: the
// header and the block descriptors of the columns it reads.
func headerBytes(rd *format.Reader, cols []int) int64 {
	n := rd.ColumnStart(0)
	for _, c := range cols {
		bs, _ := rd.Blocks(c)
		n += 4 + 12*int64(len(bs))
	}
	return n
}

func measureOrders(t testing.TB, recs []map[string]any, opts *shred.Options) scanFigures {
	var buf bytes.Buffer
	w, err := shred.NewAvroWriter(&buf, ordersSchema, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, rec := range recs {
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	file := buf.Bytes()
	rd, err := format.NewReader(bytes.NewReader(file), int64(len(file)), nil)
	if err != nil {
		t.Fatal(err)
	}
	f := scanFigures{size: int64(len(file)), perColumn: map[string]int64{}}
	for i := range rd.NumColumns() {
		bs, _ := rd.Blocks(i)
		var n int64
		for _, b := range bs {
			n += int64(b.CompressedSize)
		}
		if cm, err := rd.Column(i); err == nil {
			f.perColumn[cm.Name] = n
		}
	}
	read := func(o *Options) ScanReport {
		ar, err := NewAvroReader(rd, o)
		if err != nil {
			t.Fatal(err)
		}
		n, err := ar.Count(t.Context())
		if o.Filter == "" {
			// Read the column's values, not just the header's count.
			ar.SeekRow(0)
			ar.returned = 0
			for n = 0; ; n++ {
				if _, err = ar.ReadBinary(nil); err != nil {
					break
				}
			}
			if err == io.EOF {
				err = nil
			}
		}
		if err != nil {
			t.Fatal(err)
		}
		return ar.Report()
	}
	one := read(&Options{Fields: []string{"amount"}})
	amount, _ := rd.ColumnIndex("amount")
	f.oneColumn = headerBytes(rd, []int{amount}) + one.BytesRead
	flt := read(&Options{Filter: "amount > 4500"})
	f.filter = headerBytes(rd, []int{amount}) + flt.BytesRead
	for _, c := range flt.Columns {
		if c.Column == amount {
			f.filterBlocks, f.blocks = c.BlocksRead, c.Blocks
		}
	}
	if flt.RowsMatched == 0 || one.RowsMatched != ordersRows {
		t.Fatalf("the filter matched %d rows, the column read %d", flt.RowsMatched, one.RowsMatched)
	}
	return f
}

func pct(part, whole int64) float64 { return 100 * (1 - float64(part)/float64(whole)) }

// TestColumnaComparison builds the orders table as CSV and as Trevni and
// sets Trevni's figures beside Columna's published reductions (file 91%
// smaller than the CSV, one of seven columns read with 94% fewer bytes,
// amount > 4500 with 98% fewer), with the command line's defaults
// (deflate, 64 KiB blocks) and with tuned options. Bytes read count the
// header and the block descriptors of the columns read, besides the
// blocks; the column read is amount, the largest.
func TestColumnaComparison(t *testing.T) {
	recs, csv := orders()
	configs := []struct {
		name      string
		opts      shred.Options
		size, one float64 // the reductions it must exceed
	}{
		{"defaults (deflate, 64 KiB blocks)", shred.Options{WriterOptions: format.WriterOptions{Codec: "deflate", Checksum: "crc32"}}, 78, 93},
		{"tuned (bzip2, 64 KiB blocks)", shred.Options{WriterOptions: format.WriterOptions{Codec: "bzip2", Checksum: "crc32"}}, 85, 94},
	}
	t.Logf("CSV: %d bytes", len(csv))
	t.Logf("| | CSV | Columna | Trevni |")
	for _, c := range configs {
		f := measureOrders(t, recs, &c.opts)
		t.Logf("%s: columns %v", c.name, f.perColumn)
		t.Logf("| %s: file size | %d KB | 225 KB (91%% smaller) | %d KB (%.1f%% smaller) |", c.name, len(csv)/1000, f.size/1000, pct(f.size, int64(len(csv))))
		t.Logf("| %s: read amount (1 of 7 columns) | %d KB | 154 KB (94%% less) | %d KB (%.1f%% less) |", c.name, len(csv)/1000, f.oneColumn/1000, pct(f.oneColumn, int64(len(csv))))
		t.Logf("| %s: amount > 4500 | %d KB | 47 KB (98%% less) | %d KB (%.1f%% less; %d of %d blocks) |", c.name, len(csv)/1000, f.filter/1000, pct(f.filter, int64(len(csv))), f.filterBlocks, f.blocks)
		// What this table reaches (see the README): the filter beats
		// Columna's 98% with either configuration and the one column its
		// 94% with the tuned one; the file size does not reach its 91%
		// (Trevni has no delta or dictionary encoding, and these columns
		// hold more entropy than 9% of the CSV). The bounds below are what
		// the table must keep reaching.
		for _, x := range []struct {
			what      string
			got, want float64
		}{{"file size", pct(f.size, int64(len(csv))), c.size}, {"one column", pct(f.oneColumn, int64(len(csv))), c.one}, {"filter", pct(f.filter, int64(len(csv))), 98}} {
			if x.got <= x.want {
				t.Errorf("%s: %s reduced by %.1f%%, want more than %.0f%%", c.name, x.what, x.got, x.want)
			}
		}
	}
}
