package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"

	"github.com/trevni-go/trevni"
)

// ipcRows returns the rows of an Arrow IPC file as JSON lines, whatever
// its batches, and the number of batches.
func ipcRows(t *testing.T, name string) (string, int) {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fr, err := ipc.NewFileReader(f)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	defer fr.Close()
	var sb strings.Builder
	for i := range fr.NumRecords() {
		rec, err := fr.RecordBatchAt(i)
		if err != nil {
			t.Fatal(err)
		}
		if err := array.RecordToJSON(rec, &sb); err != nil {
			t.Fatal(err)
		}
		rec.Release()
	}
	return sb.String(), fr.NumRecords()
}

// --workers: toarrow writes on 2 and 3 goroutines the rows it writes on
// one, in batches cut where the workers' ranges end (and with the least
// --output-memory, where a batch takes its share), and toparquet through
// Arrow batches (--fields, --where, --offset, --limit) the values it
// writes on one, with filters, offsets and limits.
func TestWorkersFlagArrow(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	trv := filepath.Join(dir, "m.trv")
	if r := runIn(t, nil, "fromavro", "--quiet", "--block-size", "2048", filepath.Join(interopDir, "medium", "input.avro"), trv); r.code != 0 {
		t.Fatalf("fromavro: %+v", r)
	}
	cut := false
	for i, args := range [][]string{
		{},
		{"--offset", "4000", "--limit", "9000", "--batch-rows", "1000"},
		{"--where", "small < -200 AND score > 0", "--limit", "1500", "--batch-rows", "300"},
		{"--fields", "pts,name,opt"},
		{"--output-memory", "1", "--where", "small < 0"},
	} {
		var outs []string
		var batches []int
		for _, w := range []string{"1", "2", "3"} {
			out := filepath.Join(dir, fmt.Sprintf("%d.%s.arrow", i, w))
			a := append(append([]string{"toarrow"}, args...), "--quiet", "--workers", w, trv, out)
			if r := runIn(t, nil, a...); r.code != 0 {
				t.Fatalf("%v: %s", a, r.stderr)
			}
			rows, n := ipcRows(t, out)
			outs, batches = append(outs, rows), append(batches, n)
		}
		if outs[0] == "" || outs[0] != outs[1] || outs[0] != outs[2] {
			t.Fatalf("toarrow %v: the rows of 1, 2 and 3 workers differ (%d, %d, %d bytes of JSON)", args, len(outs[0]), len(outs[1]), len(outs[2]))
		}
		cut = cut || batches[2] > batches[0]
	}
	if !cut {
		t.Fatal("no batch cut where a range ends: one range each")
	}
	for i, args := range [][]string{
		{"--fields", "id,score,name,pts"},
		{"--fields", "id,tags,opt", "--where", "small < 0", "--offset", "3333", "--limit", "20000"},
	} {
		var jsons []string
		for _, w := range []string{"1", "2"} {
			pq := filepath.Join(dir, fmt.Sprintf("%d.%s.parquet", i, w))
			a := append(append([]string{"toparquet"}, args...), "--quiet", "--row-group-rows", "4000", "--workers", w, trv, pq)
			if r := runIn(t, nil, a...); r.code != 0 {
				t.Fatalf("%v: %s", a, r.stderr)
			}
			back := filepath.Join(dir, fmt.Sprintf("%d.%s.trv", i, w))
			if r := runIn(t, nil, "fromparquet", "--quiet", pq, back); r.code != 0 {
				t.Fatalf("fromparquet: %s", r.stderr)
			}
			jsons = append(jsons, runIn(t, nil, "tojson", back).stdout)
		}
		want := runIn(t, nil, append(append([]string{"tojson"}, args...), trv)...).stdout
		if jsons[0] == "" || jsons[0] != jsons[1] || jsons[0] != want {
			t.Fatalf("toparquet %v on 1 and 2 workers: %d and %d bytes of records, tojson %d", args, len(jsons[0]), len(jsons[1]), len(want))
		}
	}
}

// An error in any worker's range (a uuid that is not one) stops toarrow
// and toparquet on several workers with the error of one, naming the part
// and row, and leaves no output.
func TestWorkersFlagArrowError(t *testing.T) {
	const text = `{"type":"record","name":"R","fields":[{"name":"id","type":"long"},{"name":"u","type":{"type":"string","logicalType":"uuid"}}]}`
	dir := t.TempDir()
	trv := filepath.Join(dir, "u.trv")
	w, err := trevni.Create(context.Background(), trv, text, &trevni.WriteOptions{BlockSize: 1024})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 20000 {
		u := fmt.Sprintf("%08x-0000-4000-8000-%012x", i, i)
		if i == 14321 {
			u = "not a uuid"
		}
		if err := w.Write(map[string]any{"id": int64(i), "u": u}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range [][]string{{"toarrow", "--batch-rows", "500"}, {"toparquet", "--where", "id >= 0"}} {
		var msgs []string
		for _, workers := range []string{"1", "3"} {
			out := filepath.Join(dir, cmd[0]+workers+".out")
			a := append(append([]string{}, cmd...), "--quiet", "--workers", workers, trv, out)
			r := runIn(t, nil, a...)
			// toparquet writes from the columns: its message names the
			// Parquet column too ("u.trv: Parquet column u: row 14321: ").
			if r.code == 0 || !strings.Contains(r.stderr, "u.trv: ") || !strings.Contains(r.stderr, "row 14321: ") {
				t.Fatalf("%v: %+v", a, r)
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Fatalf("%v: the output is left: %v", a, err)
			}
			msgs = append(msgs, r.stderr)
		}
		if msgs[0] != msgs[1] {
			t.Fatalf("%v: the errors of 1 and 3 workers differ:\n%s\n%s", cmd, msgs[0], msgs[1])
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 {
		var names bytes.Buffer
		for _, e := range entries {
			names.WriteString(e.Name() + " ")
		}
		t.Fatalf("left in the directory: %s", names.String())
	}
}
