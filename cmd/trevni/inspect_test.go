package main

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/format/stats"
)

// Hostile names and values for the pages: markup, quotes, and bytes that
// are not UTF-8.
const (
	hostileName  = `<script>alert("x")</script>'&amp;`
	hostileValue = "</pre><script>alert(1)</script>\"' onmouseover=alert(2) \xff\xfe"
)

// statsRow is the value of every column of row i of the statistics file.
func statsRow(i int) []any {
	s := fmt.Sprintf("name-%04d", i)
	if i%7 == 0 {
		s = hostileName
	}
	if i%11 == 0 {
		s = strings.Repeat("z", 100) + strconv.Itoa(i) // longer than a bound keeps: inexact
	}
	score := float64(i) / 4
	if i%13 == 0 {
		score = math.NaN()
	}
	return []any{int64(1000 + i), s, score}
}

// writeStatsFile writes a file of three columns, one of them with a
// hostile name, in blocks of about 512 bytes, with block statistics under
// stats.MetaKey as a writer computes them, and hostile file metadata. It
// writes the file once to learn where the blocks are cut, then again with
// the statistics of those blocks: the cuts do not depend on the metadata.
func writeStatsFile(t *testing.T, path string, rows int) {
	t.Helper()
	cols := []format.ColumnMeta{
		{Name: "id", Type: format.Long, Values: true},
		{Name: hostileName, Type: format.String},
		{Name: "score", Type: format.Double},
	}
	write := func(cols []format.ColumnMeta) *format.Reader {
		opts := &format.WriterOptions{Codec: "deflate", Checksum: "crc32", BlockSize: 512, Concurrency: 1}
		opts.Meta.Set(hostileValue, []byte(hostileValue))
		var buf bytes.Buffer
		w, err := format.NewWriter(&buf, cols, opts)
		if err != nil {
			t.Fatal(err)
		}
		for i := range rows {
			if err := w.WriteRow(statsRow(i)...); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		rd, err := format.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()), nil)
		if err != nil {
			t.Fatal(err)
		}
		return rd
	}
	rd := write(cols)
	for c := range cols {
		bl, err := rd.Blocks(c)
		if err != nil || len(bl) < 3 {
			t.Fatalf("column %d: %d blocks, %v", c, len(bl), err)
		}
		acc, err := stats.NewAccumulator(stats.Type(cols[c].Type), false, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range bl {
			for r := b.FirstRow; r < b.FirstRow+b.Rows; r++ {
				acc.AddValue(statsRow(int(r))[c])
			}
			acc.EndBlock(b.Rows)
		}
		cols[c].Meta.Set(stats.MetaKey, acc.Encode())
	}
	rd = write(cols)
	for c := range cols {
		raw, _ := rd.RawColumnMeta(c).Get(stats.MetaKey)
		if _, err := stats.Decode(raw); err != nil {
			t.Fatalf("column %d: %v", c, err)
		}
	}
}

// inspect runs "trevni inspect" on in and returns the page.
func inspect(t *testing.T, in string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "page.html")
	r := runIn(t, nil, "inspect", in, out)
	if r.code != 0 || r.stderr != "" || r.stdout != "" {
		t.Fatalf("inspect %s: %+v", in, r)
	}
	return string(readFile(t, out))
}

// titles returns the title attributes of the page's elements of class
// seg (the block segments), unescaped.
func segmentTitles(page string) []string {
	var titles []string
	for _, m := range regexp.MustCompile(`class="seg" style="[^"]*" title="([^"]*)"`).FindAllStringSubmatch(page, -1) {
		titles = append(titles, unescapeHTML(m[1]))
	}
	return titles
}

// unescapeHTML undoes the escapes html/template writes.
func unescapeHTML(s string) string {
	return strings.NewReplacer("&lt;", "<", "&gt;", ">", "&#34;", `"`, "&#39;", "'", "&quot;", `"`, "&#43;", "+", "&#xA;", "\n", "&#10;", "\n", "&amp;", "&").Replace(s)
}

