#!/usr/bin/env bash
# compare.sh (make bench): the engine beside hey, wrk, oha and vegeta against
# one http-echo on 127.0.0.1, the tools interleaved round by round so that a
# noisy, shared machine hits each alike.
#
#   closed loop: authbench (bench/load_attack, the I/O path it picks:
#                io_uring where the kernel allows it), authbench-epoll and
#                authbench-netpoll (the same forced onto its epoll loop, and
#                onto Go's netpoller, the path TLS takes), hey, wrk -t2, oha,
#                each for SECS at -c C:
#                median req/s, client CPU per request (the process's
#                user+system rusage over its requests), p50/p90/p99 and the
#                ratios to the faster of wrk and oha.
#   open loop:   authbench vs vegeta on a grid of rates and connection counts,
#                uncorrected latency (from the actual send) p50/p90/p99 and
#                the agreement criterion: each within 1.5 x vegeta's + 0.15 ms.
#
#   bench/compare.sh [SECS] [C] [ROUNDS] [OPEN_SECS]
#   BENCH_ONLY=closed|open restricts to one half; BENCH_GRID overrides the
#   open grid ("rate/conns ...").
#
# Peers are installed when missing: hey and wrk from Debian, oha 1.16.0 with
# cargo, vegeta v12.12.0 through a wrapper module; all cached under
# ~/.cache/authbench/tools/NAME-VERSION. Compare ratios, not absolute figures.
set -euo pipefail
SECS=${1:-5}
C=${2:-50}
ROUNDS=${3:-3}
OPEN_SECS=${4:-3}
GRID=${BENCH_GRID:-"100/1 1000/10 2000/50 5000/50 10000/100 20000/200"}
ONLY=${BENCH_ONLY:-}
cd "$(dirname "$0")/.."
ROOT=$PWD
TOOLS="${AUTHBENCH_CACHE:-$HOME/.cache/authbench}/tools"
OHA="$TOOLS/oha-1.16.0/bin/oha"
VEGETA="$TOOLS/vegeta-v12.12.0/bin/vegeta"
ECHO="$TOOLS/http-echo-v1.0.0/bin/http-echo"

say() { echo "==> $*" >&2; }

install_peers() {
  if ! command -v hey >/dev/null || ! command -v wrk >/dev/null; then
    say "installing hey and wrk (apt-get install -y hey wrk)"
    apt-get install -y hey wrk >&2
  fi
  if [ ! -x "$OHA" ]; then
    say "building oha 1.16.0 with cargo into $TOOLS/oha-1.16.0 (several minutes on a fresh machine)"
    cargo install oha --version 1.16.0 --locked --root "$TOOLS/oha-1.16.0" >&2
  fi
  if [ ! -x "$VEGETA" ]; then
    say "building vegeta v12.12.0 through a wrapper module into $TOOLS/vegeta-v12.12.0"
    local w; w=$(mktemp -d)
    printf 'module authbench.local/vegeta-wrapper\n\ngo 1.26\n\nrequire github.com/tsenart/vegeta/v12 v12.12.0\n' >"$w/go.mod"
    printf '//go:build tools\n\npackage tools\n\nimport _ "github.com/tsenart/vegeta/v12"\n' >"$w/tools.go"
    (cd "$w" && GOFLAGS=-mod=mod go build -trimpath -ldflags "-X main.Version=v12.12.0" \
      -o "$VEGETA" github.com/tsenart/vegeta/v12) >&2
    rm -rf "$w"
  fi
  if [ ! -x "$ECHO" ]; then
    say "installing http-echo (authbench lab install --only http-echo)"
    make -s build && bin/authbench lab install --only http-echo >&2
  fi
}

install_peers
OUT=$(mktemp -d)
LA="$OUT/load_attack"
go build -o "$LA" ./bench/load_attack
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$ECHO" -listen "127.0.0.1:$PORT" -text hello >/dev/null 2>&1 &
ECHO_PID=$!
trap 'kill $ECHO_PID 2>/dev/null; wait $ECHO_PID 2>/dev/null || true; rm -rf "$OUT"' EXIT
URL="http://127.0.0.1:$PORT/"
for _ in $(seq 50); do curl -fsS -o /dev/null "$URL" 2>/dev/null && break; sleep 0.1; done

# run NAME MODE RATE CONNS ROUND -- command: runs it under /usr/bin/time and
# appends "name mode rate conns round cpu-seconds logfile" to $OUT/runs.
run() {
  local name=$1 mode=$2 rate=$3 conns=$4 round=$5; shift 6
  local log="$OUT/$name-$mode-$rate-$conns-$round.log"
  /usr/bin/time -f "RUSAGE %U %S" -o "$log.time" "$@" >"$log" 2>"$log.err" || true
  echo "$name $mode $rate $conns $round $(awk '/^RUSAGE/ { print $2 + $3 }' "$log.time") $log" >>"$OUT/runs"
}

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) CPUs shared by client and server; target http-echo v1.0.0 at $URL"
if [ "$ONLY" != open ]; then
  say "closed loop: ${SECS}s per tool, -c $C, $ROUNDS rounds"
  for r in $(seq "$ROUNDS"); do
    run authbench closed 0 "$C" "$r" -- "$LA" -json -url "$URL" -z "${SECS}s" -c "$C"
    run authbench-epoll closed 0 "$C" "$r" -- "$LA" -json -io epoll -url "$URL" -z "${SECS}s" -c "$C"
    run authbench-netpoll closed 0 "$C" "$r" -- "$LA" -json -io netpoll -url "$URL" -z "${SECS}s" -c "$C"
    run hey closed 0 "$C" "$r" -- hey -z "${SECS}s" -c "$C" "$URL"
    run wrk closed 0 "$C" "$r" -- wrk -t2 -c"$C" -d"${SECS}s" --latency "$URL"
    run oha closed 0 "$C" "$r" -- "$OHA" --no-tui --output-format json -z "${SECS}s" -c "$C" "$URL"
  done
fi
if [ "$ONLY" != closed ]; then
  say "open loop: ${OPEN_SECS}s per tool and point, $ROUNDS rounds, grid $GRID"
  for r in $(seq "$ROUNDS"); do
    for p in $GRID; do
      rate=${p%/*} conns=${p#*/}
      run authbench open "$rate" "$conns" "$r" -- "$LA" -json -url "$URL" -z "${OPEN_SECS}s" -c "$conns" -q "$rate"
      run vegeta open "$rate" "$conns" "$r" -- bash -c "echo 'GET $URL' | '$VEGETA' attack -rate $rate -duration ${OPEN_SECS}s -connections $conns -workers $conns -max-workers $conns -keepalive=true | '$VEGETA' report -type json"
    done
  done
fi
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 "$ROOT/bench/summarize.py" "$OUT/runs"
