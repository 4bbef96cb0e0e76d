package trevni_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/trevni-go/trevni"
)

// Open a file and look at it: its format, schema and row count.
func ExampleOpen() {
	ctx := context.Background()
	ds, err := trevni.Open(ctx, "testdata/interop/email/email.null.none.trv", nil)
	if err != nil {
		log.Fatal(err)
	}
	defer ds.Close()
	cols, err := ds.Columns()
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(ds.Format(), len(cols), "columns, the first", cols[0].Name, cols[0].Type+";", ds.RowCount(), "rows")
	// Output: trevni 11 columns, the first id int; 300 rows

}

// A glob (or a directory) is one data set of several parts, read one after
// the other.
func ExampleOpen_glob() {
	ds, err := trevni.Open(context.Background(), "testdata/interop/email/email.*.crc32.trv", nil)
	if err != nil {
		log.Fatal(err)
	}
	defer ds.Close()
	fmt.Println(len(ds.Parts()), "parts,", ds.RowCount(), "records")
	// Output: 4 parts, 1200 records
}

// Read records into Go structs, with a filter: only the struct's columns
// and the filter's are read.
func ExampleReadStructs() {
	type message struct {
		ID   int32    `avro:"id"`
		From string   `avro:"from"`
		To   []string `avro:"to"`
	}
	ctx := context.Background()
	ds, err := trevni.Open(ctx, "testdata/interop/email/email.snappy.crc32.trv", nil)
	if err != nil {
		log.Fatal(err)
	}
	defer ds.Close()
	for m, err := range trevni.ReadStructs[message](ctx, ds, &trevni.ReadOptions{Where: "id > 90", Limit: 3}) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(m.ID, m.From, len(m.To))
	}
	// Output:
	// 127858990 hello world 3
	// 1248533252 wwjptxrlwdbsfnmqq 1
	// 127 hello world 4
}

// Read some fields of some records as goavro native values.
func ExampleDataset_All() {
	ctx := context.Background()
	ds, err := trevni.Open(ctx, "testdata/interop/email/email.deflate.crc32.trv", nil)
	if err != nil {
		log.Fatal(err)
	}
	defer ds.Close()
	opts := &trevni.ReadOptions{Fields: []string{"id", "received.host"}, Offset: 1, Limit: 2}
	for rec, err := range ds.All(ctx, opts) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(rec)
	}
	// Output:
	// map[id:-32 received:[map[host:café]]]
	// map[id:63 received:[map[host:]]]
}

