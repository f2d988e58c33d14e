// The web view's wallet module: acting on a question with the user's own EIP-1193 wallet
// (`window.ethereum`). Bundled with viem by esbuild at build time (`make wallet`) into
// node/web/dist/wallet.js, embedded in the node and loaded only when the user clicks
// "Connect wallet", so the read-only page stays small.
//
// The node never sees a key or a signed transaction: this module reads the oracle through the
// wallet's own RPC, encodes calls with viem from the ABI the node serves (`GET /abi`), asks the
// wallet to simulate (`eth_call`) and to send, and sends only revert data to the node
// (`POST /explain`) for the contract's own sentence. Before anything is simulated, the checks
// the CLI makes (fees, caps, deadlines, status) refuse with the sentence of the error the
// contract would revert with: the refusal is encoded as that error and explained by the node,
// so the page holds no second table of messages.
import { createClient, custom, encodeErrorResult, encodeFunctionData, formatEther, getAddress, isAddress, parseUnits } from "viem";
import { call, getBlock, getChainId, readContract, requestAddresses, sendTransaction, waitForTransactionReceipt } from "viem/actions";

// The contract's `VerdictStatus` members by index (the ABI's enum, as the CLI names them).
const STATUS = ["None", "Asked", "Resolved", "Escalated", "Arbitrated", "Disputed", "Expired", "Defaulted"];
const WAD = 10n ** 18n;

/** A check or a simulation refused the action: `sentence` says why; nothing was sent. */
export class Refused extends Error {
  constructor(sentence, error) {
    super(sentence);
    this.sentence = sentence;
    this.error = error || null;
  }
}

/** The revert data somewhere in an error's cause chain (viem's, or the wallet's own). */
function revertData(e) {
  for (let x = e, depth = 0; x && depth < 12; x = x.cause, depth++) {
    if (typeof x.data === "string" && /^0x[0-9a-fA-F]{8,}$/.test(x.data)) return x.data;
    if (x.data && typeof x.data.data === "string" && /^0x[0-9a-fA-F]{8,}$/.test(x.data.data)) return x.data.data;
  }
  return null;
}

/** The contract's sentence for revert `data`, from the node; null when it is no oracle error. */
async function explain(data) {
  const r = await fetch("/explain", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ data }) });
  if (!r.ok) return null;
  return r.json();
}

/** Connect to `ethereum` for the oracle described by `info` (`GET /abi`). */
export async function connect(info, ethereum = window.ethereum) {
  if (!ethereum || typeof ethereum.request !== "function") {
    throw new Refused("No wallet found in this browser (an EIP-1193 wallet provides window.ethereum).");
  }
  const client = createClient({ transport: custom(ethereum), pollingInterval: 500 });
  const [account] = await requestAddresses(client);
  if (!account) throw new Refused("The wallet shared no account.");
  const chainId = await getChainId(client);
  if (info.chain_id !== null && info.chain_id !== undefined && chainId !== info.chain_id) {
    throw new Refused(`The wallet is on chain ${chainId}; this node's oracle is on chain ${info.chain_id}. Switch the wallet's network.`);
  }
  return new Session(client, getAddress(account), chainId, info);
}

class Session {
  constructor(client, account, chainId, info) {
    Object.assign(this, { client, account, chainId, abi: info.abi, oracle: getAddress(info.oracle) });
  }

  read(functionName, args = []) {
    return readContract(this.client, { address: this.oracle, abi: this.abi, functionName, args });
  }

  async now() {
    return (await getBlock(this.client, { blockTag: "latest" })).timestamp;
  }

  /** Refuse as the contract would: its error `name` with `args`, in the contract's sentence. */
  async refuse(name, args) {
    const data = encodeErrorResult({ abi: this.abi, errorName: name, args });
    const explained = await explain(data);
    throw new Refused(explained ? explained.sentence : name, explained ? explained.error : name);
  }

