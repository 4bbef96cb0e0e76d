package trevni

import (
	"fmt"

	"github.com/trevni-go/trevni/assemble"
	"github.com/trevni-go/trevni/schema"
)

// ProjectSchema returns the Avro schema (JSON text) of the records of
// schemaText holding only the fields that fields selects, as
// ReadOptions.Fields selects them: dotted paths passing through arrays,
// maps and unions, a path naming a record keeping all of it. It is the
// schema a Reader with those Fields returns records of, known without a
// file: for a pipeline that declares its records' schema in advance.
func ProjectSchema(schemaText string, fields []string) (string, error) {
	s, err := schema.Parse(schemaText)
	if err != nil {
		return "", fmt.Errorf("trevni: schema: %w", err)
	}
	p, err := assemble.ProjectSchema(s, fields)
	if err != nil {
		return "", err
	}
	return p.String(), nil
}
