// The live committee view: a questions list, a question page and the court's page (court.js),
// fed by the node's JSON API and its server-sent events (`/events`). No framework: the page is
// small and works offline; every asset is embedded in the node binary. Acting on a question
// goes through the user's own wallet (act.js), never through the node.
"use strict";

const view = document.getElementById("view");
const live = document.getElementById("live");
const state = { questions: new Map(), current: null, detail: null };

// Text from the chain is anyone's: control characters and bidi overrides (which reorder what
// the reader sees, as in "Trojan source") are dropped before escaping, tab and newline kept.
const UNSEEN = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069]/g;
const esc = (s) => String(s ?? "").replace(UNSEEN, "").replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));
const pct = (p) => (p === null || p === undefined ? "–" : (100 * p).toFixed(1) + "%");
const ago = (ms) => {
  if (!ms) return "–";
  const s = Math.max(0, Math.round((Date.now() - ms) / 1000));
  return s < 90 ? `${s} s ago` : s < 5400 ? `${Math.round(s / 60)} min ago` : `${Math.round(s / 3600)} h ago`;
};
// Only an http(s) URL becomes a link: the chain carries whatever a submitter wrote, and a
// `data:` or script URL must not be one click away. The browser's own URL parser decides (so
// case, blanks and tabs cannot disguise a scheme), and the link is its serialisation.
const webUrl = (u) => {
  try {
    const url = new URL(String(u ?? ""));
    return url.protocol === "http:" || url.protocol === "https:" ? url.href : null;
  } catch {
    return null;
  }
};
// `text` as a link to `url` when that is a web URL, else both as plain text.
const link = (url, text) => {
  const href = webUrl(url);
  return href
    ? `<a href="${esc(href)}" rel="noreferrer">${esc(text || url)}</a>`
    : `${esc(text)}${text ? " " : ""}<span class="mono muted not-link">${esc(url)}</span>`;
};
const pill = (status) => `<span class="pill st-${esc(status)}" data-status="${esc(status)}">${esc(status)}</span>`;

async function getJson(path) {
  const r = await fetch(path, { headers: { accept: "application/json" } });
  if (!r.ok) throw new Error(`${path}: HTTP ${r.status}`);
  return r.json();
}

// ---- questions list --------------------------------------------------------------------------

function rowHtml(q) {
  const lead = q.outcome ? `<span class="${esc(q.outcome)}">${esc(q.outcome)}</span> ${pct(q.p_leading)}` : "–";
  return `<td><a href="#/q/${esc(q.id)}">${esc(q.id)}</a></td><td>${esc(q.text)}</td><td>${pill(q.status)}</td>` +
    `<td>${lead}</td><td class="muted" data-ago="${esc(q.asked_at_ms)}">${ago(q.asked_at_ms)}</td>`;
}

function renderList() {
  const rows = [...state.questions.values()].sort((a, b) => Number(BigInt(b.id) - BigInt(a.id)));
  view.innerHTML = `<h1>Questions</h1>` + auditCard() + (rows.length
    ? `<table id="questions"><thead><tr><th>id</th><th>question</th><th>status</th><th>leading</th><th>asked</th></tr></thead><tbody>` +
      rows.map((q) => `<tr id="q-${esc(q.id)}">${rowHtml(q)}</tr>`).join("") + `</tbody></table>`
    : `<p class="muted">No question seen yet. Ask one on-chain (<code>veritas ask "…"</code>); it appears here live.</p>`);
}

// An auditor's check of any report file (a node's `.veritas/reports/*.json`, a copy someone
// sent): the leaves and the root are recomputed here, nothing is sent to the node.
function auditCard() {
  return `<div class="card"><b>Check a report file</b> <input type="file" id="report-file" accept=".json,application/json">
    <div id="file-check" class="muted">Leaves and root are recomputed in this browser.</div></div><h2>On this node</h2>`;
}

async function checkFile(file) {
  const out = document.getElementById("file-check");
  try {
    const report = JSON.parse(await file.text());
    const r = await Verify.check(report, null);
    out.innerHTML = r.verified
      ? `<p class="ok" id="file-status" data-verified="true">verified: ${report.evidence.length} items, root ${esc(r.root)}</p>`
      : `<div id="file-status" data-verified="false"><p class="bad">MISMATCH</p><ul>${r.problems.map((p) => `<li class="mono">${esc(p)}</li>`).join("")}</ul></div>`;
  } catch (e) {
    out.innerHTML = `<p class="bad" id="file-status" data-verified="error">not a report: ${esc(e.message)}</p>`;
  }
}