// TestInspectInterop checks the page of a Java-written file against what
// meta says of it: every column, its codec, and one segment per block
// whose tooltip gives the block's rows and sizes.
func TestInspectInterop(t *testing.T) {
	in := filepath.Join(interopDir, "email", "email.deflate.crc32.trv")
	page := inspect(t, in)
	rd := openFormat(t, in)
	var want []string
	for i := range rd.NumColumns() {
		c, err := rd.Column(i)
		if err != nil {
			t.Fatal(err)
		}
		bl, err := rd.Blocks(i)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(page, `title="`+c.Name+`">`+c.Name+"</code>") {
			t.Errorf("column %q not on the page", c.Name)
		}
		for j, b := range bl {
			want = append(want, fmt.Sprintf("block %d\nrows: %d (first row %d)\nstored: %s (%d bytes) at offset %d\nuncompressed: %s (%d bytes)",
				j, b.Rows, b.FirstRow, humanSize(int64(b.CompressedSize)), b.CompressedSize, b.Offset, humanSize(int64(b.UncompressedSize)), b.UncompressedSize))
		}
	}
	got := segmentTitles(page)
	if len(got) != len(want) {
		t.Fatalf("%d segments, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("segment %d: %q, want %q", i, got[i], want[i])
		}
	}
	for _, s := range []string{`&#34;namespace&#34;: &#34;vec.mail&#34;`, "<code>deflate</code>", "<code>crc32</code>", "received[]#sigs[]#algo"} {
		if !strings.Contains(page, s) {
			t.Errorf("page lacks %q", s)
		}
	}
	if strings.Contains(page, "http://") || strings.Contains(page, "https://") || strings.Contains(page, "<script") {
		t.Errorf("page refers to the network or runs a script")
	}
}

// openFormat opens a Trevni file with package format.
func openFormat(t *testing.T, path string) *format.Reader {
	t.Helper()
	b := readFile(t, path)
	rd, err := format.NewReader(bytes.NewReader(b), int64(len(b)), nil)
	if err != nil {
		t.Fatal(err)
	}
	return rd
}

// TestInspectStats checks the statistics in the tooltips against the
// values written, recomputed here block by block, and that the hostile
// names and values come out escaped and as valid UTF-8.
func TestInspectStats(t *testing.T) {
	in := filepath.Join(t.TempDir(), "stats.trv")
	const rows = 600
	writeStatsFile(t, in, rows)
	page := inspect(t, in)
	if !utf8.ValidString(page) {
		t.Error("page is not valid UTF-8")
	}
	if strings.Contains(page, "<script") || strings.Contains(page, `"' onmouseover`) {
		t.Errorf("hostile text not escaped")
	}
	if !strings.Contains(page, ">&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;&#39;&amp;amp;</code>") {
		t.Error("hostile column name not shown escaped")
	}
	// The metadata value is not UTF-8: shown in hex; its key is shown
	// with U+FFFD in place of the bad bytes.
	if !strings.Contains(page, fmt.Sprintf("%x", hostileValue)) || !strings.Contains(page, "\uFFFD") {
		t.Error("hostile metadata not shown in hex")
	}
	rd := openFormat(t, in)
	titles := segmentTitles(page)
	k := 0
	for c := range rd.NumColumns() {
		bl, _ := rd.Blocks(c)
		for j, b := range bl {
			if k >= len(titles) {
				t.Fatalf("only %d segments", len(titles))
			}
			title := titles[k]
			k++
			var (
				n        = 0
				nan      bool
				lo, hi   string
				loI, hiI int64 = math.MaxInt64, math.MinInt64
				loF, hiF       = math.Inf(1), math.Inf(-1)
			)
			for r := b.FirstRow; r < b.FirstRow+b.Rows; r++ {
				n++
				switch v := statsRow(int(r))[c].(type) {
				case int64:
					loI, hiI = min(loI, v), max(hiI, v)
				case float64:
					if math.IsNaN(v) {
						nan = true
					} else {
						loF, hiF = min(loF, v), max(hiF, v)
					}
				case string:
					if lo == "" || v < lo {
						lo = v
					}
					hi = max(hi, v)
				}
			}
			want := []string{fmt.Sprintf("block %d\n", j), fmt.Sprintf("values: %d\n", n)}
			switch c {
			case 0:
				want = append(want, fmt.Sprintf("min: %d\nmax: %d", loI, hiI), fmt.Sprintf("first value: %d", b.FirstValue))
			case 1:
				loW, hiW := strconv.Quote(lo), strconv.Quote(hi)
				if len(lo) > stats.DefaultMaxLen {
					loW = strconv.Quote(lo[:stats.DefaultMaxLen]) + " (inexact: a prefix)"
				}
				if len(hi) > stats.DefaultMaxLen {
					hiW = strconv.Quote(strings.Repeat("z", stats.DefaultMaxLen-1)+"{") + " (inexact: rounded up)"
				}
				want = append(want, "min: "+loW+"\n", "max: "+hiW)
			case 2:
				want = append(want, fmt.Sprintf("min: %s\nmax: %s", strconv.FormatFloat(loF, 'g', -1, 64), strconv.FormatFloat(hiF, 'g', -1, 64)))
				if nan {
					want = append(want, "holds NaN")
				}
			}
			for _, w := range want {
				if !strings.Contains(title, w) {
					t.Errorf("column %d block %d: tooltip lacks %q:\n%s", c, j, w, title)
				}
			}
		}
	}
	if k != len(titles) {
		t.Errorf("%d segments, %d blocks", len(titles), k)
	}
}

