package trevniio

import (
	"bytes"
	"context"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/rtrackers/offsetrange"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/passert"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"
	"github.com/linkedin/goavro/v2"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/descriptorpb"

	"github.com/trevni-go/trevni"
	"github.com/trevni-go/trevni/assemble"
	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/shred"
)

func init() {
	register.Function1x1(hexOf)
}

// TestMain runs the pipelines of the tests on prism, Beam's local runner,
// in process.
func TestMain(m *testing.M) {
	code := ptest.MainRet(m)
	if benchDir != "" {
		os.RemoveAll(benchDir)
	}
	os.Exit(code)
}

// hexOf turns a record into a string that passert can compare.
func hexOf(b []byte) string { return hex.EncodeToString(b) }

// testSchema is the schema of the records of the generated files: the id
// makes every record distinct, so losing or repeating one shows.
const testSchema = `{"type":"record","name":"Row","fields":[
 {"name":"id","type":"long"},
 {"name":"name","type":"string"},
 {"name":"tags","type":{"type":"array","items":"string"}},
 {"name":"where","type":["null",{"type":"record","name":"Place","fields":[
   {"name":"city","type":"string"},{"name":"zip","type":"int"}]}]}]}`

// genRecords returns n records of testSchema, encoded by goavro (the
// independent truth), with ids from first.
func genRecords(t testing.TB, first, n int64, seed uint64) [][]byte {
	t.Helper()
	codec, err := goavro.NewCodec(testSchema)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(seed, 1))
	out := make([][]byte, 0, n)
	for i := range n {
		tags := make([]any, r.IntN(4))
		for j := range tags {
			tags[j] = fmt.Sprintf("t%d", r.IntN(50))
		}
		var where any
		if r.IntN(3) > 0 {
			where = goavro.Union("Place", map[string]any{"city": fmt.Sprintf("city-%d", r.IntN(100)), "zip": int32(r.IntN(99999))})
		}
		rec := map[string]any{"id": first + i, "name": fmt.Sprintf("name %d", r.Uint32()), "tags": tags, "where": where}
		b, err := codec.BinaryFromNative(nil, rec)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}

// writeFile writes recs to a Trevni file of small blocks, so that row
// ranges start and end inside blocks.
func writeFile(t testing.TB, path string, recs [][]byte) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	aw, err := shred.NewAvroWriter(f, testSchema, &shred.Options{WriterOptions: format.WriterOptions{Codec: "deflate", BlockSize: 512}})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if err := aw.WriteBinary(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := aw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// makeSet writes parts files of the given sizes into dir and returns all
// their records.
func makeSet(t testing.TB, dir string, sizes ...int64) [][]byte {
	t.Helper()
	var all [][]byte
	var next int64
	for i, n := range sizes {
		recs := genRecords(t, next, n, uint64(i))
		next += n
		writeFile(t, filepath.Join(dir, fmt.Sprintf("part-%05d.trv", i)), recs)
		all = append(all, recs...)
	}
	return all
}

func hexAll(recs [][]byte) []string {
	out := make([]string, len(recs))
	for i, r := range recs {
		out[i] = hexOf(r)
	}
	return out
}

// readAll reads every record of a file as Avro binary, sequentially,
// without Beam.
func readAll(t testing.TB, path string) [][]byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	rd, err := format.NewReader(f, st.Size(), nil)
	if err != nil {
		t.Fatal(err)
	}
	ar, err := assemble.NewAvroReader(rd, nil)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	for {
		b, err := ar.ReadBinary(nil)
		if err != nil {
			break
		}
		out = append(out, b)
	}
	if int64(len(out)) != ar.RowCount() {
		t.Fatalf("%s: read %d of %d rows", path, len(out), ar.RowCount())
	}
	return out
}

