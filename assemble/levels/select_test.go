package levels

import (
	"io"
	"math/rand/v2"
	"slices"
	"testing"
)

// rowMatches yields the rows of match that are true, from row next on.
type rowMatches struct {
	match []bool
	next  int64
	calls int
}

func (m *rowMatches) NextMatch() (int64, error) {
	m.calls++
	for ; m.next < int64(len(m.match)); m.next++ {
		if m.match[m.next] {
			m.next++
			return m.next - 1, nil
		}
	}
	return 0, io.EOF
}

// runMatches yields them in runs of consecutive matches, each cut at a
// random length, as a filter's proven blocks and evaluated runs are.
type runMatches struct {
	rowMatches
	r *rand.Rand
}

func (m *runMatches) NextMatches(most int64) (int64, int64, error) {
	if most < 1 {
		panic("NextMatches asked for no row")
	}
	first, err := m.NextMatch()
	if err != nil {
		return 0, 0, err
	}
	cut := 1 + m.r.Int64N(5000)
	for m.next < int64(len(m.match)) && m.match[m.next] && m.next-first < min(most, cut) {
		m.next++
	}
	return first, m.next - first, nil
}

// selected runs a Selector to its end and returns the rows its segments
// keep, checking each group against most.
func selected(t *testing.T, s *Selector, r *rand.Rand) []int64 {
	t.Helper()
	var rows []int64
	for {
		most := 1 + r.Int64N(20000)
		segs, n, err := s.Group(most)
		if err != nil {
			t.Fatal(err)
		}
		if len(segs) == 0 {
			return rows
		}
		kept := int64(0)
		for i, sg := range segs {
			if sg.N <= 0 || sg.Keep != nil && int64(len(sg.Keep)) != sg.N || i > 0 && sg.First < segs[i-1].First+segs[i-1].N {
				t.Fatalf("bad segments %+v", segs)
			}
			for k := range sg.N {
				if sg.Keep == nil || sg.Keep[k] {
					rows = append(rows, sg.First+k)
					kept++
				}
			}
		}
		if kept != n || n > most {
			t.Fatalf("a group of %d rows (most %d) keeps %d", n, most, kept)
		}
	}
}

// A Selector keeps exactly the filter's matches, within its limit, whether
// the filter yields them one by one or in runs (MatchRuns), and asks for
// fewer matches with runs where they come in runs.
func TestSelectorRuns(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var callsRows, callsRuns int
	for trial := range 40 {
		n := 1 + r.IntN(50000)
		match := make([]bool, n)
		p := r.Float64()
		for i := 0; i < n; {
			// Stretches of all matches, of none, and of some.
			k := min(n-i, 1+r.IntN(3000))
			kind := r.IntN(3)
			for j := i; j < i+k; j++ {
				match[j] = kind == 0 || kind == 2 && r.Float64() < p
			}
			i += k
		}
		limit := int64(-1)
		if trial%3 == 0 {
			limit = r.Int64N(int64(n))
		}
		var want []int64
		for i, m := range match {
			if m && (limit < 0 || int64(len(want)) < limit) {
				want = append(want, int64(i))
			}
		}
		rows := &rowMatches{match: match}
		runs := &runMatches{rowMatches: rowMatches{match: match}, r: rand.New(rand.NewPCG(uint64(trial), 3))}
		for _, m := range []Matches{rows, runs} {
			got := selected(t, NewSelector(0, int64(n), limit, m), r)
			if !slices.Equal(got, want) {
				t.Fatalf("trial %d (%T): %d rows selected, want %d", trial, m, len(got), len(want))
			}
		}
		callsRows += rows.calls
		callsRuns += runs.calls
	}
	if callsRuns*2 > callsRows {
		t.Errorf("%d calls with runs, %d without: the runs are not used", callsRuns, callsRows)
	}
	// A run longer than a group's span waits for the next group.
	match := make([]bool, 3*maxSpan)
	for i := range match {
		match[i] = true
	}
	m := &runMatches{rowMatches: rowMatches{match: match}, r: rand.New(rand.NewPCG(5, 5))}
	s := NewSelector(0, int64(len(match)), -1, &bigRuns{m})
	total := int64(0)
	for {
		segs, n, err := s.Group(4 * maxSpan)
		if err != nil {
			t.Fatal(err)
		}
		if len(segs) == 0 {
			break
		}
		if len(segs) != 1 || segs[0].First != total || segs[0].N != n || n > maxSpan {
			t.Fatalf("group %+v of %d after %d rows", segs, n, total)
		}
		total += n
	}
	if total != int64(len(match)) {
		t.Fatalf("%d rows selected of %d", total, len(match))
	}
}

// bigRuns yields each run whole, as long as asked.
type bigRuns struct{ *runMatches }

func (b *bigRuns) NextMatches(most int64) (int64, int64, error) {
	first, err := b.NextMatch()
	if err != nil {
		return 0, 0, err
	}
	for b.next < int64(len(b.match)) && b.match[b.next] && b.next-first < most {
		b.next++
	}
	return first, b.next - first, nil
}
