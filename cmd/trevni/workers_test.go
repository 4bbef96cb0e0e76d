package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// --workers: toavro, tojson, toproto and tocsv write on several goroutines
// byte for byte what they write on one (the Avro container with its random
// sync marker read back as JSON), with filters, offsets and limits, and
// with the least --output-memory; a negative count, and a memory that is
// not a positive size, are usage errors.
func TestWorkersFlagRead(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	trv := filepath.Join(dir, "m.trv")
	if r := runIn(t, nil, "fromavro", "--quiet", "--block-size", "2048", filepath.Join(interopDir, "medium", "input.avro"), trv); r.code != 0 {
		t.Fatalf("fromavro: %+v", r)
	}
	for _, args := range [][]string{
		{"tojson"},
		{"tojson", "--plain", "--offset", "4000", "--limit", "9000"},
		{"tojson", "--where", "small < -200 AND score > 0", "--limit", "1500"},
		{"tocsv", "--fields", "id,score,name"},
		{"tojson", "--output-memory", "1"},
		{"tojson", "--plain", "--output-memory", "64KiB"},
		{"tocsv", "--output-memory", "1", "--fields", "name,id,opt"},
	} {
		var outs []string
		for _, w := range []string{"1", "2", "3"} {
			a := append(append([]string{}, args...), "--quiet", "--workers", w, trv)
			r := runIn(t, nil, a...)
			if r.code != 0 || r.stdout == "" {
				t.Fatalf("%v: %+v", a, r.stderr)
			}
			outs = append(outs, r.stdout)
		}
		if outs[0] != outs[1] || outs[0] != outs[2] {
			t.Fatalf("%v: the outputs of 1, 2 and 3 workers differ (%d, %d, %d bytes)", args, len(outs[0]), len(outs[1]), len(outs[2]))
		}
	}
	var jsons []string
	for _, w := range []string{"1", "3"} {
		avro := filepath.Join(dir, "w"+w+".avro")
		if r := runIn(t, nil, "toavro", "--quiet", "--codec", "snappy", "--workers", w, "--where", "small < 0", trv, avro); r.code != 0 {
			t.Fatalf("toavro --workers %s: %+v", w, r)
		}
		back := filepath.Join(dir, "w"+w+".trv")
		if r := runIn(t, nil, "fromavro", "--quiet", avro, back); r.code != 0 {
			t.Fatalf("fromavro: %+v", r)
		}
		jsons = append(jsons, runIn(t, nil, "tojson", back).stdout)
	}
	if jsons[0] == "" || jsons[0] != jsons[1] {
		t.Fatalf("toavro on 1 and 3 workers: %d and %d bytes of records", len(jsons[0]), len(jsons[1]))
	}
	r := runIn(t, nil, "tojson", "--workers", "-1", trv)
	if r.code != exitUsage || !strings.Contains(r.stderr, "--workers") {
		t.Fatalf("--workers -1: %+v", r)
	}
	for _, bad := range []string{"0", "-1MiB", "lots"} {
		r := runIn(t, nil, "toavro", "--output-memory", bad, trv, filepath.Join(dir, "bad.avro"))
		if r.code != exitUsage || !strings.Contains(r.stderr, "--output-memory") {
			t.Fatalf("--output-memory %s: %+v", bad, r)
		}
		r = runIn(t, nil, "tocsv", "--output-memory", bad, "--fields", "id", trv)
		if r.code != exitUsage || !strings.Contains(r.stderr, "--output-memory") {
			t.Fatalf("tocsv --output-memory %s: %+v", bad, r)
		}
	}
}