// TestInspectHostileHeader checks a hand-made file whose names, parent,
// metadata and schema hold markup and bytes that are not UTF-8, and whose
// statistics are garbage: the page escapes everything, is valid UTF-8,
// and says the statistics are unreadable.
func TestInspectHostileHeader(t *testing.T) {
	name := "a\xff\xfe<img src=x onerror=alert(1)>\""
	cols := []rawColumn{
		{meta: [][2]string{{"trevni.name", name}, {"trevni.type", "int"}, {"trevni.array", "true"}, {"x<b>", hostileValue}},
			blocks: []rawBlock{{rows: 1, uncompressed: 1, data: []byte{0}}}},
		{meta: [][2]string{{"trevni.name", "child"}, {"trevni.type", "string"}, {"trevni.parent", name}, {stats.MetaKey, "\x01garbage"}},
			blocks: []rawBlock{{rows: 1, uncompressed: 0, data: nil}}},
	}
	in := filepath.Join(t.TempDir(), "hostile.trv")
	fileMeta := [][2]string{{"avro.schema", "</pre><script>alert(1)</script>\xff"}, {hostileValue, "v"}}
	if err := os.WriteFile(in, buildTrevni(1, fileMeta, cols), 0o644); err != nil {
		t.Fatal(err)
	}
	page := inspect(t, in)
	if !utf8.ValidString(page) {
		t.Error("page is not valid UTF-8")
	}
	for _, bad := range []string{"<script", "<img", "x<b>", "</pre><"} {
		if strings.Contains(page, bad) {
			t.Errorf("page holds %q", bad)
		}
	}
	for _, want := range []string{
		">a\uFFFD&lt;img src=x onerror=alert(1)&gt;&#34;</code>", // the name, and the parent of child
		"<pre>&lt;/pre&gt;&lt;script&gt;alert(1)&lt;/script&gt;\uFFFD</pre>",
		"<code>x&lt;b&gt;</code>",
		"statistics unreadable: ",
	} {
		if strings.Count(page, want) == 0 {
			t.Errorf("page lacks %q", want)
		}
	}
	if strings.Count(page, ">a\uFFFD&lt;img") != 2 {
		t.Error("the name is not shown as the column's and as its child's parent")
	}
}

