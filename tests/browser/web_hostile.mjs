// Hostile evidence on the question page, in headless Chromium. Run by `tests/it/web_view.rs`,
// which asks a question whose text is HTML, submits evidence on-chain with `javascript:` and
// `data:` URLs and HTML in every field, lets the node post its verdict, then runs this script
// with --question <id>. Every payload would set `document.title` to `pwned:<where>` if it ran.
//
//   script -> test   RESULT {json}          every check passed
//
// Any failed check prints the reason and exits 1. Screenshots go to --out.
import * as path from "node:path";
import { arg, fail, problems, start } from "./harness.mjs";

const HEADERS = {
  "content-security-policy": /^default-src 'self'; script-src 'self'; .*frame-ancestors 'none'$/,
  "x-content-type-options": /^nosniff$/,
  "referrer-policy": /^no-referrer$/,
  "x-frame-options": /^DENY$/,
};
const TITLE = "Veritas node";

const { url, out, browser } = await start();
try {
  const page = await browser.newPage({ viewport: { width: 1200, height: 1400 } });
  const errors = problems(page);
  // (c) every response the page loads from the node carries the security headers.
  const responses = [];
  page.on("response", (r) => { if (r.url().startsWith(url)) responses.push(r); });
  const id = arg("question");

  // What a payload that ran would have left behind.
  const untouched = async (where) => {
    const title = await page.title();
    if (title !== TITLE) fail(`${where}: a payload ran, the title is ${JSON.stringify(title)}`);
    const hostile = await page.evaluate(() => [...document.querySelectorAll("#view img, #view script, #view iframe, #view object, #view embed, #view svg:not(#chart-posterior svg):not(#chart-kl svg)")].map((e) => e.outerHTML));
    if (hostile.length) fail(`${where}: submitted HTML became elements: ${hostile.join(" ")}`);
    const handlers = await page.evaluate(() => [...document.querySelectorAll("*")]
      .flatMap((e) => [...e.attributes].filter((a) => a.name.startsWith("on")).map((a) => `${e.tagName} ${a.name}`)));
    if (handlers.length) fail(`${where}: event-handler attributes in the page: ${handlers.join(", ")}`);
  };

  // The list page: the question's HTML text is shown as text.
  await page.goto(`${url}/`);
  await page.waitForSelector(`#q-${id}`, { timeout: 10000 }).catch(() => fail(`question ${id} is not in the list`));
  const listed = await page.textContent(`#q-${id} td:nth-child(2)`);
  if (!listed.includes("<img src=x onerror=")) fail(`the question text is not shown as text: ${listed}`);
  await untouched("list page");

  // The question page with its evidence bundle and the raw on-chain submissions.
  await page.goto(`${url}/#/q/${id}`);
  await page.waitForSelector("#submissions tbody tr", { timeout: 10000 }).catch(() => fail("no submissions table"));
  await page.waitForSelector("#merkle-status", { timeout: 10000 }).catch(() => fail("no Merkle check"));
  const verified = await page.getAttribute("#merkle-status", "data-verified");
  if (verified !== "true") fail(`Merkle check: ${await page.textContent("#merkle")}`);
  const shown = await page.textContent("#question-text");
  if (!shown.includes("<script>")) fail(`the question text is not shown as text: ${shown}`);
  // The asker's clarification: a row of its own (leaf 1, verified above), its HTML as text.
  const clarified = await page.locator("#evidence tr.clarification").allTextContents();
  if (clarified.length !== 1 || !clarified[0].includes("<img src=x onerror=")) fail(`the clarification is not shown as text: ${clarified.join(" | ")}`);
  await untouched("question page");

  // (b) the only links of the evidence area are http(s), and each non-web URL is shown as text.
  const detail = await (await fetch(`${url}/questions/${id}`)).json();
  const subs = detail.submissions || [];
  const links = await page.evaluate(() => [...document.querySelectorAll("#evidence a[href], #submissions a[href]")]
    .map((a) => a.href));
  const notWeb = links.filter((h) => !["http:", "https:"].includes(new URL(h).protocol));
  if (notWeb.length) fail(`clickable non-http(s) links: ${notWeb.join(" | ")}`);
  const rows = await page.locator("#submissions tbody tr").count();
  if (rows !== subs.length) fail(`${rows} submission rows for ${subs.length} submissions`);
  const plain = await page.evaluate(() => [...document.querySelectorAll("#submissions tbody tr")]
    .filter((tr) => !tr.querySelector("a[href]")).map((tr) => tr.cells[2].textContent));
  const webSubs = subs.filter((s) => { try { return ["http:", "https:"].includes(new URL(s.url).protocol); } catch { return false; } });
  if (plain.length !== subs.length - webSubs.length) fail(`${plain.length} submissions shown as text, expected ${subs.length - webSubs.length}: ${plain.join(" | ")}`);
  for (const s of subs.filter((s) => !webSubs.includes(s))) {
    if (!plain.some((t) => t.includes(s.url.trim()))) fail(`the URL ${JSON.stringify(s.url)} is not shown as text`);
  }
  // The http(s) submission is in the bundle, its HTML title shown as text in a web link.
  const bundleTitles = await page.locator("#evidence tbody a[href]").allTextContents();
  if (!bundleTitles.some((t) => t.includes("<svg onload="))) fail(`the hostile http(s) item is not a link with its title as text: ${bundleTitles.join(" | ")}`);

  // Bidi overrides and control characters never reach what the reader sees.
  const unseen = await page.evaluate(() => [...document.body.innerText].filter((c) => /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069]/.test(c)).map((c) => c.codePointAt(0).toString(16)));
  if (unseen.length) fail(`control or bidi characters on the page: ${unseen.join(" ")}`);

  // (a) clicking every submitted item that is not a link does nothing.
  const before = page.url();
  const cells = page.locator("#submissions tbody tr td:nth-child(3)");
  for (let i = 0; i < (await cells.count()); i++) {
    if (await cells.nth(i).locator("a[href]").count()) continue;
    await cells.nth(i).click();
    await cells.nth(i).locator(".not-link").click();
  }
  if (page.url() !== before) fail(`a click navigated to ${page.url()}`);
  await untouched("after clicks");
  await page.screenshot({ path: path.join(out, "hostile.png"), fullPage: true });
  if (errors.length) fail(`page errors or CSP violations: ${errors.join("; ")}`);

  // The CSP is enforced in the page: a script element inserted from outside is refused.
  const refused = page.waitForEvent("console", { predicate: (m) => /Content.Security.Policy/i.test(m.text()), timeout: 5000 });
  await page.evaluate(() => {
    const s = document.createElement("script");
    s.textContent = "document.title = 'pwned:inline-probe'";
    document.body.append(s);
  });
  await refused.catch(() => fail("an inserted inline script was not refused by a CSP"));
  if ((await page.title()) !== TITLE) fail("an inline script ran: the page has no effective CSP");

  // (c) the headers, on the document, the assets, the JSON answers and the event stream.
  const kinds = new Set();
  for (const r of responses) {
    const h = await r.allHeaders();
    for (const [name, re] of Object.entries(HEADERS)) {
      if (!re.test(h[name] || "")) fail(`${r.url()}: ${name} is ${JSON.stringify(h[name])}`);
    }
    kinds.add(new URL(r.url()).pathname.replace(/\d+/g, "N"));
  }
  for (const need of ["/", "/assets/app.js", "/assets/style.css", "/questions", "/questions/N", "/events"]) {
    if (![...kinds].some((k) => k === need)) fail(`no response for ${need} was checked (saw ${[...kinds].join(" ")})`);
  }
  console.log(`RESULT ${JSON.stringify({ links, plain: plain.length, responses: responses.length })}`);
} catch (e) {
  fail(e.stack || String(e));
} finally {
  await browser.close();
}
process.exit(0);
