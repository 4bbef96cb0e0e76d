package trevni1

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/trevni1 from the hand-built vectors")

// The hand-built vectors are also kept as files, with their annotated
// dumps, for the command-line tests and for reading: testdata/trevni1.
func TestVectorFiles(t *testing.T) {
	files := map[string]*vec{
		"impala_all_types":        allTypesVec(t, ""),
		"impala_boolean_quirk":    build(3, "", []string{"boolean"}, [][]vecBlock{{{rows: 3, body: []byte{0x06}}}}),
		"impala_several_blocks":   severalBlocksVec(),
		"impala_all_types_snappy": allTypesVec(t, "snappy"),
	}
	dir := filepath.Join("..", "testdata", "trevni1")
	for name, v := range files {
		path := filepath.Join(dir, name+".trv")
		if *update {
			os.MkdirAll(dir, 0o755)
			os.WriteFile(path, v.b, 0o644)
			os.WriteFile(filepath.Join(dir, name+".hex.txt"), []byte(v.dump()+"\n"), 0o644)
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, v.b) {
			t.Errorf("%s differs from the vector built here (run go test -run TestVectorFiles -update)", path)
		}
	}
}
