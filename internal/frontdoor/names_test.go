package frontdoor

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestExpandLocalPartsDirectory lays out a directory as Spark and Hive
// write one (parts, _SUCCESS, _metadata, .crc checksums, a hidden file, a
// subdirectory, a link, a name in capitals) and checks what a directory, a
// glob and a plain name give, for the converters' extensions and for the
// reading commands' (ExpandNames).
func TestExpandLocalPartsDirectory(t *testing.T) {
	d := t.TempDir()
	for _, n := range []string{"part-1.parquet", "part-0.parquet", "PART-2.PARQUET", "_SUCCESS", "_metadata.parquet",
		".part-0.parquet.crc", ".hidden.parquet", "notes.txt", "a.trv", "b.clmn", "_c.trv", ".d.trv"} {
		if err := os.WriteFile(filepath.Join(d, n), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(d, "sub.parquet"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(d, "part-0.parquet"), filepath.Join(d, "link.parquet")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(d, "gone"), filepath.Join(d, "dangling.parquet")); err != nil {
		t.Fatal(err)
	}
	j := func(ns ...string) []string {
		for i, n := range ns {
			ns[i] = filepath.Join(d, n)
		}
		return ns
	}
	for _, c := range []struct {
		name string
		exts []string
		want []string
	}{
		{d, []string{".parquet"}, j("PART-2.PARQUET", "link.parquet", "part-0.parquet", "part-1.parquet")},
		{d, []string{".txt", ".trv"}, j("a.trv", "notes.txt")},
		// A glob takes what it matches but directories and hidden names.
		{filepath.Join(d, "*.parquet"), nil, j("_metadata.parquet", "dangling.parquet", "link.parquet", "part-0.parquet", "part-1.parquet")},
		{filepath.Join(d, "*"), nil, j("PART-2.PARQUET", "_SUCCESS", "_c.trv", "_metadata.parquet", "a.trv", "b.clmn", "dangling.parquet", "link.parquet", "notes.txt", "part-0.parquet", "part-1.parquet")},
		{filepath.Join(d, ".*.crc"), nil, j(".part-0.parquet.crc")},
		{filepath.Join(d, "notes.txt"), []string{".parquet"}, j("notes.txt")},
		{filepath.Join(d, "absent.parquet"), []string{".parquet"}, j("absent.parquet")},
		{"-", nil, []string{"-"}},
	} {
		got, err := ExpandLocal(c.name, c.exts...)
		if err != nil {
			t.Errorf("%s %v: %v", c.name, c.exts, err)
			continue
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s %v:\n got %q\nwant %q", c.name, c.exts, got, c.want)
		}
	}
	// A data set's directory gives its Parquet (and Avro) parts too, in
	// any case of the extension, Spark's _SUCCESS and .crc files left out.
	got, err := ExpandNames(context.Background(), []string{d}, nil, nil)
	if want := j("PART-2.PARQUET", "a.trv", "b.clmn", "link.parquet", "part-0.parquet", "part-1.parquet"); err != nil || !slices.Equal(got, want) {
		t.Errorf("ExpandNames(%s) = %q, %v; want %q", d, got, err, want)
	}
	for _, c := range []struct {
		name string
		exts []string
		want string
	}{
		{d, []string{".avro"}, d + ": directory holds no *.avro file"},
		{d, []string{".jsonl", ".ndjson", ".json"}, d + ": directory holds no *.jsonl, *.ndjson or *.json file"},
		{filepath.Join(d, "x*"), nil, filepath.Join(d, "x*") + ": no file matches"},
		{filepath.Join(d, "sub*"), nil, filepath.Join(d, "sub*") + ": no file matches"},
	} {
		_, err := ExpandLocal(c.name, c.exts...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %v: error %v, want %q", c.name, c.exts, err, c.want)
		}
	}
}
