package assemble_test

import (
	"fmt"
	"io"
	"log"

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
	for i := 0; i < 3; i++ {
		rec, err := ar.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			log.Fatal(err)
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
