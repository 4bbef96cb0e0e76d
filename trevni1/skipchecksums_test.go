package trevni1

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/trevni-go/trevni/internal/avrobin"
)

// skipSchema is the schema of the files of the checksum tests: a string
// column the test finds its value in, and an array of strings.
const skipSchema = `{"type":"record","name":"r","fields":[{"name":"id","type":"long"},{"name":"s","type":"string"},{"name":"tags","type":{"type":"array","items":"string"}}]}`

// skipFile writes rows records of skipSchema, record 7's s being
// "needleinthefile", under the writer options opts.
func skipFile(t *testing.T, rows int, opts *WriterOptions) []byte {
	t.Helper()
	var buf bytes.Buffer
	rw, err := NewRecordWriter(&buf, skipSchema, opts)
	if err != nil {
		t.Fatal(err)
	}
	for i := range rows {
		rec := avrobin.AppendLong(nil, int64(i))
		s := strings.Repeat("ab", i%5)
		if i == 7 {
			s = "needleinthefile"
		}
		rec = avrobin.AppendLong(rec, int64(len(s)))
		rec = append(rec, s...)
		rec = append(avrobin.AppendLong(rec, 2), 2, 'x', 2, 'y')
		rec = append(rec, 0)
		if _, err := rw.WriteBinary(rec); err != nil {
			t.Fatal(err)
		}
	}
	if err := rw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// readAllRecords reads every record of file as Avro binary, concatenated.
func readAllRecords(file []byte, opts *ReaderOptions) ([]byte, error) {
	rd, err := NewReader(bytes.NewReader(file), int64(len(file)), opts)
	if err != nil {
		return nil, err
	}
	rr, err := NewRecordReader(rd)
	if err != nil {
		return nil, err
	}
	var out []byte
	for {
		if out, err = rr.ReadBinary(out); err != nil {
			if errors.Is(err, io.EOF) {
				return out, nil
			}
			return out, err
		}
	}
}

// A block whose CRC-32 (null codec) or zlib Adler-32 (deflate) no longer
// matches its data is refused, the error naming the column and block;
// with ReaderOptions.SkipChecksums the file is read as it is, and Verify
// passes. The files and their damage are made here: one letter of a
// string, or one byte of a zlib stream's Adler-32.
func TestSkipChecksumsReadsDamagedBlocks(t *testing.T) {
	good := skipFile(t, 300, &WriterOptions{Checksum: ChecksumCRC32})
	want, err := readAllRecords(good, nil)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Count(good, []byte("needleinthefile")) != 1 {
		t.Fatal("the test's string is not in the file once")
	}
	bad := bytes.Replace(good, []byte("needleinthefile"), []byte("needleINthefile"), 1)
	wantBad := bytes.Replace(want, []byte("needleinthefile"), []byte("needleINthefile"), 1)

	zgood := skipFile(t, 300, &WriterOptions{Codec: CodecDeflate})
	rd, err := NewReader(bytes.NewReader(zgood), int64(len(zgood)), nil)
	if err != nil {
		t.Fatal(err)
	}
	bi := rd.Blocks(2)[0] // tags: a zlib stream ends the stored bytes
	zbad := bytes.Clone(zgood)
	zbad[bi.Start+bi.Stored-1] ^= 0x40

	for _, c := range []struct {
		name      string
		file, out []byte
		says      string
	}{
		{"crc-32", bad, wantBad, `column "s" (#1), block 0`},
		{"adler-32", zbad, want, `column "tags" (#2), block 0`},
	} {
		_, err := readAllRecords(c.file, nil)
		t.Logf("%s: %v", c.name, err)
		if err == nil || !errors.Is(err, ErrChecksum) && !strings.Contains(err.Error(), "Adler-32") {
			t.Errorf("%s: read %v, want a checksum error", c.name, err)
		} else if !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s: %v does not say %s", c.name, err, c.says)
		}
		rd, err := NewReader(bytes.NewReader(c.file), int64(len(c.file)), nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := rd.Verify(); err == nil {
			t.Errorf("%s: Verify passes the damaged file", c.name)
		}
		got, err := readAllRecords(c.file, &ReaderOptions{SkipChecksums: true})
		if err != nil || !bytes.Equal(got, c.out) {
			t.Errorf("%s: SkipChecksums read %d bytes (%v), want %d", c.name, len(got), err, len(c.out))
		}
		rd, err = NewReader(bytes.NewReader(c.file), int64(len(c.file)), &ReaderOptions{SkipChecksums: true})
		if err != nil {
			t.Fatal(err)
		}
		if err := rd.Verify(); err != nil {
			t.Errorf("%s: Verify under SkipChecksums: %v", c.name, err)
		}
	}
}
