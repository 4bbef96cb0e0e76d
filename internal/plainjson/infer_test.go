package plainjson

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/trevni-go/trevni/schema"
)

// TestInferText checks the schema inferred from lines written by hand.
func TestInferText(t *testing.T) {
	lines := []string{
		`{"id":1,"name":"a","tags":["x"],"loc":{"x":1,"y":2},"v":1}`,
		`{"id":2,"tags":[],"loc":{"x":1.5},"v":"s","n":null}`,
		`{"id":3,"name":"c","tags":[null,"z"],"loc":null,"v":true,"n":null,"id":4}`,
	}
	var in Inferrer
	for _, l := range lines {
		if err := in.Add([]byte(l)); err != nil {
			t.Fatal(err)
		}
	}
	got, err := in.Schema()
	if err != nil {
		t.Fatal(err)
	}
	want := `{"type":"record","name":"Row","fields":[` +
		`{"name":"id","type":"long"},` +
		`{"name":"name","type":["null","string"],"default":null},` +
		`{"name":"tags","type":{"type":"array","items":["null","string"]}},` +
		`{"name":"loc","type":["null",{"type":"record","name":"Row_loc","fields":[` +
		`{"name":"x","type":"double"},{"name":"y","type":["null","long"],"default":null}]}],"default":null},` +
		`{"name":"v","type":["boolean","long","string"]},` +
		`{"name":"n","type":"null","default":null}]}`
	if compact(t, got) != want {
		t.Errorf("schema\n%s\nwant\n%s", compact(t, got), want)
	}
	if _, err := schema.Parse(got); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{`[1]`, `{"a":1}{}`, `{"a":`, "{\"a\":\"\xff\"}"} {
		if err := new(Inferrer).Add([]byte(bad)); err == nil {
			t.Errorf("took %q", bad)
		}
	}
	if _, err := new(Inferrer).Schema(); err == nil {
		t.Error("a schema from no lines")
	}
}

func compact(t *testing.T, s string) string {
	var b strings.Builder
	d := json.NewDecoder(strings.NewReader(s))
	var v json.RawMessage
	if err := d.Decode(&v); err != nil {
		t.Fatal(err)
	}
	for _, c := range string(v) {
		if c != ' ' && c != '\n' {
			b.WriteRune(c)
		}
	}
	return b.String()
}

// randomJSON writes a random plain JSON value: objects from a small set of
// keys, each place leaning to one kind of value.
func randomJSON(r *rand.Rand, b *strings.Builder, path string, depth int) {
	// The kind depends mostly on the place, so that places have types.
	h := 0
	for _, c := range path {
		h = h*31 + int(c)
	}
	kind := (h & 0x7fffffff) % 6
	if r.IntN(6) == 0 {
		kind = r.IntN(6)
	}
	if depth > 3 && kind >= 4 {
		kind = 0
	}
	switch kind {
	case 0:
		if r.IntN(2) == 0 {
			b.WriteString("null")
		} else {
			b.WriteString(strconv.FormatBool(r.IntN(2) == 0))
		}
	case 1:
		b.WriteString(strconv.Itoa(r.IntN(2000) - 1000))
	case 2:
		b.WriteString(strconv.FormatFloat(r.NormFloat64()*100, 'f', -1, 64))
	case 3:
		s, _ := json.Marshal(fmt.Sprintf("s%d é\t\"", r.IntN(100)))
		b.Write(s)
	case 4:
		b.WriteByte('{')
		n := 0
		for i := range 5 {
			if r.IntN(3) == 0 {
				continue
			}
			if n > 0 {
				b.WriteByte(',')
			}
			n++
			key := "k" + strconv.Itoa(i)
			b.WriteString(`"` + key + `":`)
			randomJSON(r, b, path+"."+key, depth+1)
		}
		b.WriteByte('}')
	case 5:
		b.WriteByte('[')
		for i := range r.IntN(4) {
			if i > 0 {
				b.WriteByte(',')
			}
			randomJSON(r, b, path+"[]", depth+1)
		}
		b.WriteByte(']')
	}
}