// TestInspectBounds checks that a file with more columns and blocks than
// the page lists gives a bounded page that says what it left out, and
// that the page's sums still cover the whole file.
func TestInspectBounds(t *testing.T) {
	const ncols = inspectMaxColumns + 300
	var cols []rawColumn
	for i := range ncols {
		c := rawColumn{meta: [][2]string{{"trevni.name", fmt.Sprintf("c%d", i)}, {"trevni.type", "int"}}}
		nb := 1
		if i == 0 {
			nb = 5000 // more blocks than a bar draws
		}
		for range nb {
			c.blocks = append(c.blocks, rawBlock{rows: 1, uncompressed: 1, data: []byte{2}})
		}
		cols = append(cols, c)
	}
	rowsPerCol := int64(5000)
	for i := 1; i < ncols; i++ {
		cols[i].blocks[0].rows = int32(rowsPerCol)
		cols[i].blocks[0].uncompressed = 5000
		cols[i].blocks[0].data = make([]byte, 5000)
	}
	in := filepath.Join(t.TempDir(), "wide.trv")
	if err := os.WriteFile(in, buildTrevni(rowsPerCol, nil, cols), 0o644); err != nil {
		t.Fatal(err)
	}
	page := inspect(t, in)
	if !strings.Contains(page, "300 more columns") || !strings.Contains(page, fmt.Sprintf("<code title=\"c%d\">c%d</code>", inspectMaxColumns-1, inspectMaxColumns-1)) ||
		strings.Contains(page, fmt.Sprintf(">c%d</code>", inspectMaxColumns)) {
		t.Error("page does not stop at the column limit and say so")
	}
	if !strings.Contains(page, "consecutive blocks are drawn as one segment") {
		t.Error("page does not say blocks were grouped")
	}
	segs := segmentTitles(page)
	per := max(inspectMinSegments, min(inspectColSegments, inspectMaxSegments/inspectMaxColumns))
	if want := per + inspectMaxColumns - 1; len(segs) != want {
		t.Errorf("%d segments, want %d", len(segs), want)
	}
	group := (5000 + per - 1) / per
	if !strings.Contains(segs[0], fmt.Sprintf("blocks 0 to %d (%d blocks drawn as one)\nrows: %d (first row 0)", group-1, group, group)) {
		t.Errorf("first segment: %q", segs[0])
	}
	if len(page) > 4<<20 {
		t.Errorf("page of %d bytes", len(page))
	}
}

// TestInspectRefuses checks the inputs inspect does not read and that it
// writes through the tool's output rules.
func TestInspectRefuses(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out.html")
	for _, tc := range []struct{ in, want string }{
		{filepath.Join("..", "..", "testdata", "trevni1", "impala_all_types.trv"), "a Trevni version 1 file: inspect reads version 2 files only"},
		{filepath.Join("..", "..", "testdata", "clmn", "sample.clmn"), "a CLMN file: inspect reads Trevni version 2 files only"},
		{filepath.Join(interopDir, "email", "input.avro"), "inspect: "},
	} {
		r := runIn(t, nil, "inspect", tc.in, out)
		if r.code != exitError || !strings.Contains(r.stderr, tc.want) || !strings.Contains(r.stderr, tc.in) {
			t.Errorf("%s: %+v", tc.in, r)
		}
		if _, err := os.Stat(out); err == nil {
			t.Fatalf("%s: output written", tc.in)
		}
	}
	in := filepath.Join(interopDir, "tiny", "tiny_rle.trv")
	if err := os.WriteFile(out, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := runIn(t, nil, "inspect", in, out); r.code != exitError || !strings.Contains(r.stderr, "exists") {
		t.Errorf("without --force: %+v", r)
	}
	if string(readFile(t, out)) != "keep" {
		t.Error("existing file changed without --force")
	}
	if r := runIn(t, nil, "inspect", "--force", in, out); r.code != 0 || !strings.HasPrefix(string(readFile(t, out)), "<!DOCTYPE html>") {
		t.Errorf("with --force: %+v", r)
	}
	if r := runIn(t, nil, "inspect", in); r.code != 0 || !strings.Contains(r.stdout, "</html>") {
		t.Errorf("to standard output: %+v", r)
	}
}

// TestInspectChromium renders pages in headless Chromium and checks what
// it drew: a screenshot that is not one colour, and every column name in
// the DOM it built, with no script element from the file's hostile names.
// Without chromium the test fails under CI (which installs it, see
// .ci/run) and is skipped otherwise.
func TestInspectChromium(t *testing.T) {
	t.Parallel()
	chromium, err := exec.LookPath("chromium")
	if err != nil {
		if os.Getenv("CI") == "" {
			t.Skip("chromium is not installed (apt-get install chromium); it is required when CI is set")
		}
		t.Fatalf("CI is set and chromium is not installed: %v", err)
	}
	dir := t.TempDir()
	statsFile := filepath.Join(dir, "stats.trv")
	writeStatsFile(t, statsFile, 600)
	for _, in := range []string{filepath.Join(interopDir, "email", "email.deflate.crc32.trv"), statsFile} {
		t.Run(filepath.Base(in), func(t *testing.T) {
			t.Parallel() // the browser mostly waits
			page := filepath.Join(dir, filepath.Base(in)+".html")
			if r := runIn(t, nil, "inspect", in, page); r.code != 0 {
				t.Fatalf("inspect: %+v", r)
			}
			shot := filepath.Join(dir, filepath.Base(in)+".png")
			url := "file://" + page
			// One run of the browser takes the screenshot and prints
			// the DOM (starting it is most of the test's time).
			dom := browse(t, chromium, "--screenshot="+shot, "--window-size=1200,900", "--dump-dom", url)
			checkNotBlank(t, shot)
			if !strings.Contains(dom, "</table>") {
				t.Fatalf("DOM has no table:\n%.2000s", dom)
			}
			if strings.Contains(dom, "<script") {
				t.Error("the browser made a script element")
			}
			rd := openFormat(t, in)
			for i := range rd.NumColumns() {
				// The DOM is serialized with <, > and & escaped in text.
				c, err := rd.Column(i)
				if err != nil {
					t.Fatal(err)
				}
				name := strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(c.Name)
				// Names are shown in a code element titled with the
				// full name (cut in the middle past 48 characters,
				// which these are not).
				if !strings.Contains(dom, ">"+name+"</code>") {
					t.Errorf("column %q not in the DOM", c.Name)
				}
			}
			if os.Getenv("TREVNI_KEEP_SCREENSHOTS") != "" {
				os.WriteFile(filepath.Join(os.Getenv("TREVNI_KEEP_SCREENSHOTS"), filepath.Base(shot)), readFile(t, shot), 0o644)
			}
		})
	}
}

// browse runs headless Chromium with args and returns its standard
// output.
func browse(t *testing.T, chromium string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, chromium, append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=" + t.TempDir()}, args...)...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %q: %v\n%s", args, err, errOut.String())
	}
	return out.String()
}