document.addEventListener("change", (e) => {
  if (e.target && e.target.id === "report-file" && e.target.files.length) checkFile(e.target.files[0]);
});

function upsertQuestion(q) {
  state.questions.set(q.id, Object.assign(state.questions.get(q.id) || {}, q));
  if (state.current !== null) return;
  const tr = document.getElementById(`q-${q.id}`);
  if (!tr) return renderList();
  tr.innerHTML = rowHtml(state.questions.get(q.id));
  tr.classList.remove("new"); void tr.offsetWidth; tr.classList.add("new");
}

// ---- question page ---------------------------------------------------------------------------

function ballotRow(b) {
  const vote = b.vote ? `<span class="${esc(b.vote)}">${esc(b.vote)}</span>` : `<span class="bad">failed</span>`;
  const cited = [...(b.supporting_evidence_ids || []).map((i) => `+${i}`), ...(b.refuting_evidence_ids || []).map((i) => `−${i}`)].join(" ");
  return `<tr class="ballot"><td>${esc(b.iteration)}</td><td>${esc(b.archetype)}</td><td class="mono">${esc(b.model)}</td><td>${vote}</td>` +
    `<td>${b.confidence === null || b.confidence === undefined ? "–" : b.confidence.toFixed(2)}</td><td>${esc(cited) || "–"}</td>` +
    `<td class="reason">${esc(b.failure || b.reasoning)}</td></tr>`;
}

function routingHtml(routing) {
  if (!routing) return `<p class="muted">The committee has not finished.</p>`;
  const reasons = routing.reasons && routing.reasons.length ? `<ul class="reasons">${routing.reasons.map((r) => `<li>${esc(r)}</li>`).join("")}</ul>` : "";
  return `<p id="decision"><b>${esc(routing.decision)}</b>${routing.outcome ? ` — leading outcome <span class="${esc(routing.outcome)}">${esc(routing.outcome)}</span>` : ""}</p>${reasons}`;
}

function statsHtml(stats) {
  if (!stats) return "";
  const kappa = stats.kappa === null ? "undefined (no iteration with 2 ballots)" : stats.kappa.toFixed(3);
  return `<div class="kv"><div>P(YES / NO / NULL)</div><div>${stats.posterior.map(pct).join(" / ")}</div>` +
    `<div>95% interval of YES</div><div>${pct(stats.ci95[0][0])} – ${pct(stats.ci95[0][1])}</div>` +
    `<div>Fleiss' kappa</div><div>${kappa}</div><div>n_eff</div><div>${stats.n_eff.toFixed(2)} of ${esc(stats.valid)} valid ballots</div>` +
    `<div>entropy</div><div>${stats.entropy_bits.toFixed(3)} bits</div></div>`;
}

// Seconds as "2 h 05 min" / "3 min 20 s" / "12 s".
const span = (s) => s >= 3600 ? `${Math.floor(s / 3600)} h ${String(Math.floor(s % 3600 / 60)).padStart(2, "0")} min`
  : s >= 60 ? `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, "0")} s` : `${s} s`;

// The challenge window of a Resolved verdict: when it becomes final, and the time left.
function windowHtml(l) {
  if (!l || l.status !== "Resolved" || !l.final_at) return "";
  const left = l.final_at - Math.floor(Date.now() / 1000);
  return `<div>challenge window</div><div id="challenge" data-final-at="${esc(l.final_at)}">${left > 0
    ? `${span(left)} left (final at ${new Date(l.final_at * 1000).toISOString()})`
    : `over: final since ${new Date(l.final_at * 1000).toISOString()}`}</div>`;
}

const wadPct = (w) => (w === null || w === undefined ? "–" : (Number(BigInt(w) / 10n ** 12n) / 1e4).toFixed(1) + "%");

