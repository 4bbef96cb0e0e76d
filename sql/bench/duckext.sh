#!/usr/bin/env bash
# duckext.sh [N]: the speed of the DuckDB extension (docs/duckdb.md) over
# N (default 1000000) vec.Large records: a GROUP BY and a filtered
# aggregate over read_trevni (a Trevni file, snappy) and over DuckDB's own
# read_parquet (trevni toparquet of the same records, snappy), in DuckDB's
# Node package (.ci/node), with 1, 2 and all threads; the best of 5
# alternating runs of each. Then COPY (FROM 'x.parquet') TO 'x.trv'
# (FORMAT trevni, CODEC 'snappy'; DuckDB's default threads) against trevni
# fromparquet --codec snappy of the same file, alternating, the least of
# 5 each. Inputs go to ${WORK:-/tmp/trevni-duckext-bench}.
set -euo pipefail
N=${1:-1000000}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
work=${WORK:-/tmp/trevni-duckext-bench}
mkdir -p "$work/bin"
(cd "$root" && go build -o "$work/bin/" ./cmd/trevni ./bench/peerbench/genlarge)
(cd "$root/sql" && GOWORK=off go run ./duckdbext/build -o "$work/trevni.duckdb_extension")
B=$work/bin
if [ ! -s "$work/large.trv" ] || [ "$(cat "$work/large.n" 2>/dev/null)" != "$N" ]; then
	"$B/genlarge" "$N" "$work/large.avro"
	"$B/trevni" fromavro --quiet --force --codec snappy "$work/large.avro" "$work/large.trv"
	"$B/trevni" toparquet --quiet --force "$work/large.trv" "$work/large.parquet"
	echo "$N" >"$work/large.n"
fi
node=${TREVNI_DUCKDB_NODE:-$root/.ci/node}
cp "$here/duckext.mjs" "$node/trevni-duckext-bench.mjs"
cp "$here/copyto.mjs" "$node/trevni-copyto-bench.mjs"
trap 'rm -f "$node/trevni-duckext-bench.mjs" "$node/trevni-copyto-bench.mjs"' EXIT
node "$node/trevni-duckext-bench.mjs" "$work/trevni.duckdb_extension" "$work"
# The COPY in a Node process of its own (copyto.mjs: wall and CPU seconds
# of the COPY alone, and its busiest thread's CPU seconds), alternating
# with trevni fromparquet (wall, and user plus system CPU, of the whole
# command), 5 rounds; the least of each.
least() { if [ -z "$1" ] || [ "$(echo "$2 < $1" | bc)" = 1 ]; then echo "$2"; else echo "$1"; fi; }
cw= cc= cb= fw= fc=
for _ in 1 2 3 4 5; do
	read -r w c b < <(node "$node/trevni-copyto-bench.mjs" "$work/trevni.duckdb_extension" "$work")
	cw=$(least "$cw" "$w") cc=$(least "$cc" "$c") cb=$(least "$cb" "$b")
	/usr/bin/time -f '%e %U %S' -o "$work/t" "$B/trevni" fromparquet --quiet --force --codec snappy "$work/large.parquet" "$work/fromparquet.trv"
	read -r w u s <"$work/t"
	fw=$(least "$fw" "$w") fc=$(least "$fc" "$(echo "$u + $s" | bc)")
done
printf 'COPY TO trv          %.3fs (CPU %.3fs, busiest thread %.2fs)\n' "$cw" "$cc" "$cb"
printf 'trevni fromparquet   %.3fs (CPU %.3fs)  wall ratio %.2f\n' "$fw" "$fc" "$(echo "$cw / $fw" | bc -l)"
