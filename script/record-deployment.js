#!/usr/bin/env node
// Completes deployments/<chainId>.json with what a forge script cannot know while it runs: the
// hash and block of the VeritasOracle creation, read from forge's broadcast receipts.
// Usage: node script/record-deployment.js <chainId>   (run from the repo root by `make deploy-local`)
"use strict";
const fs = require("fs");
const path = require("path");

const chainId = process.argv[2];
if (!/^\d+$/.test(chainId || "")) {
  console.error("usage: record-deployment.js <chainId>");
  process.exit(2);
}
const broadcast = path.join("broadcast", "Deploy.s.sol", chainId, "run-latest.json");
const deployment = path.join("deployments", `${chainId}.json`);

const run = JSON.parse(fs.readFileSync(broadcast, "utf8"));
const record = JSON.parse(fs.readFileSync(deployment, "utf8"));

// The receipt that created the recorded address. Receipts come from the node; forge 1.7.1 was
// seen to attach the hashes of concurrently broadcast transactions to the wrong entries of
// `transactions`, so those are not trusted.
const receipt = (run.receipts || []).find(
  (r) => (r.contractAddress || "").toLowerCase() === record.address.toLowerCase(),
);
if (!receipt) throw new Error(`${broadcast}: no receipt creating ${record.address} (was it broadcast?)`);
if (receipt.status !== "0x1") throw new Error(`deployment transaction ${receipt.transactionHash} failed`);

record.txHash = receipt.transactionHash;
record.deployBlock = Number(BigInt(receipt.blockNumber));
fs.writeFileSync(deployment, JSON.stringify(record, null, 2) + "\n");
console.log(`${deployment}: VeritasOracle ${record.address} at block ${record.deployBlock}, tx ${record.txHash}`);
