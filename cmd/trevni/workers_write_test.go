package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// fromavro and fromjson on three workers, in small blocks and a small
// memory budget so that ranges are many, write the records one worker
// writes (tojson equal), in other blocks; a bad line fails on three
// workers as on one, leaving no output.
func TestWorkersFlagWrite(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	src := filepath.Join(interopDir, "medium", "input.avro")
	avsc := filepath.Join(interopDir, "medium", "schema.avsc")
	small := []string{"--quiet", "--codec", "snappy", "--block-size", "4096", "--memory", "1MiB"}
	tojson := func(file string) string {
		r := runBin(t, nil, "tojson", file)
		if r.code != 0 {
			t.Fatal(r)
		}
		return r.stdout
	}
	convert := func(cmd, workers, out string, in ...string) string {
		args := append(append([]string{cmd, "--workers", workers}, small...), in...)
		if r := runBin(t, nil, append(args, out)...); r.code != 0 {
			t.Fatalf("%s --workers %s: %+v", cmd, workers, r)
		}
		return tojson(out)
	}
	one, three := filepath.Join(dir, "one.trv"), filepath.Join(dir, "three.trv")
	want := convert("fromavro", "1", one, src)
	if got := convert("fromavro", "3", three, src); got != want {
		t.Fatal("fromavro --workers 3: the records differ from one worker's")
	}
	if bytes.Equal(readFile(t, one), readFile(t, three)) {
		t.Fatal("fromavro --workers 3 wrote one worker's bytes: no ranges were joined")
	}
	jsonl := filepath.Join(dir, "in.jsonl")
	if err := os.WriteFile(jsonl, []byte(want), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := convert("fromjson", "3", filepath.Join(dir, "j3.trv"), "--schema", avsc, jsonl); got != want {
		t.Fatal("fromjson --workers 3: the records differ from the input's")
	}
	bad := filepath.Join(dir, "bad.jsonl")
	if err := os.WriteFile(bad, []byte(want+"{\"no\": 1}\n"+want), 0o644); err != nil {
		t.Fatal(err)
	}
	var stderr string
	for _, workers := range []string{"1", "3"} {
		out := filepath.Join(dir, "bad"+workers+".trv")
		r := runBin(t, nil, append(append([]string{"fromjson", "--workers", workers, "--schema", avsc}, small...), bad, out)...)
		if r.code == 0 {
			t.Fatalf("fromjson --workers %s of a bad line: %+v", workers, r)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Fatalf("fromjson --workers %s of a bad line left %s", workers, out)
		}
		if workers == "1" {
			stderr = r.stderr
		} else if r.stderr != stderr {
			t.Fatalf("fromjson --workers 3 of a bad line: %q, one worker %q", r.stderr, stderr)
		}
	}
	if r := runBin(t, nil, "fromavro", "--workers", "-1", src, filepath.Join(dir, "neg.trv")); r.code == 0 {
		t.Fatal("--workers -1 accepted")
	}
}
