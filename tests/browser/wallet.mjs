// Acting from the web view with a wallet, in headless Chromium. The page gets an injected
// EIP-1193 provider (an init script): it forwards every request to the real anvil, except the
// accounts (the test key's) and `eth_sendTransaction`, which this script signs with the test key
// (viem's local account) and sends as `eth_sendRawTransaction`. The key stays in this Node.js
// process; neither the page nor the node sees it. Run by `tests/it/web_wallet.rs`, which owns
// anvil and the node; they talk over stdio:
//
//   (--question <id>: open for evidence; --rpc: anvil; --key: the wallet's key)
//   script -> test   EVIDENCE               evidence submitted from the page, provisional run shown
//   test -> script   RESOLVED               the verdict is posted (Resolved, in its window)
//   script -> test   DISPUTED               every refusal sent nothing; the dispute was sent
//   test -> script   RULED                  the court ruled (NO) and the ruling was executed
//   script -> test   RESULT {json}          every check passed
//
// Any failed check prints the reason and exits 1. Screenshots go to --out.
import * as path from "node:path";
import { createRequire } from "node:module";
import { arg, fail, nextLine, problems, start } from "./harness.mjs";

const require = createRequire(import.meta.url);
const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "../..");
const { createWalletClient, http } = require(path.join(root, "tools/node_modules/viem"));
const { privateKeyToAccount } = require(path.join(root, "tools/node_modules/viem/accounts"));

const rpc = arg("rpc");
const account = privateKeyToAccount(arg("key"));
const signer = createWalletClient({ account, transport: http(rpc) });
let sent = 0;
let nextRpcId = 1;

/** One EIP-1193 request of the page: `{ result }` or `{ error: { code, message, data } }`. */
async function handle(method, params) {
  try {
    if (method === "eth_requestAccounts" || method === "eth_accounts") return { result: [account.address] };
    if (method === "eth_sendTransaction") {
      const [tx] = params;
      const hash = await signer.sendTransaction({
        to: tx.to, data: tx.data, value: tx.value ? BigInt(tx.value) : 0n,
        gas: tx.gas ? BigInt(tx.gas) : undefined, chain: null,
      });
      sent++;
      return { result: hash };
    }
    const r = await fetch(rpc, {
      method: "POST", headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: nextRpcId++, method, params }),
    });
    const body = await r.json();
    return body.error ? { error: body.error } : { result: body.result };
  } catch (e) {
    return { error: { code: -32603, message: e.shortMessage || e.message } };
  }
}

// The provider the page sees as `window.ethereum`: errors carry `code` and `data` as a wallet's do.
const PROVIDER = () => {
  window.ethereum = {
    isVeritasTestWallet: true,
    async request({ method, params }) {
      const r = await window.__testWallet(method, params || []);
      if (r.error) {
        const e = new Error(r.error.message);
        e.code = r.error.code;
        e.data = r.error.data;
        throw e;
      }
      return r.result;
    },
    on() {},
    removeListener() {},
  };
};

/** Bytes the page transferred so far (navigation and every finished resource). */
const transferred = (page) => page.evaluate(() => performance.getEntriesByType("navigation").concat(performance.getEntriesByType("resource"))
  .reduce((sum, e) => sum + (e.transferSize || 0), 0));

async function review(page, form, fields) {
  await page.evaluate(() => { const r = document.getElementById("act-result"); if (r) r.innerHTML = ""; });
  for (const [name, value] of Object.entries(fields)) await page.fill(`#${form} [name="${name}"]`, value);
  await page.click(`#${form} button[type="submit"]`);
  await page.waitForSelector("#act-plan, #act-refused", { timeout: 15000 }).catch(() => fail(`no review of ${form}`));
}

async function refusal(page, what) {
  const el = await page.$("#act-refused");
  if (!el) fail(`${what}: not refused: ${await page.textContent("#act-result")}`);
  return { error: await el.getAttribute("data-error"), sentence: (await el.textContent()).trim() };
}

async function sendPlanned(page, what) {
  if (!(await page.$("#act-plan"))) fail(`${what}: refused: ${await page.textContent("#act-result")}`);
  await page.click("#act-send");
  await page.waitForSelector("#act-done, #act-refused", { timeout: 30000 }).catch(() => fail(`${what}: never mined`));
  const status = await page.getAttribute("#act-done", "data-status").catch(() => null);
  if (status !== "success") fail(`${what}: ${await page.textContent("#act-result")}`);
}

