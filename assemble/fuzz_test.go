package assemble

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/trevni-go/trevni/format"
)

// FuzzAvroReader reads arbitrary bytes as an Avro-layer Trevni file through
// both read paths: errors are fine, panics and unbounded work are not.
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
	f.Fuzz(func(t *testing.T, data []byte) {
		rd, err := format.NewReader(bytes.NewReader(data), int64(len(data)), &format.ReaderOptions{MaxBlockSize: 1 << 20})
		if err != nil {
			return
		}
		for _, binary := range []bool{false, true} {
			ar, err := NewAvroReader(rd, nil)
			if err != nil {
				return
			}
			ar.maxElems = 1 << 12
			var buf []byte
			for n := 0; n < 500; n++ {
				if binary {
					buf, err = ar.ReadBinary(buf[:0])
				} else {
					_, err = ar.Read()
				}
				if errors.Is(err, io.EOF) || err != nil {
					break
				}
			}
		}
	})
}
