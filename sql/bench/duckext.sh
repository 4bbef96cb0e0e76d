#!/usr/bin/env bash
# duckext.sh [N]: the speed of the DuckDB extension (docs/duckdb.md) over
# N (default 1000000) vec.Large records: a GROUP BY and a filtered
# aggregate over read_trevni (a Trevni file, snappy) and over DuckDB's own
# read_parquet (trevni toparquet of the same records, snappy), in DuckDB's
# Node package (.ci/node), with 1, 2 and all threads; the best of 5
# alternating runs of each. Then COPY (FROM 'x.parquet') TO 'x.trv'
# (FORMAT trevni, CODEC 'snappy') against trevni fromparquet --codec
# snappy of the same file, the best of 3 each. Inputs go to ${WORK:-/tmp/trevni-duckext-bench}.
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
trap 'rm -f "$node/trevni-duckext-bench.mjs"' EXIT
node "$node/trevni-duckext-bench.mjs" "$work/trevni.duckdb_extension" "$work"
best=
for _ in 1 2 3; do
	s=$(date +%s.%N)
	"$B/trevni" fromparquet --quiet --force --codec snappy "$work/large.parquet" "$work/fromparquet.trv"
	t=$(echo "$(date +%s.%N) - $s" | bc)
	if [ -z "$best" ] || [ "$(echo "$t < $best" | bc)" = 1 ]; then best=$t; fi
done
printf 'trevni fromparquet  %.3fs\n' "$best"
