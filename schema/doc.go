// Package schema models Avro schemas.
//
// [Parse] reads a schema's JSON text into a tree of [Schema] nodes, with
// names resolved against namespaces, named types shared wherever they are
// referenced (so recursive schemas are representable), logical types
// recognised and all other attributes kept. [Schema.String] writes a node
// back as JSON and [Schema.Canonical] gives its Parsing Canonical Form.
//
// The package knows nothing of Trevni: package [github.com/trevni-go/trevni/schema/layout]
// lays a schema out as Trevni columns.
package schema
