#!/usr/bin/env bash
# peerbench.sh: the side-by-side comparison of issue 15 with the peer
# programs of ../shared/peerbench (parquet-go, hamba/avro, arrow-go).
#
# It builds the peers (go build in their module; the Go module proxy must be
# reachable) and our side (trevni, genlarge, structread), writes N vec.Large
# records (default 1,000,000) as a snappy Avro container, then times each job
# best of RUNS (default 3) whole-process runs with /usr/bin/time, ours and the
# peer's alternately, and prints
# one table: wall seconds, user+system CPU seconds, peak resident memory and
# records per second (from the wall time). The machine is shared: compare CPU
# seconds as well as wall time, and rerun when the load is high.
#
# Usage: bench/peerbench/peerbench.sh [PEERDIR] [WORKDIR]
#   PEERDIR  the peers' module (default /work/shared/peerbench)
#   WORKDIR  where binaries and data go (default /tmp/peerbench)
#   env N=records RUNS=runs JAVA_CMD='...' (optional Java trevni-avro
#   command lines are not run by this script)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
peerdir=${1:-/work/shared/peerbench}
work=${2:-/tmp/peerbench}
N=${N:-1000000}
RUNS=${RUNS:-3}
mkdir -p "$work/bin"

echo "building the peers in $peerdir" >&2
(cd "$peerdir" && go build -o "$work/bin/" ./cmd/avro2pq-parquetgo-struct ./cmd/pq2avro-parquetgo-struct ./cmd/pqproject-parquetgo)
echo "building our side in $root" >&2
(cd "$root" && go build -o "$work/bin/" ./cmd/trevni ./bench/peerbench/genlarge ./bench/peerbench/structread)
B=$work/bin
# A binary just written by the Go linker (through mmap) maps about 17 MB
# more of itself when run than a copy of it written with write(2), which
# inflates peak memory by the way the file was made; every binary, ours
# and the peers', is measured as such a copy.
for f in "$B"/*; do
	cp "$f" "$f.copy" && mv "$f.copy" "$f"
done

if [ ! -s "$work/large.avro" ] || [ "$(cat "$work/large.n" 2>/dev/null)" != "$N" ]; then
	echo "writing $N records to $work/large.avro" >&2
	"$B/genlarge" "$N" "$work/large.avro"
	echo "$N" >"$work/large.n"
fi
# Inputs of the read jobs (made once, untimed).
"$B/trevni" fromavro --quiet --force --codec snappy "$work/large.avro" "$work/large.trv"
"$B/avro2pq-parquetgo-struct" "$work/large.avro" "$work/large.parquet" >/dev/null

# once LABEL CMD...: runs CMD once and keeps, for LABEL, the best wall time
# with its CPU time, and the smallest peak memory.
declare -A wall cpu mem
once() {
	local label=$1
	shift
	/usr/bin/time -f '%e %U %S %M' -o "$work/time.out" "$@" >"$work/stdout.out"
	read -r e u s m <"$work/time.out"
	local c
	c=$(printf "%.2f" "$(echo "$u + $s" | bc)")
	if [ -z "${wall[$label]:-}" ] || [ "$(echo "$e < ${wall[$label]}" | bc)" = 1 ]; then
		wall[$label]=$e cpu[$label]=$c
	fi
	if [ -z "${mem[$label]:-}" ] || [ "$m" -lt "${mem[$label]}" ]; then mem[$label]=$m; fi
}

# pair JOB OURS-CMD -- PEER-CMD: runs the two RUNS times, alternately, so
# that a change in the machine's speed during the run touches both alike.
pair() {
	local job=$1
	shift
	local ours=() peer=()
	while [ "$1" != "--" ]; do
		ours+=("$1")
		shift
	done
	shift
	peer=("$@")
	for _ in $(seq "$RUNS"); do
		once "ours-$job" "${ours[@]}"
		cp "$work/stdout.out" "$work/ours.out"
		once "peer-$job" "${peer[@]}"
	done
	echo "$job: ours ${wall[ours-$job]} s wall, ${cpu[ours-$job]} s CPU, ${mem[ours-$job]} KiB; peer ${wall[peer-$job]} s wall, ${cpu[peer-$job]} s CPU, ${mem[peer-$job]} KiB" >&2
}

pair fromavro "$B/trevni" fromavro --quiet --force --codec snappy "$work/large.avro" "$work/out.trv" -- \
	"$B/avro2pq-parquetgo-struct" "$work/large.avro" "$work/out.parquet"
pair toavro "$B/trevni" toavro --quiet --force --codec snappy "$work/large.trv" "$work/out.avro" -- \
	"$B/pq2avro-parquetgo-struct" "$work/large.parquet" "$work/out2.avro"
pair toparquet "$B/trevni" toparquet --quiet --force "$work/large.trv" "$work/out3.parquet" -- \
	"$B/avro2pq-parquetgo-struct" "$work/large.avro" "$work/out4.parquet"
pair read2 "$B/structread" "$work/large.trv" -- "$B/pqproject-parquetgo" "$work/large.parquet"
ours2=$(cat "$work/ours.out")
peer2=$(cat "$work/stdout.out")
if [ "$ours2" != "$peer2" ]; then
	echo "the two-field reads disagree: ours '$ours2', peer '$peer2'" >&2
	exit 1
fi

cell() {
	local l=$1
	local rps
	rps=$(echo "$N / ${wall[$l]}" | bc)
	printf '%s s wall, %s s CPU, %d MiB, %s rec/s' "${wall[$l]}" "${cpu[$l]}" $(((${mem[$l]} + 1023) / 1024)) "$(printf "%'d" "$rps" 2>/dev/null || echo "$rps")"
}
echo
echo "$N records of vec.Large, $(stat -c %s "$work/large.avro") bytes of snappy Avro; best of $RUNS; $(date -u '+%Y-%m-%d %H:%M UTC'); $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo
ratio() { printf '%.2fx' "$(echo "${wall[peer-$1]} / ${wall[ours-$1]}" | bc -l)"; }
echo "| job | ours | fastest Go peer (parquet-go with compiled structs) | ours vs the peer (wall) |"
echo "|---|---|---|---|"
echo "| Avro container -> column file (snappy) | $(cell ours-fromavro) | $(cell peer-fromavro) | $(ratio fromavro) |"
echo "| column file -> Avro container (snappy) | $(cell ours-toavro) | $(cell peer-toavro) | $(ratio toavro) |"
echo "| column file -> Parquet (snappy) | $(cell ours-toparquet) | $(cell peer-toparquet) | $(ratio toparquet) |"
echo "| read 2 of 8 fields into a struct | $(cell ours-read2) | $(cell peer-read2) | $(ratio read2) |"
