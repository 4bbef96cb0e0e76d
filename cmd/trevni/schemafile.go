package main

import (
	"fmt"
	"strings"

	"github.com/trevni-go/trevni/internal/limitfile"
	"github.com/trevni-go/trevni/schema"
)

// readSchemaFile reads and parses an Avro schema file, and returns its
// text (trimmed) and the schema.
func (e *env) readSchemaFile(path string) (string, *schema.Schema, error) {
	b, err := limitfile.ReadFile(path, limitfile.DefaultLimit)
	if err != nil {
		return "", nil, err
	}
	text := strings.TrimSpace(string(b))
	s, err := schema.ParseWith(text, &schema.ParseOptions{MaxDepth: e.limits.maxDepth})
	if err != nil {
		return "", nil, fmt.Errorf("%s: %w", path, err)
	}
	return text, s, nil
}
