// The committee's trajectory, recomputed from the ballots (DESIGN.md §2): after each iteration
// t, α = counts of valid ballots so far + 1, posterior mean α_k/Σα, and the exact 95% credible
// band of each outcome from its Beta(α_k, Σα − α_k) marginal; KL per iteration from the report.
"use strict";

const Charts = (() => {
  const OUTCOMES = ["YES", "NO", "NULL"];
  const COLORS = { YES: "#1f9d55", NO: "#d64545", NULL: "#8a8f98" };

  // ln Γ(x), Lanczos (g = 7, n = 9): ~15 significant digits, plenty for a drawn band.
  function lnGamma(x) {
    const c = [0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313,
      -176.61502916214059, 12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6,
      1.5056327351493116e-7];
    if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - lnGamma(1 - x);
    x -= 1;
    let a = c[0];
    const t = x + 7.5;
    for (let i = 1; i < 9; i++) a += c[i] / (x + i);
    return 0.5 * Math.log(2 * Math.PI) + (x + 0.5) * Math.log(t) - t + Math.log(a);
  }

  // Continued fraction of the regularised incomplete beta function (modified Lentz).
  function betacf(a, b, x) {
    const tiny = 1e-300;
    let c = 1, d = 1 - ((a + b) * x) / (a + 1);
    d = Math.abs(d) < tiny ? tiny : d;
    d = 1 / d;
    let h = d;
    for (let m = 1; m <= 300; m++) {
      const m2 = 2 * m;
      let aa = (m * (b - m) * x) / ((a + m2 - 1) * (a + m2));
      d = 1 + aa * d; d = Math.abs(d) < tiny ? tiny : d; c = 1 + aa / c; c = Math.abs(c) < tiny ? tiny : c;
      d = 1 / d; h *= d * c;
      aa = (-(a + m) * (a + b + m) * x) / ((a + m2) * (a + m2 + 1));
      d = 1 + aa * d; d = Math.abs(d) < tiny ? tiny : d; c = 1 + aa / c; c = Math.abs(c) < tiny ? tiny : c;
      d = 1 / d;
      const del = d * c;
      h *= del;
      if (Math.abs(del - 1) < 1e-14) break;
    }
    return h;
  }

  function betaCdf(x, a, b) {
    if (x <= 0) return 0;
    if (x >= 1) return 1;
    const lbt = lnGamma(a + b) - lnGamma(a) - lnGamma(b) + a * Math.log(x) + b * Math.log(1 - x);
    return x < (a + 1) / (a + b + 2) ? Math.exp(lbt) * betacf(a, b, x) / a : 1 - Math.exp(lbt) * betacf(b, a, 1 - x) / b;
  }

  function betaQuantile(p, a, b) {
    let lo = 0, hi = 1;
    for (let i = 0; i < 60; i++) {
      const mid = (lo + hi) / 2;
      if (betaCdf(mid, a, b) < p) lo = mid; else hi = mid;
    }
    return (lo + hi) / 2;
  }

  // Per iteration: cumulative counts, posterior means and 95% bands.
  function trajectory(ballots) {
    const last = ballots.reduce((m, b) => Math.max(m, b.iteration), 0);
    const counts = [0, 0, 0];
    const rows = [];
    for (let t = 1; t <= last; t++) {
      ballots.filter((b) => b.iteration === t && b.vote).forEach((b) => counts[OUTCOMES.indexOf(b.vote)]++);
      const alpha = counts.map((n) => n + 1);
      const sum = alpha[0] + alpha[1] + alpha[2];
      rows.push({
        t,
        counts: counts.slice(),
        mean: alpha.map((a) => a / sum),
        band: alpha.map((a) => [betaQuantile(0.025, a, sum - a), betaQuantile(0.975, a, sum - a)]),
      });
    }
    return rows;
  }

  const el = (name, attrs, text) => {
    const n = document.createElementNS("http://www.w3.org/2000/svg", name);
    for (const [k, v] of Object.entries(attrs || {})) n.setAttribute(k, v);
    if (text !== undefined) n.textContent = text;
    return n;
  };

  function frame(w, h, yMax, xs, yLabel) {
    const svg = el("svg", { viewBox: `0 0 ${w} ${h}`, width: "100%", role: "img" });
    const pad = { l: 34, r: 8, t: 8, b: 22 };
    const x = (t) => pad.l + ((t - 1) / Math.max(1, xs - 1)) * (w - pad.l - pad.r);
    const y = (v) => h - pad.b - (v / yMax) * (h - pad.t - pad.b);
    svg.appendChild(el("line", { x1: pad.l, y1: y(0), x2: w - pad.r, y2: y(0), stroke: "#ccd" }));
    for (const v of [0, yMax / 2, yMax]) svg.appendChild(el("text", { x: 2, y: y(v) + 3 }, v.toFixed(v < 0.1 && v > 0 ? 3 : 2)));
    for (let t = 1; t <= xs; t++) svg.appendChild(el("text", { x: x(t) - 3, y: h - 6 }, String(t)));
    svg.appendChild(el("text", { x: w - 60, y: h - 6 }, yLabel));
    return { svg, x, y };
  }

  // Posterior mean per outcome with its 95% credible band, one point per iteration.
  function posterior(ballots) {
    const rows = trajectory(ballots);
    const { svg, x, y } = frame(420, 180, 1, Math.max(rows.length, 2), "iteration");
    OUTCOMES.forEach((o, k) => {
      if (!rows.length) return;
      const upper = rows.map((r) => `${x(r.t)},${y(r.band[k][1])}`);
      const lower = rows.slice().reverse().map((r) => `${x(r.t)},${y(r.band[k][0])}`);
      svg.appendChild(el("polygon", { points: upper.concat(lower).join(" "), fill: COLORS[o], "fill-opacity": 0.12 }));
      svg.appendChild(el("polyline", { points: rows.map((r) => `${x(r.t)},${y(r.mean[k])}`).join(" "),
        fill: "none", stroke: COLORS[o], "stroke-width": 2, "data-outcome": o }));
    });
    return { svg, rows };
  }

  // KL divergence between consecutive posteriors against ε, the stop iteration marked.
  function divergence(committee) {
    const ds = (committee && committee.divergences) || [];
    const eps = committee ? committee.epsilon : 0;
    const yMax = Math.max(eps * 2, ...ds.filter((d) => d !== null));
    const { svg, x, y } = frame(420, 160, yMax || 1, Math.max(ds.length, 2), "iteration");
    svg.appendChild(el("line", { x1: x(1), y1: y(eps), x2: x(Math.max(ds.length, 2)), y2: y(eps),
      stroke: "#3056d3", "stroke-dasharray": "4 3" }));
    svg.appendChild(el("text", { x: x(1) + 4, y: y(eps) - 3 }, `ε = ${eps}`));
    const pts = ds.map((d, i) => (d === null ? null : `${x(i + 1)},${y(d)}`)).filter(Boolean);
    svg.appendChild(el("polyline", { points: pts.join(" "), fill: "none", stroke: "#1d2330", "stroke-width": 2 }));
    if (committee && committee.stop_iteration) {
      const sx = x(committee.stop_iteration);
      svg.appendChild(el("line", { x1: sx, y1: y(0), x2: sx, y2: y(yMax || 1), stroke: "#d64545" }));
      svg.appendChild(el("text", { x: sx + 3, y: 16 }, committee.stopped_early ? "stopped early" : "stop"));
    }
    return svg;
  }

  return { posterior, divergence, trajectory, betaQuantile, OUTCOMES };
})();