// Evidence submitted on-chain while the question is open, and how each provisional committee
// run (never posted) moved the posterior.
function provisionalHtml(d) {
  const subs = d.submissions || [];
  const runs = d.provisional || [];
  if (!subs.length && !runs.length) return "";
  const subRows = subs.map((s) => `<tr><td>${esc(s.index)}</td><td class="mono">${esc(s.submitter)}</td><td>${link(s.url, s.title)}</td></tr>`).join("");
  const runRows = runs.map((r) => { const p = (r.summary && r.summary.posterior) || [];
    return `<tr><td>${esc(r.run)}</td><td>${esc(r.submissions)}</td><td>${pct(p[0])}</td><td>${pct(p[1])}</td><td>${pct(p[2])}</td><td>${esc(r.summary && r.summary.decision)}</td><td class="muted" data-ago="${esc(r.created_at)}">${ago(r.created_at)}</td></tr>`; }).join("");
  return `<h3>Submitted evidence (${subs.length})</h3>` + (subRows ? `<table id="submissions"><thead><tr><th>#</th><th>submitter</th><th>item</th></tr></thead><tbody>${subRows}</tbody></table>` : "") +
    `<h3>Provisional runs (${runs.length}) <span class="muted">— never posted; how the submissions move the committee</span></h3>` +
    (runRows ? `<table id="provisional"><thead><tr><th>run</th><th>submissions</th><th>YES</th><th>NO</th><th>NULL</th><th>routing</th><th>when</th></tr></thead><tbody>${runRows}</tbody></table>` : `<p class="muted">none yet</p>`);
}

// The court's case of the question (its deadline, and the ruling once given).
function rulingHtml(c) {
  if (!c) return "";
  return `<div>court deadline</div><div>${utc(c.deadline)}</div><div>court ruling</div><div id="ruling" data-ruling="${esc(c.ruling)}">${rulingText(c)}</div>`;
}

function chainHtml(d) {
  const txs = (d.transactions || []).map((t) => `<tr><td class="mono">${esc(t.hash)}</td><td>${esc(t.status)}</td><td>${esc(t.block ?? "–")}</td><td>${esc(t.nonce)}</td></tr>`).join("");
  const l = d.lifecycle;
  const chain = d.chain ? `<div class="kv"><div>on-chain status</div><div id="chain-status">${esc(l ? l.status : d.chain.status)}</div>
    <div>on-chain root</div><div class="mono">${esc(d.chain.merkle_root || "–")}</div>${windowHtml(l)}
    ${l && l.disputer ? `<div>disputed by</div><div class="mono" id="disputer">${esc(l.disputer)} (bond ${esc(l.bond)} wei)</div>` : ""}
    ${l && l.settled ? `<div>fees</div><div>settled</div>` : ""}${rulingHtml(d.court)}</div>` : "";
  const reports = d.operator_reports || [];
  const mine = new Set((d.transactions || []).map((t) => t.hash));
  const ops = reports.length ? `<h3>Operators' reports (${reports.length})</h3><table id="operator-reports"><thead><tr><th>operator</th><th>YES / NO / NULL ballots</th><th>kappa</th><th>routing</th><th>root</th><th>block</th></tr></thead><tbody>` +
    reports.map((r) => `<tr${mine.has(r.tx_hash) ? ` class="mine"` : ""}><td class="mono">${esc(r.operator)}${mine.has(r.tx_hash) ? " (this node)" : ""}</td>
      <td>${esc(r.counts.join(" / "))}</td><td>${(Number(BigInt(r.kappa) / 10n ** 12n) / 1e6).toFixed(3)}</td><td>${r.escalated ? "escalate" : "resolve"}</td>
      <td class="mono">${esc(r.merkle_root.slice(0, 18))}…</td><td>${esc(r.block_number)}</td></tr>`).join("") + `</tbody></table>` : "";
  const so = d.second_opinion;
  const second = so ? `<h3>Second opinion for the arbiter</h3><div class="card" id="second-opinion"><p>The committee ran again on the current evidence after the dispute:
    YES ${pct(so.stats.posterior[0])} · NO ${pct(so.stats.posterior[1])} · NULL ${pct(so.stats.posterior[2])}; routing ${esc(so.routing.decision)}; root <span class="mono">${esc(so.root)}</span></p></div>` : "";
  return chain + ops + second + provisionalHtml(d) + (txs ? `<h3>This node's transactions</h3><table><thead><tr><th>transaction</th><th>status</th><th>block</th><th>nonce</th></tr></thead><tbody>${txs}</tbody></table>` : `<p class="muted">No transaction from this node.</p>`);
}

