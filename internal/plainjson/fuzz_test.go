package plainjson

import (
	"testing"

	"github.com/trevni-go/trevni/schema"
)

// FuzzDecodeAndInfer feeds arbitrary lines to Decode, with a schema of
// every logical type in unions, and to an Inferrer: neither may panic, and
// a schema inferred from lines that Add took must parse and decode them.
func FuzzDecodeAndInfer(f *testing.F) {
	s, err := schema.Parse(`{"type":"record","name":"r","fields":[
		{"name":"a","type":["null","float","double",{"type":"int","logicalType":"time-millis"},{"type":"long","logicalType":"timestamp-nanos"},"string"],"default":null},
		{"name":"b","type":["null",{"type":"bytes","logicalType":"decimal","precision":30,"scale":3},{"type":"fixed","name":"u","size":16,"logicalType":"uuid"}],"default":null},
		{"name":"c","type":["null",{"type":"record","name":"p","fields":[{"name":"x","type":"long","default":0}]},{"type":"map","values":{"type":"int","logicalType":"date"}},{"type":"array","items":"r"}],"default":null}]}`)
	if err != nil {
		f.Fatal(err)
	}
	for _, seed := range []string{
		`{"a":1.5,"b":1.001,"c":{"x":1}}`, `{"a":"12:00:00.000","b":"00112233-4455-6677-8899-aabbccddeeff","c":{"d":"2024-01-01"}}`,
		`{"a":"2262-04-11T23:47:16.854775807Z","b":"QUJD","c":[{"a":null}]}`, `{"b":1e99999}`, `{"a":"-999999999-01-01T00:00:00Z"}`,
		`{"a":[[[[]]]],"b":{"c":{"d":null}}}`, `{"x":1}`, `[`, `{"a":"\ud800"}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		Decode(s, line) //nolint:errcheck // only that it returns
		var in Inferrer
		if in.Add(line) != nil {
			return
		}
		text, err := in.Schema()
		if err != nil {
			t.Fatal(err)
		}
		inferred, err := schema.Parse(text)
		if err != nil {
			t.Fatalf("%v\n%s", err, text)
		}
		if _, err := Decode(inferred, line); err != nil {
			t.Fatalf("%v\n%s\nschema %s", err, line, text)
		}
	})
}
