package ordered

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"
)

// Tasks of random sizes, written on several workers with random pauses,
// reach the consumer whole and in order, in chunks no larger than the
// bound plus a record; a task's error comes after its records and ends the
// run; ErrStop ends it without one; and no worker is left running.
func TestRun(t *testing.T) {
	before := runtime.NumGoroutine()
	for seed := range uint64(40) {
		r := rand.New(rand.NewPCG(seed, 1))
		tasks := r.IntN(30)
		sizes := make([]int, tasks)
		for i := range sizes {
			sizes[i] = r.IntN(200)
		}
		failAt, stopAt := -1, -1
		switch seed % 4 {
		case 1:
			if tasks > 0 {
				failAt = r.IntN(tasks)
			}
		case 2:
			stopAt = r.IntN(3000)
		}
		opts := &Options{Workers: 1 + r.IntN(7), ChunkBytes: 1 + r.IntN(100), Ahead: r.IntN(3)}
		// The records: task i's record k is the 8 bytes of i*1000+k.
		var want, got bytes.Buffer
		for i := range tasks {
			for k := range sizes[i] {
				want.Write(binary.LittleEndian.AppendUint64(nil, uint64(i*1000+k)))
			}
		}
		next := 0
		err := Run(context.Background(), opts, func() (int, bool, error) {
			if next == tasks {
				return 0, false, nil
			}
			next++
			return next - 1, true, nil
		}, func(ctx context.Context, i int, out *Out) error {
			for k := range sizes[i] {
				if k%37 == 0 {
					time.Sleep(time.Duration(i%5) * 20 * time.Microsecond)
				}
				c := out.Chunk()
				c.Data = binary.LittleEndian.AppendUint64(c.Data, uint64(i*1000+k))
				if !out.Record() {
					return ctx.Err()
				}
			}
			if i == failAt {
				return fmt.Errorf("task %d failed", i)
			}
			return nil
		}, func(i int, c *Chunk) error {
			if len(c.Data) > opts.ChunkBytes+8 || len(c.Ends) == 0 || c.Ends[len(c.Ends)-1] != len(c.Data) {
				return fmt.Errorf("chunk of %d bytes, ends %v", len(c.Data), c.Ends)
			}
			for _, e := range c.Ends {
				if e%8 != 0 {
					return fmt.Errorf("record end %d", e)
				}
			}
			got.Write(c.Data)
			if stopAt >= 0 && got.Len() >= 8*stopAt {
				return ErrStop
			}
			return nil
		}, func(i int, err error) error { return err })
		w := want.Bytes()
		switch {
		case failAt >= 0:
			end := 0
			for i := range failAt + 1 {
				end += 8 * sizes[i]
			}
			if err == nil || err.Error() != fmt.Sprintf("task %d failed", failAt) || !bytes.Equal(got.Bytes(), w[:end]) {
				t.Fatalf("seed %d: %v; %d bytes, want %d", seed, err, got.Len(), end)
			}
		case stopAt >= 0 && len(w) >= 8*stopAt:
			if err != nil || got.Len() < 8*stopAt || !bytes.Equal(got.Bytes(), w[:got.Len()]) {
				t.Fatalf("seed %d: stopped: %v; %d bytes", seed, err, got.Len())
			}
		default:
			if err != nil || !bytes.Equal(got.Bytes(), w) {
				t.Fatalf("seed %d: %v; %d bytes, want %d", seed, err, got.Len(), len(w))
			}
		}
	}
	for range 100 {
		if runtime.NumGoroutine() <= before {
			return
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatalf("%d goroutines, %d before", runtime.NumGoroutine(), before)
}

// An error from next ends the run after the tasks before it.
func TestRunNextError(t *testing.T) {
	bad := errors.New("no part")
	n, consumed := 0, 0
	err := Run(context.Background(), &Options{Workers: 3}, func() (int, bool, error) {
		if n == 5 {
			return 0, false, bad
		}
		n++
		return n, true, nil
	}, func(ctx context.Context, i int, out *Out) error {
		out.Chunk().Data = append(out.Chunk().Data, byte(i))
		out.Record()
		return nil
	}, func(i int, c *Chunk) error {
		if int(c.Data[0]) != consumed+1 {
			return fmt.Errorf("task %d after %d", c.Data[0], consumed)
		}
		consumed++
		return nil
	}, func(int, error) error { return nil })
	if err != bad || consumed != 5 {
		t.Fatalf("%v after %d tasks", err, consumed)
	}
}

// Values handed on by Send reach the consumer whole and in order, each
// chunk counting what it holds; no chunk is given room for data.
func TestRunValues(t *testing.T) {
	for seed := range uint64(20) {
		r := rand.New(rand.NewPCG(seed, 2))
		tasks := r.IntN(20)
		sizes := make([]int, tasks)
		for i := range sizes {
			sizes[i] = r.IntN(300)
		}
		batch := 1 + r.IntN(50)
		next, want, got := 0, 0, 0
		err := Run(context.Background(), &Options{Workers: 1 + r.IntN(5), Ahead: r.IntN(3), Values: true}, func() (int, bool, error) {
			if next == tasks {
				return 0, false, nil
			}
			next++
			return next - 1, true, nil
		}, func(ctx context.Context, i int, out *Out) error {
			for k := 0; k < sizes[i]; {
				c := out.Chunk()
				if cap(c.Data) != 0 {
					return fmt.Errorf("a chunk of values with room for %d bytes", cap(c.Data))
				}
				b, _ := c.Items.(*[]int)
				if b == nil {
					b = new([]int)
					c.Items = b
				}
				*b = (*b)[:0]
				for ; k < sizes[i] && len(*b) < batch; k++ {
					*b = append(*b, i*1000+k)
				}
				if !out.Send(len(*b), int64(8*len(*b))) {
					return ctx.Err()
				}
			}
			return nil
		}, func(i int, c *Chunk) error {
			b := *c.Items.(*[]int)
			if c.N != len(b) || c.N == 0 {
				return fmt.Errorf("a chunk of %d values says %d", len(b), c.N)
			}
			for _, v := range b {
				for want%1000 >= sizes[want/1000] {
					want = (want/1000 + 1) * 1000
				}
				if v != want {
					return fmt.Errorf("value %d, want %d", v, want)
				}
				want++
				got++
			}
			return nil
		}, func(int, error) error { return nil })
		total := 0
		for _, n := range sizes {
			total += n
		}
		if err != nil || got != total {
			t.Fatalf("seed %d: %v; %d values of %d", seed, err, got, total)
		}
	}
}

// A slow consumer, fast workers: the chunks in use at once, counted as
// the distinct chunks the consumer sees (a chunk is made only when none
// is free), stay within the bound Run states, and Sizes fits that bound
// into the memory it is given.
func TestChunksHeld(t *testing.T) {
	for _, workers := range []int{1, 2, 3, 8} {
		for _, ahead := range []int{1, 3} {
			opts := &Options{Workers: workers, ChunkBytes: 64, Ahead: ahead}
			next := 0
			seen := map[*Chunk]bool{}
			err := Run(context.Background(), opts, func() (int, bool, error) {
				next++
				return next - 1, next <= 16, nil
			}, func(ctx context.Context, i int, out *Out) error {
				for k := range 100 {
					c := out.Chunk()
					c.Data = binary.LittleEndian.AppendUint64(c.Data, uint64(i*1000+k))
					if !out.Record() {
						return ctx.Err()
					}
				}
				return nil
			}, func(i int, c *Chunk) error {
				seen[c] = true
				if len(seen)%3 == 0 {
					time.Sleep(50 * time.Microsecond)
				}
				return nil
			}, func(int, error) error { return nil })
			if err != nil {
				t.Fatal(err)
			}
			if limit := (workers+1)*ahead + workers + 1; len(seen) > limit {
				t.Errorf("%d workers, ahead %d: %d chunks in use, more than %d", workers, ahead, len(seen), limit)
			}
		}
	}
	// Tasks with an Ahead of their own: the bound with the deepest.
	for _, workers := range []int{1, 3} {
		next := 0
		seen := map[*Chunk]bool{}
		err := Run(context.Background(), &Options{Workers: workers, ChunkBytes: 64, Ahead: 1}, func() (deepTask, bool, error) {
			next++
			return deepTask(next - 1), next <= 16, nil
		}, func(ctx context.Context, i deepTask, out *Out) error {
			for k := range 100 {
				c := out.Chunk()
				c.Data = binary.LittleEndian.AppendUint64(c.Data, uint64(int(i)*1000+k))
				if !out.Record() {
					return ctx.Err()
				}
			}
			return nil
		}, func(i deepTask, c *Chunk) error {
			seen[c] = true
			if len(seen)%3 == 0 {
				time.Sleep(50 * time.Microsecond)
			}
			return nil
		}, func(deepTask, error) error { return nil })
		if err != nil {
			t.Fatal(err)
		}
		if limit := (workers+1)*5 + workers + 1; len(seen) > limit {
			t.Errorf("%d workers, tasks ahead up to 5: %d chunks in use, more than %d", workers, len(seen), limit)
		}
	}
	for _, workers := range []int{0, 1, 2, 4, 16, 64} {
		for _, memory := range []int64{0, 100 << 10, 1 << 20, 3 << 20, 40 << 20, 1 << 30} {
			chunk, ahead, task := Sizes(workers, memory)
			w := max(workers, 1)
			held := int64((w+1)*ahead+w+1) * int64(chunk)
			if chunk < 16<<10 || chunk > DefaultChunkBytes || ahead < 1 {
				t.Errorf("Sizes(%d, %d): chunks of %d, ahead %d", workers, memory, chunk, ahead)
			}
			// Within the memory given, unless that is less than the
			// least: two chunks of 16 KiB for each task.
			if least := int64(w+1) * 2 * 16 << 10; held > max(memory, least) {
				t.Errorf("Sizes(%d, %d): %d bytes of chunks held", workers, memory, held)
			}
			// Most of it used, where a task's share holds four chunks
			// of the sizes allowed.
			if share := memory / int64(w+1); share >= 4*16<<10 && share <= 4*DefaultChunkBytes && held < memory*3/4 {
				t.Errorf("Sizes(%d, %d): only %d bytes of chunks held", workers, memory, held)
			}
			if task != 2*int64(ahead+1)*int64(chunk) {
				t.Errorf("Sizes(%d, %d): tasks of %d, chunks of %d, ahead %d", workers, memory, task, chunk, ahead)
			}
		}
	}
}

// deepTask is a task that may hold 5 chunks waiting when it is even.
type deepTask int

func (d deepTask) Ahead() int { return 5 * (1 - int(d)%2) }

// deepPtr is a task whose Ahead cannot be asked of nil.
type deepPtr struct{ ahead int }

func (d *deepPtr) Ahead() int { return d.ahead }

// An error from next, with no task, ends the run with that error: the
// depth of a task is asked only of a task.
func TestRunNextErrorDeep(t *testing.T) {
	bad := errors.New("no part")
	n := 0
	err := Run(context.Background(), &Options{Workers: 2}, func() (*deepPtr, bool, error) {
		if n++; n > 3 {
			return nil, false, bad
		}
		return &deepPtr{ahead: n}, true, nil
	}, func(ctx context.Context, d *deepPtr, out *Out) error {
		c := out.Chunk()
		c.Data = append(c.Data, byte(d.ahead))
		out.Record()
		return nil
	}, func(*deepPtr, *Chunk) error { return nil }, func(*deepPtr, error) error { return nil })
	if err != bad {
		t.Fatalf("err = %v, want %v", err, bad)
	}
}
