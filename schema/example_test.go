package schema_test

import (
	"fmt"

	"github.com/trevni-go/trevni/schema"
)

func ExampleColumns() {
	s, err := schema.Parse(`{"type": "record", "name": "M", "fields": [
	  {"name": "id", "type": "int"},
	  {"name": "to", "type": {"type": "array", "items": "string"}},
	  {"name": "opt", "type": ["null", "long"]},
	  {"name": "kv", "type": {"type": "map", "values": "double"}}]}`)
	if err != nil {
		panic(err)
	}
	cols, err := schema.Columns(s)
	if err != nil {
		panic(err)
	}
	for _, c := range cols {
		fmt.Printf("%d %-9s %-6v array=%-5v parent=%q width=%d\n", c.Index, c.Name, c.Type, c.Array, c.ParentName, c.Width)
	}
	// Output:
	// 0 id        int    array=false parent="" width=1
	// 1 to[]      string array=true  parent="" width=1
	// 2 opt/long  long   array=true  parent="" width=1
	// 3 kv>       null   array=true  parent="" width=3
	// 4 kv>key    string array=false parent="kv>" width=1
	// 5 kv>value  double array=false parent="kv>" width=1
}

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
	_, err = schema.Columns(s)
	fmt.Println(err)
	// Output:
	// app.Event timestamp-micros true
	// {"type":"record","name":"Event","namespace":"app","fields":[{"name":"at","type":{"type":"long","logicalType":"timestamp-micros"}},{"name":"next","type":["null","Event"],"default":null}]}
	// {"name":"app.Event","type":"record","fields":[{"name":"at","type":"long"},{"name":"next","type":["null","app.Event"]}]}
	// cannot shred recursive schema: app.Event -> app.Event (again at "next/app.Event")
}
