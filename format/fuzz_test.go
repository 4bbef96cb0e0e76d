package format

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"github.com/trevni-go/trevni/internal/testing/longtest"
	"io"
	"os"
	"testing"
)

// FuzzReader opens arbitrary bytes as a Trevni file and exercises
// everything the reader offers: it must never panic, hang or allocate
// without bound, only return errors.
func FuzzReader(f *testing.F) {
	for file := range interopFiles(f) {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		if len(data) <= 64<<10 {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		rd, err := NewReader(bytes.NewReader(data), int64(len(data)), &ReaderOptions{MaxBlockSize: 1 << 20})
		if err != nil {
			knownError(t, "NewReader", err)
			return
		}
		rd.Validate(func(err error) { knownError(t, "Validate", err) })
		rows, err := rd.Rows()
		if err != nil {
			return
		}
		rows.MaxElems = 1 << 12
		for n := 0; n < 2000; n++ {
			if _, err := rows.Read(); err != nil {
				if err != io.EOF {
					knownError(t, "Read", err)
				}
				break
			}
		}
		// The last column alone (with its ancestors), as JSON, seeking.
		if sel, err := rd.RowsOf(&RowsOptions{Columns: []int{rd.NumColumns() - 1}}); err == nil && rd.NumColumns() > 0 {
			sel.MaxElems = 1 << 12
			var buf []byte
			for n, row := 0, int64(0); n < 200 && row < rd.RowCount(); n, row = n+1, row+1+row/2 {
				if err := sel.SeekRow(row); err != nil {
					knownError(t, "SeekRow", err)
					break
				}
				if buf, err = sel.ReadJSON(buf[:0]); err != nil {
					knownError(t, "ReadJSON", err)
					break
				}
			}
			sel.Close()
		}
		for i := 0; i < rd.NumColumns(); i++ {
			c, err := rd.Values(i)
			if err != nil {
				continue
			}
			for _, row := range []int64{rd.RowCount() / 2, rd.RowCount() - 1, 0} {
				if row >= 0 && row < 1<<20 {
					c.SeekRow(row)
				}
			}
			if c.meta.Values {
				c.SeekValue(c.meta.Type.zero())
			}
		}
	})
}

// knownError fails t unless err is an *Error that locates a problem of
// one of the kinds a damaged file can have.
func knownError(t *testing.T, what string, err error) {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("%s: error of type %T: %v", what, err, err)
	}
	for _, kind := range []error{ErrFormat, ErrChecksum, ErrCodec, ErrLimit} {
		if errors.Is(err, kind) {
			return
		}
	}
	t.Fatalf("%s: error of no known kind: %v", what, err)
}

// checkDamaged opens a damaged file, verifies it and reads it. Every error
// must be of a known kind, and when Validate finds nothing wrong, reading
// every row must succeed (or fail only on a string that is not UTF-8,
// which Validate does not decode) and give as many rows as the file claims.
func checkDamaged(t *testing.T, what string, data []byte) (problems int) {
	t.Helper()
	rd, err := NewReader(bytes.NewReader(data), int64(len(data)), nil)
	if err != nil {
		knownError(t, what, err)
		return 1
	}
	problems = rd.Validate(func(err error) { knownError(t, what, err) })
	if rd.RowCount() > 1<<16 {
		return problems // checked by Validate alone; reading could take long
	}
	rows, err := rd.Rows()
	var n int64
	for err == nil {
		if _, err = rows.Read(); err == nil {
			n++
		}
	}
	// ReadJSON fails where Read does.
	if js, jerr := rd.Rows(); jerr == nil {
		var k int64
		for jerr == nil {
			if _, jerr = js.ReadJSON(nil); jerr == nil {
				k++
			}
		}
		if k != n || (jerr == io.EOF) != (err == io.EOF) {
			t.Fatalf("%s: ReadJSON read %d rows and stopped on %v; Read %d rows and %v", what, k, jerr, n, err)
		}
	}
	if err == io.EOF {
		if n != rd.RowCount() {
			t.Fatalf("%s: read %d rows of %d", what, n, rd.RowCount())
		}
		return problems
	}
	knownError(t, what, err)
	if problems == 0 && !errors.Is(err, errBadUTF8) {
		t.Fatalf("%s: Validate found no problem, but reading failed: %v", what, err)
	}
	return problems
}

// TestCorruptFilesFail truncates and damages Java's files: every failure
// is an error of a known kind, never a panic, a truncated file never
// passes, and reading agrees with Validate.
func TestCorruptFilesFail(t *testing.T) {
	t.Parallel()
	flips, caught := 0, 0
	for file := range interopFiles(t) {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if len(data) > 64<<10 {
			continue
		}
		// 16 cuts and flips a file by default, 40 in the long form.
		step := max(1, len(data)/longtest.Rounds(16, 40))
		for cut := 0; cut < len(data); cut += step {
			what := fmt.Sprintf("%s cut at %d of %d", file, cut, len(data))
			if checkDamaged(t, what, data[:cut]) == 0 {
				t.Fatalf("%s: no error", what)
			}
		}
		for pos := 0; pos < len(data); pos += step {
			bad := append([]byte(nil), data...)
			bad[pos] ^= 0x5a
			flips++
			if checkDamaged(t, fmt.Sprintf("%s flipped at %d", file, pos), bad) > 0 {
				caught++
			}
		}
	}
	// Most flips land in the header, descriptors or checksummed data and
	// must be noticed; flips in unchecked values cannot be.
	t.Logf("%d of %d flips noticed", caught, flips)
	if caught < flips/2 {
		t.Errorf("only %d of %d flips were noticed", caught, flips)
	}
}

// TestValidateHugeRunIsQuick verifies a tiny file whose array column claims
// a billion empty rows through a single run of zero lengths: a legitimate
// encoding, which must not take a billion steps to check.
func TestValidateHugeRunIsQuick(t *testing.T) {
	const rows = 1 << 30
	var buf bytes.Buffer
	cols := []ColumnMeta{{Name: "a", Type: Null, Array: true}, {Name: "a#x", Type: Int, Parent: "a"}, {Name: "n", Type: Null}}
	w, err := NewWriter(&buf, cols, &WriterOptions{Concurrency: 1})
	if err != nil {
		t.Fatal(err)
	}
	// Writing a billion rows would take minutes: set the state they would
	// leave, one run of a billion zero lengths in column a.
	w.rowCount = rows
	w.cols[0].runLength, w.cols[0].runValue = rows, 0
	w.cols[0].lengths = rows
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	if len(data) > 300 {
		t.Fatalf("the file has %d bytes", len(data))
	}
	rd, err := NewReader(bytes.NewReader(data), int64(len(data)), nil)
	if err != nil {
		t.Fatal(err)
	}
	if rd.RowCount() != rows {
		t.Fatalf("%d rows", rd.RowCount())
	}
	if n := rd.Validate(func(err error) { t.Error(err) }); n != 0 {
		t.Fatalf("%d problems", n)
	}
	// The same file with a child value where the run says there is none is
	// caught.
	bad := append([]byte(nil), data...)
	binary.LittleEndian.PutUint32(bad[rd.ColumnStart(1)+8:], 1) // a#x: uncompressed size 1
	rd, err = NewReader(bytes.NewReader(bad), int64(len(bad)), nil)
	if err == nil && rd.Validate(nil) == 0 {
		t.Fatal("a damaged child column passed")
	}
}
