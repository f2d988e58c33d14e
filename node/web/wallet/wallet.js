// The web view's wallet module: acting on a question with the user's own EIP-1193 wallet
// (`window.ethereum`). Bundled with viem by esbuild at build time (`make wallet`) into
// node/web/dist/wallet.js, embedded in the node and loaded only when the user clicks
// "Connect wallet", so the read-only page stays small.
//
// It holds only what needs the user's wallet: connect, check the chain id, encode the call the
// node planned with viem from the ABI the node serves (`GET /abi`), simulate it (`eth_call`),
// send it, and explain a revert (`POST /explain`). The contract's rules are not here: the node
// checks an action (`GET /questions/{id}/check/{action}`, the code `veritas` runs) and answers
// the call to make, its value and the lines to review, or the contract's own refusal. The node
// never sees a key or a signed transaction.
import { createClient, custom, encodeFunctionData, getAddress } from "viem";
import { call, getChainId, requestAddresses, sendTransaction, waitForTransactionReceipt } from "viem/actions";

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

  /**
   * What `action` on question `id` would do, as the node checks it by the contract's rules:
   * `{ call, value, lines }` (`lines`: [label, text] pairs to show before sending). Throws
   * `Refused` with the contract's sentence, or the node's message for a malformed field.
   */
  async plan(action, id, form = {}) {
    const query = new URLSearchParams({ ...form, from: this.account });
    const r = await fetch(`/questions/${encodeURIComponent(id)}/check/${encodeURIComponent(action)}?${query}`);
    const body = await r.json().catch(() => ({}));
    if (r.status === 409) throw new Refused(body.sentence, body.error);
    if (!r.ok) throw new Refused(body.error || `The node could not check this (HTTP ${r.status}).`);
    return { call: this.typed(body.call), value: BigInt(body.value), lines: body.lines };
  }

  /** The planned call's arguments as viem takes them: integers (decimal strings) as BigInt. */
  typed({ function: functionName, args }) {
    const fn = this.abi.find((item) => item.type === "function" && item.name === functionName && item.inputs.length === args.length);
    if (!fn) throw new Refused(`The node planned ${functionName}, which this ABI does not have.`);
    return { functionName, args: args.map((a, i) => (/^u?int\d*$/.test(fn.inputs[i].type) ? BigInt(a) : a)) };
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
