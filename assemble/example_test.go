package assemble_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/trevni-go/trevni/assemble"
	"github.com/trevni-go/trevni/format"
)

// Read records one at a time with a reader schema that keeps two fields of
// the email example, reorders them and adds one with a default. Only the
// columns of the kept fields are read.
func ExampleAvroReader_projection() {
	rc, err := format.Open("../testdata/interop/email/email.deflate.crc32.trv")
	if err != nil {
		log.Fatal(err)
	}
	defer rc.Close()
	ar, err := assemble.NewAvroReader(rc.Reader, &assemble.Options{ReaderSchema: `{
		"type": "record", "name": "Message", "fields": [
			{"name": "from", "type": "string"},
			{"name": "id", "type": "long"},
			{"name": "folder", "type": "string", "default": "inbox"}]}`})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("columns read:", ar.ColumnsRead())
	ar.StopAt(3)
	for rec, err := range ar.All() {
		if err != nil {
			log.Fatal(err) // a *schema.Error: the record and the field
		}
		m := rec.(map[string]any)
		fmt.Println(m["id"], m["from"], m["folder"])
	}
	// Output:
	// columns read: [0 2]
	// 1 column inbox
	// -32 trevni inbox
	// 63 bar inbox
}

// Check every record of a file, then write its first two records as Avro
// JSON, one per line.
func ExampleToJSON() {
	rc, err := format.Open("../testdata/interop/email/email.deflate.crc32.trv")
	if err != nil {
		log.Fatal(err)
	}
	defer rc.Close()
	ar, err := assemble.NewAvroReader(rc.Reader, &assemble.Options{ReaderSchema: `{
		"type": "record", "name": "Message", "fields": [{"name": "id", "type": "long"}]}`})
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	if err := ar.Validate(ctx); err != nil {
		log.Fatal(err)
	}
	if err := ar.SeekRow(0); err != nil {
		log.Fatal(err)
	}
	ar.StopAt(2)
	n, err := assemble.ToJSON(ctx, os.Stdout, ar, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(n, "records")
	// Output:
	// {"id":1}
	// {"id":-32}
	// 2 records
}
