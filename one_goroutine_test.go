package trevni_test

import (
	"context"
	"io"
	"runtime"
	"testing"

	"github.com/trevni-go/trevni"
)

// TestReadsOnTheCallingGoroutine: with the default options a read of a
// local data set starts no goroutine (issue 34: a library read inside a
// request handler takes one core unless Workers says otherwise), whatever
// the read (records, structs, JSON, a count); OpenOptions.ReadAhead and
// ReadOptions.Workers each start some, which shows the test can see them.
func TestReadsOnTheCallingGoroutine(t *testing.T) {
	ctx := context.Background()
	const name = "testdata/interop/medium/medium.deflate.crc32.trv" // 30,000 records, several blocks a column
	type score struct {
		ID    int64   `avro:"id"`
		Score float64 `avro:"score"`
	}
	reads := map[string]func(ds *trevni.Dataset, ro *trevni.ReadOptions, sample func()) error{
		"All": func(ds *trevni.Dataset, ro *trevni.ReadOptions, sample func()) error {
			for _, err := range ds.All(ctx, ro) {
				if err != nil {
					return err
				}
				sample()
			}
			return nil
		},
		"ReadStructs": func(ds *trevni.Dataset, ro *trevni.ReadOptions, sample func()) error {
			for _, err := range trevni.ReadStructs[score](ctx, ds, ro) {
				if err != nil {
					return err
				}
				sample()
			}
			return nil
		},
		"WriteJSON": func(ds *trevni.Dataset, ro *trevni.ReadOptions, sample func()) error {
			_, err := ds.WriteJSON(ctx, sampling{sample}, ro, nil)
			return err
		},
	}
	most := func(oo *trevni.OpenOptions, ro *trevni.ReadOptions, read func(*trevni.Dataset, *trevni.ReadOptions, func()) error) (before, most int) {
		ds, err := trevni.Open(ctx, name, oo)
		if err != nil {
			t.Fatal(err)
		}
		defer ds.Close()
		before = runtime.NumGoroutine()
		most = before
		if err := read(ds, ro, func() { most = max(most, runtime.NumGoroutine()) }); err != nil {
			t.Fatal(err)
		}
		return before, most
	}
	for what, read := range reads {
		if before, m := most(nil, nil, read); m != before {
			t.Errorf("%s with the default options: %d goroutines during the read, %d before", what, m, before)
		}
		if before, m := most(&trevni.OpenOptions{ReadAhead: true}, nil, read); m <= before {
			t.Errorf("%s with ReadAhead: %d goroutines during the read, %d before: the test sees no goroutine", what, m, before)
		}
	}
	if before, m := most(nil, &trevni.ReadOptions{Workers: 3}, reads["WriteJSON"]); m <= before {
		t.Errorf("WriteJSON on 3 workers: %d goroutines during the read, %d before", m, before)
	}
}

// sampling is a writer that calls sample at each write.
type sampling struct{ sample func() }

func (s sampling) Write(p []byte) (int, error) { s.sample(); return len(p), nil }

var _ io.Writer = sampling{}
