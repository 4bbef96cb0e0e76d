package trevniparquet_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/parquet/compress"
)

// Linking the package, and reading the files whose pages arrow-go's own
// codecs cannot read (Hadoop's LZ4, a version 2 page of nulls with no
// compressed bytes), leaves arrow-go's process-wide codec registry as
// arrow-go made it: every codec is arrow-go's own, and LZ4 (which arrow-go
// lacks) is still missing. The package used to register codecs of its own
// there in init.
func TestArrowCodecRegistryUntouched(t *testing.T) {
	dir := "testdata/realwriters/parquet-testing/"
	for _, name := range []string{"hadoop_lz4_compressed.parquet", "non_hadoop_lz4_compressed.parquet", "datapage_v2_empty_datapage.snappy.parquet"} {
		if _, _, err := fromParquetSuite(t, dir+name, nil); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	const arrowCompress = "github.com/apache/arrow-go/v18/parquet/compress"
	for _, c := range []compress.Compression{compress.Codecs.Snappy, compress.Codecs.Gzip, compress.Codecs.Brotli, compress.Codecs.Zstd, compress.Codecs.Lz4Raw} {
		codec, err := compress.GetCodec(c)
		if err != nil {
			t.Fatalf("%s: %v", c, err)
		}
		typ := reflect.TypeOf(codec)
		if typ.Kind() == reflect.Pointer {
			typ = typ.Elem()
		}
		if typ.PkgPath() != arrowCompress {
			t.Errorf("the %s codec is %s.%s, not arrow-go's", c, typ.PkgPath(), typ.Name())
		}
	}
	if codec, err := compress.GetCodec(compress.Codecs.Lz4); err == nil {
		t.Errorf("an LZ4 codec is registered: %T", codec)
	} else if !strings.Contains(err.Error(), "unimplemented") {
		t.Errorf("LZ4: %v", err)
	}
}
