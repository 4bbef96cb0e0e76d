package format_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/trevni-go/trevni/assemble"
	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/shred"
)

const concatInterop = "../testdata/interop"

func openBytes(t testing.TB, b []byte) *format.Reader {
	t.Helper()
	rd, err := format.NewReader(bytes.NewReader(b), int64(len(b)), nil)
	if err != nil {
		t.Fatal(err)
	}
	return rd
}

// records reads every record of a file as Avro JSON lines.
func records(t *testing.T, rd *format.Reader) []string {
	t.Helper()
	ar, err := assemble.NewAvroReader(rd, nil)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	var buf []byte
	for {
		buf, err = ar.ReadJSON(buf[:0])
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(buf))
	}
}

func concatBytes(t *testing.T, parts ...[]byte) []byte {
	t.Helper()
	var rds []*format.Reader
	var rows int64
	for _, p := range parts {
		rd := openBytes(t, p)
		rows += rd.RowCount()
		rds = append(rds, rd)
	}
	var out bytes.Buffer
	n, err := format.Concat(context.Background(), &out, rds, &format.ConcatOptions{SameSchema: sameAvro})
	if err != nil {
		t.Fatal(err)
	}
	if n != rows {
		t.Fatalf("Concat wrote %d rows, the parts hold %d", n, rows)
	}
	return out.Bytes()
}

// TestConcatInterop joins the files Java wrote of each data set, every
// codec and checksum first in turn (so that every other part is copied,
// has its checksum dropped or added, or is compressed again), and checks
// the records against reading the parts in order, and the file with Validate.
func TestConcatInterop(t *testing.T) {
	t.Parallel()
	for _, dir := range []string{"nested_records", "medium", "maps", "unions", "primitives"} {
		files, _ := filepath.Glob(filepath.Join(concatInterop, dir, "*.trv"))
		if len(files) < 2 {
			t.Fatalf("%s: %d files", dir, len(files))
		}
		var datas [][]byte
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			datas = append(datas, b)
		}
		for first := range datas {
			if dir == "medium" && !strings.Contains(files[first], ".null.") && !strings.Contains(files[first], ".snappy.") {
				continue // compressing the big data set again with bzip2 or deflate takes seconds
			}
			order := append([][]byte{datas[first]}, slices.Delete(slices.Clone(datas), first, first+1)...)
			var want []string
			for _, p := range order {
				want = append(want, records(t, openBytes(t, p))...)
			}
			joined := concatBytes(t, order...)
			rd := openBytes(t, joined)
			if rd.Codec() != openBytes(t, order[0]).Codec() || rd.Checksum() != openBytes(t, order[0]).Checksum() {
				t.Fatalf("%s: output codec %s/%s, first part's %s", dir, rd.Codec(), rd.Checksum(), files[first])
			}
			got := records(t, rd)
			if !slices.Equal(got, want) {
				t.Fatalf("%s, %s first: %d records differ from the parts' %d", dir, filepath.Base(files[first]), len(got), len(want))
			}
			// Java's all-zero CRCs of null-codec files are not copied:
			// every checksum of the output is right.
			if problems := validateStrict(t, joined); len(problems) > 0 {
				t.Fatalf("%s, %s first: Validate: %v", dir, filepath.Base(files[first]), problems)
			}
		}
	}
}

// validateStrict returns the problems Validate finds in a file read with
// StrictChecksums, which rejects Java's all-zero CRC-32s.
func validateStrict(t *testing.T, b []byte) []error {
	t.Helper()
	rd, err := format.NewReader(bytes.NewReader(b), int64(len(b)), &format.ReaderOptions{StrictChecksums: true})
	if err != nil {
		t.Fatal(err)
	}
	var problems []error
	rd.Validate(func(err error) { problems = append(problems, err) })
	return problems
}

// rightCRCs returns b with the CRC-32 of every block of its null-codec,
// crc32 columns set to that of the block's stored bytes (which for the
// null codec are the data), as the standard library computes it.
func rightCRCs(t *testing.T, b []byte) []byte {
	t.Helper()
	b = slices.Clone(b)
	rd := openBytes(t, b)
	for i := range rd.NumColumns() {
		if rd.ColumnCodec(i) != format.CodecNull || rd.ColumnChecksum(i) != format.ChecksumCRC32 {
			continue
		}
		blocks, err := rd.Blocks(i)
		if err != nil {
			t.Fatal(err)
		}
		for _, bi := range blocks {
			end := bi.Offset + int64(bi.CompressedSize)
			binary.BigEndian.PutUint32(b[end:], crc32.ChecksumIEEE(b[bi.Offset:end]))
		}
	}
	return b
}

// TestConcatOneIsIdentity: a single Java-written part comes out byte for
// byte, so the output follows Java's layout exactly, except that the
// all-zero CRC-32s Java writes for null-codec blocks are made right.
func TestConcatOneIsIdentity(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(concatInterop, "*", "*.trv"))
	if len(files) == 0 {
		t.Fatal("no interop files")
	}
	fixed := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		want := rightCRCs(t, b)
		if !bytes.Equal(want, b) {
			fixed++
		}
		if got := concatBytes(t, b); !bytes.Equal(got, want) {
			t.Errorf("%s: Concat of the file alone differs from it (with right checksums)", f)
		}
	}
	if fixed == 0 {
		t.Error("no interop file has Java's zero checksums")
	}
}

