package format

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"
)

// tablesFile returns a file of two columns of many small blocks each, a
// long and a string with first values (trevni.values), with the codec.
func tablesFile(t *testing.T, codec string) []byte {
	t.Helper()
	var file bytes.Buffer
	w, err := NewWriter(&file, []ColumnMeta{{Name: "n", Type: Long}, {Name: "s", Type: String, Values: true}}, &WriterOptions{BlockSize: 64, Codec: codec})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3000 {
		if err := w.WriteRow(int64(i), fmt.Sprint("value ", i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return file.Bytes()
}

// readAll reads every value of column i of rd, as text.
func readAll(t *testing.T, rd *Reader, i int) []string {
	t.Helper()
	c, err := rd.Values(i)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var out []string
	for c.StartRow() == nil {
		v, err := c.Next()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprint(v))
	}
	return out
}

// TestSharedTables opens a file again and again with one SharedTables,
// concurrently: each column's block table is read from the file by one
// Reader only (the bytes before its first block read once in all), every
// Reader's descriptors and values are those of a Reader of its own, and
// a file of other bytes, a table refused room, or a failed read is not
// shared.
func TestSharedTables(t *testing.T) {
	for _, codec := range []string{"null", "snappy"} {
		t.Run(codec, func(t *testing.T) {
			data := tablesFile(t, codec)
			own, err := NewReader(bytes.NewReader(data), int64(len(data)), nil)
			if err != nil {
				t.Fatal(err)
			}
			var want [2][]BlockInfo
			var values [2][]string
			for i := range 2 {
				if want[i], err = own.Blocks(i); err != nil {
					t.Fatal(err)
				}
				values[i] = readAll(t, own, i)
				if len(want[i]) < 20 {
					t.Fatalf("column %d: %d blocks; the test wants many", i, len(want[i]))
				}
			}
			// The bytes of each column before its first block: its table.
			tableRead := func(spans [][2]int64) (n int) {
				for _, sp := range spans {
					for i := range 2 {
						if sp[0] <= own.ColumnStart(i) && sp[1] > own.ColumnStart(i) {
							n++
						}
					}
				}
				return n
			}
			sr := &spanReader{ra: bytes.NewReader(data)}
			shared := NewSharedTables(nil)
			const readers = 8
			var rds []*Reader
			for range readers {
				rd, err := NewReader(sr, int64(len(data)), &ReaderOptions{Tables: shared})
				if err != nil {
					t.Fatal(err)
				}
				rds = append(rds, rd)
			}
			sr.take() // the headers
			var wg sync.WaitGroup
			errs := make(chan error, readers)
			for _, rd := range rds {
				wg.Go(func() {
					for i := range 2 {
						got, err := rd.Blocks(i)
						if err != nil {
							errs <- err
							return
						}
						if !reflect.DeepEqual(got, want[i]) {
							errs <- fmt.Errorf("column %d: the shared descriptors differ from a Reader's own", i)
						}
					}
				})
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Fatal(err)
			}
			if n := tableRead(sr.take()); n != 2 {
				t.Errorf("%d Readers sharing tables read a column's first bytes %d times, want 2 (once a column)", readers, n)
			}
			// Another Reader reads the values through the shared tables.
			rd, err := NewReader(sr, int64(len(data)), &ReaderOptions{Tables: shared})
			if err != nil {
				t.Fatal(err)
			}
			sr.take()
			for i := range 2 {
				if got := readAll(t, rd, i); !reflect.DeepEqual(got, values[i]) {
					t.Errorf("column %d read through a shared table: values differ", i)
				}
			}
			if n := tableRead(sr.take()); n != 0 {
				t.Errorf("a Reader of shared tables read a column's table %d times", n)
			}

			// A file of other bytes (more rows) is read, not given the
			// first file's tables.
			other := tablesFile(t, "deflate")
			ord, err := NewReader(bytes.NewReader(other), int64(len(other)), &ReaderOptions{Tables: shared})
			if err != nil {
				t.Fatal(err)
			}
			ownOther, err := NewReader(bytes.NewReader(other), int64(len(other)), nil)
			if err != nil {
				t.Fatal(err)
			}
			for i := range 2 {
				if got := readAll(t, ord, i); !reflect.DeepEqual(got, readAll(t, ownOther, i)) {
					t.Errorf("column %d of another file with the first's SharedTables: values differ", i)
				}
			}
		})
	}

	// No room: every Reader reads its own.
	data := tablesFile(t, "null")
	sr := &spanReader{ra: bytes.NewReader(data)}
	asked := 0
	none := NewSharedTables(func(n int64) bool {
		asked++
		if n <= 0 {
			t.Errorf("a table of %d bytes", n)
		}
		return false
	})
	for range 2 {
		rd, err := NewReader(sr, int64(len(data)), &ReaderOptions{Tables: none})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := rd.Blocks(0); err != nil {
			t.Fatal(err)
		}
	}
	if asked != 2 {
		t.Errorf("room asked %d times for two Readers' tables refused room, want 2", asked)
	}

	// A failed read is the Reader's, and is not shared.
	fail := &failingAt{ra: bytes.NewReader(data)}
	shared := NewSharedTables(nil)
	bad, err := NewReader(fail, int64(len(data)), &ReaderOptions{Tables: shared})
	if err != nil {
		t.Fatal(err)
	}
	fail.broken = true
	if _, err := bad.Blocks(0); !errors.Is(err, errBroken) {
		t.Fatalf("a failing read of the table: %v, want the read's error", err)
	}
	good, err := NewReader(bytes.NewReader(data), int64(len(data)), &ReaderOptions{Tables: shared})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := good.Blocks(0); err != nil {
		t.Errorf("after another Reader failed to read the table: %v", err)
	}
}

var errBroken = errors.New("broken")

// failingAt fails every read once broken.
type failingAt struct {
	ra     *bytes.Reader
	broken bool
}

func (f *failingAt) ReadAt(p []byte, off int64) (int, error) {
	if f.broken {
		return 0, errBroken
	}
	return f.ra.ReadAt(p, off)
}
