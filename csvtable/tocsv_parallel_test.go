package csvtable

import (
	"bytes"
	"context"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/trevni-go/trevni/format"
)

// Random flat tables written as Trevni files of small blocks, some with a
// damaged block: WriteTrevniCSV on 2, 3 and 7 workers, with tasks of a few
// rows, writes byte for byte what Copy into a CSV sink writes, or stops
// with the same error after the same rows.
func TestWriteTrevniCSVWorkers(t *testing.T) {
	r := rand.New(rand.NewPCG(27, 2))
	damaged := 0
	for iter := range 40 {
		table := randomCSV(r)
		for len(table) > 1 && len(table) < 300 {
			table = append(table, table[1+r.IntN(len(table)-1)])
		}
		text := quoteAll(table)
		fields, _, err := Infer(strings.NewReader(text), ',', nil)
		if err != nil {
			t.Fatal(err)
		}
		data := toTrevni(t, text, fields)
		if iter%2 == 1 {
			rd, err := format.NewReader(bytes.NewReader(data), int64(len(data)), nil)
			if err != nil {
				t.Fatal(err)
			}
			col := r.IntN(rd.NumColumns())
			if bs, _ := rd.Blocks(col); len(bs) > 0 {
				b := bs[r.IntN(len(bs))]
				data = bytes.Clone(data)
				data[b.Offset+int64(b.CompressedSize)/2] ^= 0x20
			}
		}
		want, wantErr := trevniToCSV(t, data, nil)
		if wantErr != nil {
			damaged++
		}
		for _, w := range []int{2, 3, 7} {
			rd, err := format.NewReader(bytes.NewReader(data), int64(len(data)), nil)
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			_, err = WriteTrevniCSV(context.Background(), &out, rd, nil, ',', &ParallelOptions{Workers: w, taskRows: 1 + r.Int64N(30)})
			if (err == nil) != (wantErr == nil) || (err != nil && err.Error() != wantErr.Error()) {
				t.Fatalf("iter %d, %d workers: error %v, want %v", iter, w, err, wantErr)
			}
			// Copy leaves what its sink holds unwritten on an error;
			// the workers write every row before the bad one.
			if got := out.String(); got != want && (wantErr == nil || !strings.HasPrefix(got, want)) {
				t.Fatalf("iter %d, %d workers: output differs\n got %q\nwant %q", iter, w, got, want)
			}
		}
	}
	if damaged == 0 {
		t.Fatal("no damaged file failed")
	}
}
