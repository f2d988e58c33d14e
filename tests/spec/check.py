#!/usr/bin/env python3
"""Independent checker of `veritas stats` and `veritas commit` against the book's auditor specification (statistics and evidence commitment).

Python 3 standard library only (fractions, hashlib, math): nothing here shares code with
the Rust implementation. It generates seeded random ballot sets and bundles, runs the
binary once per command over all of them (JSON lines in, JSON lines out), and compares:

  exact:   p_fixed, kappa_fixed, counts, Merkle root and every leaf
  1e-9:    n_eff, entropy_bits, kappa, posterior
  1e-6:    ci95 (Beta quantiles by Newton/bisection on a continued-fraction
           regularized incomplete beta written here from scratch)

It also checks that bad input (unknown vote word, float in evidence, duplicate member name,
broken JSON, invalid UTF-8) fails with a non-zero exit, a message naming the line, and an empty stdout.

Usage: check.py --bin PATH/TO/veritas [--n 2000] [--seed 1]
"""

import argparse
import hashlib
import json
import math
import random
import subprocess
import sys
from fractions import Fraction

WAD = 10**18
OUTCOMES = ("YES", "NO", "NULL")
MAX_SAFE = 2**53 - 1

# --------------------------------------------------------------------------- statistics


def counts_of(ballots):
    n = [0, 0, 0]
    for b in ballots:
        if b["vote"] is not None:
            n[OUTCOMES.index(b["vote"])] += 1
    return n


