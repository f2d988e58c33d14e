// Drives the live committee view in headless Chromium (Debian's `chromium`, through the pinned
// playwright-core in tools/node_modules). Run by `tests/it/web_view.rs`, which owns anvil and the
// node; they talk over stdio:
//
//   script -> test   READY                 the list page is open and its event stream is live
//   test -> script   ASKED <id>            a question was asked on-chain
//   script -> test   RESULT {json}         every check passed; figures for the test to report
//
// Any failed check prints the reason and exits 1. Screenshots go to --out.
import * as fs from "node:fs";
import * as path from "node:path";
import { eventLog, fail, nextLine, problems, start } from "./harness.mjs";

const { url, out, browser } = await start();
try {
  const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
  const errors = problems(page);
  const events = await eventLog(page);
  await page.goto(`${url}/`);
  await page.waitForSelector("#live.on", { timeout: 10000 }).catch(() => fail("the event stream never connected"));
  // A marker that a reload would erase: the update below must arrive without one.
  await page.evaluate(() => { window.__noReload = true; });
  console.log("READY");

  const asked = (await nextLine()).match(/^ASKED (\d+)$/);
  if (!asked) fail("expected ASKED <id>");
  const id = asked[1];
  const settled = `#q-${id} [data-status]:not([data-status="queued"]):not([data-status="resolving"])`;
  await page.waitForSelector(settled, { timeout: 60000 }).catch(() => fail(`question ${id} never settled in the list`));
  if (!(await page.evaluate(() => window.__noReload === true))) fail("the page reloaded");
  const status = await page.getAttribute(settled, "data-status");
  // Latency of the verdict event: the node stamps the change (`updated_ms`, when it wrote the
  // posted stage), Chromium reports the event's arrival; same machine, same clock.
  const latency = events
    .filter((e) => e.kind === "question" && e.data.id === id && !["queued", "resolving"].includes(e.data.status))
    .map((e) => e.received_ms - e.data.updated_ms)[0];
  if (latency === undefined) fail("no verdict event reached the page");
  await page.screenshot({ path: path.join(out, "questions.png"), fullPage: true });

  // The question page: every leaf recomputed in the browser matches, and so does the root.
  await page.goto(`${url}/#/q/${id}`);
  await page.waitForSelector("#merkle-status", { timeout: 10000 }).catch(() => fail("no Merkle check on the question page"));
  const verified = await page.getAttribute("#merkle-status", "data-verified");
  if (verified !== "true") fail(`Merkle check: ${await page.textContent("#merkle")}`);
  const leavesOk = await page.locator(".leaf-ok").count();
  const leavesBad = await page.locator(".leaf-bad").count();
  const items = await page.locator("#evidence tbody tr").count();
  if (leavesOk !== items || leavesBad !== 0) fail(`${leavesOk} leaves verified, ${leavesBad} differ, ${items} rows`);
  const ballots = await page.locator("#ballots tbody tr").count();
  if (ballots === 0) fail("no ballots on the question page");
  await page.waitForSelector("#chart-posterior polyline", { timeout: 5000 }).catch(() => fail("no posterior chart"));
  await page.screenshot({ path: path.join(out, "question.png"), fullPage: true });

  // A tampered copy of the report: one snippet edited. The page names the differing leaf.
  const detail = await (await fetch(`${url}/questions/${id}`)).json();
  const report = detail.report;
  const original = path.join(out, `report-${id}.json`);
  fs.writeFileSync(original, JSON.stringify(report));
  const tampered = structuredClone(report);
  if (!tampered.evidence.length) fail("the report has no evidence to tamper with");
  tampered.evidence[0].snippet += " (edited)";
  const tamperedPath = path.join(out, `report-${id}-tampered.json`);
  fs.writeFileSync(tamperedPath, JSON.stringify(tampered));
  await page.goto(`${url}/#/`);
  await page.setInputFiles("#report-file", original);
  await page.waitForSelector("#file-status[data-verified=true]", { timeout: 5000 }).catch(() => fail("the original report copy did not verify"));
  await page.setInputFiles("#report-file", tamperedPath);
  await page.waitForSelector("#file-status[data-verified=false]", { timeout: 5000 }).catch(() => fail("the tampered copy was not caught"));
  const mismatch = await page.textContent("#file-status");
  if (!mismatch.includes("leaf 1 (evidence item 1)")) fail(`the mismatch does not name leaf 1: ${mismatch}`);
  await page.screenshot({ path: path.join(out, "tampered.png"), fullPage: true });
  if (errors.length) fail(`page errors or CSP violations: ${errors.join("; ")}`);
  console.log(`RESULT ${JSON.stringify({ status, latency_ms: latency, leaves: leavesOk, ballots })}`);
} catch (e) {
  fail(e.stack || String(e));
} finally {
  await browser.close();
}
process.exit(0);
