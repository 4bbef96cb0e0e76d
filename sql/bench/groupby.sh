#!/usr/bin/env bash
# groupby.sh [N]: the GROUP BY of issue 25 over N (default 1000000) vec.Large
# records, read by trevni-sql from a Trevni file (snappy) and by DuckDB's own
# Parquet reader from a Parquet file of the same records (trevni toparquet,
# snappy), side by side in one run: the two alternate, 3 runs each, and the
# best wall time of each is kept. Run with DuckDB's default threads, then
# with SET threads=1. Inputs go to ${WORK:-/tmp/trevni-sql-bench}.
set -euo pipefail
N=${1:-1000000}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
work=${WORK:-/tmp/trevni-sql-bench}
mkdir -p "$work/bin"
(cd "$root" && go build -o "$work/bin/" ./cmd/trevni ./bench/peerbench/genlarge)
(cd "$root/sql" && go build -o "$work/bin/" ./cmd/trevni-sql)
B=$work/bin
if [ ! -s "$work/large.trv" ] || [ "$(cat "$work/large.n" 2>/dev/null)" != "$N" ]; then
	"$B/genlarge" "$N" "$work/large.avro"
	"$B/trevni" fromavro --quiet --force --codec snappy "$work/large.avro" "$work/large.trv"
	"$B/trevni" toparquet --quiet --force "$work/large.trv" "$work/large.parquet"
	echo "$N" >"$work/large.n"
fi
query() { echo "$1SELECT small % 100 AS k, count(*) AS n, sum(score) AS s, max(id) AS m FROM '$2' GROUP BY k ORDER BY k"; }
timed() { # timed LABEL CMD...: runs CMD, its output to out.LABEL, and prints its wall time in seconds
	local label=$1
	shift
	/usr/bin/time -f %e -o "$work/t" "$@" >"$work/out.$label" && cat "$work/t"
}
for setting in "" "SET threads=1; "; do
	declare -A min=()
	for run in 1 2 3; do
		for f in large.trv large.parquet; do
			t=$(timed "$f" "$B/trevni-sql" --format csv "$(query "$setting" "$work/$f")")
			if [ -z "${min[$f]:-}" ] || [ "$(echo "$t < ${min[$f]}" | bc)" = 1 ]; then min[$f]=$t; fi
		done
	done
	cmp -s "$work/out.large.trv" "$work/out.large.parquet" || echo "note: the two results differ in their text (float sums in another order?)" >&2
	printf '%-18s trevni %6.2fs  parquet %6.2fs  ratio %.2f\n' "${setting:-default threads}" "${min[large.trv]}" "${min[large.parquet]}" "$(echo "${min[large.trv]} / ${min[large.parquet]}" | bc -l)"
	unset min
done
# With CACHEGRIND=1, the instructions each side runs on one thread
# (valgrind's cachegrind, GOMAXPROCS=1 GOGC=off), and those of "SELECT 1"
# (the start-up both include): deterministic where wall times are not.
if [ "${CACHEGRIND:-}" = 1 ]; then
	for f in large.trv large.parquet ""; do
		q="SET threads=1; SELECT 1"
		[ -n "$f" ] && q=$(query "SET threads=1; " "$work/$f")
		GOMAXPROCS=1 GOGC=off valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null \
			"$B/trevni-sql" --format csv "$q" 2>&1 >/dev/null | sed -n "s/.*I *refs: *\([0-9,]*\).*/${f:-start-up} \1 instructions/p"
	done
fi
