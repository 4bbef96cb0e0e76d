// Command readstructs reads two fields (id, name) of a vec.Large Trevni
// file into a two-field struct with trevni.ReadStructs (only those two
// columns are read, on WORKERS goroutines: GOMAXPROCS by default) and
// prints the records, the sum of id and the total length of name, as
// ../shared/peerbench's pqproject-parquetgo and structread do. With
// STRUCTREADER=1 it reads with one assemble.StructReader in batches, as
// structread does (but in a program that links the front door, and so
// maps more of itself: compare memory with structread, not with this).
//
// Usage: readstructs IN.trv
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/trevni-go/trevni"
	"github.com/trevni-go/trevni/assemble"
	"github.com/trevni-go/trevni/format"
)

// Two is the projection.
type Two struct {
	ID   int64  `avro:"id"`
	Name string `avro:"name"`
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: readstructs IN.trv")
		os.Exit(2)
	}
	if err := run(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
}

func run(path string) error {
	if os.Getenv("STRUCTREADER") == "1" {
		return runReader(path)
	}
	workers, _ := strconv.Atoi(os.Getenv("WORKERS"))
	ctx := context.Background()
	ds, err := trevni.Open(ctx, path, nil)
	if err != nil {
		return err
	}
	var n, sum, names int64
	for v, err := range trevni.ReadStructs[Two](ctx, ds, &trevni.ReadOptions{Workers: workers}) {
		if err != nil {
			return err
		}
		sum += v.ID
		names += int64(len(v.Name))
		n++
	}
	fmt.Println(n, sum, names)
	return nil
}

// runReader reads path with one assemble.StructReader.
func runReader(path string) error {
	rc, err := format.Open(path)
	if err != nil {
		return err
	}
	defer rc.Close()
	sr, err := assemble.NewStructReader[Two](rc.Reader, nil)
	if err != nil {
		return err
	}
	sr.AliasStrings(os.Getenv("ALIAS") == "1")
	batch := make([]Two, 4096)
	var n, sum, names int64
	for {
		k, err := sr.Read(batch)
		for i := range k {
			sum += batch[i].ID
			names += int64(len(batch[i].Name))
		}
		n += int64(k)
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
	}
	fmt.Println(n, sum, names)
	return nil
}