async function renderMerkle(report, chainRoot) {
  const box = document.getElementById("merkle");
  if (!box || !report) return;
  try {
    const r = await Verify.check(report, chainRoot);
    box.innerHTML = r.verified
      ? `<p class="ok" id="merkle-status" data-verified="true">verified: root ${esc(r.root)} recomputed in this browser matches the report${r.chainOk ? " and the chain" : ""}</p>`
      : `<div id="merkle-status" data-verified="false"><p class="bad">MISMATCH</p><ul>${r.problems.map((p) => `<li class="mono">${esc(p)}</li>`).join("")}</ul></div>`;
    r.items.forEach((it) => {
      const cell = document.getElementById(`leaf-${it.index}`);
      if (cell) cell.innerHTML = `<span class="mono">${esc(it.computed)}</span> ${it.ok ? `<span class="ok leaf-ok">verified</span>` : `<span class="bad leaf-bad">differs</span>`}`;
    });
  } catch (e) {
    box.innerHTML = `<p class="bad" id="merkle-status" data-verified="error">${esc(e.message)}</p>`;
  }
}

function renderCharts(report, ballots) {
  const post = document.getElementById("chart-posterior");
  if (post) { post.innerHTML = ""; post.appendChild(Charts.posterior(ballots).svg); }
  const kl = document.getElementById("chart-kl");
  if (kl && report) { kl.innerHTML = ""; kl.appendChild(Charts.divergence(report.committee)); }
}

// "Not yet": how often the question was deferred and when reports reopen; this node's report
// saying "not yet", with the rule's reason.
function notYetHtml(d, rep) {
  const deferrals = d.deferrals || [];
  const parts = [];
  if (deferrals.length) {
    const last = deferrals[deferrals.length - 1];
    const until = d.status === "deferred" ? `deferred until ${esc(new Date(last.resolve_after * 1000).toISOString())}` : "deferred";
    parts.push(`<p id="deferral">not yet: ${until}, ${deferrals.length} of ${esc(d.max_deferrals)} deferrals</p>`);
  }
  if (rep && rep.not_yet && rep.not_yet.defers) {
    parts.push(`<p id="not-yet-reason" class="muted">this node's report says not yet: ${esc(rep.not_yet.reason)}</p>`);
  }
  return parts.join("");
}

async function renderQuestion(id) {
  let d;
  try {
    d = await getJson(`/questions/${encodeURIComponent(id)}`);
  } catch (e) {
    view.innerHTML = `<p class="bad">${esc(e.message)}</p><p><a href="#/">all questions</a></p>`;
    return;
  }
  if (state.current !== id) return;
  state.detail = d;
  const rep = d.report;
  const q = d.job;
  const ballots = rep ? rep.ballots : (d.live_ballots || []);
  const evidence = rep ? rep.evidence : [];
  const clarifications = rep ? (rep.question.clarifications || []) : [];
  view.innerHTML = `<p><a href="#/">← all questions</a></p>
    <h1 id="question-text">${esc(q.question)}</h1>
    <p>${pill(d.status || q.stage)} · id ${esc(q.question_id)} · resolveAfter ${q.resolve_after ? new Date(q.resolve_after * 1000).toISOString() : "at once"}</p>
    ${notYetHtml(d, rep)}
    <div id="act-slot"></div>
    <h2>Evidence bundle</h2><div id="merkle" class="card"><p class="muted">${rep ? "checking…" : "no report yet"}</p></div>
    <table id="evidence"><thead><tr><th>#</th><th>item</th><th>source</th><th>leaf hash (recomputed)</th></tr></thead><tbody>
      ${rep ? `<tr><td>0</td><td><i>the question text</i></td><td>–</td><td id="leaf-0">…</td></tr>` : ""}
      ${clarifications.map((t, k) => `<tr class="clarification"><td>c${k + 1}</td><td><i>clarification by the asker</i><br><span class="muted">${esc(t)}</span></td>
        <td>asker</td><td id="leaf-${k + 1}">…</td></tr>`).join("")}
      ${evidence.map((e, i) => `<tr><td>${i + 1}</td><td>${link(e.url, e.title)}<br><span class="muted">${esc(e.snippet)}</span></td>
        <td>${esc(e.source)}${e.submitter ? `<br><span class="mono">${esc(e.submitter)}</span>` : ""}</td><td id="leaf-${i + 1 + clarifications.length}">…</td></tr>`).join("")}
    </tbody></table>
    <div class="grid">
      <div class="card"><h2>Posterior per iteration (95% band)</h2><div id="chart-posterior"></div></div>
      <div class="card"><h2>KL divergence per iteration</h2><div id="chart-kl"></div></div>
    </div>
    <div class="grid"><div class="card"><h2>Statistics</h2><div id="stats">${statsHtml(rep && rep.stats)}</div></div>
      <div class="card"><h2>Routing</h2><div id="routing">${routingHtml(rep && rep.routing)}</div></div></div>
    <h2>Ballots <span class="muted" id="ballot-count">(${ballots.length})</span></h2>
    <table id="ballots"><thead><tr><th>iter.</th><th>persona</th><th>juror</th><th>vote</th><th>conf.</th><th>cited</th><th>reasoning</th></tr></thead>
      <tbody>${ballots.map(ballotRow).join("")}</tbody></table>
    <h2>On-chain</h2><div id="chain">${chainHtml(d)}</div>`;
  Act.attach(id);
  renderCharts(rep, ballots);
  // With several reports the chain's root is their digest: check ours against our own report.
  const ours = (d.operator_reports || []).find((r) => (d.transactions || []).some((t) => t.hash === r.tx_hash));
  const chainRoot = (d.operator_reports || []).length > 1 ? (ours ? ours.merkle_root : null) : d.chain && d.chain.merkle_root;
  renderMerkle(rep, chainRoot);
}