  /**
   * What `action` on question `id` costs and needs, after the checks: `{ call, value, lines }`
   * (`lines`: [label, text] pairs to show before sending). Throws `Refused`.
   */
  async plan(action, id, form = {}) {
    id = BigInt(id);
    try {
      return await this[`plan_${action}`](id, form);
    } catch (e) {
      if (e instanceof Refused) throw e;
      throw await this.refusal(e);
    }
  }

  async plan_evidence(id, form) {
    const q = await this.read("getQuestion", [id]);
    const now = await this.now();
    if (now >= q.resolveAfter) await this.refuse("VeritasEvidenceClosed", [id, q.resolveAfter, now]);
    const fields = [form.url || "", form.title || "", form.snippet || ""];
    const caps = await Promise.all(["MAX_URL_LENGTH", "MAX_TITLE_LENGTH", "MAX_SNIPPET_LENGTH"].map((f) => this.read(f)));
    for (let i = 0; i < 3; i++) {
      const length = BigInt(new TextEncoder().encode(fields[i]).length);
      if (length > caps[i]) await this.refuse("VeritasEvidenceTooLong", [i, length, caps[i]]);
    }
    const [count, maxItems, perSubmitter, mine, fee] = await Promise.all([
      this.read("evidenceCount", [id]), this.read("MAX_EVIDENCE_PER_QUESTION"), this.read("MAX_EVIDENCE_PER_SUBMITTER"),
      this.read("evidenceOf", [id, this.account]), this.read("nextEvidenceFee", [id])]);
    if (count >= maxItems) await this.refuse("VeritasTooMuchEvidence", [id, maxItems]);
    if (mine[1] >= perSubmitter) await this.refuse("VeritasEvidenceLimit", [id, this.account, perSubmitter]);
    return {
      call: { functionName: "submitEvidence", args: [id, ...fields] }, value: fee,
      lines: [["evidence fee", wei(fee)], ["open for evidence until", date(q.resolveAfter)],
        ["items so far", `${count} of ${maxItems} (yours: ${mine[1]} of ${perSubmitter})`]],
    };
  }

  // The checks of `veritas clarify` (`contract::roles::clarify`), in the contract's order.
  async plan_clarify(id, form) {
    const text = form.text || "";
    const [status, q, tally, phase, deferral, count, max, maxLength] = await Promise.all([
      this.read("verdictStatus", [id]), this.read("getQuestion", [id]), this.read("tally", [id]),
      this.read("commitPhase", [id]), this.read("deferral", [id]), this.read("clarificationCount", [id]),
      this.read("MAX_CLARIFICATIONS"), this.read("MAX_CLARIFICATION_LENGTH")]);
    if (STATUS[status] === "None") await this.refuse("VeritasUnknownQuestion", [id]);
    if (getAddress(q.asker) !== getAddress(this.account)) await this.refuse("VeritasNotAsker", [id, getAddress(this.account)]);
    if (STATUS[status] !== "Asked" || tally[0] > 0n || phase[2] > 0n || deferral[0] > 0n) await this.refuse("VeritasClarificationClosed", [id]);
    const length = BigInt(new TextEncoder().encode(text).length);
    if (length === 0n || length > maxLength) await this.refuse("VeritasClarificationLength", [length, maxLength]);
    if (count >= max) await this.refuse("VeritasTooManyClarifications", [id, max]);
    return {
      call: { functionName: "clarify", args: [id, text] }, value: 0n,
      lines: [["clarification", `${length} bytes, number ${count + 1n} of ${max}`],
        ["shown to every juror", "after the question, as the asker's words"]],
    };
  }