def p_fixed(n):
    """Largest remainder: floor, then missing units to the largest remainders (K order)."""
    a = [x + 1 for x in n]
    s = sum(a)
    floors = [ak * WAD // s for ak in a]
    rems = [ak * WAD % s for ak in a]
    missing = WAD - sum(floors)
    order = sorted(range(3), key=lambda k: (-rems[k], k))
    for k in order[:missing]:
        floors[k] += 1
    return floors


def kappa_exact(ballots):
    """Fleiss' kappa as a Fraction over iterations with >= 2 valid ballots, or None."""
    subjects = {}
    for b in ballots:
        if b["vote"] is not None:
            subjects.setdefault(b["iteration"], [0, 0, 0])[OUTCOMES.index(b["vote"])] += 1
    rated = [s for s in subjects.values() if sum(s) >= 2]
    if not rated:
        return None
    p_bar = sum(Fraction(sum(x * x for x in s) - sum(s), sum(s) * (sum(s) - 1)) for s in rated) / len(rated)
    total = sum(sum(s) for s in rated)
    p = [Fraction(sum(s[k] for s in rated), total) for k in range(3)]
    pe = sum(x * x for x in p)
    if pe == 1:
        return Fraction(1)
    return (p_bar - pe) / (1 - pe)


def round_half_away(x):
    """round(x * 1e18) with ties away from zero, exactly."""
    scaled = abs(x) * WAD
    q, r = divmod(scaled.numerator, scaled.denominator)
    if 2 * r >= scaled.denominator:
        q += 1
    return -q if x < 0 else q


def n_eff(ballots):
    by_model = {}
    for b in ballots:
        if b["vote"] is not None:
            by_model.setdefault(b["model"], []).append(b["vote"])
    n = sum(len(v) for v in by_model.values())
    shares = [max(v.count(o) for o in OUTCOMES) / len(v) for v in by_model.values() if len(v) >= 2]
    if not shares:
        return float(n)
    m_bar = n / len(by_model)
    a_bar = sum(shares) / len(shares)
    rho = max(0.0, (a_bar - 1 / 3) / (2 / 3))
    return n / (1 + (m_bar - 1) * rho)


def betacf(a, b, x):
    """Continued fraction of the incomplete beta (modified Lentz)."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 100000):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-16:
            break
    return h


def log_beta(a, b):
    return math.lgamma(a) + math.lgamma(b) - math.lgamma(a + b)


def betainc(a, b, x):
    """Regularized incomplete beta I_x(a, b)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    front = math.exp(a * math.log(x) + b * math.log1p(-x) - log_beta(a, b))
    if x < (a + 1.0) / (a + b + 2.0):
        return front * betacf(a, b, x) / a
    return 1.0 - front * betacf(b, a, 1.0 - x) / b


def beta_pdf(a, b, x):
    return math.exp((a - 1) * math.log(x) + (b - 1) * math.log1p(-x) - log_beta(a, b))


def beta_quantile(a, b, q):
    """x with I_x(a, b) = q: Newton steps kept inside a shrinking bisection bracket."""
    lo, hi = 0.0, 1.0
    x = a / (a + b)
    for _ in range(200):
        f = betainc(a, b, x) - q
        if f > 0:
            hi = x
        else:
            lo = x
        if hi - lo < 1e-15:
            break
        step = f / beta_pdf(a, b, x) if 0.0 < x < 1.0 else 0.0
        nx = x - step
        if not (lo < nx < hi) or step == 0.0:
            nx = 0.5 * (lo + hi)
        if abs(nx - x) < 1e-15:
            x = nx
            break
        x = nx
    return x


def expected_stats(ballots):
    n = counts_of(ballots)
    a = [x + 1 for x in n]
    s = sum(a)
    post = [ak / s for ak in a]
    k = kappa_exact(ballots)
    if k is not None:
        k = max(k, Fraction(-1))  # DESIGN: the contract accepts only kappa >= -1; clamp
    return {
        "ballots": len(ballots),
        "valid": sum(n),
        "failed": len(ballots) - sum(n),
        "counts": dict(zip(OUTCOMES, n)),
        "posterior": post,
        "p_fixed": [str(x) for x in p_fixed(n)],
        "kappa": None if k is None else float(k),
        "kappa_fixed": str(0 if k is None else round_half_away(k)),
        "ci95": [[beta_quantile(ak, s - ak, 0.025), beta_quantile(ak, s - ak, 0.975)] for ak in a],
        "n_eff": n_eff(ballots),
        "entropy_bits": -sum(p * math.log2(p) for p in post),
    }


# --------------------------------------------------------------------------- commitment


def jcs_string(s):
    out = ['"']
    short = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r"}
    for ch in s:
        if ch in short:
            out.append(short[ch])
        elif ord(ch) < 0x20:
            out.append("\\u%04x" % ord(ch))
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def jcs(v):
    """RFC 8785 for null, booleans, integers, strings, arrays and objects."""
    if v is None:
        return "null"
    if v is True:
        return "true"
    if v is False:
        return "false"
    if isinstance(v, int):
        assert abs(v) <= MAX_SAFE
        return str(v)
    if isinstance(v, str):
        return jcs_string(v)
    if isinstance(v, list):
        return "[" + ",".join(jcs(x) for x in v) + "]"
    if isinstance(v, dict):
        keys = sorted(v, key=lambda k: k.encode("utf-16-be"))  # UTF-16 code units
        return "{" + ",".join(jcs_string(k) + ":" + jcs(v[k]) for k in keys) + "}"
    raise TypeError(type(v))


def sha(b):
    return hashlib.sha256(b).digest()


def mth(leaves):
    """RFC 6962 Merkle Tree Hash (split at the largest power of two below n)."""
    if len(leaves) == 1:
        return leaves[0]
    k = 1
    while k * 2 < len(leaves):
        k *= 2
    return sha(b"\x01" + mth(leaves[:k]) + mth(leaves[k:]))


def expected_commit(question, evidence):
    leaves = [sha(b"\x00" + question.encode("utf-8"))]
    leaves += [sha(b"\x00" + jcs(item).encode("utf-8")) for item in evidence]
    return {"root": "0x" + mth(leaves).hex(), "leaves": ["0x" + x.hex() for x in leaves]}


# --------------------------------------------------------------------------- generators

ALPHABET = (
    "abcXYZ 019_-.,:/é"  # plain text
    '"\\\b\f\n\r\t\x00\x01\x1f\x7f'  # escapes and control characters
    "\u2028\u00ff\ufb01\ue000\uffff"  # BMP above the surrogates
    "\U0001f600\U00010000"  # astral: surrogate pairs in UTF-16
)


def rand_text(rng, lo=0, hi=16):
    return "".join(rng.choice(ALPHABET) for _ in range(rng.randint(lo, hi)))


def rand_value(rng, depth=0):
    r = rng.random()
    if depth < 2 and r < 0.1:
        return [rand_value(rng, depth + 1) for _ in range(rng.randint(0, 3))]
    if depth < 2 and r < 0.18:
        return {rand_text(rng, 1, 4): rand_value(rng, depth + 1) for _ in range(rng.randint(0, 3))}
    if r < 0.3:
        return rng.choice([None, True, False])
    if r < 0.5:
        return rng.choice([0, 1, -1, MAX_SAFE, -MAX_SAFE, rng.randint(-MAX_SAFE, MAX_SAFE), rng.randint(-1000, 1000)])
    return rand_text(rng)


def rand_item(rng, index):
    item = {
        "id": index,
        "url": "https://example.org/" + rand_text(rng, 0, 8),
        "title": rand_text(rng),
        "snippet": rand_text(rng, 0, 60),
        "published_at": rng.choice([None, "2026-01-02T03:04:05Z"]),
        "source": rng.choice(["web", "local", "submitted"]),
        "submitter": rng.choice([None, "0x" + "ab" * 20]),
    }
    for _ in range(rng.randint(0, 4)):
        item[rand_text(rng, 1, 5)] = rand_value(rng)
    keys = list(item)
    rng.shuffle(keys)  # the committed bytes must not depend on member order
    return {k: item[k] for k in keys}


def rand_bundle(rng):
    return {"question": rand_text(rng, 0, 80), "evidence": [rand_item(rng, i + 1) for i in range(rng.randint(0, 9))]}


def rand_ballots(rng):
    models = ["model-%d" % i for i in range(rng.randint(1, 5))]
    archetypes = ["skeptic", "literalist", "contrarian", "generalist"]
    bias = [rng.random() for _ in OUTCOMES]
    fail = rng.choice([0.0, 0.0, 0.1, 0.5, 1.0])
    ballots = []
    for t in range(1, rng.randint(0, 10) + 1):
        for _ in range(rng.randint(1, rng.choice([3, 3, 5, 30]))):
            vote = None if rng.random() < fail else rng.choices(OUTCOMES, weights=bias)[0]
            ballots.append({
                "iteration": t,
                "model": rng.choice(models),
                "archetype": rng.choice(archetypes),
                "vote": vote,
                "confidence": round(rng.random(), 3),
            })
    rng.shuffle(ballots)
    return ballots


# --------------------------------------------------------------------------- comparison


def close(a, b, tol):
    if a is None or b is None:
        return a is None and b is None
    return abs(a - b) <= tol * max(1.0, abs(b))


def compare_stats(got, want):
    errors = []
    for key in ("ballots", "valid", "failed", "counts", "p_fixed", "kappa_fixed"):
        if got.get(key) != want[key]:
            errors.append("%s: got %r, want %r" % (key, got.get(key), want[key]))
    if list(got) != ["ballots", "valid", "failed", "counts", "posterior", "p_fixed", "kappa", "kappa_fixed", "ci95", "n_eff", "entropy_bits"]:
        errors.append("keys: %r" % list(got))
    for key in ("n_eff", "entropy_bits", "kappa"):
        if not close(got.get(key), want[key], 1e-9):
            errors.append("%s: got %r, want %r" % (key, got.get(key), want[key]))
    for k in range(3):
        if not close(got["posterior"][k], want["posterior"][k], 1e-12):
            errors.append("posterior[%d]" % k)
        for side in range(2):
            if not close(got["ci95"][k][side], want["ci95"][k][side], 1e-6):
                errors.append("ci95[%d][%d]: got %r, want %r" % (k, side, got["ci95"][k][side], want["ci95"][k][side]))
    if sum(int(x) for x in got["p_fixed"]) != WAD or min(int(x) for x in got["p_fixed"]) <= 0:
        errors.append("p_fixed does not sum to 1e18 with each > 0")
    return errors


def run(binary, command, text):
    return subprocess.run([binary, command, "-"], input=text, capture_output=True, timeout=600)


def check_outputs(binary, command, inputs, expected, compare):
    text = "".join(line + "\n" for line in inputs).encode("utf-8")
    proc = run(binary, command, text)
    if proc.returncode != 0:
        return ["%s exited %d: %s" % (command, proc.returncode, proc.stderr.decode(errors="replace"))]
    lines = proc.stdout.decode("utf-8").splitlines()
    if len(lines) != len(inputs):
        return ["%s: %d output lines for %d inputs" % (command, len(lines), len(inputs))]
    failures = []
    for i, (line, want) in enumerate(zip(lines, expected)):
        errs = compare(json.loads(line), want)
        if errs:
            failures.append("%s input line %d: %s\n  input: %s" % (command, i + 1, "; ".join(errs), inputs[i][:300]))
    return failures


def check_rejects(binary):
    """Bad input: non-zero exit, the line number in the message, nothing on stdout."""
    good_ballots = json.dumps([{"iteration": 1, "model": "m", "archetype": "a", "vote": "YES"}])
    good_bundle = json.dumps({"question": "q", "evidence": [{"id": 1}]})
    cases = [
        ("stats", [good_ballots, json.dumps([{"iteration": 1, "model": "m", "archetype": "a", "vote": "MAYBE"}])], "vote"),
        ("stats", [good_ballots, good_ballots, "[{"], "line 3"),
        ("stats", [json.dumps([{"iteration": 1.5, "model": "m", "archetype": "a", "vote": None}])], "iteration"),
        ("commit", [good_bundle, json.dumps({"question": "q", "evidence": [{"id": 1}, {"score": 0.5}]})], "evidence[1].score"),
        ("commit", [good_bundle, '{"question":"q","evidence":[{"n":1e3}]}'], "evidence[0].n"),
        ("commit", [good_bundle, '{"question":"q","evidence":[{"n":1.0}]}'], "evidence[0].n"),
        ("commit", [good_bundle, json.dumps({"question": "q", "evidence": ["text"]})], "evidence[0]"),
        ("commit", [good_bundle, json.dumps({"question": "q", "evidence": [{"n": 2**53}]})], "evidence[0].n"),
        ("commit", [good_bundle, '{"question":"q","evidence":[{"id":1,"id":2}]}'], "duplicate"),
    ]
    failures = []
    for command, lines, needle in cases:
        proc = run(binary, command, "".join(l + "\n" for l in lines).encode())
        err = proc.stderr.decode(errors="replace")
        line_no = "line %d" % len(lines)
        if proc.returncode == 0 or proc.stdout or line_no not in err or needle not in err:
            failures.append("reject %s %r: rc=%d stdout=%r stderr=%r" % (command, lines[-1], proc.returncode, proc.stdout[:80], err))
    proc = run(binary, "commit", good_bundle.encode() + b"\n\xff\xfe\n")
    if proc.returncode == 0 or proc.stdout or b"line 2" not in proc.stderr or b"UTF-8" not in proc.stderr:
        failures.append("invalid UTF-8 not rejected: %r" % proc.stderr)
    return failures


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", required=True, help="path to the veritas binary")
    ap.add_argument("--n", type=int, default=2000, help="random ballot sets and bundles each")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rng = random.Random(args.seed)

    ballot_sets = [[], [{"iteration": 1, "model": "m", "archetype": "a", "vote": None}]]
    ballot_sets += [rand_ballots(rng) for _ in range(args.n)]
    stats_inputs = [json.dumps(s, ensure_ascii=rng.random() < 0.5) for s in ballot_sets]
    failures = check_outputs(args.bin, "stats", stats_inputs, [expected_stats(s) for s in ballot_sets], compare_stats)

    bundles = [{"question": "", "evidence": []}] + [rand_bundle(rng) for _ in range(args.n)]
    commit_inputs = [json.dumps(b, ensure_ascii=rng.random() < 0.5) for b in bundles]
    expected = [expected_commit(b["question"], b["evidence"]) for b in bundles]
    failures += check_outputs(args.bin, "commit", commit_inputs, expected, lambda got, want: [] if got == want else ["got %r, want %r" % (got, want)])

    failures += check_rejects(args.bin)

    for f in failures[:20]:
        print("MISMATCH", f)
    print("spec check: %d ballot sets, %d bundles, %d failures" % (len(ballot_sets), len(bundles), len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