const { url, out, browser } = await start();
try {
  const page = await browser.newPage({ viewport: { width: 1200, height: 1300 } });
  const errors = problems(page);
  await page.exposeFunction("__testWallet", handle);
  await page.addInitScript(PROVIDER);
  const id = arg("question");
  await page.goto(`${url}/#/q/${id}`);
  await page.waitForSelector("#live.on", { timeout: 10000 }).catch(() => fail("the event stream never connected"));
  await page.waitForSelector("#connect", { timeout: 10000 }).catch(() => fail("no Connect wallet button"));
  const beforeConnect = await transferred(page);
  const walletLoadedEarly = await page.evaluate(() => performance.getEntriesByType("resource").some((e) => e.name.endsWith("/assets/wallet.js")));
  if (walletLoadedEarly) fail("the wallet module loaded before Connect wallet");
  await page.evaluate(() => { window.__noReload = true; });

  await page.click("#connect");
  await page.waitForSelector("#wallet-account", { timeout: 15000 }).catch(async () => fail(`not connected: ${await page.textContent("#wallet")}`));
  const shown = await page.getAttribute("#wallet-account", "data-account");
  if (shown !== account.address) fail(`connected as ${shown}, not ${account.address}`);
  const afterConnect = await transferred(page);
  const walletBytes = await page.evaluate(() => performance.getEntriesByType("resource").filter((e) => e.name.endsWith("/assets/wallet.js")).map((e) => e.transferSize)[0] || 0);

  // Clarify as the asker: an empty text is refused by the node's check (nothing sent), then a
  // clarification is reviewed, simulated, signed here and mined.
  const sentBeforeClarify = sent;
  await review(page, "form-clarify", { text: "" });
  const empty = await refusal(page, "an empty clarification");
  if (sent !== sentBeforeClarify) fail("a refused clarification sent a transaction");
  await review(page, "form-clarify", { text: "The lane counts as open once riders may use its whole length." });
  const clarifyPlan = await page.textContent("#act-plan");
  if (!/number 1 of 4/.test(clarifyPlan)) fail(`clarification review without its count: ${clarifyPlan}`);
  await sendPlanned(page, "clarify");

  // Submit evidence: reviewed (its fee shown), simulated, signed here, mined; the provisional
  // run it triggers appears without a reload.
  await review(page, "form-evidence", { url: "https://harbour.example/opening", title: "Harbour lane opened", snippet: "The harbour lane opened to riders on 12 March 2026." });
  const evidencePlan = await page.textContent("#act-plan");
  if (!/evidence fee/.test(evidencePlan)) fail(`evidence review without its fee: ${evidencePlan}`);
  await sendPlanned(page, "submitEvidence");
  // A second item reviewed while the question is open, sent only after it closed (below): the
  // simulation refuses it.
  await review(page, "form-evidence", { url: "https://harbour.example/later", title: "Later", snippet: "Reviewed in time, sent too late." });
  if (!(await page.$("#act-plan"))) fail(`second evidence item not planned: ${await page.textContent("#act-result")}`);
  await page.waitForSelector("#submissions tbody tr", { timeout: 30000 }).catch(() => fail("the submission never showed"));
  await page.waitForSelector("#provisional tbody tr", { timeout: 60000 }).catch(() => fail("no provisional run showed"));
  const provisional = (await page.textContent("#provisional tbody tr")).trim();
  if (!(await page.evaluate(() => window.__noReload === true))) fail("the page reloaded");
  console.log("EVIDENCE");

  if ((await nextLine()) !== "RESOLVED") fail("expected RESOLVED");
  await page.waitForSelector('[data-status="finalised"], [data-status="resolved"]', { timeout: 30000 })
    .catch(async () => fail(`the verdict never showed: ${await page.getAttribute("[data-status]", "data-status")}`));
  const sentBefore = sent;
  // Refused by the contract in the simulation: the item planned while open, sent after.
  if (!(await page.$("#act-plan"))) fail(`the pending evidence plan is gone: ${await page.textContent("#act-result")}`);
  await page.click("#act-send");
  await page.waitForSelector("#act-done, #act-refused", { timeout: 15000 }).catch(() => fail("late send: no answer"));
  const simulated = await refusal(page, "evidence sent after the window");
  // Refused by the node's check (the CLI's rules): evidence after resolveAfter.
  await review(page, "form-evidence", { url: "https://late.example/", title: "late", snippet: "too late" });
  const closed = await refusal(page, "late evidence");
  // Refused by the node's check: a clarification after the first report.
  await review(page, "form-clarify", { text: "Too late to say what it means." });
  const lateClarify = await refusal(page, "clarification after the report");
  // Refused by the node's check, in the contract's order: a dispute crediting the zero address.
  await review(page, "form-dispute", { yes: "10", no: "85", null: "5", beneficiary: "0x0000000000000000000000000000000000000000" });
  const zero = await refusal(page, "zero-beneficiary dispute");
  // Malformed input: the node's message, no contract error.
  await review(page, "form-dispute", { yes: "ten", no: "85", null: "5", beneficiary: "" });
  const malformed = await refusal(page, "a percentage that is none");
  if (!/is not a percentage/.test(malformed.sentence)) fail(`malformed percentage: ${malformed.sentence}`);
  // The node's checks for the other two actions: no appeal before a court, no finalize of a
  // posted verdict.
  await review(page, "form-appeal", {});
  const appeal = await refusal(page, "appeal before a court");
  await review(page, "form-finalize", {});
  const finalize = await refusal(page, "finalize after the verdict");
  if (sent !== sentBefore) fail(`a refused action sent ${sent - sentBefore} transaction(s)`);

  // The dispute: bond, court fee and deadline shown before sending.
  await review(page, "form-dispute", { yes: "10", no: "85", null: "5", beneficiary: "" });
  const disputePlan = await page.textContent("#act-plan");
  for (const needle of ["lost if the verdict stands", "the court's fee, never returned", "total", "end of the challenge window"]) {
    if (!disputePlan.includes(needle)) fail(`dispute review without "${needle}": ${disputePlan}`);
  }
  // The book's picture of the question page with the wallet connected (docs/web-wallet.png).
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: path.join(out, "wallet-connected.png"), fullPage: false });
  await sendPlanned(page, "dispute");
  await page.waitForSelector('[data-status="disputed"]', { timeout: 30000 }).catch(() => fail("the dispute never showed"));
  await page.waitForSelector("#second-opinion", { timeout: 60000 }).catch(() => fail("no second opinion"));

  // The court's page: the case with both sides, the reports, the second opinion, the deadline.
  const court = await browser.newPage({ viewport: { width: 1200, height: 1400 } });
  const courtErrors = problems(court);
  await court.goto(`${url}/court`);
  await court.waitForSelector(`#case-${id}`, { timeout: 15000 }).catch(() => fail("the case is not on the court page"));
  // One line: the test reads the script's answer line by line.
  const caseText = (await court.textContent(`#case-${id}`)).replace(/\s+/g, " ");
  for (const needle of ["Harbour lane opened", "(disputer)", "Operators' reports (1)", "The committee ran again", account.address, "court deadline"]) {
    if (!caseText.toLowerCase().includes(needle.toLowerCase())) fail(`the case lacks "${needle}": ${caseText}`);
  }
  const file = await court.evaluate(async (href) => (await fetch(href)).json(), await court.getAttribute(`#case-${id} a.case-file`, "href"));
  if (file.standard !== "ERC-1497" || file.evidenceGroupID !== id) fail(`case file: ${JSON.stringify(file).slice(0, 300)}`);
  await court.screenshot({ path: path.join(out, "court.png"), fullPage: true });
  await court.emulateMedia({ media: "print" });
  const printHidden = await court.evaluate(() => getComputedStyle(document.querySelector("header")).display === "none");
  if (!printHidden) fail("the print stylesheet does not apply");
  if (courtErrors.length) fail(`court page errors or CSP violations: ${courtErrors.join("; ")}`);
  console.log("DISPUTED");

  if ((await nextLine()) !== "RULED") fail("expected RULED");
  await page.waitForSelector('[data-status="arbitrated"]', { timeout: 30000 }).catch(() => fail("the ruling never showed"));
  await page.waitForSelector("#ruling[data-ruling='3']", { timeout: 15000 }).catch(async () => fail(`no ruling on the page: ${await page.textContent("#chain")}`));
  const ruling = (await page.textContent("#ruling")).trim();
  if (!(await page.evaluate(() => window.__noReload === true))) fail("the page reloaded");
  if (errors.length) fail(`page errors or CSP violations: ${errors.join("; ")}`);
  console.log(`RESULT ${JSON.stringify({ sent, provisional, ruling, refused: [empty, simulated, closed, lateClarify, zero, appeal, finalize], malformed,
    page_bytes_before_connect: beforeConnect, page_bytes_after_connect: afterConnect, wallet_bytes: walletBytes })}`);
} catch (e) {
  fail(e.stack || String(e));
} finally {
  await browser.close();
}
process.exit(0);
