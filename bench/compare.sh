#!/usr/bin/env bash
# compare.sh: authbench, hey and wrk against the same http-echo, in one run,
# interleaved so that a noisy machine hits each tool alike. For each tool it
# prints requests/s and client CPU seconds per 100k requests, then the ratios.
# The client and the server share this machine's cores, so CPU per request is
# the fairer figure; req/s is what users compare.
#
#   bench/compare.sh [SECONDS] [CONCURRENCY] [ROUNDS]      (make bench)
set -euo pipefail
SECS=${1:-10}
C=${2:-50}
ROUNDS=${3:-2}
cd "$(dirname "$0")/.."
make -s build
bin/authbench lab install --only apt,http-echo >&2
ECHO=$(ls "${AUTHBENCH_CACHE:-$HOME/.cache/authbench}"/tools/http-echo-v1.0.0/bin/http-echo)
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$ECHO" -listen "127.0.0.1:$PORT" -text hello >/dev/null 2>&1 &
ECHO_PID=$!
OUT=$(mktemp -d)
trap 'kill $ECHO_PID 2>/dev/null; rm -rf "$OUT"' EXIT
URL="http://127.0.0.1:$PORT/"
for _ in $(seq 50); do curl -fsS -o /dev/null "$URL" 2>/dev/null && break; sleep 0.1; done

TIMEFORMAT='CPU %U %S'
measure() { # name, then the command; appends "name requests cpu" to $OUT/rows
  local name=$1; shift
  local log="$OUT/$name.log"
  { time "$@" >"$log" 2>&1; } 2>"$OUT/time"
  local cpu reqs
  cpu=$(awk '/^CPU/ { print $2 + $3 }' "$OUT/time")
  case $name in
    hey) reqs=$(awk '/responses$/ { n += $2 } END { print n + 0 }' "$log") ;;
    wrk) reqs=$(awk '/requests in/ { print $1 }' "$log") ;;
    authbench) reqs=$(awk -F'[ \t]+' '/^  Requests:/ { print $3 }' "$log") ;;
  esac
  echo "$name ${reqs:-0} $cpu" >>"$OUT/rows"
}

echo "target: http-echo v1.0.0 at $URL; ${SECS}s per tool, -c $C, $ROUNDS rounds, $(nproc) CPUs shared by client and server"
for _ in $(seq "$ROUNDS"); do
  measure authbench bin/authbench run -z "${SECS}s" -c "$C" --out "$OUT/runs" "$URL"
  command -v hey >/dev/null && measure hey hey -z "${SECS}s" -c "$C" "$URL"
  command -v wrk >/dev/null && measure wrk wrk -t2 -c"$C" -d"${SECS}s" "$URL"
done

awk -v secs="$SECS" '
  { req[$1] += $2; cpu[$1] += $3; n[$1]++ }
  END {
    printf "\n%-10s %12s %22s\n", "tool", "req/s", "CPU s per 100k req"
    for (t in req) {
      rps[t] = req[t] / (n[t] * secs); cp[t] = (req[t] > 0 ? 1e5 * cpu[t] / req[t] : 0)
      printf "%-10s %12.0f %22.2f\n", t, rps[t], cp[t]
    }
    printf "\nratios (req/s; CPU per request)\n"
    if ("hey" in rps) printf "  authbench / hey: %.2fx req/s, %.2fx CPU per request\n", rps["authbench"] / rps["hey"], cp["authbench"] / cp["hey"]
    if ("wrk" in rps) printf "  authbench / wrk: %.2fx req/s, %.2fx CPU per request\n", rps["authbench"] / rps["wrk"], cp["authbench"] / cp["wrk"]
  }' "$OUT/rows"
