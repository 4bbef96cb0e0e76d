// Command genlarge writes N random records of the vec.Large schema of
// ../shared/peerbench (strings of 0-12 lowercase letters, arrays of 0-5
// items) as an Avro container file with the snappy codec.
//
// Usage: genlarge N OUT.avro
package main

import (
	"bufio"
	"fmt"
	"os"
	"strconv"

	"github.com/trevni-go/trevni/internal/ocf"
	"github.com/trevni-go/trevni/internal/testing/veclarge"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: genlarge N OUT.avro")
		os.Exit(2)
	}
	n, err := strconv.Atoi(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(2)
	}
	if err := run(n, os.Args[2]); err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
}

func run(n int, path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	w, err := ocf.NewWriter(bw, veclarge.Schema, ocf.WriterOptions{Codec: "snappy", SyncMarker: [16]byte{7}})
	if err != nil {
		return err
	}
	g := veclarge.New()
	var rec []byte
	for i := range n {
		rec = g.Append(rec[:0], i)
		if err := w.Append(rec); err != nil {
			return err
		}
	}
	if err := w.Close(); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	return f.Close()
}