// TestReadSplitExactlyOnce reads a set of files split into many row
// ranges per file on the local runner: every record arrives exactly once.
func TestReadSplitExactlyOnce(t *testing.T) {
	dir := t.TempDir()
	want := makeSet(t, dir, 1000, 2501, 7, 0, 333)
	p, s := beam.NewPipelineWithRoot()
	got := Read(s, filepath.Join(dir, "part-*.trv"), &ReadOptions{SplitRows: 97})
	passert.EqualsList(s, beam.ParDo(s, hexOf, got), hexAll(want))
	passert.Count(s, got, "records", len(want))
	ptest.RunAndValidate(t, p)

	// A directory reads its *.trv files.
	p, s = beam.NewPipelineWithRoot()
	got = Read(s, dir, &ReadOptions{SplitRows: 500})
	passert.EqualsList(s, beam.ParDo(s, hexOf, got), hexAll(want))
	ptest.RunAndValidate(t, p)
}

// TestReadDynamicSplit processes a file's restriction while splitting it,
// as a runner does with a running bundle, at random points, and checks
// that primaries and residuals together give every row once, in order.
func TestReadDynamicSplit(t *testing.T) {
	dir := t.TempDir()
	want := makeSet(t, dir, 3000)
	splitWhileReading(t, &readFn{SplitRows: DefaultSplitRows}, filepath.Join(dir, "part-00000.trv"), want, 20, 400, 7)
}

