#!/usr/bin/env bash
# startmem.sh: what linking a set of packages costs a process at start.
#
# For each probe below it builds a program that imports the probe's
# packages and does nothing else (prints one line), copies the binary
# (a binary just written by the Go linker maps more of itself when run
# than a copy), runs it RUNS times (default 3) under /usr/bin/time and
# prints the binary's size and the smallest peak resident set. Every
# linked package's init runs before main, and each init touches pages
# of the binary's code and read-only data (the kernel maps them in
# 64 KiB windows), so the peak of a program that does nothing is the
# start-up cost of what it links. The last line is `trevni version`.
#
# Usage: bench/startmem/startmem.sh [WORKDIR]   (default /tmp/startmem)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
work=${1:-/tmp/startmem}
RUNS=${RUNS:-3}
mkdir -p "$work"
probe=$(mktemp -d -p "$here" probe.XXXXXX)
trap 'rm -rf "$probe"' EXIT

core="github.com/trevni-go/trevni/format github.com/trevni-go/trevni/schema github.com/trevni-go/trevni/shred github.com/trevni-go/trevni/assemble"
aws="github.com/aws/aws-sdk-go-v2/service/s3 github.com/aws/aws-sdk-go-v2/config"
probes=(
	"nothing|"
	"core (format schema shred assemble)|$core"
	"goavro, protobuf, zstd|github.com/linkedin/goavro/v2 google.golang.org/protobuf/proto github.com/klauspost/compress/zstd"
	"AWS SDK: s3 and config|$aws"
	"gocloud.dev/blob|gocloud.dev/blob"
	"remote/objstore (all three stores)|github.com/trevni-go/trevni/remote/objstore"
	"arrow-go arrow/compute|github.com/apache/arrow-go/v18/arrow/compute"
	"arrow-go parquet/file|github.com/apache/arrow-go/v18/parquet/file"
	"arrow-go parquet/pqarrow|github.com/apache/arrow-go/v18/parquet/pqarrow"
	"core + pqarrow|$core github.com/apache/arrow-go/v18/parquet/pqarrow"
	"root package trevni|github.com/trevni-go/trevni"
)

# peak CMD...: the smallest peak resident set of RUNS runs, in KiB.
peak() {
	local best=
	for _ in $(seq "$RUNS"); do
		/usr/bin/time -f '%M' -o "$work/time.out" "$@" >/dev/null
		local m
		m=$(cat "$work/time.out")
		if [ -z "$best" ] || [ "$m" -lt "$best" ]; then best=$m; fi
	done
	echo "$best"
}

printf '%-40s %12s %12s\n' "linked" "binary MB" "start MiB"
for p in "${probes[@]}"; do
	label=${p%%|*}
	pkgs=${p#*|}
	{
		echo 'package main'
		echo 'import ('
		echo '	"fmt"'
		for q in $pkgs; do echo "	_ \"$q\""; done
		echo ')'
		echo 'func main() { fmt.Println("started") }'
	} >"$probe/main.go"
	(cd "$root" && go build -o "$work/probe.link" "./bench/startmem/$(basename "$probe")")
	cp "$work/probe.link" "$work/probe"
	m=$(peak "$work/probe")
	printf '%-40s %12.1f %12.1f\n' "$label" "$(echo "$(stat -c %s "$work/probe") / 1000000" | bc -l)" "$(echo "$m / 1024" | bc -l)"
done
(cd "$root" && go build -o "$work/trevni.link" ./cmd/trevni)
cp "$work/trevni.link" "$work/trevni"
m=$(peak "$work/trevni" version)
printf '%-40s %12.1f %12.1f\n' "trevni version" "$(echo "$(stat -c %s "$work/trevni") / 1000000" | bc -l)" "$(echo "$m / 1024" | bc -l)"
