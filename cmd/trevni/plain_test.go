package main

import (
	"bufio"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// tojson --plain prints bytes in base64 where Java's dump of the same file
// (testdata/interop/primitives/dump.jsonl, bytes in hex) has hex; every
// other field of the vector equals Java's Avro JSON (no unions, no
// logical types). head prints the same by default.
func TestPlainJSON(t *testing.T) {
	const dir = "../../testdata/interop/primitives/"
	r := runIn(t, nil, "tojson", "--plain", dir+"primitives.snappy.crc32.trv")
	if r.code != 0 {
		t.Fatalf("%+v", r)
	}
	f, err := os.Open(dir + "dump.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	got := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	k := 0
	for ; sc.Scan(); k++ {
		var java, plain map[string]any
		if err := json.Unmarshal(sc.Bytes(), &java); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(got[k]), &plain); err != nil {
			t.Fatalf("line %d: %v: %s", k, err, got[k])
		}
		raw, err := hex.DecodeString(java["by"].(string))
		if err != nil {
			t.Fatal(err)
		}
		if plain["by"] != base64.StdEncoding.EncodeToString(raw) {
			t.Fatalf("line %d: by %v, want base64 of %x", k, plain["by"], raw)
		}
		for _, f := range []string{"n", "b", "i", "l", "s"} {
			if jf, _ := json.Marshal(java[f]); string(jf) != mustJSON(plain[f]) {
				t.Fatalf("line %d: %s %v, Java %v", k, f, plain[f], java[f])
			}
		}
	}
	if k != len(got) || k == 0 {
		t.Fatalf("%d plain lines, Java dumped %d", len(got), k)
	}
	h := runIn(t, nil, "head", "-n", "5", dir+"primitives.snappy.crc32.trv")
	if h.code != 0 || h.stdout != strings.Join(got[:5], "\n")+"\n" {
		t.Fatalf("head differs from tojson --plain: %+v", h)
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
