package csvtable

import (
	"encoding/csv"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"sync"
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

// benchRealisticText is a CSV like an export from a spreadsheet or a
// database: a header and 100,000 records of 16 cells ending in CR LF:
// numbers, dates and timestamps, names and cities quoted where they hold
// the delimiter, a quoted comment with doubled quotes that now and then
// spans lines (CR LF inside), empty cells. Made when a benchmark first
// asks (18 MB held from the start would count in the memory tests' heap).
var benchRealisticText = sync.OnceValue(func() string {
	r := rand.New(rand.NewPCG(38, 1))
	cities := []string{"Pau", "\"San José, CR\"", "Mölndal", "\"Washington, D.C.\"", "Escazú", "Ust’-Kalmanka"}
	status := []string{"active", "closed", "", "pending"}
	var b strings.Builder
	b.WriteString("id,customer,email,city,country,signup_date,last_seen,orders,total,rate,vip,comment,status,code,score,ref\r\n")
	for i := range 100_000 {
		fmt.Fprintf(&b, "%d,\"Garvin, Ward %d\",user%d@example.com,%s,%s,2024-%02d-%02d,2024-03-10 %02d:%02d:%02d,%d,%d.%02d,%.4f,%t,",
			i, r.IntN(1000), r.Uint32(), cities[r.IntN(len(cities))], []string{"FR", "CR", "SE", "US"}[i%4],
			1+r.IntN(12), 1+r.IntN(28), r.IntN(24), r.IntN(60), r.IntN(60), r.IntN(500), r.IntN(100000), r.IntN(100), r.Float64(), r.IntN(2) == 0)
		switch r.IntN(8) {
		case 0:
			b.WriteString("\"a \"\"quoted\"\" word, then more\r\non the next line\"")
		case 1, 2:
		default:
			fmt.Fprintf(&b, "\"said \"\"ok\"\", order %d\"", r.IntN(1000))
		}
		fmt.Fprintf(&b, ",%s,%x,%d,REF-%08d\r\n", status[r.IntN(len(status))], r.Uint64(), r.IntN(100)-50, r.IntN(1e8))
	}
	return b.String()
})

// BenchmarkRecordReader reads the inputs above with the record reader,
// BenchmarkEncodingCSV with encoding/csv (which it replaced, and which
// takes neither a quote inside an unquoted cell nor keeps CR LF inside a
// quoted one), for comparison; with ReuseRecord, its fastest.
func BenchmarkRecordReader(b *testing.B) {
	for _, in := range benchInputs() {
		b.Run(in.name, func(b *testing.B) {
			b.SetBytes(int64(len(in.text)))
			b.ReportAllocs()
			for b.Loop() {
				rd := newRecordReader(strings.NewReader(in.text), ',')
				for {
					if _, err := rd.Read(); err == io.EOF {
						break
					} else if err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}

func BenchmarkEncodingCSV(b *testing.B) {
	for _, in := range benchInputs() {
		b.Run(in.name, func(b *testing.B) {
			b.SetBytes(int64(len(in.text)))
			b.ReportAllocs()
			for b.Loop() {
				rd := csv.NewReader(strings.NewReader(in.text))
				rd.ReuseRecord = true
				for {
					if _, err := rd.Read(); err == io.EOF {
						break
					} else if err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}

type benchInput struct{ name, text string }

func benchInputs() []benchInput {
	return []benchInput{{"six", benchRecordsText}, {"realistic", benchRealisticText()}}
}

// BenchmarkReader reads the inputs above with the package's Reader: the
// header (through the column guard), then the records as
// BenchmarkRecordReader reads them.
func BenchmarkReader(b *testing.B) {
	for _, in := range benchInputs() {
		text := "h1,h2,h3,h4,h5,h6\n" + in.text
		if in.name != "six" {
			text = in.text
		}
		b.Run(in.name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			for b.Loop() {
				rd, err := NewReader(strings.NewReader(text), ',', nil)
				if err != nil {
					b.Fatal(err)
				}
				for {
					if _, err := rd.Read(); err == io.EOF {
						break
					} else if err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
