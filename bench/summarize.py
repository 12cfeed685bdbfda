#!/usr/bin/env python3
"""summarize.py RUNS: the tables of bench/compare.sh.

RUNS has one line per tool run: "name mode rate conns round cpu-seconds log".
Each log is the tool's own output; this parses it into requests, req/s and
p50/p90/p99 (ms), takes the median over rounds and prints the tables and the
ratios. Medians of each figure are taken separately (a median of percentiles
over runs of equal length, not a merged histogram: a summary of a benchmark,
never a reported measurement)."""
import json
import re
import statistics
import sys
from collections import defaultdict

UNITS = {"us": 1e-3, "µs": 1e-3, "ms": 1.0, "s": 1e3, "secs": 1e3, "m": 60e3}


def dur_ms(text):
    m = re.match(r"([\d.]+)\s*(us|µs|ms|s|secs|m)$", text.strip())
    return float(m.group(1)) * UNITS[m.group(2)] if m else None


def parse(name, mode, log):
    txt = open(log, encoding="utf-8", errors="replace").read()
    if name.startswith("authbench"):
        r = json.loads(txt)
        lat = r["latency_uncorrected_ms"] if mode == "open" else r["latency_ms"]
        out = dict(reqs=r["requests"], rps=r["requests"] / r["duration_s"],
                   p50=lat["p50"], p90=lat["p90"], p99=lat["p99"], errs=r["requests"] - r["successes"])
        if r.get("send_lag"):
            out["lag99"] = r["send_lag"]["p99_ms"]
        out["path"] = r.get("io_path", "")
        return out
    if name == "vegeta":
        r = json.loads(txt)
        l = r["latencies"]
        return dict(reqs=r["requests"], rps=r["rate"], p50=l["50th"] / 1e6, p90=l["90th"] / 1e6,
                    p99=l["99th"] / 1e6, errs=round(r["requests"] * (1 - r["success"])))
    if name == "oha":
        r = json.loads(txt)
        s, p = r["summary"], r["latencyPercentiles"]
        reqs = sum(r.get("statusCodeDistribution", {}).values()) + sum(r.get("errorDistribution", {}).values())
        return dict(reqs=reqs, rps=s["requestsPerSec"], p50=p["p50"] * 1e3, p90=p["p90"] * 1e3,
                    p99=p["p99"] * 1e3, errs=sum(r.get("errorDistribution", {}).values()))
    if name == "hey":
        reqs = sum(int(n) for n in re.findall(r"\[\d+\]\s+(\d+) responses", txt))
        pct = {int(q): float(v) * 1e3 for q, v in re.findall(r"\s(\d+)%+ in ([\d.]+) secs", txt)}
        rps = float(re.search(r"Requests/sec:\s+([\d.]+)", txt).group(1))
        return dict(reqs=reqs, rps=rps, p50=pct.get(50), p90=pct.get(90), p99=pct.get(99), errs=0)
    if name == "wrk":
        reqs = int(re.search(r"(\d+) requests in", txt).group(1))
        rps = float(re.search(r"Requests/sec:\s+([\d.]+)", txt).group(1))
        pct = {int(q): dur_ms(v) for q, v in re.findall(r"^\s+(\d+)%\s+(\S+)", txt, re.M)}
        errs = sum(int(n) for n in re.findall(r"Non-2xx or 3xx responses: (\d+)", txt))
        return dict(reqs=reqs, rps=rps, p50=pct.get(50), p90=pct.get(90), p99=pct.get(99), errs=errs)
    raise ValueError(name)


def med(v):
    v = [x for x in v if x is not None]
    return statistics.median(v) if v else float("nan")


def by_round(closed):
    """Prints each round's req/s: the host's speed moves between rounds,
    and the spread says how far one median may be trusted."""
    tools = [t for t in ["authbench", "authbench-epoll", "authbench-netpoll", "wrk", "oha", "hey"] if t in closed]
    rounds = sorted({r["round"] for v in closed.values() for r in v})
    print("\nreq/s by round: " + ", ".join(tools))
    for n in rounds:
        got = {t: next((r["rps"] for r in closed[t] if r["round"] == n), float("nan")) for t in tools}
        print(f"  round {n}: " + ", ".join(f"{got[t]:.0f}" for t in tools))