// splitWhileReading processes the restriction of the file at path, in
// trials, splitting each piece at a random fraction after a random number
// (below maxAfter) of records emitted, as a runner does with a running
// bundle, and checks that the pieces together emit want, in order, and
// that every tracker ends done.
func splitWhileReading(t *testing.T, fn *readFn, path string, want [][]byte, trials, maxAfter int, seed uint64) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, seed))
	for trial := range trials {
		var got [][]byte
		queue := []offsetrange.Restriction{fn.CreateInitialRestriction(path)}
		pieces := 0
		for len(queue) > 0 {
			rest := queue[0]
			queue = queue[1:]
			pieces++
			rt := fn.CreateTracker(rest)
			splitAfter := 1 + r.IntN(maxAfter)
			n := 0
			err := fn.ProcessElement(context.Background(), rt, path, func(b []byte) {
				got = append(got, b)
				n++
				if n == splitAfter {
					_, residual, err := rt.TrySplit(r.Float64())
					if err != nil {
						t.Fatal(err)
					}
					if residual != nil {
						queue = append(queue, residual.(offsetrange.Restriction))
					}
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			if !rt.IsDone() {
				t.Fatalf("trial %d: restriction %v not done", trial, rest)
			}
		}
		if len(got) != len(want) {
			t.Fatalf("trial %d: %d pieces gave %d records, want %d", trial, pieces, len(got), len(want))
		}
		for i := range want {
			if !bytes.Equal(got[i], want[i]) {
				t.Fatalf("trial %d: record %d differs", trial, i)
			}
		}
	}
}

// TestReadFields reads a projection: the records are those of the
// projected schema, decoded by goavro equal to the selected fields.
func TestReadFields(t *testing.T) {
	dir := t.TempDir()
	recs := makeSet(t, dir, 700)
	projected, err := trevni.ProjectSchema(testSchema, []string{"id", "where.city"})
	if err != nil {
		t.Fatal(err)
	}
	full, _ := goavro.NewCodec(testSchema)
	part, err := goavro.NewCodec(projected)
	if err != nil {
		t.Fatal(err)
	}
	var want [][]byte
	for _, b := range recs {
		v, _, err := full.NativeFromBinary(b)
		if err != nil {
			t.Fatal(err)
		}
		m := v.(map[string]any)
		var where any
		if w, ok := m["where"].(map[string]any); ok && w != nil {
			where = goavro.Union("Place", map[string]any{"city": w["Place"].(map[string]any)["city"]})
		}
		pb, err := part.BinaryFromNative(nil, map[string]any{"id": m["id"], "where": where})
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, pb)
	}
	p, s := beam.NewPipelineWithRoot()
	got := Read(s, filepath.Join(dir, "*.trv"), &ReadOptions{Fields: []string{"id", "where.city"}, SplitRows: 150})
	passert.EqualsList(s, beam.ParDo(s, hexOf, got), hexAll(want))
	ptest.RunAndValidate(t, p)
}

// TestReadProto reads a file made from protobuf as wire bytes, whole, with
// a field selection and with a filter.
func TestReadProto(t *testing.T) {
	dir := t.TempDir()
	var msgs []*descriptorpb.FieldDescriptorProto
	for i := range 900 {
		msgs = append(msgs, &descriptorpb.FieldDescriptorProto{
			Name:     proto.String(fmt.Sprintf("field_%d", i)),
			Number:   proto.Int32(int32(i + 1)),
			JsonName: proto.String(fmt.Sprintf("f%d", i*7)),
			Type:     descriptorpb.FieldDescriptorProto_Type(1 + i%18).Enum(),
		})
	}
	f, err := os.Create(filepath.Join(dir, "msgs.trv"))
	if err != nil {
		t.Fatal(err)
	}
	pw, err := shred.NewProtoWriter(f, (&descriptorpb.FieldDescriptorProto{}).ProtoReflect().Descriptor(), &shred.ProtoOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range msgs {
		if err := pw.Write(m); err != nil {
			t.Fatal(err)
		}
	}
	if err := pw.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()

	marshal := func(m proto.Message) string {
		b, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		return hexOf(b)
	}
	var whole, names []string
	for _, m := range msgs {
		whole = append(whole, marshal(m))
		names = append(names, marshal(&descriptorpb.FieldDescriptorProto{Name: m.Name}))
	}
	p, s := beam.NewPipelineWithRoot()
	passert.EqualsList(s, beam.ParDo(s, hexOf, Read(s, dir, &ReadOptions{Proto: true, SplitRows: 100})), whole)
	passert.EqualsList(s.Scope("names"), beam.ParDo(s, hexOf, Read(s, dir, &ReadOptions{Proto: true, Fields: []string{"name"}, SplitRows: 250})), names)
	// A filter on the messages' fields, in restrictions split at 100
	// rows: the messages of numbers 1 to 40 and 801 to 900.
	var kept []string
	for i, m := range msgs {
		if n := m.GetNumber(); n <= 40 || n > 800 {
			kept = append(kept, whole[i])
		}
	}
	filtered := Read(s.Scope("filtered"), dir, &ReadOptions{Proto: true, Filter: "number <= 40 OR number > 800", SplitRows: 100})
	passert.EqualsList(s.Scope("filtered"), beam.ParDo(s, hexOf, filtered), kept)
	ptest.RunAndValidate(t, p)
}

// TestReadMissing reports a pattern that matches nothing.
func TestReadMissing(t *testing.T) {
	p, s := beam.NewPipelineWithRoot()
	Read(s, filepath.Join(t.TempDir(), "*.trv"), nil)
	if err := ptest.Run(p); err == nil {
		t.Fatal("reading no file succeeded")
	}
}

// TestWriteShards writes records to four shards and reads them back: the
// same records, each once, complete files only.
func TestWriteShards(t *testing.T) {
	dir := t.TempDir()
	recs := genRecords(t, 0, 1234, 99)
	prefix := filepath.Join(dir, "out")
	// The temporary file of an attempt that failed before: finalization
	// removes it.
	stale := ShardName(prefix, 2, 4) + tempMarker + "0123456789abcdef"
	if err := os.WriteFile(stale, []byte("partial"), 0o666); err != nil {
		t.Fatal(err)
	}
	p, s := beam.NewPipelineWithRoot()
	names := Write(s, prefix, testSchema, beam.CreateList(s, recs), &WriteOptions{Shards: 4})
	var wantNames []string
	for i := range 4 {
		wantNames = append(wantNames, ShardName(prefix, i, 4))
	}
	passert.EqualsList(s, names, wantNames)
	ptest.RunAndValidate(t, p)

	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, e := range entries {
		files = append(files, e.Name())
	}
	if want := []string{"out-00000-of-00004.trv", "out-00001-of-00004.trv", "out-00002-of-00004.trv", "out-00003-of-00004.trv"}; !slices.Equal(files, want) {
		t.Fatalf("files %v, want %v", files, want)
	}
	var got []string
	for _, n := range wantNames {
		rs := readAll(t, n)
		if len(rs) == 0 {
			t.Errorf("%s is empty", n)
		}
		got = append(got, hexAll(rs)...)
	}
	want := hexAll(recs)
	sort.Strings(got)
	sort.Strings(want)
	if !slices.Equal(got, want) {
		t.Fatalf("read back %d records, want the %d written", len(got), len(want))
	}
}

// TestWriteEmptyShards writes fewer records than shards: every shard
// exists, the extra ones empty.
func TestWriteEmptyShards(t *testing.T) {
	dir := t.TempDir()
	recs := genRecords(t, 0, 2, 5)
	prefix := filepath.Join(dir, "sub", "few") // Write makes the directory
	p, s := beam.NewPipelineWithRoot()
	Write(s, prefix, testSchema, beam.CreateList(s, recs), &WriteOptions{Shards: 5})
	ptest.RunAndValidate(t, p)
	total := 0
	for i := range 5 {
		total += len(readAll(t, ShardName(prefix, i, 5)))
	}
	if total != 2 {
		t.Fatalf("%d records in the shards, want 2", total)
	}
}

// TestWriteBadRecord fails the pipeline on a record that is not of the
// schema and leaves no shard under its final name.
func TestWriteBadRecord(t *testing.T) {
	dir := t.TempDir()
	prefix := filepath.Join(dir, "bad")
	recs := append(genRecords(t, 0, 10, 1), []byte{0xff})
	p, s := beam.NewPipelineWithRoot()
	Write(s, prefix, testSchema, beam.CreateList(s, recs), &WriteOptions{Shards: 1})
	if err := ptest.Run(p); err == nil {
		t.Fatal("writing a bad record succeeded")
	}
	// No shard may appear. (A retry of the bundle that the runner started
	// before giving up may still hold its temporary file for a moment: the
	// next Write to the prefix removes such files.)
	if left, _ := filepath.Glob(filepath.Join(dir, "*.trv")); len(left) != 0 {
		t.Fatalf("shards left behind: %v", left)
	}
}

// TestContainerToTrevni runs Avro container files -> Trevni parts ->
// Read -> Write shards, and checks the shards hold the input's records,
// as goavro reads them from the container files.
func TestContainerToTrevni(t *testing.T) {
	inputs, err := filepath.Glob("../../testdata/interop/*/input.avro")
	if err != nil || len(inputs) == 0 {
		t.Fatalf("no input.avro in testdata/interop: %v", err)
	}
	for _, in := range inputs {
		t.Run(filepath.Base(filepath.Dir(in)), func(t *testing.T) {
			schemaText, want := readContainer(t, in)
			dir := t.TempDir()
			// Two parts made from the container file.
			for i := range 2 {
				src, err := os.Open(in)
				if err != nil {
					t.Fatal(err)
				}
				out, err := os.Create(filepath.Join(dir, fmt.Sprintf("part-%d.trv", i)))
				if err != nil {
					t.Fatal(err)
				}
				if _, err := shred.FromContainer(context.Background(), out, src, nil); err != nil {
					t.Fatal(err)
				}
				src.Close()
				if err := out.Close(); err != nil {
					t.Fatal(err)
				}
			}
			want = append(want, want...)
			outDir := t.TempDir()
			prefix := filepath.Join(outDir, "shard")
			p, s := beam.NewPipelineWithRoot()
			Write(s, prefix, schemaText, Read(s, filepath.Join(dir, "*.trv"), &ReadOptions{SplitRows: 64}), &WriteOptions{Shards: 3})
			ptest.RunAndValidate(t, p)
			codec, err := goavro.NewCodec(schemaText)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for i := range 3 {
				for _, b := range readAll(t, ShardName(prefix, i, 3)) {
					got = append(got, decoded(t, codec, b))
				}
			}
			sort.Strings(got)
			sort.Strings(want)
			if !slices.Equal(got, want) {
				t.Fatalf("%d records in the shards, want %d equal to the input", len(got), len(want))
			}
		})
	}
}

// decoded returns the text of the value goavro decodes from record b: fmt
// prints map entries sorted by key, so equal values give equal text.
func decoded(t *testing.T, codec *goavro.Codec, b []byte) string {
	t.Helper()
	v, rest, err := codec.NativeFromBinary(b)
	if err != nil || len(rest) != 0 {
		t.Fatalf("goavro cannot decode a record read back: %v (%d bytes left)", err, len(rest))
	}
	return fmt.Sprint(v)
}

// readContainer returns the schema and the records (as decoded returns
// them) of an Avro object container file, read by goavro.
func readContainer(t *testing.T, path string) (string, []string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ocf, err := goavro.NewOCFReader(f)
	if err != nil {
		t.Fatal(err)
	}
	codec := ocf.Codec()
	var recs []string
	for ocf.Scan() {
		v, err := ocf.Read()
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, fmt.Sprint(v))
	}
	if err := ocf.Err(); err != nil {
		t.Fatal(err)
	}
	return codec.Schema(), recs
}

// TestProjectSchemaErrors names the path that selects nothing.
func TestProjectSchemaErrors(t *testing.T) {
	for _, paths := range [][]string{{"nope"}, {"id.x"}, {"where.nope"}, {""}} {
		if _, err := trevni.ProjectSchema(testSchema, paths); err == nil {
			t.Errorf("ProjectSchema(%q) succeeded", paths)
		}
	}
}

// TestReadReaderSchemaFields reads with a reader schema that renames id
// and adds a field, selecting the added field and the renamed one, with a
// filter on the renamed one and on name, which is not selected: the records are those of the reader schema's
// projection, encoded by goavro from the generated records.
func TestReadReaderSchemaFields(t *testing.T) {
	dir := t.TempDir()
	recs := makeSet(t, dir, 700)
	reader := `{"type":"record","name":"Row","fields":[
	 {"name":"key","aliases":["id"],"type":"long"},
	 {"name":"name","type":"string"},
	 {"name":"channel","type":"string","default":"web"}]}`
	projected, err := trevni.ProjectSchema(reader, []string{"channel", "key"})
	if err != nil {
		t.Fatal(err)
	}
	full, _ := goavro.NewCodec(testSchema)
	part, err := goavro.NewCodec(projected)
	if err != nil {
		t.Fatal(err)
	}
	var want [][]byte
	for _, b := range recs {
		v, _, err := full.NativeFromBinary(b)
		if err != nil {
			t.Fatal(err)
		}
		id := v.(map[string]any)["id"].(int64)
		if id%3 != 0 {
			continue
		}
		pb, err := part.BinaryFromNative(nil, map[string]any{"key": id, "channel": "web"})
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, pb)
	}
	if len(want) == 0 || len(want) == len(recs) {
		t.Fatalf("the filter keeps %d of %d records", len(want), len(recs))
	}
	var in []string
	for i := range 700 {
		if i%3 == 0 {
			in = append(in, strconv.Itoa(i))
		}
	}
	p, s := beam.NewPipelineWithRoot()
	got := Read(s, filepath.Join(dir, "*.trv"), &ReadOptions{ReaderSchema: reader, Fields: []string{"channel", "key"},
		Filter: "name >= '' AND channel = 'web' AND key IN (" + strings.Join(in, ", ") + ")", SplitRows: 150})
	passert.EqualsList(s, beam.ParDo(s, hexOf, got), hexAll(want))
	ptest.RunAndValidate(t, p)
}
