package layout

import (
	"testing"

	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/internal/testing/avrorand"
	"github.com/trevni-go/trevni/schema"
)

// TestRandomSchemas lays out random schemas and checks the tree
// against the column list: every column is claimed by exactly one position
// (simple array items and simple union branches share their container's),
// with the column's type, and subtrees cover contiguous column ranges.
func TestRandomSchemas(t *testing.T) {
	for seed := uint64(0); seed < 300; seed++ {
		s, err := schema.Parse(avrorand.New(seed, avrorand.Options{}).Schema())
		if err != nil {
			t.Fatal(err)
		}
		l, err := New(s, nil)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		root, cols := l.Root, l.Columns
		claimed := make([]int, len(cols))
		var walk func(n *Node, shared bool)
		walk = func(n *Node, shared bool) {
			if n.First > n.End || n.End > len(cols) {
				t.Fatalf("seed %d: %s covers columns %d to %d of %d", seed, n.Schema.FullName(), n.First, n.End, len(cols))
			}
			switch n.Kind {
			case schema.Record:
				for _, f := range n.Fields {
					walk(f, false)
				}
			case schema.Array:
				claimed[n.Col]++
				if !cols[n.Col].Array {
					t.Fatalf("seed %d: array column %q is not an array", seed, cols[n.Col].Name)
				}
				walk(n.Items, n.Items.Col == n.Col)
			case schema.Map:
				claimed[n.Col]++
				claimed[n.KeyCol]++
				if cols[n.KeyCol].Type != format.String || cols[n.KeyCol].Parent != n.Col {
					t.Fatalf("seed %d: bad key column %q", seed, cols[n.KeyCol].Name)
				}
				walk(n.Items, false)
			case schema.Union:
				for i, b := range n.Branches {
					if b == nil {
						continue
					}
					claimed[n.BranchCols[i]]++
					walk(b, b.Col == n.BranchCols[i])
				}
			default:
				if !shared {
					claimed[n.Col]++
				}
				if cols[n.Col].Type != n.Type {
					t.Fatalf("seed %d: column %q is %s, the node %s", seed, cols[n.Col].Name, cols[n.Col].Type, n.Type)
				}
			}
		}
		walk(root, false)
		for i, c := range claimed {
			if c != 1 {
				t.Fatalf("seed %d: column %q claimed %d times", seed, cols[i].Name, c)
			}
		}
	}
}
