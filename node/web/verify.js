// In-browser audit of an evidence commitment (DESIGN.md §3), independent of the node's code:
// leaf 0 = the question's UTF-8 bytes, leaves 1..n = each evidence item canonicalised with
// RFC 8785 (JCS); RFC 6962 tree: leaf = SHA256(0x00 ‖ data), node = SHA256(0x01 ‖ l ‖ r),
// split at the largest power of two below n. SHA-256 comes from WebCrypto.
"use strict";

const Verify = (() => {
  // RFC 8785: members sorted by UTF-16 code units (JavaScript's own string order), primitives
  // serialised as ECMAScript's JSON.stringify does (JCS is defined on that serialisation).
  function jcs(value) {
    if (value === null || typeof value !== "object") {
      if (typeof value === "number" && !Number.isFinite(value)) throw new Error("non-finite number");
      return JSON.stringify(value);
    }
    if (Array.isArray(value)) return "[" + value.map(jcs).join(",") + "]";
    const keys = Object.keys(value).sort();
    return "{" + keys.map((k) => JSON.stringify(k) + ":" + jcs(value[k])).join(",") + "}";
  }

  const utf8 = (s) => new TextEncoder().encode(s);
  const hex = (bytes) => "0x" + Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");

  async function sha256(parts) {
    if (!(globalThis.crypto && crypto.subtle)) {
      throw new Error("WebCrypto is unavailable: open this page on 127.0.0.1, localhost or HTTPS");
    }
    const len = parts.reduce((n, p) => n + p.length, 0);
    const buf = new Uint8Array(len);
    let at = 0;
    for (const p of parts) { buf.set(p, at); at += p.length; }
    return new Uint8Array(await crypto.subtle.digest("SHA-256", buf));
  }

  const leafHash = (data) => sha256([Uint8Array.of(0), data]);
  const nodeHash = (l, r) => sha256([Uint8Array.of(1), l, r]);

  // RFC 6962 §2.1 Merkle Tree Hash over already-hashed leaves.
  async function mth(hashes) {
    if (hashes.length === 1) return hashes[0];
    let k = 1;
    while (k * 2 < hashes.length) k *= 2;
    return nodeHash(await mth(hashes.slice(0, k)), await mth(hashes.slice(k)));
  }

  // Recompute leaves and root from the question text, the asker's clarifications (leaves 1..c,
  // each {"clarification": k, "text": …} in JCS) and the evidence items, and compare with what
  // the report says and with the root the chain holds (null when not posted yet).
  async function check(report, chainRoot) {
    const clarifications = report.question.clarifications || [];
    const datas = [utf8(report.question.text)]
      .concat(clarifications.map((text, k) => utf8(jcs({ clarification: k + 1, text }))))
      .concat(report.evidence.map((item) => utf8(jcs(item))));
    const leaves = [];
    for (const d of datas) leaves.push(await leafHash(d));
    const root = hex(await mth(leaves));
    const items = leaves.map((h, i) => {
      const computed = hex(h);
      const claimed = (report.leaves || [])[i] || null;
      return { index: i, computed, claimed, ok: claimed !== null && claimed.toLowerCase() === computed };
    });
    const problems = [];
    items.forEach((it) => {
      if (!it.ok) {
        const c = clarifications.length;
        const what = it.index === 0 ? "the question"
          : it.index <= c ? `clarification ${it.index}` : `evidence item ${it.index - c}`;
        problems.push(`leaf ${it.index} (${what}): computed ${it.computed}, report says ${it.claimed || "nothing"}`);
      }
    });
    if ((report.leaves || []).length !== leaves.length) {
      problems.push(`report lists ${(report.leaves || []).length} leaves, the bundle has ${leaves.length}`);
    }
    const reportOk = (report.root || "").toLowerCase() === root;
    if (!reportOk) problems.push(`root: computed ${root}, report says ${report.root}`);
    let chainOk = null;
    if (chainRoot) {
      chainOk = chainRoot.toLowerCase() === root;
      if (!chainOk) problems.push(`root: computed ${root}, the chain holds ${chainRoot}`);
    }
    return { root, items, reportOk, chainOk, problems, verified: problems.length === 0 };
  }

  return { jcs, check, hex, sha256 };
})();
