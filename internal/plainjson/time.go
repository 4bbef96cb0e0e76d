package plainjson

import (
	"math"

	"github.com/trevni-go/trevni/schema"
)

// isTimestamp reports whether lt is a timestamp, written in plain JSON
// as a string always.
func isTimestamp(lt schema.LogicalType) bool {
	_, _, _, ok := timestampUnit(lt)
	return ok
}

// timestampUnit returns a timestamp's units per second, its fractional
// digits and whether it is in UTC.
func timestampUnit(lt schema.LogicalType) (perSecond int64, digits int, utc, ok bool) {
	switch lt {
	case schema.LogicalTimestampMillis:
		return 1_000, 3, true, true
	case schema.LogicalTimestampMicros:
		return 1_000_000, 6, true, true
	case schema.LogicalTimestampNanos:
		return 1_000_000_000, 9, true, true
	case schema.LogicalLocalTimestampMillis:
		return 1_000, 3, false, true
	case schema.LogicalLocalTimestampMicros:
		return 1_000_000, 6, false, true
	case schema.LogicalLocalTimestampNanos:
		return 1_000_000_000, 9, false, true
	}
	return 0, 0, false, false
}

// parseTime reads the string of a date (YYYY-MM-DD, in days since
// 1970-01-01), a time of day (HH:MM:SS with up to the unit's fractional
// digits) or a timestamp (an RFC 3339 date and time, or with a space for
// the T as DuckDB and SQL write it; in UTC, Z or an offset as +02:00,
// +0200 or +02; local, no zone) as the number of its logical type lt.
func parseTime(lt schema.LogicalType, s string) (int64, bool) {
	switch lt {
	case schema.LogicalDate:
		days, n, ok := parseDate(s)
		return days, ok && n == len(s)
	case schema.LogicalTimeMillis:
		v, n, ok := parseClock(s, 1_000, 3)
		return v, ok && n == len(s)
	case schema.LogicalTimeMicros:
		v, n, ok := parseClock(s, 1_000_000, 6)
		return v, ok && n == len(s)
	}
	perSecond, digits, utc, ok := timestampUnit(lt)
	if !ok {
		return 0, false
	}
	days, n, ok := parseDate(s)
	if !ok || n == len(s) || s[n] != 'T' && s[n] != 't' && s[n] != ' ' {
		return 0, false
	}
	s = s[n+1:]
	clock, n, ok := parseClock(s, perSecond, digits)
	if !ok {
		return 0, false
	}
	s = s[n:]
	var offset int64 // seconds east of UTC
	if utc {
		switch {
		case s == "Z" || s == "z":
		case len(s) >= 3 && (s[0] == '+' || s[0] == '-'):
			// +02:00, +0200 or +02, as ISO 8601 and DuckDB write them.
			var mm string
			switch {
			case len(s) == 6 && s[3] == ':':
				mm = s[4:6]
			case len(s) == 5:
				mm = s[3:5]
			case len(s) == 3:
				mm = "00"
			default:
				return 0, false
			}
			h, ok1 := num(s[1:3])
			m, ok2 := num(mm)
			if !ok1 || !ok2 || h > 23 || m > 59 {
				return 0, false
			}
			offset = h*3600 + m*60
			if s[0] == '-' {
				offset = -offset
			}
		default:
			return 0, false
		}
	} else if s != "" {
		return 0, false
	}
	perDay := 86_400 * perSecond
	var t int64
	if days >= 0 {
		if t, ok = mul(days, perDay); !ok {
			return 0, false
		}
		t, ok = add(t, clock)
	} else {
		// (days+1)·perDay + clock - perDay stays in range down to MinInt64.
		if t, ok = mul(days+1, perDay); !ok {
			return 0, false
		}
		t, ok = add(t, clock-perDay)
	}
	if !ok {
		return 0, false
	}
	return add(t, -offset*perSecond)
}

// parseDate reads YYYY-MM-DD at the start of s (a year beyond 9999 with a
// plus sign, one before 0 with a minus sign), returning the days since
// 1970-01-01 and the length read.
func parseDate(s string) (days int64, n int, ok bool) {
	neg := false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg = s[0] == '-'
		n = 1
	}
	start := n
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	if n-start < 4 || n-start > 9 || n+6 > len(s) || s[n] != '-' || s[n+3] != '-' {
		return 0, 0, false
	}
	y, _ := num(s[start:n])
	if neg {
		y = -y
	}
	m, ok1 := num(s[n+1 : n+3])
	d, ok2 := num(s[n+4 : n+6])
	if !ok1 || !ok2 || m < 1 || m > 12 || d < 1 || d > monthDays(y, m) {
		return 0, 0, false
	}
	return civilDays(y, m, d), n + 6, true
}

func monthDays(y, m int64) int64 {
	switch m {
	case 2:
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// civilDays returns the days from 1970-01-01 to y-m-d in the proleptic
// Gregorian calendar, counting in eras of 400 years from 0000-03-01.
func civilDays(y, m, d int64) int64 {
	if m <= 2 {
		y--
	}
	era := y / 400
	if y < 0 && y%400 != 0 {
		era--
	}
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146_097 + doe - 719_468
}

// parseClock reads HH:MM:SS, and a point and up to digits fractional
// digits, at the start of s, in units of 1/perSecond second.
func parseClock(s string, perSecond int64, digits int) (v int64, n int, ok bool) {
	if len(s) < 8 || s[2] != ':' || s[5] != ':' {
		return 0, 0, false
	}
	h, ok1 := num(s[0:2])
	m, ok2 := num(s[3:5])
	sec, ok3 := num(s[6:8])
	if !ok1 || !ok2 || !ok3 || h > 23 || m > 59 || sec > 59 {
		return 0, 0, false
	}
	v = (h*3600 + m*60 + sec) * perSecond
	n = 8
	if n < len(s) && s[n] == '.' {
		n++
		unit := perSecond
		start := n
		for n < len(s) && s[n] >= '0' && s[n] <= '9' {
			if n-start >= digits {
				return 0, 0, false // finer than the type holds
			}
			unit /= 10
			v += int64(s[n]-'0') * unit
			n++
		}
		if n == start {
			return 0, 0, false
		}
	}
	return v, n, true
}

// num reads a string of decimal digits (at most 18).
func num(s string) (int64, bool) {
	if s == "" || len(s) > 18 {
		return 0, false
	}
	var v int64
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		v = v*10 + int64(s[i]-'0')
	}
	return v, true
}

func mul(a, b int64) (int64, bool) {
	p := a * b
	if a != 0 && (p/b != a || b == -1 && a == math.MinInt64) {
		return 0, false
	}
	return p, true
}

func add(a, b int64) (int64, bool) {
	if b > 0 && a > math.MaxInt64-b || b < 0 && a < math.MinInt64-b {
		return 0, false
	}
	return a + b, true
}
