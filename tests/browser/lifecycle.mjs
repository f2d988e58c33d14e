// The question page through a verdict's life, in headless Chromium: two operators' reports
// pooled at quorum 2, the challenge window counting down, then a dispute arriving live with the
// node's second opinion for the arbiter. Run by `tests/it/web_view.rs`, which owns anvil and the
// nodes; they talk over stdio:
//
//   (--question <id>: the pooled verdict of <id> is posted, Resolved, before the script starts)
//   script -> test   READY                  the page shows both reports and the window
//   test -> script   DISPUTED               the verdict was disputed on-chain
//   script -> test   RESULT {json}          every check passed
//
// Any failed check prints the reason and exits 1. Screenshots go to --out.
import * as fs from "node:fs";
import * as path from "node:path";
import { arg, eventLog, fail, nextLine, problems, start } from "./harness.mjs";

const { url, out, browser } = await start();
try {
  const page = await browser.newPage({ viewport: { width: 1200, height: 1100 } });
  const errors = problems(page);
  const events = await eventLog(page);
  const id = arg("question");
  await page.goto(`${url}/#/q/${id}`);
  await page.waitForSelector("#live.on", { timeout: 10000 }).catch(() => fail("the event stream never connected"));

  // Both operators' reports, this node's marked; the window's time left; our root verified
  // against our own on-chain report (the chain holds the digest of both roots).
  await page.waitForSelector("#operator-reports tbody tr:nth-child(2)", { timeout: 20000 })
    .catch(() => fail("the two operators' reports never showed"));
  const mine = await page.locator("#operator-reports tr.mine").count();
  if (mine !== 1) fail(`${mine} rows marked as this node's report`);
  const window1 = await page.textContent("#challenge").catch(() => "");
  if (!/ left \(final at /.test(window1)) fail(`no challenge window countdown: ${window1}`);
  // Wait for the change rather than a fixed 1.1 s: a tick landing just around a second's
  // rounding could show the same text twice, and the check then depended on the run.
  await page.waitForFunction((before) => document.querySelector("#challenge")?.textContent !== before, window1, { timeout: 5000 })
    .catch(() => fail(`the countdown does not move: ${window1}`));
  const window2 = await page.textContent("#challenge");
  await page.waitForSelector("#merkle-status", { timeout: 10000 });
  const verified = await page.getAttribute("#merkle-status", "data-verified");
  if (verified !== "true") fail(`Merkle check: ${await page.textContent("#merkle")}`);
  const before = await page.getAttribute("[data-status]", "data-status");
  if (before !== "finalised") fail(`status before the dispute: ${before}`);
  await page.evaluate(() => { window.__noReload = true; });
  await page.screenshot({ path: path.join(out, "pooled.png"), fullPage: true });
  console.log("READY");

  if ((await nextLine()) !== "DISPUTED") fail("expected DISPUTED");
  await page.waitForSelector('[data-status="disputed"]', { timeout: 20000 }).catch(async () => {
    const seen = JSON.stringify(events.map((e) => [e.kind, e.data && e.data.status]));
    fail(`the dispute never showed (events seen: ${seen}; errors: ${errors.join("; ")})`);
  });
  await page.waitForSelector("#second-opinion", { timeout: 30000 }).catch(() => fail("no second opinion for the arbiter"));
  if (!(await page.evaluate(() => window.__noReload === true))) fail("the page reloaded");
  const disputer = await page.textContent("#disputer");
  const opinion = await page.textContent("#second-opinion");
  if (!/YES .*%/.test(opinion)) fail(`second opinion without its posterior: ${opinion}`);
  await page.screenshot({ path: path.join(out, "disputed.png"), fullPage: true });
  if (errors.length) fail(`page errors or CSP violations: ${errors.join("; ")}`);
  console.log(`RESULT ${JSON.stringify({ window: window2.trim(), disputer: disputer.trim() })}`);
} catch (e) {
  fail(e.stack || String(e));
} finally {
  await browser.close();
}
process.exit(0);
