#!/usr/bin/env bash
# fresh.sh: what the README's two commands cost on a machine whose Go caches
# are empty (docs/fresh-machine.md gives the figures it printed).
#
# Each step runs with a module cache and a build cache of its own in a new
# temporary directory (GOMODCACHE, GOCACHE; GOFLAGS=-modcacherw so that they
# can be removed), and prints the CPU it took (user and system seconds from
# /usr/bin/time, children included), its wall time, and what it left: the
# megabytes downloaded from the module proxy (the module cache's
# cache/download: zips, go.mod files), the megabytes unpacked beside them, and
# the size of the build cache. Steps:
#
#   run   go run ./cmd/trevni fromavro testdata/interop/email/input.avro OUT
#         (the README's first command), both caches empty
#   test  the README's test line, both caches empty; RUN='^$' (the default)
#         builds and vets every test binary without running a test, which is
#         the part an empty cache adds to a run of the tests (RUN=. runs them)
#   pgo   the command built from an empty build cache without its profile
#         (-pgo=off), then with it (-pgo=auto, cmd/trevni/default.pgo) in the
#         same cache: the second build is what the profile costs on top of a
#         build without it (go test compiles the command's packages both ways)
#         and what `go run` pays for it; then the instructions the README's
#         command takes with each binary (cachegrind, if valgrind is there)
#   nopgo the pgo step's first build alone: the command from an empty build
#         cache without its profile
#   sql   trevni-sql (the sql module, GOWORK=off) from an empty build cache,
#         and the binary's size
#   variants
#         the README's go run of three variants of the command, each with
#         a module cache and a build cache of its own, both empty: without
#         the object stores (cmd/trevni/stores.go, which imports the
#         drivers, replaced by an empty file through go run -overlay),
#         without Parquet and Arrow (arrowcmd.go replaced by a stub that
#         adds no command), and without both: what each costs a fresh
#         machine (docs/fresh-machine.md)
#
# Usage: bench/fresh/fresh.sh STEP...   (default: run test pgo sql)
# Steps after `run` share one module cache (downloads are reported by `run`
# and, for what the tests and sql add, by their steps). Run it on a quiet
# machine: CPU seconds hold under load, wall times do not.
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
work=$(mktemp -d)
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT
export GOMODCACHE="$work/mod" GOFLAGS="-modcacherw -buildvcs=false" GOTOOLCHAIN=local
export GOPROXY="${GOPROXY:-https://proxy.golang.org,direct}"

mb() { if [ -e "$1" ]; then du -sm "$1" | cut -f1; else echo 0; fi; }

# measure NAME CMD...: runs CMD with an empty build cache and prints a line
# of figures.
measure() {
	local name=$1
	shift
	export GOCACHE="$work/cache-$name"
	local before
	before=$(mb "$GOMODCACHE/cache/download")
	/usr/bin/time -f '%U %S %e' -o "$work/time" "$@"
	read -r user sys wall <"$work/time"
	local dl unpacked
	dl=$(mb "$GOMODCACHE/cache/download")
	unpacked=$(($(mb "$GOMODCACHE") - dl))
	printf '%-10s CPU %6.1f s (user %.1f, sys %.1f), wall %6.1f s; downloads %d MB (+%d), unpacked %d MB, %d zips; build cache %d MB\n' \
		"$name" "$(echo "$user + $sys" | bc)" "$user" "$sys" "$wall" "$dl" $((dl - before)) "$unpacked" \
		"$(find "$GOMODCACHE/cache/download" -name '*.zip' 2>/dev/null | wc -l)" "$(mb "$GOCACHE")"
}

instructions() {
	GOMAXPROCS=1 GOGC=off GODEBUG=cpu.rdtscp=off valgrind --tool=cachegrind --cache-sim=no \
		--cachegrind-out-file=/dev/null "$@" 2>&1 >/dev/null | sed -n 's/.*I *refs: *//p'
}

steps=("$@")
[ ${#steps[@]} -gt 0 ] || steps=(run test pgo sql)
for step in "${steps[@]}"; do
	case $step in
	run)
		measure run go run ./cmd/trevni fromavro testdata/interop/email/input.avro "$work/email.trv"
		;;
	test)
		# The tests' output is dropped inside the measured command, not
		# around measure, whose line of figures goes to standard output.
		measure test bash -c 'go test -run "$1" ./... ./cmd/trevni/... ./stores/... ./tests/... >/dev/null' _ "${RUN:-^\$}"
		;;
	pgo | nopgo)
		# The modules first, so that the builds time compiling only.
		GOCACHE="$work/cache-list" go list -deps ./cmd/trevni >/dev/null
		measure pgo go build -pgo=off -o "$work/trevni-nopgo" ./cmd/trevni
		[ "$step" = pgo ] || continue
		measure pgo+auto go build -pgo=auto -o "$work/trevni-pgo" ./cmd/trevni
		if command -v valgrind >/dev/null; then
			for b in nopgo pgo; do
				echo "instructions of the README's fromavro, $b: $(instructions "$work/trevni-$b" fromavro --force \
					testdata/interop/email/input.avro "$work/email-$b.trv")"
			done
		fi
		;;
	sql)
		(cd sql && export GOWORK=off && measure sql go build -o "$work/trevni-sql" ./cmd/trevni-sql)
		echo "trevni-sql: $(($(stat -c %s "$work/trevni-sql") / 1000000)) MB"
		;;
	variants)
		printf 'package main\n' >"$work/nostores.go"
		printf 'package main\n\nfunc arrowCommands() []*command { return nil }\n' >"$work/noarrow.go"
		stores="\"$root/cmd/trevni/stores.go\":\"$work/nostores.go\""
		arrow="\"$root/cmd/trevni/arrowcmd.go\":\"$work/noarrow.go\""
		echo "{\"Replace\":{$stores}}" >"$work/nostores.json"
		echo "{\"Replace\":{$arrow}}" >"$work/noarrow.json"
		echo "{\"Replace\":{$stores,$arrow}}" >"$work/lean.json"
		for v in nostores noarrow lean; do
			GOMODCACHE="$work/mod-$v" measure "$v" go run -overlay "$work/$v.json" ./cmd/trevni fromavro \
				testdata/interop/email/input.avro "$work/email-$v.trv"
		done
		;;
	*)
		echo "fresh.sh: unknown step $step (run, test, pgo, nopgo, sql, variants)" >&2
		exit 2
		;;
	esac
done