// covers reports whether again, the plain JSON written from what orig
// decoded to, holds orig's values: numbers equal in value, and a key
// absent from one of orig's objects null in again's.
func covers(orig, again any) bool {
	switch o := orig.(type) {
	case map[string]any:
		a, ok := again.(map[string]any)
		if !ok {
			return false
		}
		for k, v := range a {
			if ov, present := o[k]; present && !covers(ov, v) || !present && v != nil {
				return false
			}
		}
		for k := range o {
			if _, ok := a[k]; !ok {
				return false
			}
		}
		return true
	case []any:
		a, ok := again.([]any)
		if !ok || len(a) != len(o) {
			return false
		}
		for i := range o {
			if !covers(o[i], a[i]) {
				return false
			}
		}
		return true
	}
	return sameValue(orig, again)
}

// TestInferRandom infers the schemas of random lines of JSON, converts
// the lines with them and checks that the plain JSON read back holds the
// same values.
func TestInferRandom(t *testing.T) {
	for seed := range uint64(40) {
		r := rand.New(rand.NewPCG(seed, 1))
		var lines []string
		var in Inferrer
		for range 30 {
			var b strings.Builder
			b.WriteByte('{')
			for i := range 6 {
				if i > 0 {
					b.WriteByte(',')
				}
				key := "f" + strconv.Itoa(i)
				b.WriteString(`"` + key + `":`)
				randomJSON(r, &b, key, 0)
			}
			b.WriteByte('}')
			lines = append(lines, b.String())
			if err := in.Add([]byte(b.String())); err != nil {
				t.Fatalf("seed %d: %v\n%s", seed, err, b.String())
			}
		}
		text, err := in.Schema()
		if err != nil {
			t.Fatal(err)
		}
		s, err := schema.Parse(text)
		if err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, text)
		}
		if seed == 0 {
			t.Log(text)
		}
		records := make([]any, len(lines))
		for i, l := range lines {
			if records[i], err = Decode(s, []byte(l)); err != nil {
				t.Fatalf("seed %d line %d: %v\n%s\nschema %s", seed, i, err, l, text)
			}
		}
		for i, again := range plainLines(t, text, records) {
			o, err := parse([]byte(lines[i]))
			if err != nil {
				t.Fatal(err)
			}
			a, err := parse(again)
			if err != nil {
				t.Fatal(err)
			}
			if !covers(o, a) {
				t.Fatalf("seed %d line %d:\n%s\nread back\n%s\nschema %s", seed, i, lines[i], again, text)
			}
		}
	}
}

// Integers never lose digits: beyond a long they make a decimal of scale
// 0 as wide as the longest, and integers of more than 53 bits beside
// numbers with a fraction (which would make a double) make a decimal
// holding them all.
func TestInferWideIntegers(t *testing.T) {
	var in Inferrer
	for _, line := range []string{`{"a":1,"b":9007199254740993}`, `{"a":-123456789012345678901234567890,"b":2}`} {
		if err := in.Add([]byte(line)); err != nil {
			t.Fatal(err)
		}
	}
	s, err := in.Schema()
	if err != nil {
		t.Fatal(err)
	}
	compact := strings.Join(strings.Fields(s), "")
	for _, want := range []string{`"name":"a","type":{"type":"bytes","logicalType":"decimal","precision":30,"scale":0}`, `"name":"b","type":"long"`} {
		if !strings.Contains(compact, want) {
			t.Errorf("schema %s lacks %s", compact, want)
		}
	}
	for _, tc := range []struct {
		lines []string
		want  string
	}{
		{[]string{`{"x":1.5}`, `{"x":9007199254740993}`}, `"precision":17,"scale":1`},
		{[]string{`{"x":-9007199254740993}`, `{"x":2e3}`}, `"precision":16,"scale":0`},
		{[]string{`{"x":[1.5, 123456789012345678901234567890]}`}, `"precision":31,"scale":1`},
	} {
		var in Inferrer
		for _, l := range tc.lines {
			if err := in.Add([]byte(l)); err != nil {
				t.Fatal(err)
			}
		}
		s, err := in.Schema()
		if err != nil {
			t.Fatal(err)
		}
		if compact := strings.Join(strings.Fields(s), ""); !strings.Contains(compact, `"logicalType":"decimal",`+tc.want) {
			t.Errorf("%v: %s, want a decimal with %s", tc.lines, compact, tc.want)
		}
	}
	// 2^53 itself is exact as a double.
	var ok Inferrer
	for _, l := range []string{`{"x":1.5}`, `{"x":9007199254740992}`} {
		if err := ok.Add([]byte(l)); err != nil {
			t.Fatalf("%s: %v", l, err)
		}
	}
}
