package assemble

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/schema"
)

// FuzzAvroReader reads arbitrary bytes as an Avro-layer Trevni file through
// every read path. None may panic; every error reading a record is a
// *schema.Error of that record wrapping a format or checksum error; and
// the paths agree: they read the same number of records and fail, or not,
// at the same one.
func FuzzAvroReader(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join(interopDir, "*", "*.null.none.trv"))
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		if len(data) <= 64<<10 {
			f.Add(data)
		}
	}
	f.Fuzz(checkAvroReader)
}

func checkAvroReader(t *testing.T, data []byte) {
	{
		rd, err := format.NewReader(bytes.NewReader(data), int64(len(data)), &format.ReaderOptions{MaxBlockSize: 1 << 20})
		if err != nil {
			return
		}
		if _, err := NewAvroReader(rd, nil); err != nil {
			return
		}
		const most = 500
		var counts [4]int
		var failed [4]bool
		var limited bool // a path failed on the bound on elements
		for k, rp := range readPaths {
			ar, err := NewAvroReader(rd, nil)
			if err != nil {
				t.Fatalf("%s: NewAvroReader failed only the second time: %v", rp.name, err)
			}
			ar.maxElems = 1 << 12
			for counts[k] < most {
				err := rp.read(ar)
				if err == io.EOF {
					break
				}
				if err != nil {
					var se *schema.Error
					if !errors.As(err, &se) || se.Record != int64(counts[k]) {
						t.Fatalf("%s: record %d: %v is not a *schema.Error of the record", rp.name, counts[k], err)
					}
					if !errors.Is(err, format.ErrFormat) && !errors.Is(err, format.ErrChecksum) {
						t.Fatalf("%s: record %d: %v is neither a format nor a checksum error", rp.name, counts[k], err)
					}
					failed[k] = true
					limited = limited || errors.Is(err, errTooManyElements)
					break
				}
				counts[k]++
			}
		}
		for k := range readPaths {
			if counts[k] != counts[0] || failed[k] != failed[0] {
				t.Fatalf("%s read %d records (failed: %v), %s %d (failed: %v)",
					readPaths[0].name, counts[0], failed[0], readPaths[k].name, counts[k], failed[k])
			}
		}
		// Validate, which keeps no element and so bounds none, agrees
		// with them on the records they read.
		ar, err := NewAvroReader(rd, nil)
		if err != nil {
			t.Fatal(err)
		}
		if failed[0] {
			ar.StopAt(int64(counts[0]) + 1)
		} else {
			ar.StopAt(int64(counts[0]))
		}
		err = ar.Validate(context.Background())
		var se *schema.Error
		switch {
		case limited:
		case failed[0] && (!errors.As(err, &se) || se.Record != int64(counts[0])):
			t.Fatalf("the read paths fail at record %d, Validate says %v", counts[0], err)
		case !failed[0] && err != nil:
			t.Fatalf("the read paths read %d records, Validate says %v", counts[0], err)
		}
	}
}
