#!/usr/bin/env bash
# scanpath.sh OLD.duckdb_extension NEW.duckdb_extension [ROUNDS]: the CPU
# and wall time of scancpu.mjs's queries over 1,000,000 vec.Large records
# (WORK/large.trv, as duckext.sh makes it) with two builds of the
# extension, run alternately ROUNDS (3) times each, one Node process a
# run; prints each run's lines (query, CPU s, wall s, result) prefixed
# with old/new, for the least of each to be compared.
set -euo pipefail
old=$1 new=$2 rounds=${3:-3}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
work=${WORK:-/tmp/trevni-duckext-bench}
node=${TREVNI_DUCKDB_NODE:-$root/.ci/node}
cp "$here/scancpu.mjs" "$node/trevni-scancpu-bench.mjs"
trap 'rm -f "$node/trevni-scancpu-bench.mjs"' EXIT
for _ in $(seq "$rounds"); do
	for side in old new; do
		ext=$old
		[ "$side" = new ] && ext=$new
		node "$node/trevni-scancpu-bench.mjs" "$ext" "$work" | sed "s/^/$side\t/"
	done
done
