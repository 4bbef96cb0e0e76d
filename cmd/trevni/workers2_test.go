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
