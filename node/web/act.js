// Acting on a question with the user's own wallet: the "Act with your wallet" card of the
// question page. The wallet module (/assets/wallet.js: viem, bundled at build time) is loaded
// only when the user clicks "Connect wallet", so the read-only page stays small. Each action is
// reviewed first: the node checks it by the contract's rules (`GET /questions/{id}/check/…`,
// the code `veritas` runs) and answers what it costs, or the contract's own sentence; then the
// wallet simulates and sends it. A refusal sends nothing. The node holds no key.
"use strict";

const Act = (() => {
  const panel = document.createElement("div");
  panel.id = "wallet";
  panel.className = "card";
  let session = null;
  let loading = null;
  let questionId = null;
  let pending = null;

  const FORMS = `<div class="actions">
    <form id="form-clarify" data-action="clarify"><h3>Clarify the question</h3><p class="muted">The asker only, before the first report.</p>
      <textarea name="text" rows="2" placeholder="what the question means"></textarea><button type="submit">Review</button></form>
    <form id="form-evidence" data-action="evidence"><h3>Submit evidence</h3>
      <input name="url" placeholder="https://…" autocomplete="off"><input name="title" placeholder="title" autocomplete="off">
      <textarea name="snippet" rows="2" placeholder="the relevant excerpt"></textarea><button type="submit">Review</button></form>
    <form id="form-dispute" data-action="dispute"><h3>Dispute the verdict</h3>
      <label>YES % <input name="yes" size="5"></label> <label>NO % <input name="no" size="5"></label> <label>NULL % <input name="null" size="5"></label>
      <input name="beneficiary" placeholder="beneficiary (default: your account)" autocomplete="off"><button type="submit">Review</button></form>
    <form id="form-appeal" data-action="appeal"><h3>Appeal the ruling</h3><p class="muted">Fund the next round of the court.</p><button type="submit">Review</button></form>
    <form id="form-finalize" data-action="finalize"><h3>Finalize</h3><p class="muted">Close the question after its report window.</p><button type="submit">Review</button></form>
  </div><div id="act-result"></div>`;

  function render(note) {
    panel.innerHTML = `<h2>Act with your wallet</h2>` + (session
      ? `<p id="wallet-account" data-account="${esc(session.account)}">Connected: <span class="mono">${esc(session.account)}</span> on chain ${esc(session.chainId)}. Your wallet signs and sends; this node never sees your key.</p>` + FORMS
      : `<p class="muted">Clarify, submit evidence, dispute, appeal or finalize with your own wallet; it signs and sends, this node never sees your key.</p>
         <button type="button" id="connect">Connect wallet</button>`) +
      (note ? `<p class="bad" id="wallet-error">${esc(note)}</p>` : "");
  }

  // The wallet module, loaded once on first use.
  function load() {
    if (window.VeritasWallet) return Promise.resolve(window.VeritasWallet);
    loading = loading || new Promise((resolve, reject) => {
      const script = document.createElement("script");
      script.src = "/assets/wallet.js";
      script.addEventListener("load", () => resolve(window.VeritasWallet));
      script.addEventListener("error", () => reject(new Error("the wallet module did not load")));
      document.head.appendChild(script);
    });
    return loading;
  }

  async function connect() {
    try {
      const wallet = await load();
      if (wallet.missing) return render(wallet.missing);
      session = await wallet.connect(await getJson("/abi"));
      render();
    } catch (e) {
      render(e.sentence || e.message);
    }
  }

  const result = (html) => { document.getElementById("act-result").innerHTML = html; };
  const refused = (e) => result(`<p class="bad" id="act-refused" data-error="${esc(e.error || "")}">Refused: ${esc(e.sentence || e.message)}</p>`);

  async function review(form) {
    const action = form.dataset.action;
    const fields = Object.fromEntries(new FormData(form).entries());
    pending = null;
    result(`<p class="muted">checking…</p>`);
    try {
      const plan = await session.plan(action, questionId, fields);
      pending = plan;
      result(`<div class="card" id="act-plan" data-action="${esc(action)}"><b>${esc(form.querySelector("h3").textContent)}</b> on question ${esc(questionId)}
        <div class="kv">${plan.lines.map(([k, v]) => `<div>${esc(k)}</div><div>${esc(v)}</div>`).join("")}</div>
        <button type="button" id="act-send">Sign and send</button></div>`);
    } catch (e) {
      refused(e);
    }
  }

  async function send() {
    const plan = pending;
    if (!plan) return;
    pending = null;
    result(`<p class="muted" id="act-simulating">simulating…</p>`);
    try {
      const done = await session.send(plan, (hash) => result(`<p class="muted" id="act-sent">sent <span class="mono">${esc(hash)}</span>, waiting for a block…</p>`));
      result(`<p class="${done.status === "success" ? "ok" : "bad"}" id="act-done" data-status="${esc(done.status)}">${done.status === "success" ? "Mined" : "Reverted"} in block ${esc(done.block)}: <span class="mono">${esc(done.hash)}</span></p>`);
    } catch (e) {
      refused(e);
    }
  }

  panel.addEventListener("click", (e) => {
    if (e.target.id === "connect") connect();
    if (e.target.id === "act-send") send();
  });
  panel.addEventListener("submit", (e) => {
    e.preventDefault();
    review(e.target);
  });
  render();

  return {
    /** Put the card into the question page of `id` (the same element, so inputs survive a re-render). */
    attach(id) {
      const slot = document.getElementById("act-slot");
      if (!slot) return;
      if (questionId !== id && session) { pending = null; render(); }
      questionId = id;
      slot.appendChild(panel);
    },
  };
})();