// TestConcatJavaZeroCRC joins Java's null-codec file with all-zero
// CRC-32s and one of ours, in both orders and with ours of several
// codecs: the output's checksums are right (a reader with StrictChecksums
// accepts it) and its records are the parts'.
func TestConcatJavaZeroCRC(t *testing.T) {
	dir := filepath.Join(concatInterop, "email")
	java, err := os.ReadFile(filepath.Join(dir, "email.null.crc32.trv"))
	if err != nil {
		t.Fatal(err)
	}
	if len(validateStrict(t, java)) == 0 {
		t.Fatal("email.null.crc32.trv has right checksums: the test needs Java's zero ones")
	}
	for _, codec := range []string{"null", "deflate", "snappy"} {
		in, err := os.Open(filepath.Join(dir, "input.avro"))
		if err != nil {
			t.Fatal(err)
		}
		var ours bytes.Buffer
		_, err = shred.FromContainer(context.Background(), &ours, in, &shred.Options{WriterOptions: format.WriterOptions{Codec: codec, Checksum: "crc32"}})
		in.Close()
		if err != nil {
			t.Fatal(err)
		}
		for _, order := range [][][]byte{{java, ours.Bytes()}, {ours.Bytes(), java}, {java, ours.Bytes(), java}} {
			var want []string
			for _, p := range order {
				want = append(want, records(t, openBytes(t, p))...)
			}
			joined := concatBytes(t, order...)
			if problems := validateStrict(t, joined); len(problems) > 0 {
				t.Fatalf("ours %s: Validate: %v", codec, problems)
			}
			if got := records(t, openBytes(t, joined)); !slices.Equal(got, want) {
				t.Fatalf("ours %s: %d records differ from the parts' %d", codec, len(got), len(want))
			}
		}
	}
}

