// Command trevnicopy is an example Beam pipeline: it reads a data set of
// Trevni files, optionally keeping only some fields and the records that
// satisfy a filter, and writes it again as a number of shards.
//
//	go run ./examples/trevnicopy --input 'data/part-*.trv' --output out/part --shards 4
//	go run ./examples/trevnicopy --input https://host/a.trv --input https://host/b.trv --where "id > 100" --output out/part
//
// Once the pipeline has run, it prints the number of records and bytes
// the shards hold, read from their headers.
//
// It runs on Beam's local runner (prism) by default; --runner and the
// runner's own flags send it to Dataflow, Flink or Spark (see the
// repository's docs/beam.md). Input paths must be on a
// file system every worker sees, or http(s) URLs; output paths on such a
// file system.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/x/beamx"

	"github.com/trevni-go/trevni"
	"github.com/trevni-go/trevni/beam/trevniio"
)

// inputs is the repeatable --input flag.
type inputs []string

func (in *inputs) String() string     { return strings.Join(*in, " ") }
func (in *inputs) Set(v string) error { *in = append(*in, v); return nil }

var (
	input     inputs
	output    = flag.String("output", "", "prefix of the shards to write: PREFIX-00000-of-0000N.trv")
	shards    = flag.Int("shards", 4, "number of shards")
	fields    = flag.String("fields", "", "comma-separated dotted field paths to keep (all if empty)")
	where     = flag.String("where", "", "keep only the records satisfying this filter expression (the grammar of trevni --where)")
	splitRows = flag.Int64("split_rows", 0, "rows per initial restriction of a file (0: restrictions sized by bytes, trevniio.ReadOptions.SplitBytes)")
	codec     = flag.String("codec", "deflate", "codec of the shards")
)

func main() {
	flag.Var(&input, "input", "Trevni files to read: a glob (quoted), a directory or an http(s) URL; repeat for several")
	flag.Parse()
	beam.Init()
	if len(input) == 0 || *output == "" {
		log.Fatal("trevnicopy: --input and --output are required")
	}
	schemaText, err := firstSchema(input[0])
	if err != nil {
		log.Fatal(err)
	}
	opts := &trevniio.ReadOptions{SplitRows: *splitRows, Filter: *where}
	if *fields != "" {
		opts.Fields = strings.Split(*fields, ",")
		if schemaText, err = trevni.ProjectSchema(schemaText, opts.Fields); err != nil {
			log.Fatal(err)
		}
	}
	p, s := beam.NewPipelineWithRoot()
	records := trevniio.ReadAll(s, beam.CreateList(s, []string(input)), opts)
	trevniio.Write(s, *output, schemaText, records, &trevniio.WriteOptions{Shards: *shards, Codec: *codec})
	if err := beamx.Run(context.Background(), p); err != nil {
		log.Fatalf("trevnicopy: %v", err)
	}
	n, size, err := countWritten(*output, *shards)
	if err != nil {
		log.Fatalf("trevnicopy: the pipeline ran, but its output cannot be counted: %v", err)
	}
	fmt.Printf("trevnicopy: wrote %d records, %d bytes, in %d shards %s-NNNNN-of-%05d.trv\n", n, size, *shards, *output, *shards)
}

// countWritten returns the records and bytes of the shards Write made of
// prefix, read from their headers once the pipeline has finished: what
// was written, whatever the runner reports.
func countWritten(prefix string, shards int) (records, size int64, err error) {
	for i := range shards {
		name := trevniio.ShardName(prefix, i, shards)
		ds, err := trevni.Open(context.Background(), name, nil)
		if err != nil {
			return 0, 0, err
		}
		records += ds.RowCount()
		size += ds.Size()
		ds.Close()
	}
	return records, size, nil
}

// firstSchema returns the Avro schema of the first file of the input: the
// schema of the records the pipeline carries.
func firstSchema(glob string) (string, error) {
	names, err := trevniio.Expand(glob)
	if err != nil {
		return "", err
	}
	ds, err := trevni.Open(context.Background(), names[0], nil)
	if err != nil {
		return "", err
	}
	defer ds.Close()
	if ds.SchemaText() == "" {
		return "", fmt.Errorf("%s: no Avro schema: not a file written from Avro", names[0])
	}
	return ds.SchemaText(), nil
}
