package assemble_test

import (
	"bytes"
	"fmt"
	"io"
	"log"
	"time"

	"github.com/trevni-go/trevni/assemble"
	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/shred"
)

// Event is written with a schema derived from it; Summary reads two of its
// fields back (only their columns are read).
type Event struct {
	ID    int64     `avro:"id"`
	Name  string    `avro:"name"`
	At    time.Time `avro:"at"` // long, timestamp-micros
	Score *float64  `avro:"score"`
	Tags  []string  `avro:"tags"`
}

type Summary struct {
	Name string `avro:"name"`
	ID   int64  `avro:"id"`
}

// Write Go structs to a Trevni file and read some of their fields back.
func ExampleStructReader() {
	var file bytes.Buffer
	sw, err := shred.NewStructWriter[Event](&file, "", nil) // "": derive the schema from Event
	if err != nil {
		log.Fatal(err)
	}
	half := 0.5
	events := []Event{
		{ID: 1, Name: "start", At: time.Date(2026, 11, 23, 8, 0, 0, 0, time.UTC), Tags: []string{"a"}},
		{ID: 2, Name: "ping", Score: &half},
		{ID: 3, Name: "stop"},
	}
	if _, err := sw.Write(events); err != nil {
		log.Fatal(err)
	}
	if err := sw.Close(); err != nil {
		log.Fatal(err)
	}
	fmt.Println(sw.Writer().Schema())

	rd, err := format.NewReader(bytes.NewReader(file.Bytes()), int64(file.Len()), nil)
	if err != nil {
		log.Fatal(err)
	}
	sr, err := assemble.NewStructReader[Summary](rd, nil)
	if err != nil {
		log.Fatal(err) // a *schema.Error naming the Go field that does not fit
	}
	fmt.Println("columns read:", sr.Reader().ColumnsRead())
	batch := make([]Summary, 2) // reused from batch to batch
	for {
		n, err := sr.Read(batch)
		if err == io.EOF {
			break
		}
		if err != nil {
			log.Fatal(err)
		}
		for _, s := range batch[:n] {
			fmt.Println(s.ID, s.Name)
		}
	}
	// Output:
	// {"type":"record","name":"Event","fields":[{"name":"id","type":"long"},{"name":"name","type":"string"},{"name":"at","type":{"type":"long","logicalType":"timestamp-micros"}},{"name":"score","type":["null","double"]},{"name":"tags","type":{"type":"array","items":"string"}}]}
	// columns read: [0 1]
	// 1 start
	// 2 ping
	// 3 stop
}