// TestConcatWrongNullCRC: in a null-codec part, a checksum that is wrong
// and not Java's zero, or Java's zero read with StrictChecksums, is an
// error wrapping ErrChecksum that names the part, column and block.
func TestConcatWrongNullCRC(t *testing.T) {
	dir := filepath.Join(concatInterop, "email")
	right, err := os.ReadFile(filepath.Join(dir, "email.null.crc32-correct.trv"))
	if err != nil {
		t.Fatal(err)
	}
	zero, err := os.ReadFile(filepath.Join(dir, "email.null.crc32.trv"))
	if err != nil {
		t.Fatal(err)
	}
	rd := openBytes(t, right)
	blocks, err := rd.Blocks(1)
	if err != nil || len(blocks) == 0 {
		t.Fatalf("blocks of column 1: %d, %v", len(blocks), err)
	}
	bad := slices.Clone(right)
	bad[blocks[0].Offset+int64(blocks[0].CompressedSize)] ^= 0x40 // the first block's CRC
	strict, err := format.NewReader(bytes.NewReader(zero), int64(len(zero)), &format.ReaderOptions{StrictChecksums: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		ins  []*format.Reader
	}{
		{"wrong CRC", []*format.Reader{openBytes(t, right), openBytes(t, bad)}},
		{"zero CRC, strict", []*format.Reader{openBytes(t, right), strict}},
	} {
		_, err := format.Concat(context.Background(), io.Discard, c.ins, nil)
		var pe *format.PartError
		var fe *format.Error
		if !errors.As(err, &pe) || pe.Part != 1 || !errors.Is(err, format.ErrChecksum) || !errors.As(err, &fe) || fe.Block < 0 || fe.Column == "" {
			t.Errorf("%s: error %v, want a PartError for part 1 wrapping ErrChecksum with column and block", c.name, err)
		}
	}
	// Without the damage the same parts join.
	if _, err := format.Concat(context.Background(), io.Discard, []*format.Reader{openBytes(t, right), openBytes(t, right), openBytes(t, zero)}, nil); err != nil {
		t.Fatal(err)
	}
}

// TestConcatValuesColumn joins files with indexed first values and small
// blocks, and seeks by value in the result.
func TestConcatValuesColumn(t *testing.T) {
	cols := []format.ColumnMeta{
		{Name: "id", Type: format.Long, Values: true},
		{Name: "tags", Type: format.Null, Array: true},
		{Name: "tags#k", Type: format.String, Parent: "tags"},
	}
	var parts [][]byte
	id := int64(0)
	for k, codec := range []string{"deflate", "null", "snappy", "deflate"} {
		checksum := []string{"crc32", "null"}[k%2]
		var buf bytes.Buffer
		w, err := format.NewWriter(&buf, cols, &format.WriterOptions{Codec: codec, Checksum: checksum, BlockSize: 512})
		if err != nil {
			t.Fatal(err)
		}
		for r := 0; r < 1000*(k+1); r++ {
			w.StartRow()
			w.WriteLong(0, id)
			w.WriteLength(1, int(id%3))
			for j := 0; j < int(id%3); j++ {
				w.WriteString(2, strings.Repeat("x", j+int(id%7)))
			}
			if err := w.EndRow(); err != nil {
				t.Fatal(err)
			}
			id++
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		parts = append(parts, buf.Bytes())
	}
	rd := openBytes(t, concatBytes(t, parts...))
	if rd.RowCount() != id {
		t.Fatalf("%d rows, want %d", rd.RowCount(), id)
	}
	c, err := rd.Values(0)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []int64{0, 999, 1000, 2999, 3000, 5555, id - 1} {
		row, err := c.SeekValue(v)
		if err != nil || row != v {
			t.Fatalf("SeekValue(%d) = %d, %v", v, row, err)
		}
		got, err := c.ReadLong()
		if err != nil || got != v {
			t.Fatalf("value at row %d: %d, %v", v, got, err)
		}
	}
	var problems []error
	rd.Validate(func(err error) { problems = append(problems, err) })
	if len(problems) > 0 {
		t.Fatal(problems)
	}
}

func TestConcatDifferentColumns(t *testing.T) {
	a, _ := os.ReadFile(filepath.Join(concatInterop, "medium", "medium.null.none.trv"))
	b, _ := os.ReadFile(filepath.Join(concatInterop, "maps", "maps.null.none.trv"))
	var out bytes.Buffer
	_, err := format.Concat(context.Background(), &out, []*format.Reader{openBytes(t, a), openBytes(t, b)}, nil)
	if !errors.Is(err, format.ErrUsage) || !strings.Contains(err.Error(), "part 1") {
		t.Fatalf("error %v", err)
	}
	if out.Len() != 0 {
		t.Fatalf("%d bytes written on error", out.Len())
	}
}

// TestConcatDamagedPart: a part whose blocks run past its end, or whose
// checksum is wrong where it must be read, is a *PartError naming it.
func TestConcatDamagedPart(t *testing.T) {
	a, _ := os.ReadFile(filepath.Join(concatInterop, "email", "email.deflate.crc32.trv"))
	b, _ := os.ReadFile(filepath.Join(concatInterop, "email", "email.null.none.trv"))
	short := openBytes(t, a[:len(a)-10])
	bad := slices.Clone(a)
	bad[len(bad)-5] ^= 0xff // in the last block's compressed bytes
	for _, c := range []struct {
		name string
		ins  []*format.Reader
	}{
		{"truncated", []*format.Reader{openBytes(t, a), short}},
		// b first: the deflate part is decompressed, so its damage shows.
		{"damaged", []*format.Reader{openBytes(t, b), openBytes(t, bad)}},
	} {
		var out bytes.Buffer
		_, err := format.Concat(context.Background(), &out, c.ins, nil)
		var pe *format.PartError
		if !errors.As(err, &pe) || pe.Part != 1 {
			t.Errorf("%s: error %v, want a PartError for part 1", c.name, err)
		}
	}
}

// BenchmarkConcatCopy joins two parts whose blocks are copied as stored.
func BenchmarkConcatCopy(b *testing.B) {
	data, err := os.ReadFile(filepath.Join(concatInterop, "medium", "medium.snappy.crc32.trv"))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(2 * int64(len(data)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		var rds []*format.Reader
		for range 2 {
			rd, err := format.NewReader(bytes.NewReader(data), int64(len(data)), nil)
			if err != nil {
				b.Fatal(err)
			}
			rds = append(rds, rd)
		}
		if _, err := format.Concat(context.Background(), io.Discard, rds, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkConcatNullCRC joins two null-codec parts with CRC-32s, whose
// checksums are checked (and Java's zeros replaced) as the blocks are
// copied: the medium data set written by us, then a copy of it with every
// CRC-32 zeroed as Java writes them.
func BenchmarkConcatNullCRC(b *testing.B) {
	in, err := os.Open(filepath.Join(concatInterop, "medium", "input.avro"))
	if err != nil {
		b.Fatal(err)
	}
	defer in.Close()
	var ours bytes.Buffer
	if _, err := shred.FromContainer(context.Background(), &ours, in, &shred.Options{WriterOptions: format.WriterOptions{Codec: "null", Checksum: "crc32"}}); err != nil {
		b.Fatal(err)
	}
	zeroed := bytes.Clone(ours.Bytes())
	rd := openBytes(b, zeroed)
	for i := range rd.NumColumns() {
		blocks, err := rd.Blocks(i)
		if err != nil {
			b.Fatal(err)
		}
		for _, bi := range blocks {
			clear(zeroed[bi.Offset+int64(bi.CompressedSize):][:4])
		}
	}
	b.SetBytes(int64(ours.Len() + len(zeroed)))
	b.ReportAllocs()
	for b.Loop() {
		rds := []*format.Reader{openBytes(b, ours.Bytes()), openBytes(b, zeroed)}
		if _, err := format.Concat(context.Background(), io.Discard, rds, nil); err != nil {
			b.Fatal(err)
		}
	}
}
