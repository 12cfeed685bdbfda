#!/usr/bin/env bash
# load_compare.sh: the engine (pkg/load, via bench/load_attack) next to hey
# and wrk against the same target, interleaved so that a noisy machine hits
# each tool alike. Reports req/s and client CPU per request (user+sys), which
# is the fairer number when the target shares the machine.
#
#   bench/load_compare.sh [URL] [SECONDS] [CONCURRENCY] [ROUNDS]
#
# URL defaults to an http-echo on 127.0.0.1:5678 (start one with
# `http-echo -listen 127.0.0.1:5678 -text hello`). hey and wrk are optional.
set -euo pipefail
URL=${1:-http://127.0.0.1:5678/}
SECS=${2:-10}
C=${3:-50}
ROUNDS=${4:-2}
case $URL in http://127.*|http://localhost*) ;; *) echo "only 127.0.0.0/8 targets" >&2; exit 2 ;; esac
cd "$(dirname "$0")/.."
BIN=$(mktemp -d)/load_attack
trap 'rm -rf "$(dirname "$BIN")"' EXIT
go build -o "$BIN" ./bench/load_attack

row() { # name requests cpu-seconds
  awk -v n="$1" -v r="$2" -v c="$3" -v s="$SECS" \
    'BEGIN { printf "%-14s %9.0f req/s %10d requests  cpu %6.2fs  %7.2f µs/request\n", n, r/s, r, c, (r > 0 ? 1e6*c/r : 0) }'
}
timed() { /usr/bin/time -f "TIME %U %S" "$@" 2>&1; }
cpu() { awk '/^TIME/ { print $2 + $3 }'; }

for _ in $(seq "$ROUNDS"); do
  if command -v hey >/dev/null; then
    out=$(timed hey -z "${SECS}s" -c "$C" "$URL")
    row hey "$(awk '/responses$/ { n += $2 } END { print n + 0 }' <<<"$out")" "$(cpu <<<"$out")"
  fi
  out=$(timed "$BIN" -url "$URL" -z "${SECS}s" -c "$C")
  row authbench "$(awk '/^requests/ { print $2 }' <<<"$out")" "$(cpu <<<"$out")"
  out=$(timed "$BIN" -std -url "$URL" -z "${SECS}s" -c "$C")
  row authbench-std "$(awk '/^requests/ { print $2 }' <<<"$out")" "$(cpu <<<"$out")"
  if command -v wrk >/dev/null; then
    out=$(timed wrk -t2 -c"$C" -d"${SECS}s" "$URL")
    row wrk "$(awk '/requests in/ { print $1 }' <<<"$out")" "$(cpu <<<"$out")"
  fi
done