function onBallot(b) {
  if (state.current !== String(b.question)) return;
  const body = document.querySelector("#ballots tbody");
  if (!body) return;
  body.insertAdjacentHTML("beforeend", ballotRow(b));
  body.lastElementChild.classList.add("new");
  const all = (state.detail.live_ballots = (state.detail.live_ballots || []).concat([b]));
  document.getElementById("ballot-count").textContent = `(${body.children.length})`;
  if (!state.detail.report) renderCharts(null, all);
}

// ---- routing and live events -----------------------------------------------------------------

async function route() {
  const m = location.hash.match(/^#\/q\/([0-9]+)$/);
  const court = location.hash === "#/court" || (location.pathname === "/court" && !location.hash);
  state.current = m ? m[1] : court ? "court" : null;
  if (court) return renderCourt();
  if (state.current) return renderQuestion(state.current);
  const list = await getJson("/questions").catch(() => ({ questions: [], event_id: 0 }));
  list.questions.forEach((q) => state.questions.set(q.id, q));
  if (state.after === undefined) state.after = list.event_id;
  renderList();
}

// An event's JSON payload.
const payload = (e) => JSON.parse(e.data);

function connect() {
  const es = new EventSource(`/events${state.after ? `?after=${state.after}` : ""}`);
  es.onopen = () => { live.textContent = "live"; live.className = "live on"; };
  es.onerror = () => { live.textContent = "reconnecting"; live.className = "live off"; };
  es.addEventListener("question", (e) => {
    const q = payload(e);
    // A copy: upsertQuestion updates the stored row in place.
    const before = Object.assign({}, state.questions.get(q.id));
    upsertQuestion(q);
    // The question on screen changed (report written, verdict posted, disputed, a second
    // opinion written): show it all. While the committee runs, ballots arrive on their own.
    const changed = before.status !== q.status || (q.status !== "resolving" && before.updated_ms !== q.updated_ms);
    if (state.current === q.id && changed) renderQuestion(q.id);
    if (state.current === "court" && changed) renderCourt();
  });
  es.addEventListener("ballot", (e) => onBallot(payload(e)));
  // A provisional run finished for the question on screen: show its posterior.
  es.addEventListener("provisional", (e) => {
    const p = payload(e);
    if (state.current === String(p.question)) renderQuestion(state.current);
  });
  // The server dropped events for this browser (it was too slow): reload what is shown.
  es.addEventListener("resync", () => route());
}

setInterval(() => document.querySelectorAll("[data-ago]").forEach((td) => { td.textContent = ago(Number(td.dataset.ago)); }), 5000);
// The challenge window counts down on screen.
setInterval(() => {
  const el = document.getElementById("challenge");
  if (el && state.detail) el.outerHTML = windowHtml(state.detail.lifecycle).replace(/^<div>challenge window<\/div>/, "");
}, 1000);
window.addEventListener("hashchange", route);
// The first list carries the event id it reflects; the stream continues right after it.
route().then(connect);
