// Command structread reads two fields (id, name) of a vec.Large Trevni
// file into a two-field struct with assemble.StructReader (only those two
// columns are read) and prints the records, the sum of id and the total
// length of name, as ../shared/peerbench's pqproject-parquetgo does.
//
// Usage: structread IN.trv
package main

import (
	"fmt"
	"io"
	"os"

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
		fmt.Fprintln(os.Stderr, "usage: structread IN.trv")
		os.Exit(2)
	}
	if err := run(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
}

func run(path string) error {
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
