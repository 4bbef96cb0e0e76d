package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestConvertersTakeDirectoriesAndGlobs converts directories of part
// files as Spark and Hive write them (with _SUCCESS and .crc files beside)
// and quoted globs with fromavro, fromparquet and fromjson, and checks
// that each gives the records of the parts named one by one, in name
// order; an empty directory or a glob that matches nothing is an error
// naming it.
func TestConvertersTakeDirectoriesAndGlobs(t *testing.T) {
	dir := t.TempDir()
	avro := filepath.Join(interopDir, "email", "input.avro")
	data := readFile(t, avro)
	trv := filepath.Join(dir, "email.trv")
	if r := runBin(t, nil, "fromavro", "--quiet", avro, trv); r.code != 0 {
		t.Fatal(r)
	}
	jsonl := runBin(t, nil, "tojson", "--plain", trv).stdout
	lines := strings.SplitAfter(strings.TrimSpace(jsonl), "\n")
	parts := map[string]func(dst string, i int){
		".avro": func(dst string, i int) { writeFileT(t, dst, data) },
		".parquet": func(dst string, i int) {
			if r := runBin(t, nil, "toparquet", "--quiet", "--offset", []string{"0", "3"}[i], trv, dst); r.code != 0 {
				t.Fatal(r)
			}
		},
		".jsonl": func(dst string, i int) {
			writeFileT(t, dst, []byte(strings.Join(lines[i*len(lines)/2:(i+1)*len(lines)/2], "")+"\n"))
		},
	}
	commands := map[string][]string{".avro": {"fromavro"}, ".parquet": {"fromparquet"}, ".jsonl": {"fromjson", "--infer"}}
	for ext, write := range parts {
		t.Run(ext, func(t *testing.T) {
			d := filepath.Join(dir, "set"+ext)
			if err := os.Mkdir(d, 0o755); err != nil {
				t.Fatal(err)
			}
			names := []string{filepath.Join(d, "part-00000"+ext), filepath.Join(d, "part-00001"+ext)}
			write(names[0], 0)
			write(names[1], 1)
			writeFileT(t, filepath.Join(d, "_SUCCESS"), nil)
			writeFileT(t, filepath.Join(d, ".part-00000"+ext+".crc"), []byte("crc"))
			want := filepath.Join(dir, "want"+ext+".trv")
			if r := runBin(t, nil, append(append(commands[ext], "--quiet"), names[0], names[1], want)...); r.code != 0 {
				t.Fatal(r)
			}
			wantJSON := runBin(t, nil, "tojson", want).stdout
			for i, in := range []string{d, d + "/", filepath.Join(d, "part-*"+ext)} {
				got := filepath.Join(dir, "got"+ext+string(rune('0'+i))+".trv")
				r := runBin(t, nil, append(append(commands[ext], "--quiet"), in, got)...)
				if r.code != 0 {
					t.Fatalf("%s: %+v", in, r)
				}
				if runBin(t, nil, "tojson", got).stdout != wantJSON {
					t.Errorf("%s: records differ from the parts named one by one", in)
				}
			}
			empty := filepath.Join(dir, "empty"+ext)
			if err := os.Mkdir(empty, 0o755); err != nil {
				t.Fatal(err)
			}
			for _, in := range []string{empty, filepath.Join(d, "nothing-*"+ext)} {
				r := runBin(t, nil, append(commands[ext], in, filepath.Join(dir, "x.trv"))...)
				checkOneLineError(t, r, commands[ext][0])
				if !strings.Contains(r.stderr, in) {
					t.Errorf("the error does not name %s: %s", in, r.stderr)
				}
			}
		})
	}
}
