package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protodelim"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/types/known/structpb"
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

// fromcsv and fromproto on three workers, in small blocks and a small
// memory budget so that ranges are many, write the records one worker
// writes (tojson equal), in other blocks; a bad record fails on three
// workers as on one, with the same message, leaving no output.
func TestWorkersFlagCSVProto(t *testing.T) {
	dir := t.TempDir()
	small := []string{"--quiet", "--codec", "snappy", "--block-size", "4096", "--memory", "1MiB"}
	var csv, stream bytes.Buffer
	csv.WriteString("name,n,when\r\n")
	for i := range 20000 {
		fmt.Fprintf(&csv, "\"line %d,\n\"\"quoted\"\"\",%d,2024-01-%02d\r\n", i, i*7, 1+i%28)
		if i%500 == 0 {
			m, err := structpb.NewStruct(map[string]any{"i": float64(i), "s": strings.Repeat("x", i%300), "l": []any{"a", true}})
			if err != nil {
				t.Fatal(err)
			}
			for range 20 {
				if _, err := protodelim.MarshalTo(&stream, m); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	badCSV := strings.Replace(csv.String(), ",70007,", ",70007,x,", 1) // a record of four cells
	good := stream.Bytes()
	// A message of 3 bytes that do not parse (field 1 of wire type 7)
	// after the first 400.
	at := 0
	for range 400 {
		n, k := protowire.ConsumeVarint(good[at:])
		at += k + int(n)
	}
	badStream := append(append(append([]byte(nil), good[:at]...), 3, 0x0f, 0, 0), good[at:]...)
	inputs := []struct {
		cmd  []string
		ext  string
		good []byte
		bad  []byte
		err  string // what the error says
	}{
		// Record 10001 starts on line 2 + 2 × 10001.
		{[]string{"fromcsv"}, ".csv", csv.Bytes(), []byte(badCSV), ": line 20004: ragged record"},
		{[]string{"fromproto", "--message", "google.protobuf.Struct"}, ".bin", good, badStream, ": message 400 (input byte "},
	}
	for _, in := range inputs {
		name := in.cmd[0]
		goodIn, badIn := filepath.Join(dir, name+in.ext), filepath.Join(dir, name+".bad"+in.ext)
		if err := os.WriteFile(goodIn, in.good, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(badIn, in.bad, 0o644); err != nil {
			t.Fatal(err)
		}
		var files [][]byte
		var want, stderr string
		for _, workers := range []string{"1", "3"} {
			out := filepath.Join(dir, name+workers+".trv")
			args := append(append(append(append([]string{}, in.cmd...), "--workers", workers), small...), goodIn, out)
			if r := runBin(t, nil, args...); r.code != 0 {
				t.Fatalf("%s --workers %s: %+v", name, workers, r)
			}
			r := runBin(t, nil, "tojson", out)
			if r.code != 0 {
				t.Fatal(r)
			}
			if workers == "1" {
				want = r.stdout
			} else if r.stdout != want {
				t.Fatalf("%s --workers 3: the records differ from one worker's", name)
			}
			files = append(files, readFile(t, out))
			badOut := filepath.Join(dir, name+workers+".bad.trv")
			args = append(append(append(append([]string{}, in.cmd...), "--workers", workers), small...), badIn, badOut)
			rb := runBin(t, nil, args...)
			if rb.code == 0 {
				t.Fatalf("%s --workers %s of a bad record: %+v", name, workers, rb)
			}
			if _, err := os.Stat(badOut); !os.IsNotExist(err) {
				t.Fatalf("%s --workers %s of a bad record left %s", name, workers, badOut)
			}
			if workers == "1" {
				stderr = rb.stderr
				if !strings.Contains(stderr, in.err) {
					t.Fatalf("%s of a bad record: %q does not say %q", name, stderr, in.err)
				}
			} else if rb.stderr != stderr {
				t.Fatalf("%s --workers 3 of a bad record: %q, one worker %q", name, rb.stderr, stderr)
			}
		}
		if bytes.Equal(files[0], files[1]) {
			t.Fatalf("%s --workers 3 wrote one worker's bytes: no ranges were joined", name)
		}
		t.Logf("%s: %d records; a bad record: %s", name, strings.Count(want, "\n"), strings.TrimSpace(stderr))
	}
}