// checkNotBlank checks that the file is a PNG of the window's size whose
// pixels are not all one colour, and that it shows colour (the bars), not
// only text.
func checkNotBlank(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	b := img.Bounds()
	if b.Dx() != 1200 || b.Dy() != 900 {
		t.Errorf("screenshot of %v", b)
	}
	colours := map[[3]uint32]bool{}
	saturated := 0
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			colours[[3]uint32{r, g, bl}] = true
			if max(r, g, bl)-min(r, g, bl) > 0x4000 {
				saturated++
			}
		}
	}
	if len(colours) < 2 {
		t.Fatalf("screenshot is blank: one colour")
	}
	if saturated < 1000 {
		t.Errorf("screenshot has %d coloured pixels: no bars drawn", saturated)
	}
}

// TestInspectLongColumnName checks that a very long column name (162
// characters) is shown cut in the middle, both ends kept, with the whole
// name on hover, so that it does not push the other columns off screen.
func TestInspectLongColumnName(t *testing.T) {
	dir := t.TempDir()
	long := "f" + strings.Repeat("abcdefghij", 16) + "z" // 162 characters
	avsc := filepath.Join(dir, "long.avsc")
	writeFileT(t, avsc, []byte(`{"type":"record","name":"R","fields":[{"name":"`+long+`","type":"int"},{"name":"b","type":"string"}]}`))
	trv := filepath.Join(dir, "long.trv")
	if r := runIn(t, nil, "random", "--quiet", avsc, "3", trv); r.code != exitOK {
		t.Fatalf("random: %+v", r)
	}
	r := runIn(t, nil, "inspect", trv)
	if r.code != exitOK {
		t.Fatalf("inspect: %+v", r)
	}
	short := middleCut(long, inspectMaxName)
	if n := len([]rune(short)); n != inspectMaxName || !strings.HasPrefix(short, long[:20]) || !strings.HasSuffix(short, long[len(long)-20:]) || !strings.Contains(short, "…") {
		t.Errorf("middleCut = %q (%d characters), want %d with both ends and an ellipsis", short, n, inspectMaxName)
	}
	if !strings.Contains(r.stdout, `<code title="`+long+`">`+short+`</code>`) {
		t.Errorf("the columns table does not show %q with the whole name as its title", short)
	}
	if strings.Contains(r.stdout, ">"+long+"<") {
		t.Error("the whole name is shown as text somewhere")
	}
	if got := middleCut("b", inspectMaxName); got != "b" {
		t.Errorf("middleCut of a short name = %q", got)
	}
}