// Count the records that match a filter, reading only the filter's column.
func ExampleDataset_Count() {
	ctx := context.Background()
	ds, err := trevni.Open(ctx, "testdata/interop/email/email.null.none.trv", nil)
	if err != nil {
		log.Fatal(err)
	}
	defer ds.Close()
	n, err := ds.Count(ctx, &trevni.ReadOptions{Where: "id < 0"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(n)
	// Output: 154
}

// Write records as JSON lines (Avro's JSON encoding).
func ExampleDataset_WriteJSON() {
	ctx := context.Background()
	ds, err := trevni.Open(ctx, "testdata/interop/primitives/primitives.null.none.trv", nil)
	if err != nil {
		log.Fatal(err)
	}
	defer ds.Close()
	opts := &trevni.ReadOptions{Fields: []string{"i", "s"}, Where: "s = 'trevni'", Limit: 2}
	if _, err := ds.WriteJSON(ctx, os.Stdout, opts, nil); err != nil {
		log.Fatal(err)
	}
	// Output:
	// {"i":10,"s":"trevni"}
	// {"i":870826569,"s":"trevni"}
}

// Convert an Avro container file to Trevni, then back to Avro.
func ExampleConvertAvro() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	out := filepath.Join(dir, "email.trv")
	opts := &trevni.WriteOptions{Codec: trevni.Snappy}
	n, err := trevni.ConvertAvro(ctx, out, "testdata/interop/email/input.avro", opts)
	if err != nil {
		log.Fatal(err)
	}
	ds, err := trevni.Open(ctx, out, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer ds.Close()
	avro, err := os.Create(filepath.Join(dir, "email.avro"))
	if err != nil {
		log.Fatal(err)
	}
	defer avro.Close()
	m, err := ds.WriteAvro(ctx, avro, nil, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(n, "records in,", m, "records out")
	// Output: 300 records in, 300 records out
}

// Write Go structs to a new Trevni file, which appears only when complete.
func ExampleCreateStructs() {
	type point struct {
		X, Y float64
		Tag  string
	}
	const schemaText = `{"type":"record","name":"Point","fields":[
		{"name":"X","type":"double"},{"name":"Y","type":"double"},{"name":"Tag","type":"string"}]}`
	dir, err := os.MkdirTemp("", "example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	name := filepath.Join(dir, "points.trv")
	w, err := trevni.CreateStructs[point](context.Background(), name, schemaText, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer w.Abort() // does nothing after a successful Close
	if _, err := w.Write([]point{{1, 2, "a"}, {3, 4, "b"}, {5, 6, "a"}}); err != nil {
		log.Fatal(err)
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	ds, err := trevni.Open(ctx, name, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer ds.Close()
	for p, err := range trevni.ReadStructs[point](ctx, ds, &trevni.ReadOptions{Where: "Tag = 'a'"}) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(*p)
	}
	// Output:
	// {1 2 a}
	// {5 6 a}
}

// Read a file of another format of the family: here CLMN; Trevni 1 alike.
func ExampleOpen_clmn() {
	ctx := context.Background()
	ds, err := trevni.Open(ctx, "testdata/clmn/sample.clmn", nil)
	if err != nil {
		log.Fatal(err)
	}
	defer ds.Close()
	type person struct {
		Name string
		City string
	}
	for p, err := range trevni.ReadStructs[person](ctx, ds, &trevni.ReadOptions{Where: "age = 30", Limit: 2}) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(p.Name, "from", p.City)
	}
	// Output:
	// Philbert Garvin from Escazú
	// Gregorio Addison from Mohelno
}

// Read protobuf messages from a file written from protobuf, into dynamic
// messages built from the descriptors the file stores.
func ExampleDataset_Messages() {
	ctx := context.Background()
	ds, err := trevni.Open(ctx, "testdata/proto/legacy/trevni.test.ed.Item.trv", nil)
	if err != nil {
		log.Fatal(err)
	}
	defer ds.Close()
	n := 0
	for m, err := range ds.Messages(ctx, &trevni.ProtoOptions{ReadOptions: trevni.ReadOptions{Limit: 2}}) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(m.ProtoReflect().Descriptor().FullName())
		n++
	}
	fmt.Println(n, "messages")
	// Output:
	// trevni.test.ed.Item
	// trevni.test.ed.Item
	// 2 messages
}

// Tell what went wrong with errors.Is against the front door's sentinels,
// and find where with errors.As into a *FileError, with no import of the
// packages beneath: a block whose checksum fails (ErrChecksum, a kind of
// ErrCorrupt), a file cut short (ErrCorrupt), and a block past a limit a
// program set (ErrLimit, whose message names the option: here
// OpenOptions.MaxBlockSize).
func ExampleFileError() {
	ctx := context.Background()
	good, err := os.ReadFile("testdata/interop/email/email.null.crc32-correct.trv")
	if err != nil {
		log.Fatal(err)
	}
	flipped := bytes.Clone(good)
	flipped[bytes.LastIndex(flipped, []byte("hmfjbwgrxep"))] ^= 0x20 // h to H in a string's bytes
	// readAll opens data as a file called name and reads all its records,
	// returning the first error.
	readAll := func(name string, data []byte, opts *trevni.OpenOptions) error {
		ds, err := trevni.OpenReaderAt(ctx, bytes.NewReader(data), int64(len(data)), name, opts)
		if err != nil {
			return err
		}
		defer ds.Close()
		for _, err := range ds.All(ctx, nil) {
			if err != nil {
				return err
			}
		}
		return nil
	}
	for _, c := range []struct {
		name string
		data []byte
		opts *trevni.OpenOptions
	}{
		{"flipped.trv", flipped, nil},
		{"cut.trv", good[:len(good)/2], nil},
		{"limited.trv", good, &trevni.OpenOptions{MaxBlockSize: 100}},
	} {
		err := readAll(c.name, c.data, c.opts)
		var fe *trevni.FileError
		switch {
		case errors.Is(err, trevni.ErrChecksum) && errors.As(err, &fe):
			fmt.Printf("%s: a checksum fails: column %s, block %d\n", c.name, fe.Column, fe.Block)
		case errors.Is(err, trevni.ErrCorrupt):
			fmt.Printf("%s: damaged\n", c.name)
		case errors.Is(err, trevni.ErrLimit) && errors.As(err, &fe):
			fmt.Printf("%s: past a limit: column %s, block %d (the message names OpenOptions.MaxBlockSize: %t)\n",
				c.name, fe.Column, fe.Block, strings.Contains(err.Error(), "OpenOptions.MaxBlockSize"))
		default:
			fmt.Printf("%s: %v\n", c.name, err)
		}
	}
	// Output:
	// flipped.trv: a checksum fails: column received[]#sigs[]#value, block 0
	// cut.trv: damaged
	// limited.trv: past a limit: column id, block 0 (the message names OpenOptions.MaxBlockSize: true)
}
