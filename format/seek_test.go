package format

import (
	"bufio"
	"encoding/json"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// TestSeeksAgainstJava replays raw_core/seeks.txt: where Java answers, we
// give the same row and value; where Java throws or is wrong, we give the
// correct answer, checked by a linear scan.
func TestSeeksAgainstJava(t *testing.T) {
	rc, err := Open(filepath.Join(interopDir, "raw_core", "raw_core.trv"))
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	all := map[string][]any{}
	for _, name := range []string{"id", "s"} {
		c, err := rc.ValuesByName(name)
		if err != nil {
			t.Fatal(err)
		}
		for {
			v, err := c.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			all[name] = append(all[name], v)
		}
	}
	f, err := os.Open(filepath.Join(interopDir, "raw_core", "seeks.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		line := sc.Text()
		op, rest, _ := strings.Cut(line, " ")
		col, rest, _ := strings.Cut(rest, " ")
		arg, answer, _ := strings.Cut(rest, " -> ")
		c, err := rc.ValuesByName(col)
		if err != nil {
			t.Fatal(err)
		}
		var key any = arg
		if col == "id" {
			k, _ := strconv.ParseInt(arg, 10, 64)
			key = k
		}
		var row int64
		switch op {
		case "seekrow":
			row, _ = strconv.ParseInt(arg, 10, 64)
			err = c.SeekRow(row)
		case "seekvalue":
			row, err = c.SeekValue(key)
		}
		if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		// The true answer, by scanning.
		want := int64(len(all[col]))
		if op == "seekrow" {
			want, _ = strconv.ParseInt(arg, 10, 64)
		} else {
			for i, v := range all[col] {
				if compareValues(c.typ, v, mustKey(t, c, key)) >= 0 {
					want = int64(i)
					break
				}
			}
		}
		if row != want {
			t.Fatalf("%s: row %d, want %d", line, row, want)
		}
		var got any
		if err := c.StartRow(); err == nil {
			if got, err = c.Value(); err != nil {
				t.Fatal(err)
			}
		} else if err != io.EOF {
			t.Fatal(err)
		}
		if strings.HasPrefix(answer, "{") { // Java answered: it must agree
			var j struct {
				Row   int64
				Value any
			}
			if err := json.Unmarshal([]byte(answer), &j); err != nil {
				t.Fatal(err)
			}
			if j.Row != row || !jsonEqual(decodeJSON(t, mustJSON(got)), decodeJSON(t, mustJSON(j.Value))) {
				t.Fatalf("%s: got row %d value %v", line, row, got)
			}
		}
		n++
	}
	if n < 20 {
		t.Fatalf("only %d seeks replayed", n)
	}
}

func mustKey(t *testing.T, c *ColumnReader, v any) any {
	k, err := c.keyOf(v)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

// TestSeekRowEveryColumn seeks every column of raw_core (arrays and children
// included, where Java's seek is wrong) to random rows and compares the
// entry read there with a sequential read.
func TestSeekRowEveryColumn(t *testing.T) {
	rc, err := Open(filepath.Join(interopDir, "raw_core", "raw_core.trv"))
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	for i := 0; i < rc.NumColumns(); i++ {
		seq, err := rc.Values(i)
		if err != nil {
			t.Fatal(err)
		}
		entries := rowEntries(t, rc.Reader, seq)
		rnd := rand.New(rand.NewPCG(uint64(i), 7))
		c, err := rc.Values(i)
		if err != nil {
			t.Fatal(err)
		}
		blocks, _ := rc.Blocks(i)
		rows := []int64{0, rc.RowCount() - 1}
		for _, b := range blocks {
			rows = append(rows, b.FirstRow, b.FirstRow+b.Rows-1)
		}
		for k := 0; k < 40; k++ {
			rows = append(rows, rnd.Int64N(rc.RowCount()))
		}
		for _, r := range rows {
			if err := c.SeekRow(r); err != nil {
				t.Fatalf("column %s row %d: %v", c.meta.Name, r, err)
			}
			if err := c.StartRow(); err != nil {
				t.Fatal(err)
			}
			got := readEntries(t, rc.Reader, c, entriesAt(t, rc.Reader, i, r))
			if !reflect.DeepEqual(got, entries[r]) {
				t.Fatalf("column %s row %d: %v, want %v", c.meta.Name, r, got, entries[r])
			}
		}
	}
}

// rowEntries reads a column sequentially and returns its entries per row.
func rowEntries(t *testing.T, rd *Reader, c *ColumnReader) [][]any {
	var out [][]any
	var aux []*ColumnReader
	for p := rd.Parent(c.index); p >= 0; p = rd.Parent(p) {
		a, _ := rd.Values(p)
		aux = append([]*ColumnReader{a}, aux...)
	}
	for {
		if err := c.StartRow(); err == io.EOF {
			return out
		} else if err != nil {
			t.Fatal(err)
		}
		n := int64(1)
		for _, a := range aux {
			if err := a.StartRow(); err != nil {
				t.Fatal(err)
			}
			sum := int64(0)
			for k := int64(0); k < n; k++ {
				l, err := a.NextLength()
				if err != nil {
					t.Fatal(err)
				}
				sum += int64(l)
				if err := a.dec.skipValues(a.typ, int64(l)); err != nil {
					t.Fatal(err)
				}
			}
			n = sum
		}
		out = append(out, readEntries(t, rd, c, n))
	}
}

// readEntries reads n entries of c: values, or for arrays lengths and values.
func readEntries(t *testing.T, rd *Reader, c *ColumnReader, n int64) []any {
	out := []any{}
	for k := int64(0); k < n; k++ {
		if c.meta.Array {
			l, err := c.NextLength()
			if err != nil {
				t.Fatal(err)
			}
			vals := []any{}
			for j := 0; j < l; j++ {
				v, err := c.Value()
				if err != nil {
					t.Fatal(err)
				}
				vals = append(vals, v)
			}
			out = append(out, vals)
			continue
		}
		v, err := c.Value()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	return out
}

// entriesAt counts column i's entries in row r with fresh readers of its
// ancestors, each seeked to r.
func entriesAt(t *testing.T, rd *Reader, i int, r int64) int64 {
	var chain []int
	for p := rd.Parent(i); p >= 0; p = rd.Parent(p) {
		chain = append([]int{p}, chain...)
	}
	n := int64(1)
	for _, p := range chain {
		a, _ := rd.Values(p)
		if err := a.SeekRow(r); err != nil {
			t.Fatal(err)
		}
		if err := a.StartRow(); err != nil {
			t.Fatal(err)
		}
		sum, err := a.dec.skipEntries(a.typ, n)
		if err != nil {
			t.Fatal(err)
		}
		n = sum
	}
	return n
}
