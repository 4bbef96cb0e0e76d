package main

import (
	"encoding/json"
	"fmt"
	"math/big"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trevni-go/trevni/internal/testing/ducktest"
)

// TestFromJSONKeepsDigits converts JSON lines with integers beyond 2^53
// (span ids, 64-bit counters) with fromjson --infer, alone in a field and
// beside numbers with a fraction: head prints every number with its exact
// value, and where DuckDB's read_json_auto keeps the integers exact (a
// field of integers only, up to 2^64-1, a HUGEINT) it reads the same
// values from our Parquet. (Beside fractions, or below -2^63, DuckDB makes
// a DOUBLE and rounds them; head checks those.)
func TestFromJSONKeepsDigits(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "ids.jsonl")
	lines := []string{
		`{"span":12345678901234567890,"n":9007199254740993,"mixed":12345678901234567891}`,
		`{"span":1,"n":-9007199254740993,"mixed":0.125}`,
		`{"span":18446744073709551615,"n":2,"mixed":-2.5e-3}`,
	}
	writeFileT(t, in, []byte(strings.Join(lines, "\n")+"\n"))
	trv, pq := filepath.Join(dir, "ids.trv"), filepath.Join(dir, "ids.parquet")
	if r := runBin(t, nil, "fromjson", "--quiet", "--infer", in, trv); r.code != 0 {
		t.Fatal(r)
	}
	r := runBin(t, nil, "head", trv)
	if r.code != 0 {
		t.Fatal(r)
	}
	got := strings.Split(strings.TrimSpace(r.stdout), "\n")
	for i, line := range lines {
		var want, have map[string]json.Number
		if err := json.Unmarshal([]byte(line), &want); err != nil {
			t.Fatal(err)
		}
		d := json.NewDecoder(strings.NewReader(got[i]))
		d.UseNumber()
		if err := d.Decode(&have); err != nil {
			t.Fatal(err)
		}
		for k, w := range want {
			a, _ := new(big.Rat).SetString(string(w))
			b, ok := new(big.Rat).SetString(string(have[k]))
			if !ok || a.Cmp(b) != 0 {
				t.Errorf("line %d %s: %s, want %s", i+1, k, have[k], w)
			}
		}
	}
	if r := runBin(t, nil, "toparquet", "--quiet", trv, pq); r.code != 0 {
		t.Fatal(r)
	}
	res := ducktest.Query(t, "select span::varchar, n::varchar from read_json_auto("+sqlString(in)+")",
		"select span::varchar, n::varchar from read_parquet("+sqlString(pq)+")")
	if res[0].Error != "" || res[1].Error != "" {
		t.Fatal(res)
	}
	if fmt.Sprint(res[1].Rows) != fmt.Sprint(res[0].Rows) {
		t.Errorf("DuckDB read our Parquet as %v, the JSON as %v", res[1].Rows, res[0].Rows)
	}
}
