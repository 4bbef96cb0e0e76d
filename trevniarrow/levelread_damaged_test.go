package trevniarrow_test

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trevni-go/trevni"
	"github.com/trevni-go/trevni/trevniarrow"
)

// Damaged files read from their columns end in an error or in batches,
// never in a panic or a hang: random schemas' files with bytes past the
// header changed at random.
func TestColumnarDamaged(t *testing.T) {
	ctx := context.Background()
	failed, guarded := 0, 0
	for seed := range uint64(12) {
		name, _, _ := writeRandom(t, 500+seed, 60)
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		r := rand.New(rand.NewPCG(seed, 7))
		for k := range 12 {
			bad := append([]byte(nil), data...)
			for range 1 + r.IntN(4) {
				at := len(bad)/3 + r.IntN(len(bad)-len(bad)/3)
				bad[at] ^= byte(1 + r.IntN(255))
			}
			p := filepath.Join(t.TempDir(), "bad.trv")
			if err := os.WriteFile(p, bad, 0o644); err != nil {
				t.Fatal(err)
			}
			ds, err := trevni.Open(ctx, p, nil)
			if err != nil {
				failed++
				continue
			}
			o := trevniarrow.ReadOptions{BatchRows: 7}
			o.Workers = 1 + k%3
			run := readArrow(t, ctx, ds, o)
			for _, b := range run.batches {
				b.Release()
			}
			if run.err != nil {
				failed++
				if strings.Contains(run.err.Error(), "damaged levels") {
					guarded++
				}
			}
			ds.Close()
		}
	}
	t.Logf("%d of 144 damaged files refused, %d by the builders' guard", failed, guarded)
	if failed == 0 {
		t.Fatal("no damaged file was refused")
	}
}
