// Command trevnicopy is an example Beam pipeline: it reads a data set of
// Trevni files, optionally keeping only some fields, and writes it again as
// a number of shards.
//
//	go run ./examples/trevnicopy --input 'data/part-*.trv' --output out/part --shards 4
//
// It runs on Beam's local runner (prism) by default; --runner and the
// runner's own flags send it to Dataflow, Flink or Spark (see the
// repository README, section "Apache Beam"). Input and output paths must
// be on a file system every worker sees.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/x/beamx"

	"github.com/trevni-go/trevni/beam/trevniio"
	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/schema/layout"
)

var (
	input     = flag.String("input", "", "Trevni files to read: a glob (quoted) or a directory")
	output    = flag.String("output", "", "prefix of the shards to write: PREFIX-00000-of-0000N.trv")
	shards    = flag.Int("shards", 4, "number of shards")
	fields    = flag.String("fields", "", "comma-separated dotted field paths to keep (all if empty)")
	splitRows = flag.Int64("split_rows", trevniio.DefaultSplitRows, "rows per initial restriction of a file")
	codec     = flag.String("codec", "deflate", "codec of the shards")
)

func main() {
	flag.Parse()
	beam.Init()
	if *input == "" || *output == "" {
		log.Fatal("trevnicopy: --input and --output are required")
	}
	schemaText, err := firstSchema(*input)
	if err != nil {
		log.Fatal(err)
	}
	opts := []trevniio.ReadOption{trevniio.SplitRows(*splitRows)}
	if *fields != "" {
		sel := strings.Split(*fields, ",")
		if schemaText, err = trevniio.ProjectSchema(schemaText, sel); err != nil {
			log.Fatal(err)
		}
		opts = append(opts, trevniio.Fields(sel...))
	}
	p, s := beam.NewPipelineWithRoot()
	records := trevniio.Read(s, *input, opts...)
	trevniio.Write(s, *output, schemaText, records, trevniio.Shards(*shards), trevniio.Codec(*codec))
	if err := beamx.Run(context.Background(), p); err != nil {
		log.Fatalf("trevnicopy: %v", err)
	}
}

// firstSchema returns the Avro schema of the first file of the input: the
// schema of the records the pipeline carries.
func firstSchema(glob string) (string, error) {
	names, err := trevniio.Expand(glob)
	if err != nil {
		return "", err
	}
	f, err := os.Open(names[0])
	if err != nil {
		return "", err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return "", err
	}
	rd, err := format.NewReader(f, st.Size(), nil)
	if err != nil {
		return "", fmt.Errorf("%s: %w", names[0], err)
	}
	text := rd.Meta().GetString(layout.MetaAvroSchema)
	if text == "" {
		return "", fmt.Errorf("%s: no %s metadata: not a file written from Avro", names[0], layout.MetaAvroSchema)
	}
	return text, nil
}
