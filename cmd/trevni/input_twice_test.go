package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestInputGivenTwice checks that a converter given the same input twice
// converts its records twice, as it does two copies of the file: with
// the schema inferred (fromcsv, fromjson --infer), which reads each input
// once for the inference and again for the conversion, and with a schema.
func TestInputGivenTwice(t *testing.T) {
	dir := t.TempDir()
	csv := filepath.Join(dir, "a.csv")
	writeFileT(t, csv, []byte("a,b\n1,x\n2,y\n3,z\n"))
	js := filepath.Join(dir, "a.json")
	writeFileT(t, js, []byte("{\"a\":1,\"b\":\"x\"}\n{\"a\":2,\"b\":\"y\"}\n{\"a\":3,\"b\":\"z\"}\n"))
	schema := filepath.Join(dir, "a.avsc")
	writeFileT(t, schema, []byte(`{"type":"record","name":"R","fields":[{"name":"a","type":"long"},{"name":"b","type":"string"}]}`))
	for _, c := range []struct {
		name string
		args []string // the command and its flags, before the inputs
		in   string
	}{
		{"fromcsv", []string{"fromcsv"}, csv},
		{"fromjson --infer", []string{"fromjson", "--infer"}, js},
		{"fromjson --schema", []string{"fromjson", "--plain", "--schema", schema}, js},
	} {
		once := filepath.Join(dir, "once.trv")
		twice := filepath.Join(dir, "twice.trv")
		if r := runIn(t, nil, append(c.args, "--quiet", "--force", c.in, once)...); r.code != 0 {
			t.Fatalf("%s: %+v", c.name, r)
		}
		if r := runIn(t, nil, append(c.args, "--quiet", "--force", c.in, c.in, twice)...); r.code != 0 {
			t.Fatalf("%s of the input twice: %+v", c.name, r)
		}
		one := runIn(t, nil, "tojson", once)
		two := runIn(t, nil, "tojson", twice)
		if one.code != 0 || two.code != 0 || len(lines(one.stdout)) != 3 || two.stdout != strings.Repeat(one.stdout, 2) {
			t.Errorf("%s: the input once gives\n%s\nand twice\n%s", c.name, one.stdout, two.stdout)
		}
	}
}