def main(path):
    runs = defaultdict(list)
    for line in open(path):
        name, mode, rate, conns, _round, cpu, log = line.split()
        try:
            r = parse(name, mode, log)
        except Exception as e:  # a tool that failed leaves an unparsable log
            print(f"warning: {name} {mode} {rate}/{conns}: cannot parse {log}: {e}", file=sys.stderr)
            continue
        r["cpu_us"] = 1e6 * float(cpu) / r["reqs"] if r["reqs"] else float("nan")
        r["round"] = int(_round)
        runs[(mode, int(rate), int(conns), name)].append(r)
    closed = {k[3]: v for k, v in runs.items() if k[0] == "closed"}
    if closed:
        print("\nclosed loop (median over rounds)")
        print(f"{'tool':<17} {'req/s':>9} {'CPU µs/req':>11} {'p50 ms':>8} {'p90 ms':>8} {'p99 ms':>8} {'errors':>7} rounds")
        m = {}
        for tool in ["authbench", "authbench-epoll", "authbench-netpoll", "wrk", "oha", "hey"]:
            if tool not in closed:
                continue
            v = closed[tool]
            m[tool] = {k: med([r.get(k) for r in v]) for k in ("rps", "cpu_us", "p50", "p90", "p99", "errs")}
            x = m[tool]
            paths = "/".join(sorted({r["path"] for r in v if r.get("path")}))
            print(f"{tool:<17} {x['rps']:>9.0f} {x['cpu_us']:>11.2f} {x['p50']:>8.3f} {x['p90']:>8.3f} {x['p99']:>8.3f} {x['errs']:>7.0f} {len(v)}"
                  + (f"  io path {paths}" if paths else ""))
        by_round(closed)
        if "authbench" in m:
            a = m["authbench"]
            print("\nratios authbench / tool (req/s: higher is better; CPU per request: lower is better)")
            for tool in ["authbench-epoll", "authbench-netpoll", "wrk", "oha", "hey"]:
                if tool in m:
                    print(f"  / {tool:<17} {a['rps'] / m[tool]['rps']:.2f}x req/s, {a['cpu_us'] / m[tool]['cpu_us']:.2f}x CPU per request")
            peers = [t for t in ("wrk", "oha") if t in m]
            if peers:
                best = max(peers, key=lambda t: m[t]["rps"])
                ok = a["rps"] >= 1.15 * m[best]["rps"] and ("wrk" not in m or a["cpu_us"] <= 0.75 * m["wrk"]["cpu_us"])
                print(f"  goal (req/s >= 1.15 x the faster of wrk and oha, {best}; CPU/request <= 0.75 x wrk's): {'met' if ok else 'NOT met'}")
    grid = sorted({k[1:3] for k in runs if k[0] == "open"})
    if grid:
        print("\nopen loop, uncorrected latency (from the actual send), median over rounds; ok = each of")
        print("authbench's p50/p90/p99 within 1.5 x vegeta's + 0.15 ms")
        print(f"{'rate/conns':>12} | {'authbench p50/p90/p99 ms':>26} {'lag p99':>8} {'req/s':>7} | {'vegeta p50/p90/p99 ms':>24} {'req/s':>7} | ok")
        for rate, conns in grid:
            a, v = runs.get(("open", rate, conns, "authbench")), runs.get(("open", rate, conns, "vegeta"))
            if not a or not v:
                continue
            am = {k: med([r.get(k) for r in a]) for k in ("p50", "p90", "p99", "rps", "lag99")}
            vm = {k: med([r.get(k) for r in v]) for k in ("p50", "p90", "p99", "rps")}
            ok = all(am[q] <= 1.5 * vm[q] + 0.15 for q in ("p50", "p90", "p99"))
            sustained = am["rps"] >= 0.97 * rate and vm["rps"] >= 0.97 * rate
            print(f"{rate:>6}/{conns:<5} | {am['p50']:>8.3f} {am['p90']:>8.3f} {am['p99']:>8.3f} {am['lag99']:>8.3f} {am['rps']:>7.0f} | "
                  f"{vm['p50']:>7.3f} {vm['p90']:>7.3f} {vm['p99']:>8.3f} {vm['rps']:>7.0f} | "
                  f"{'yes' if ok else 'NO'}{'' if sustained else ' (rate not sustained)'}")


if __name__ == "__main__":
    main(sys.argv[1])
