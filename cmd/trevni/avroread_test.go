package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// The reading commands take Avro container files as data sets: for every
// interop vector, what they print of Java's input.avro (written by Avro
// 1.8.2) is what they print of the Trevni file Java wrote of the same
// records, whose reading other tests compare with Java's own; with
// --fields, --where, --limit and --offset, on one worker and on several.
func TestReadingCommandsTakeAvroFiles(t *testing.T) {
	vectors, err := filepath.Glob(filepath.Join(interopDir, "*", "input.avro"))
	if err != nil || len(vectors) < 8 {
		t.Fatalf("%d vectors: %v", len(vectors), err)
	}
	for _, avro := range vectors {
		dir := filepath.Dir(avro)
		name := filepath.Base(dir)
		trv := filepath.Join(dir, name+".null.none.trv")
		for _, args := range [][]string{
			{"tojson"},
			{"tojson", "--plain", "--workers", "3"},
			{"tojson", "--limit", "7", "--offset", "5"},
			{"head", "-n", "3"},
			{"count"},
			{"schema"},
			{"tocsv"},
			{"dump"},
			{"toavro", "-"},
		} {
			want := runIn(t, nil, append(args, trv)...)
			got := runIn(t, nil, append(args, avro)...)
			if args[0] == "toavro" {
				// Container files of random sync markers: their
				// records are compared through tojson below.
				if got.code != want.code {
					t.Errorf("%s %q: status %d, the Trevni file's %d: %s", name, args, got.code, want.code, got.stderr)
				}
				continue
			}
			if got.code != want.code || got.stdout != want.stdout {
				t.Errorf("%s %q: status %d (%d bytes), the Trevni file's %d (%d bytes): %s", name, args, got.code, len(got.stdout), want.code, len(want.stdout), got.stderr)
			}
		}
	}
	// Fields, filters and a data set of an Avro file and a Trevni file of
	// the same schema, in a directory.
	dir := t.TempDir()
	copyFile(t, filepath.Join(interopDir, "primitives", "input.avro"), dir, "a.avro")
	copyFile(t, filepath.Join(interopDir, "primitives", "primitives.deflate.crc32.trv"), dir, "b.trv")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"count", dir}, "1000\n"},
		{[]string{"count", "--where", "i > 10", filepath.Join(dir, "a.avro")}, "246\n"},
		{[]string{"count", "--where", "i > 10", dir}, "492\n"},
		{[]string{"tojson", "--fields", "s,i", "--limit", "2", "--offset", "3", filepath.Join(dir, "*.avro")}, "{\"i\":59,\"s\":\"bar\"}\n{\"i\":62,\"s\":\"baz\"}\n"},
		{[]string{"tocsv", "--fields", "i,s", filepath.Join(dir, "a.avro")}, "i,s\n58,oxsovwmamcezoa\n44,foo\n"},
		{[]string{"validate", filepath.Join(dir, "a.avro")}, filepath.Join(dir, "a.avro") + ": ok: 500 records checked (Avro)\n"},
	} {
		r := runIn(t, nil, c.args...)
		if r.code != 0 || !strings.HasPrefix(r.stdout, c.want) || c.args[0] != "tocsv" && r.stdout != c.want {
			t.Errorf("%q: status %d, %q, want %q; %s", c.args, r.code, r.stdout, c.want, r.stderr)
		}
	}
	// meta prints the container's header.
	r := runIn(t, nil, "meta", filepath.Join(dir, "a.avro"))
	if r.code != 0 || !strings.HasPrefix(r.stdout, `{"format":"avro","fileLength":17958,"rowCount":500,"metadata":{"avro.schema":"{\"type\":\"record\",\"name\":\"Primitives\"`) {
		t.Errorf("meta: %d %s %s", r.code, r.stdout, r.stderr)
	}
	// What an Avro file has not: block statistics.
	for _, args := range [][]string{{"columns"}, {"inspect"}} {
		r := runIn(t, nil, append(args, filepath.Join(dir, "a.avro"))...)
		if r.code != exitError || !strings.Contains(r.stderr, "a.avro: an Avro file: "+args[0]+" ") {
			t.Errorf("%q: %d %s", args, r.code, r.stderr)
		}
	}
}
