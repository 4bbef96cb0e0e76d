package trevniparquet_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/trevni-go/trevni"

	"github.com/trevni-go/trevni/trevniparquet"
)

// parquetOf writes a data set as Parquet in row groups of rows rows.
func parquetOf(t testing.TB, name string, rows int) []byte {
	t.Helper()
	ds, err := trevni.Open(context.Background(), name, nil)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := trevniparquet.Write(context.Background(), &buf, ds, &trevniparquet.WriteOptions{RowGroupRows: rows}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// fromParquet converts a Parquet file to Trevni, discarding the output.
func fromParquet(data []byte) (int64, error) {
	pf, err := trevniparquet.Open(bytes.NewReader(data), nil)
	if err != nil {
		return 0, err
	}
	defer pf.Close()
	w, err := trevni.NewWriter(io.Discard, pf.AvroSchema(), nil)
	if err != nil {
		return 0, err
	}
	defer w.Abort()
	n, err := pf.WriteTo(context.Background(), w)
	if err != nil {
		return n, err
	}
	return n, w.Close()
}

// A Parquet file cut short anywhere, or with bytes changed in its pages
// or footer, is an error (naming the row group when a page is bad) or
// reads whole: never a panic or a hang.
func TestHostileParquet(t *testing.T) {
	data := parquetOf(t, "../testdata/interop/primitives/primitives.snappy.crc32.trv", 200)
	if n, err := fromParquet(data); err != nil || n != 500 {
		t.Fatalf("the intact file: %d rows, %v", n, err)
	}
	for cut := 0; cut < len(data); cut += 1 + cut/8 {
		if _, err := fromParquet(data[:cut]); err == nil {
			t.Fatalf("cut to %d of %d bytes: no error", cut, len(data))
		}
	}
	seen := map[string]bool{}
	for pos := 4; pos < len(data)-8; pos += 97 {
		bad := bytes.Clone(data)
		bad[pos] ^= 0x5a
		_, err := fromParquet(bad)
		if err == nil {
			continue // a changed value, or a byte no reader looks at
		}
		msg := err.Error()
		if strings.Contains(msg, "Parquet row group") {
			seen["row group"] = true
			if strings.Contains(msg, ", column ") && strings.Contains(msg, ", page ") {
				seen["page"] = true
			}
		} else if !strings.HasPrefix(msg, "Parquet") && !strings.Contains(msg, "Parquet") {
			t.Errorf("byte %d changed: %v: the error does not say it is Parquet", pos, err)
		}
	}
	if !seen["row group"] || !seen["page"] {
		t.Errorf("no damaged page was reported with its row group, column and page: %v", seen)
	}
}

// FuzzFromParquet converts any bytes as a Parquet file: an error or a
// conversion, never a panic, a hang, or memory past the batch's.
func FuzzFromParquet(f *testing.F) {
	for _, v := range []string{"primitives", "nested_records", "maps", "enum_fixed_bytes"} {
		f.Add(parquetOf(f, fmt.Sprintf("../testdata/interop/%s/%s.snappy.crc32.trv", v, v), 64))
	}
	if data, err := os.ReadFile("testdata/fuzz.parquet"); err == nil {
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fromParquet(data)
	})
}

// A file whose pages decompress to more than ReadOptions.MaxMemory
// (as a decompression bomb does) fails with the limit's error, naming the
// row group; with room, the same file reads whole.
func TestParquetMemoryLimit(t *testing.T) {
	data := parquetOf(t, "../testdata/interop/medium/medium.snappy.crc32.trv", 1<<20)
	read := func(limit int64) error {
		pf, err := trevniparquet.Open(bytes.NewReader(data), &trevniparquet.ReadOptions{MaxMemory: limit})
		if err != nil {
			return err
		}
		defer pf.Close()
		w, err := trevni.NewWriter(io.Discard, pf.AvroSchema(), nil)
		if err != nil {
			return err
		}
		defer w.Abort()
		_, err = pf.WriteTo(context.Background(), w)
		return err
	}
	if err := read(len64(data) / 4); err == nil || !strings.Contains(err.Error(), "MaxMemory") || !strings.Contains(err.Error(), "row group 0") {
		t.Fatalf("a quarter of the file's size: %v", err)
	}
	if err := read(0); err != nil {
		t.Fatalf("the default limit: %v", err)
	}
}

func len64(b []byte) int64 { return int64(len(b)) }
