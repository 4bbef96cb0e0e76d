// Package veclarge draws the records of the vec.Large schema of the peer
// benchmark (../shared/peerbench): scalars, a string, an array of
// strings, a nullable int and an array of records of two floats. The
// benchmark's data generator (bench/peerbench/genlarge) and the
// benchmarks of the packages that convert Avro draw the same records
// from the same seed.
package veclarge

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
)

// Schema is the vec.Large Avro schema.
const Schema = `{"type":"record","name":"Large","namespace":"vec","fields":[
 {"name":"id","type":"long"},
 {"name":"flag","type":"boolean"},
 {"name":"score","type":"double"},
 {"name":"small","type":"int"},
 {"name":"name","type":"string"},
 {"name":"tags","type":{"type":"array","items":"string"}},
 {"name":"opt","type":["null","int"]},
 {"name":"pts","type":{"type":"array","items":{"type":"record","name":"Pt","fields":[{"name":"x","type":"float"},{"name":"y","type":"float"}]}}}
]}`

// Generator draws records: strings of 0 to 12 lowercase letters, arrays
// of 0 to 5 items, the int of the union null one time in three.
type Generator struct {
	r *rand.Rand
}

// New returns a generator seeded as the benchmark's data is (PCG 1, 2).
func New() *Generator {
	return &Generator{r: rand.New(rand.NewPCG(1, 2))}
}

// Append appends the Avro binary encoding of record i (its id is about
// i*7919) to b and returns the extended slice.
func (g *Generator) Append(b []byte, i int) []byte {
	r := g.r
	b = binary.AppendVarint(b, int64(i)*7919-int64(r.IntN(1000)))
	b = append(b, byte(r.IntN(2)))
	b = binary.LittleEndian.AppendUint64(b, math.Float64bits(r.NormFloat64()*100))
	b = binary.AppendVarint(b, int64(r.IntN(1000)-500))
	b = g.str(b)
	if k := r.IntN(6); k > 0 {
		b = binary.AppendVarint(b, int64(k))
		for range k {
			b = g.str(b)
		}
	}
	b = append(b, 0)
	if r.IntN(3) == 0 {
		b = append(b, 0)
	} else {
		b = binary.AppendVarint(b, 1)
		b = binary.AppendVarint(b, int64(r.Int32()))
	}
	if k := r.IntN(6); k > 0 {
		b = binary.AppendVarint(b, int64(k))
		for range k {
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(float32(r.NormFloat64())))
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(float32(r.NormFloat64())))
		}
	}
	return append(b, 0)
}

// str appends a string of 0 to 12 lowercase letters.
func (g *Generator) str(b []byte) []byte {
	l := g.r.IntN(13)
	b = binary.AppendVarint(b, int64(l))
	for range l {
		b = append(b, byte('a'+g.r.IntN(26)))
	}
	return b
}
