package typemap_test

import (
	"fmt"
	"time"

	"github.com/trevni-go/trevni/schema"
	"github.com/trevni-go/trevni/schema/layout"
	"github.com/trevni-go/trevni/typemap"
)

func ExampleToStored() {
	s := schema.MustParse(`{"type": "long", "logicalType": "timestamp-millis"}`)
	stored, _ := typemap.ToStored(s, time.Date(2024, 1, 2, 3, 4, 5, 6e6, time.UTC))
	native, _ := typemap.FromStored(s, stored)
	vt, _ := layout.ColumnType(s)
	fmt.Printf("%v %T %v\n", vt, stored, stored)
	fmt.Println(native)

	u := schema.MustParse(`["null", {"type": "int", "logicalType": "date"}]`)
	fmt.Println(typemap.UnionKey(u.Branches[1]))
	// Output:
	// long int64 1704164645006
	// 2024-01-02 03:04:05.006 +0000 UTC
	// int.date
}
