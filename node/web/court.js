// The court's page (`#/court`, printable at `/court`): every disputed, escalated or ruled
// question with what its arbitrator needs to rule: the question, the evidence submitted
// on-chain, every operator's report and the bundle it commits to (where this node has it), the
// committee's second opinion, the case on-chain with its deadline; and each case as a
// downloadable ERC-1497 case file (`/cases/{id}/evidence.json`). Reads `GET /cases`.
"use strict";

const ZERO = "0x0000000000000000000000000000000000000000";
const utc = (secs) => new Date(Number(secs) * 1000).toISOString().replace(".000Z", "Z");

// The ruling as the node names it (`ruling_title`, from the oracle's `RULING_*` numbers).
const rulingText = (c) => (c.ruling === "0" ? "none yet" : `${esc(c.ruling)}: ${esc(c.ruling_title || "unknown ruling")}`);

function deadlineHtml(secs) {
  const left = Number(secs) - Math.floor(Date.now() / 1000);
  return `${utc(secs)} (${left > 0 ? `${span(left)} left` : "passed"})`;
}

function courtHtml(c) {
  if (!c) return `<p class="muted">Not before the court yet (an escalation anyone may take there), or the chain did not answer.</p>`;
  const dispute = c.disputer !== ZERO;
  return `<div class="kv"><div>arbitrator</div><div class="mono">${esc(c.arbitrator)}</div><div>dispute id</div><div>${esc(c.dispute_id)}</div>
    ${dispute ? `<div>disputer</div><div class="mono">${esc(c.disputer)}</div><div>bond</div><div>${esc(c.bond)} wei</div>
      <div>claimed YES / NO / NULL</div><div>${c.claimed.map(wadPct).join(" / ")}</div>` : `<div>brought by</div><div class="mono">${esc(c.requester)} (escalation)</div>`}
    <div>court deadline</div><div class="deadline">${deadlineHtml(c.deadline)}</div>
    <div>ruling</div><div class="ruling" data-ruling="${esc(c.ruling)}">${rulingText(c)}</div></div>`;
}

function evidenceList(items) {
  if (!items) return `<span class="muted">not on this node</span>`;
  if (!items.length) return `<span class="muted">no item (the question only)</span>`;
  return `<ol class="bundle">${items.map((e) => `<li>${link(e.url, e.title)}${e.snippet ? ` <span class="muted">${esc(e.snippet)}</span>` : ""}</li>`).join("")}</ol>`;
}

function caseHtml(k) {
  const subs = k.submissions.map((s) => `<tr><td>${esc(s.index)}</td><td class="mono">${esc(s.submitter)}${k.court && String(s.submitter).toLowerCase() === k.court.disputer.toLowerCase() ? " (disputer)" : ""}</td>
    <td>${link(s.url, s.title)}<br><span class="muted">${esc(s.snippet)}</span></td></tr>`).join("");
  const reports = k.reports.map((r) => `<tr><td class="mono">${esc(r.operator)}</td><td>${esc(r.counts.join(" / "))}<br><span class="muted">${r.triple.map(wadPct).join(" / ")}</span></td>
    <td>${(Number(BigInt(r.kappa) / 10n ** 12n) / 1e6).toFixed(3)}</td><td>${r.escalated ? "escalate" : "resolve"}</td>
    <td class="mono">${esc(r.merkle_root)}</td><td>${evidenceList(r.evidence)}</td></tr>`).join("");
  const so = k.second_opinion;
  const second = so && so.stats ? `<p>The committee ran again on the evidence after the dispute: YES ${pct(so.stats.posterior[0])} · NO ${pct(so.stats.posterior[1])} · NULL ${pct(so.stats.posterior[2])};
    routing ${esc(so.routing && so.routing.decision)}; root <span class="mono">${esc(so.root)}</span></p>${evidenceList(so.evidence)}` : `<p class="muted">none</p>`;
  return `<section class="case card" id="case-${esc(k.id)}" data-status="${esc(k.status)}">
    <h2><a href="#/q/${esc(k.id)}">Question ${esc(k.id)}</a> ${pill(k.status)}</h2>
    <p class="question-text">${esc(k.question)}</p>
    <h3>The case</h3>${courtHtml(k.court)}
    <h3>Evidence submitted on-chain (${k.submissions.length})</h3>${subs ? `<table class="submissions"><thead><tr><th>#</th><th>submitter</th><th>item</th></tr></thead><tbody>${subs}</tbody></table>` : `<p class="muted">none</p>`}
    <h3>Operators' reports (${k.reports.length})</h3>${reports ? `<table class="reports"><thead><tr><th>operator</th><th>YES / NO / NULL ballots, triple</th><th>kappa</th><th>routing</th><th>root</th><th>evidence committed to</th></tr></thead><tbody>${reports}</tbody></table>` : `<p class="muted">none</p>`}
    <h3>Second opinion</h3><div class="second-opinion">${second}</div>
    <p class="no-print"><a class="case-file" href="/cases/${esc(k.id)}/evidence.json" download="veritas-case-${esc(k.id)}.json">Download the case file (ERC-1497 JSON)</a>
      · <button type="button" class="print">Print</button></p></section>`;
}

async function renderCourt() {
  let list;
  try {
    list = await getJson("/cases");
  } catch (e) {
    view.innerHTML = `<p class="bad">${esc(e.message)}</p>`;
    return;
  }
  if (state.current !== "court") return;
  view.innerHTML = `<h1>Court</h1><p class="muted no-print">Every disputed, escalated or ruled question this node follows, with what its court needs to rule.
    The case file is the ERC-1497 evidence of the case as JSON; Print gives one case per page.</p>` +
    (list.cases.length ? list.cases.map(caseHtml).join("") : `<p class="muted" id="no-cases">No question is before a court.</p>`);
}

document.addEventListener("click", (e) => {
  if (e.target && e.target.classList && e.target.classList.contains("print")) window.print();
});
