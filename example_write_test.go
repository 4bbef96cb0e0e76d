package trevni_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/trevni-go/trevni"
	_ "github.com/trevni-go/trevni/schema/protoload" // the protobuf writers and readers need it
)

// Filter a data set into a Trevni file of its own: the records read as
// goavro values are written as they come, compressed with zstd.
func ExampleCreate() {
	ctx := context.Background()
	ds, err := trevni.Open(ctx, "testdata/interop/medium/medium.deflate.crc32.trv", nil)
	if err != nil {
		log.Fatal(err)
	}
	defer ds.Close()
	dir, err := os.MkdirTemp("", "example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	name := filepath.Join(dir, "high.trv") // or s3://bucket/key, with the driver linked
	w, err := trevni.Create(ctx, name, ds.SchemaText(), &trevni.WriteOptions{Codec: trevni.Zstd})
	if err != nil {
		log.Fatal(err)
	}
	defer w.Abort() // does nothing after a successful Close
	for rec, err := range ds.All(ctx, &trevni.ReadOptions{Where: "score > 0.5"}) {
		if err != nil {
			log.Fatal(err)
		}
		if err := w.Write(rec); err != nil {
			log.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}
	fmt.Println(w.Records(), "of", ds.RowCount(), "records written")
	// Output: 14554 of 30000 records written
}

// Write protobuf messages as they come (a sink of spans, here timestamps),
// to files rotated every few messages, and join the files into one by
// copying their blocks.
func ExampleConcat() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	md := (&timestamppb.Timestamp{}).ProtoReflect().Descriptor()
	var parts []string
	for part := range 3 {
		name := filepath.Join(dir, fmt.Sprintf("part-%d.trv", part))
		w, err := trevni.CreateProto(ctx, name, md, nil)
		if err != nil {
			log.Fatal(err)
		}
		for i := range 100 {
			if err := w.Write(&timestamppb.Timestamp{Seconds: int64(part*100 + i)}); err != nil {
				log.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			log.Fatal(err)
		}
		parts = append(parts, name)
	}
	all := filepath.Join(dir, "all.trv")
	n, err := trevni.Concat(ctx, all, parts, nil)
	if err != nil {
		log.Fatal(err)
	}
	ds, err := trevni.Open(ctx, all, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer ds.Close()
	var last *timestamppb.Timestamp
	for m, err := range ds.Messages(ctx, &trevni.ProtoOptions{MessageType: (&timestamppb.Timestamp{}).ProtoReflect().Type()}) {
		if err != nil {
			log.Fatal(err)
		}
		last = m.(*timestamppb.Timestamp)
	}
	fmt.Println(n, "rows joined; the last:", last.Seconds)
	// Output: 300 rows joined; the last: 299
}

// Tell a damaged file from other errors with errors.Is, and find where the
// damage is with errors.As, with the front door's names alone.
func Example_errors() {
	ctx := context.Background()
	b, err := os.ReadFile("testdata/interop/email/email.null.crc32.trv")
	if err != nil {
		log.Fatal(err)
	}
	b[len(b)-100] ^= 0xff // a byte of a column's data, near the end of the file
	ds, err := trevni.OpenReaderAt(ctx, bytes.NewReader(b), int64(len(b)), "damaged.trv", nil)
	if err != nil {
		log.Fatal(err)
	}
	defer ds.Close()
	err = ds.Validate(ctx)
	var fe *trevni.FileError
	if errors.Is(err, trevni.ErrCorrupt) && errors.As(err, &fe) {
		fmt.Printf("damaged: column %s, block %d, from row %d\n", fe.Column, fe.Block, fe.Row)
	}
	// Output: damaged: column received[]#sigs[]#value, block 0, from row 0
}
