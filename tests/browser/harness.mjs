// What every browser script of `tests/it/web_view.rs` shares: its arguments, the stdio protocol
// with the test, failing with a reason, and headless Chromium launched for a closed network.
import { createRequire } from "node:module";
import * as fs from "node:fs";
import * as path from "node:path";
import * as readline from "node:readline";

const require = createRequire(import.meta.url);
const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "../..");
const { chromium } = require(path.join(root, "tools/node_modules/playwright-core"));

/** The value of `--name` on the command line. */
export const arg = (name) => {
  const i = process.argv.indexOf(`--${name}`);
  if (i < 0 || !process.argv[i + 1]) throw new Error(`missing --${name}`);
  return process.argv[i + 1];
};

/** Print the reason for the test and exit 1. */
export const fail = (msg) => { console.log(`FAIL ${msg}`); process.exit(1); };

const lines = readline.createInterface({ input: process.stdin });
// A test that failed (or went away) closes the script's stdin: a script waiting for its next
// line then ends instead of holding its browser, and the test's output pipe, open forever.
let closed = false;
let waiting = false;
lines.on("close", () => {
  closed = true;
  if (waiting) fail("the test closed stdin before sending the next line");
});
/** The next line the test writes (register before the test can write it). */
export const nextLine = () => {
  if (closed) fail("the test closed stdin before sending the next line");
  waiting = true;
  return new Promise((resolve) => lines.once("line", (line) => { waiting = false; resolve(line); }));
};

/** `--url`, `--out` (created) and Chromium from `--chromium`, launched headless. */
export async function start() {
  const out = arg("out");
  fs.mkdirSync(out, { recursive: true });
  const browser = await chromium.launch({
    executablePath: arg("chromium"),
    headless: true,
    // The machine's network is closed: no background traffic, no first-run work, no sandbox (root).
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
      "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  return { url: arg("url"), out, browser };
}

/**
 * The page's server-sent events as the browser receives them, read from Chromium's DevTools
 * protocol (the page itself keeps no log for tests): each `{ kind, data, received_ms }`, with
 * `received_ms` this script's clock when Chromium reported the message.
 */
export async function eventLog(page) {
  const events = [];
  const cdp = await page.context().newCDPSession(page);
  cdp.on("Network.eventSourceMessageReceived", (m) => {
    let data = null;
    try { data = JSON.parse(m.data); } catch { data = m.data; }
    events.push({ kind: m.eventName, data, received_ms: Date.now() });
  });
  await cdp.send("Network.enable");
  return events;
}

/**
 * Uncaught page errors and Content-Security-Policy violations (Chromium reports each refused
 * script, style or connection on the console): a page that renders fully under its CSP has
 * none.
 */
export function problems(page) {
  const seen = [];
  page.on("pageerror", (e) => seen.push(e.message));
  page.on("console", (m) => {
    if (m.type() === "error" && /Content.Security.Policy/i.test(m.text())) seen.push(m.text());
  });
  return seen;
}
