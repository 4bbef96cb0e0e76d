package typemap

import (
	"fmt"
	"strings"

	"github.com/trevni-go/trevni/schema"
)

// UnionKey returns the key goavro uses for a value of the union branch b:
// the name of b's type, as for Avro's JSON encoding, except that goavro
// names the logical types it converts after both the type and the logical
// type ("int.date", "long.timestamp-millis", "bytes.decimal"...). A fixed
// decimal keeps the fixed's name. A "name" attribute on a bytes decimal,
// which goavro would use, is not supported.
func UnionKey(b *schema.Schema) string {
	switch b.Kind {
	case schema.Int:
		switch b.Logical {
		case schema.LogicalDate, schema.LogicalTimeMillis:
			return "int." + string(b.Logical)
		}
	case schema.Long:
		switch b.Logical {
		case schema.LogicalTimeMicros, schema.LogicalTimestampMillis, schema.LogicalTimestampMicros:
			return "long." + string(b.Logical)
		}
	case schema.Bytes:
		if b.Logical == schema.LogicalDecimal {
			return "bytes.decimal"
		}
	}
	return b.FullName()
}

// ResolveUnion finds the branch of union u that holds the goavro value v:
// nil for the null branch, or a map with a single entry whose key names
// the branch (its UnionKey, or else its full name). It returns the
// branch's index and the value inside.
func ResolveUnion(u *schema.Schema, v any) (int, any, error) {
	if u.Kind != schema.Union {
		return -1, nil, fmt.Errorf("%w: %s is not a union", ErrValue, describe(u))
	}
	if v == nil {
		for i, b := range u.Branches {
			if b.Kind == schema.Null {
				return i, nil, nil
			}
		}
		return -1, nil, fmt.Errorf("%w: nil for union %s, which has no null branch", ErrValue, branchNames(u))
	}
	m, ok := v.(map[string]any)
	if !ok || len(m) != 1 {
		return -1, nil, fmt.Errorf("%w: union %s wants nil or a map[string]any with one entry, got %T",
			ErrValue, branchNames(u), v)
	}
	for k, inner := range m {
		for i, b := range u.Branches {
			if UnionKey(b) == k {
				return i, inner, nil
			}
		}
		for i, b := range u.Branches {
			if b.FullName() == k {
				return i, inner, nil
			}
		}
		return -1, nil, fmt.Errorf("%w: union %s has no branch %q", ErrValue, branchNames(u), k)
	}
	panic("unreachable")
}

// WrapUnion returns the goavro value for v taken as branch i of union u:
// nil for the null branch, otherwise map[string]any{UnionKey(branch): v}.
func WrapUnion(u *schema.Schema, i int, v any) any {
	b := u.Branches[i]
	if b.Kind == schema.Null {
		return nil
	}
	return map[string]any{UnionKey(b): v}
}

func branchNames(u *schema.Schema) string {
	names := make([]string, len(u.Branches))
	for i, b := range u.Branches {
		names[i] = UnionKey(b)
	}
	return "[" + strings.Join(names, ",") + "]"
}
