// Package schema models Avro schemas and lays them out as Trevni columns.
//
// [Parse] reads a schema's JSON text into a tree of [Schema] nodes, with
// names resolved against namespaces, named types shared wherever they are
// referenced (so recursive schemas are representable), logical types
// recognised and all other attributes kept. [Schema.String] writes a node
// back as JSON and [Schema.Canonical] gives its Parsing Canonical Form.
//
// [Columns] computes the column layout of a schema exactly as Java's
// AvroColumnator does, which a file must follow for Java's trevni-avro to
// read it: same columns, same order, same names, types and parents.
//
// For example, the schema
//
//	{"type": "record", "name": "M", "fields": [
//	  {"name": "id", "type": "int"},
//	  {"name": "to", "type": {"type": "array", "items": "string"}},
//	  {"name": "opt", "type": ["null", "long"]},
//	  {"name": "kv", "type": {"type": "map", "values": "double"}}]}
//
// has the columns
//
//	0 id        int
//	1 to[]      string  array
//	2 opt/long  long    array
//	3 kv>       null    array
//	4 kv>key    string         parent kv>
//	5 kv>value  double         parent kv>
package schema
