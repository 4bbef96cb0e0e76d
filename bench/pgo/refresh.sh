#!/usr/bin/env bash
# refresh.sh: remakes cmd/trevni/default.pgo, the CPU profile that `go build`
# uses for profile-guided optimization of the trevni command (Go's -pgo=auto:
# hot calls are inlined and devirtualized beyond the usual budget).
#
# It builds the command without a profile, runs the conversions that matter
# most on generated data (Avro container to Trevni with the default codec and
# with snappy; Trevni to Avro, to JSON, with a field selection and a filter;
# a multi-schema random file) under TREVNI_CPUPROFILE, each REPEAT times,
# and merges the profiles. Rerun it after changing a hot path; commit the
# result.
#
# Usage: bench/pgo/refresh.sh [WORKDIR]   (default: a new temporary directory)
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
work=${1:-$(mktemp -d)}
mkdir -p "$work"
cd "$root"
go build -pgo=off -o "$work/trevni" ./cmd/trevni
go build -o "$work/genlarge" ./bench/peerbench/genlarge
T="$work/trevni"

"$work/genlarge" 1000000 "$work/large.avro"
n=0
# Each conversion runs REPEAT times (default 4): a run of a fraction of a
# second gives only tens of samples at the profiler's 100 Hz, too few for
# the compiler's choice of hot calls to come out the same from one refresh
# to the next.
REPEAT=${REPEAT:-4}
prof() {
	for _ in $(seq "$REPEAT"); do
		n=$((n + 1))
		TREVNI_CPUPROFILE="$work/p$n.pprof" "$T" "$@" >/dev/null
	done
}
prof fromavro --quiet --force --codec snappy "$work/large.avro" "$work/large.trv"
prof fromavro --quiet --force "$work/large.avro" "$work/large-deflate.trv"
prof fromavro --quiet --force "$root/testdata/interop/medium/input.avro" "$work/medium.trv"
prof toavro --quiet --force --codec snappy "$work/large.trv" "$work/back.avro"
prof tojson --quiet --force "$work/large.trv" "$work/large.jsonl"
prof tojson --quiet --force --fields id,name "$work/large.trv" "$work/two.jsonl"
prof tojson --quiet --force --where 'small > 100' "$work/large.trv" "$work/where.jsonl"
prof tojson --quiet --force "$work/medium.trv" "$work/medium.jsonl"
prof random --quiet --force "$root/testdata/interop/maps/schema.avsc" 50000 "$work/maps.trv"
prof toavro --quiet --force "$work/maps.trv" "$work/maps.avro"

go tool pprof -proto "$work"/p*.pprof >"$root/cmd/trevni/default.pgo"
echo "wrote cmd/trevni/default.pgo from $n runs ($(wc -c <"$root/cmd/trevni/default.pgo") bytes)" >&2
