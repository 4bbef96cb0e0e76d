package ocfsource_test

import (
	"bytes"
	"os"
	"testing"

	"github.com/trevni-go/trevni/internal/ocf"
	"github.com/trevni-go/trevni/internal/ocfsource"
	"github.com/trevni-go/trevni/internal/testing/avrorand"
)

// FuzzSource opens arbitrary bytes as an Avro container read as a column
// source, in small groups and a small memory bound, and reads every record:
// it must return records or an error, never panic or hang. When the bytes
// are a container goavro reads whole, the records read are goavro's.
func FuzzSource(f *testing.F) {
	// Small seeds only: a 1.6 MB file (interop/medium) made each run slow
	// enough for the fuzzing's deadline to pass inside one.
	for _, name := range []string{"email"} {
		data, err := os.ReadFile("../../testdata/interop/" + name + "/input.avro")
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	var buf bytes.Buffer
	w, err := ocf.NewWriter(&buf, `{"type":"record","name":"r","fields":[{"name":"a","type":{"type":"array","items":["null","string"]}},{"name":"m","type":{"type":"map","values":"long"}}]}`, ocf.WriterOptions{Codec: "deflate"})
	if err != nil {
		f.Fatal(err)
	}
	for i := range 7 {
		// a: [null, "x"]; m: {"k": i}; two records a block.
		rec := []byte{4, 0, 2, 2, 'x', 0, 2, 2, 'k', byte(i * 2), 0}
		if err := w.Append(rec); err != nil {
			f.Fatal(err)
		}
		if i%2 == 1 {
			if err := w.Flush(); err != nil {
				f.Fatal(err)
			}
		}
	}
	if err := w.Close(); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		opts := &ocfsource.Options{GroupBytes: 512, Memory: 1 << 20, MaxBlockSize: 1 << 20}
		got, err := sourceRecords(data, opts)
		if err != nil {
			return
		}
		theirs, gerr := goavroRead(data)
		if gerr == nil && len(theirs) == len(got) && !avrorand.EqualNative(got, theirs) {
			t.Errorf("records read differ from goavro's reading of the same bytes")
		}
	})
}
