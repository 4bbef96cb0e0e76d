package csvtable

import (
	"encoding/csv"
	"fmt"
	"io"
	"strings"
	"testing"
)

// benchRecordsText is a CSV of 20,000 records of six cells, some quoted
// with the delimiter, quotes and line breaks inside.
var benchRecordsText = func() string {
	var b strings.Builder
	for i := range 20_000 {
		fmt.Fprintf(&b, "%d,name %d,\"a, \"\"b\"\"\",%d.5,true,\"x\ny\"\n", i, i*7, i%1000)
	}
	return b.String()
}()

// BenchmarkRecordReader reads benchRecordsText with the record reader;
// BenchmarkEncodingCSV with encoding/csv (which it replaced), for
// comparison.
func BenchmarkRecordReader(b *testing.B) {
	b.SetBytes(int64(len(benchRecordsText)))
	for b.Loop() {
		rd := newRecordReader(strings.NewReader(benchRecordsText), ',')
		for {
			if _, err := rd.Read(); err == io.EOF {
				break
			} else if err != nil {
				b.Fatal(err)
			}
		}
	}
}

func BenchmarkEncodingCSV(b *testing.B) {
	b.SetBytes(int64(len(benchRecordsText)))
	for b.Loop() {
		rd := csv.NewReader(strings.NewReader(benchRecordsText))
		rd.ReuseRecord = true
		for {
			if _, err := rd.Read(); err == io.EOF {
				break
			} else if err != nil {
				b.Fatal(err)
			}
		}
	}
}
