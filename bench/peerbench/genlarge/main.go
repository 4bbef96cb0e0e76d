// Command genlarge writes N random records of the vec.Large schema of
// ../shared/peerbench (strings of 0-12 lowercase letters, arrays of 0-5
// items) as an Avro container file with the snappy codec.
//
// Usage: genlarge N OUT.avro
package main

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strconv"

	"github.com/trevni-go/trevni/internal/ocf"
)

const largeSchema = `{"type":"record","name":"Large","namespace":"vec","fields":[
 {"name":"id","type":"long"},
 {"name":"flag","type":"boolean"},
 {"name":"score","type":"double"},
 {"name":"small","type":"int"},
 {"name":"name","type":"string"},
 {"name":"tags","type":{"type":"array","items":"string"}},
 {"name":"opt","type":["null","int"]},
 {"name":"pts","type":{"type":"array","items":{"type":"record","name":"Pt","fields":[{"name":"x","type":"float"},{"name":"y","type":"float"}]}}}
]}`

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: genlarge N OUT.avro")
		os.Exit(2)
	}
	n, err := strconv.Atoi(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(2)
	}
	if err := run(n, os.Args[2]); err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
}

func run(n int, path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	w, err := ocf.NewWriter(bw, largeSchema, ocf.WriterOptions{Codec: "snappy", SyncMarker: [16]byte{7}})
	if err != nil {
		return err
	}
	r := rand.New(rand.NewPCG(1, 2))
	str := func(b []byte) []byte {
		l := r.IntN(13)
		b = binary.AppendVarint(b, int64(l))
		for range l {
			b = append(b, byte('a'+r.IntN(26)))
		}
		return b
	}
	var rec []byte
	for i := range n {
		b := rec[:0]
		b = binary.AppendVarint(b, int64(i)*7919-int64(r.IntN(1000)))
		b = append(b, byte(r.IntN(2)))
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(r.NormFloat64()*100))
		b = binary.AppendVarint(b, int64(r.IntN(1000)-500))
		b = str(b)
		if k := r.IntN(6); k > 0 {
			b = binary.AppendVarint(b, int64(k))
			for range k {
				b = str(b)
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
		b = append(b, 0)
		rec = b
		if err := w.Append(b); err != nil {
			return err
		}
	}
	if err := w.Close(); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	return f.Close()
}
