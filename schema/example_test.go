package schema_test

import (
	"fmt"

	"github.com/trevni-go/trevni/schema"
)

func ExampleParse() {
	s, err := schema.Parse(`{"type": "record", "name": "Event", "namespace": "app",
	  "fields": [{"name": "at", "type": {"type": "long", "logicalType": "timestamp-micros"}},
	             {"name": "next", "type": ["null", "Event"], "default": null}]}`)
	if err != nil {
		panic(err)
	}
	fmt.Println(s.Name, s.Fields[0].Type.Logical, s.Fields[1].Type.Branches[1] == s)
	fmt.Println(s)
	fmt.Println(s.Canonical())
	// Output:
	// app.Event timestamp-micros true
	// {"type":"record","name":"Event","namespace":"app","fields":[{"name":"at","type":{"type":"long","logicalType":"timestamp-micros"}},{"name":"next","type":["null","Event"],"default":null}]}
	// {"name":"app.Event","type":"record","fields":[{"name":"at","type":"long"},{"name":"next","type":["null","app.Event"]}]}
}
