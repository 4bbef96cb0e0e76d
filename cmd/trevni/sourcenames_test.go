package main

import (
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/trevni-go/trevni/internal/testing/ducktest"
)

// TestJSONKeysNotAvroNames converts JSON lines whose keys are not Avro
// names (ECS's @timestamp and log.level, a nested user-agent, a key that
// is another's made name, one starting with a digit) with fromjson
// --infer, and checks that every output but Avro's JSON gives the keys
// back: head and tojson --plain print the lines as they were, tocsv's
// header and toparquet's columns are the names DuckDB's read_json_auto
// gives the same file, and Parquet holds DuckDB's values (@timestamp is
// a timestamp for both, compared in TestJSONTimesAsDuckDB; written here as
// head prints it back, with its milliseconds).
func TestJSONKeysNotAvroNames(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "log.jsonl")
	lines := []string{
		`{"@timestamp":"2024-03-10T07:00:00.000Z","log.level":"info","http":{"status":200,"user-agent":"curl/8"},"a_b":1,"a.b":2,"1st":true}`,
		`{"@timestamp":"2024-03-10T07:00:01.000Z","log.level":"warn","http":{"status":404,"user-agent":"Go"},"a_b":3,"a.b":4,"1st":false}`,
	}
	writeFileT(t, in, []byte(strings.Join(lines, "\n")+"\n"))
	trv := filepath.Join(dir, "log.trv")
	if r := runBin(t, nil, "fromjson", "--quiet", "--infer", in, trv); r.code != 0 {
		t.Fatal(r)
	}
	for _, args := range [][]string{{"head"}, {"tojson", "--plain"}} {
		r := runBin(t, nil, append(args, trv)...)
		if r.code != 0 {
			t.Fatal(r)
		}
		got := strings.Split(strings.TrimSpace(r.stdout), "\n")
		if len(got) != len(lines) {
			t.Fatalf("%v: %d lines, want %d", args, len(got), len(lines))
		}
		for i := range lines {
			if d := jsonDiff(decodeJSON(t, got[i]), decodeJSON(t, lines[i]), false, ""); d != "" {
				t.Errorf("%v line %d: %s", args, i+1, d)
			}
		}
	}
	// Avro's JSON encoding names the fields by their Avro names.
	if r := runBin(t, nil, "tojson", trv); !strings.Contains(r.stdout, `"_timestamp":`) || strings.Contains(r.stdout, "@timestamp") {
		t.Errorf("tojson (Avro's JSON) does not use the Avro names: %s", r.stdout)
	}
	flat := []string{"@timestamp", "log.level", "a_b", "a.b", "1st"}
	r := runBin(t, nil, "tocsv", "--fields", strings.Join(flat, ","), trv)
	if r.code != 0 {
		t.Fatal(r)
	}
	header := strings.SplitN(r.stdout, "\n", 2)[0]
	pq := filepath.Join(dir, "log.parquet")
	if r := runBin(t, nil, "toparquet", "--quiet", trv, pq); r.code != 0 {
		t.Fatal(r)
	}
	res := ducktest.Query(t,
		"select * from read_json_auto("+sqlString(in)+")",
		"select * from read_parquet("+sqlString(pq)+")",
		"select \"log.level\", http.\"user-agent\", \"a.b\", \"1st\" from read_json_auto("+sqlString(in)+")",
		"select \"log.level\", http.\"user-agent\", \"a.b\", \"1st\" from read_parquet("+sqlString(pq)+")")
	for _, q := range res {
		if q.Error != "" {
			t.Fatal(q.Error)
		}
	}
	if !reflect.DeepEqual(res[1].Names, res[0].Names) {
		t.Errorf("toparquet's columns %q, DuckDB's read_json_auto's %q", res[1].Names, res[0].Names)
	}
	var csvWant []string
	for _, n := range res[0].Names {
		for _, f := range flat {
			if n == f {
				csvWant = append(csvWant, n)
			}
		}
	}
	if header != strings.Join(csvWant, ",") {
		t.Errorf("tocsv's header %q, DuckDB's names %q", header, csvWant)
	}
	if fmt.Sprint(res[3].Rows) != fmt.Sprint(res[2].Rows) {
		t.Errorf("the Parquet's values %v, DuckDB's of the JSON %v", res[3].Rows, res[2].Rows)
	}
}
