package format_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/trevni-go/trevni/format"
)

// TestConcatOutputCodec joins Java's files of one data set, each of
// another codec and checksum, into files of each codec and checksum
// named by ConcatOptions, and checks the records against the parts', every
// column's codec and checksum, the checksums (Validate, strict), and that
// DropStats leaves no statistics.
func TestConcatOutputCodec(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(concatInterop, "nested_records", "*.trv"))
	if len(files) < 2 {
		t.Fatalf("nested_records: %d files", len(files))
	}
	var rds []*format.Reader
	var want []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		rd := openBytes(t, b)
		rds = append(rds, rd)
		want = append(want, records(t, rd)...)
	}
	for _, codec := range []string{format.CodecNull, format.CodecDeflate, format.CodecSnappy, format.CodecBzip2, format.CodecZstd} {
		for _, checksum := range []string{format.ChecksumNull, format.ChecksumCRC32} {
			var out bytes.Buffer
			opts := &format.ConcatOptions{SameSchema: sameAvro, Codec: codec, Checksum: checksum, DropStats: true}
			if _, err := format.Concat(context.Background(), &out, rds, opts); err != nil {
				t.Fatalf("%s/%s: %v", codec, checksum, err)
			}
			rd := openBytes(t, out.Bytes())
			if got := records(t, rd); !slices.Equal(got, want) {
				t.Fatalf("%s/%s: %d records differ from the parts' %d", codec, checksum, len(got), len(want))
			}
			for i := range rd.NumColumns() {
				if rd.ColumnCodec(i) != codec || rd.ColumnChecksum(i) != checksum {
					t.Errorf("%s/%s: column %d stored as %s/%s", codec, checksum, i, rd.ColumnCodec(i), rd.ColumnChecksum(i))
				}
				if st, err := rd.BlockStats(i); st != nil || err != nil {
					t.Errorf("%s/%s: column %d statistics %v, %v with DropStats", codec, checksum, i, st, err)
				}
			}
			if problems := validateStrict(t, out.Bytes()); len(problems) > 0 {
				t.Fatalf("%s/%s: Validate: %v", codec, checksum, problems)
			}
		}
	}
	for _, opts := range []*format.ConcatOptions{{Codec: "lz4"}, {Checksum: "md5"}} {
		if _, err := format.Concat(context.Background(), &bytes.Buffer{}, rds[:1], opts); !errors.Is(err, format.ErrUsage) {
			t.Errorf("%+v: %v, want ErrUsage", opts, err)
		}
	}
}
