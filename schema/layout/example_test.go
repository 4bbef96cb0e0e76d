package layout_test

import (
	"fmt"

	"github.com/trevni-go/trevni/schema"
	"github.com/trevni-go/trevni/schema/layout"
)

func ExampleNew() {
	s, err := schema.Parse(`{"type": "record", "name": "M", "fields": [
	  {"name": "id", "type": "int"},
	  {"name": "to", "type": {"type": "array", "items": "string"}},
	  {"name": "opt", "type": ["null", "long"]},
	  {"name": "kv", "type": {"type": "map", "values": "double"}}]}`)
	if err != nil {
		panic(err)
	}
	l, err := layout.New(s, nil)
	if err != nil {
		panic(err)
	}
	for _, c := range l.Columns {
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

func ExampleNew_recursive() {
	s, err := schema.Parse(`{"type": "record", "name": "Event", "namespace": "app",
	  "fields": [{"name": "next", "type": ["null", "Event"], "default": null}]}`)
	if err != nil {
		panic(err)
	}
	_, err = layout.New(s, nil)
	fmt.Println(err)
	// Output:
	// cannot shred recursive schema: app.Event -> app.Event (again at "next/app.Event")
}
