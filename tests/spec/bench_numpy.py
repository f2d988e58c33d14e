#!/usr/bin/env python3
"""Side-by-side timing of the prototype's NumPy statistics against `veritas stats`.

Write a JSON-lines file of ballot sets (standard library only):
    python3 tests/spec/bench_numpy.py write sets.jsonl --sets 10000 --ballots 30
Time the prototype's approach on it (needs numpy, e.g. tools/venv/bin/python):
    tools/venv/bin/python tests/spec/bench_numpy.py numpy sets.jsonl --limit 2000
Time the veritas binary on it (the whole file through one process):
    python3 tests/spec/bench_numpy.py veritas sets.jsonl --bin target/release/veritas

The seed estimated the posterior and its 95% interval per set from 10,000 Dirichlet
samples (`numpy.random.dirichlet(alpha, 10000)`, then means and 2.5/97.5 percentiles);
the numpy timing does that per line, JSON parsing and vote counting included.
"""

import argparse
import json
import random
import subprocess
import sys
import time

OUTCOMES = ("YES", "NO", "NULL")


def write(path, sets, ballots, seed):
    rng = random.Random(seed)
    with open(path, "w") as f:
        for _ in range(sets):
            models = ["model-%d" % i for i in range(3)]
            line = [
                {
                    "iteration": i // 3 + 1,
                    "model": rng.choice(models),
                    "archetype": "archetype-%d" % rng.randrange(6),
                    "vote": None if rng.random() < 0.05 else rng.choice(["YES", "YES", "YES", "NO", "NULL"]),
                    "confidence": round(rng.random(), 2),
                }
                for i in range(ballots)
            ]
            f.write(json.dumps(line) + "\n")


def time_numpy(path, limit):
    import numpy as np

    with open(path) as f:
        lines = [l for l in f if l.strip()][:limit]
    start = time.perf_counter()
    for line in lines:
        ballots = json.loads(line)
        counts = [sum(1 for b in ballots if b["vote"] == o) for o in OUTCOMES]
        alpha = np.array(counts, dtype=float) + 1.0
        samples = np.random.dirichlet(alpha, 10000)
        mean = samples.mean(axis=0)
        lo, hi = np.percentile(samples, [2.5, 97.5], axis=0)
        _ = (mean, lo, hi)
    elapsed = time.perf_counter() - start
    print("numpy (prototype): %d sets in %.3f s = %.1f us per set" % (len(lines), elapsed, elapsed / len(lines) * 1e6))


def time_veritas(path, binary, repeat):
    with open(path, "rb") as f:
        data = f.read()
    n = sum(1 for l in data.splitlines() if l.strip())
    best = None
    for _ in range(repeat):
        start = time.perf_counter()
        proc = subprocess.run([binary, "stats", path], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        elapsed = time.perf_counter() - start
        if proc.returncode != 0:
            sys.exit(proc.stderr.decode())
        best = elapsed if best is None else min(best, elapsed)
    print("veritas stats: %d sets in %.3f s = %.2f us per set (best of %d, process start included)" % (n, best, best / n * 1e6, repeat))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("mode", choices=["write", "numpy", "veritas"])
    ap.add_argument("path")
    ap.add_argument("--sets", type=int, default=10000)
    ap.add_argument("--ballots", type=int, default=30)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--limit", type=int, default=2000, help="sets timed with numpy")
    ap.add_argument("--bin", default="target/release/veritas")
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    if args.mode == "write":
        write(args.path, args.sets, args.ballots, args.seed)
    elif args.mode == "numpy":
        time_numpy(args.path, args.limit)
    else:
        time_veritas(args.path, args.bin, args.repeat)


if __name__ == "__main__":
    main()