  async plan_dispute(id, form) {
    const triple = ["yes", "no", "null"].map((k) => percentToWad(form[k]));
    const beneficiary = (form.beneficiary || "").trim() || this.account;
    if (!isAddress(beneficiary)) throw new Refused(`The beneficiary ${beneficiary} is not an address.`);
    const status = await this.read("verdictStatus", [id]);
    if (STATUS[status] !== "Resolved") await this.refuse("VeritasNotDisputable", [id, status]);
    const [finalAt, now, params, courtFee] = await Promise.all([
      this.read("finalAt", [id]), this.now(), this.read("questionParameters", [id]), this.read("courtCost", [id])]);
    if (now >= finalAt) await this.refuse("VeritasChallengeWindowClosed", [id, finalAt, now]);
    for (let i = 0; i < 3; i++) if (triple[i] === 0n) await this.refuse("VeritasZeroProbability", [i]);
    const sum = triple[0] + triple[1] + triple[2];
    if (sum !== WAD) await this.refuse("VeritasProbabilitySum", [sum]);
    const bond = BigInt(params.disputeBond);
    return {
      call: { functionName: "dispute", args: [id, ...triple, getAddress(beneficiary)] }, value: bond + courtFee,
      lines: [["dispute bond", wei(bond)], ["court fee", wei(courtFee)], ["total", wei(bond + courtFee)],
        ["dispute before", date(finalAt)], ["the court then has", `${params.arbitrationWindow} s to rule`],
        ["claimed YES / NO / NULL", triple.map((p) => `${formatUnitsPct(p)}%`).join(" / ")], ["winnings go to", getAddress(beneficiary)]],
    };
  }

  async plan_appeal(id) {
    const status = await this.read("verdictStatus", [id]);
    if (STATUS[status] !== "Disputed") await this.refuse("VeritasNotInCourt", [id, status]);
    const [deadline, now, cost] = await Promise.all([this.read("courtDeadline", [id]), this.now(), this.read("courtCost", [id])]);
    if (now >= deadline) await this.refuse("VeritasCourtDeadlinePassed", [id, deadline, now]);
    return {
      call: { functionName: "appeal", args: [id] }, value: cost,
      lines: [["appeal cost", wei(cost)], ["court deadline now", date(deadline)]],
    };
  }

  async plan_finalize(id) {
    const status = await this.read("verdictStatus", [id]);
    if (STATUS[status] !== "Asked") await this.refuse("VeritasNotOpen", [id, status]);
    const [q, params, now] = await Promise.all([this.read("getQuestion", [id]), this.read("questionParameters", [id]), this.now()]);
    const deadline = BigInt(q.resolveAfter) + BigInt(params.reportWindow);
    if (now < deadline) await this.refuse("VeritasReportWindowOpen", [id, deadline, now]);
    return { call: { functionName: "finalize", args: [id] }, value: 0n, lines: [["report window closed", date(deadline)]] };
  }

  /** A failed read or simulation as a `Refused` with the contract's sentence where it has one. */
  async refusal(e) {
    const data = revertData(e);
    const explained = data ? await explain(data) : null;
    if (explained) return new Refused(explained.sentence, explained.error);
    return new Refused(`The call failed: ${e.shortMessage || e.message}${data ? ` (revert data ${data})` : ""}`);
  }

  /**
   * Simulate `plan` (`eth_call` from the user's account), then ask the wallet to sign and send
   * it; resolves to the mined receipt. A revert in the simulation throws `Refused` and sends
   * nothing.
   */
  async send(plan, onSent = () => {}) {
    const data = encodeFunctionData({ abi: this.abi, ...plan.call });
    const tx = { account: this.account, to: this.oracle, data, value: plan.value };
    try {
      await call(this.client, tx);
    } catch (e) {
      throw await this.refusal(e);
    }
    const hash = await sendTransaction(this.client, { ...tx, chain: null });
    onSent(hash);
    const receipt = await waitForTransactionReceipt(this.client, { hash });
    return { hash, status: receipt.status, block: receipt.blockNumber };
  }
}

const wei = (v) => `${formatEther(BigInt(v))} ETH (${BigInt(v)} wei)`;
const date = (secs) => new Date(Number(secs) * 1000).toISOString().replace(".000Z", "Z");
// A percentage as typed ("12.5") → 1e18 scale; a blank or malformed one refuses with a sentence.
function percentToWad(p) {
  const text = String(p ?? "").trim();
  if (!/^\d+(\.\d{1,16})?$/.test(text)) throw new Refused(`"${text}" is not a percentage (e.g. 12.5).`);
  return parseUnits(text, 16);
}
const formatUnitsPct = (w) => (Number(w / 10n ** 12n) / 1e4).toString();
