// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {BaseTest} from "./Base.t.sol";
import {IVeritasOracle} from "../interfaces/IVeritasOracle.sol";

/// @notice The acceptance gas figures, asserted, with realistic values: a 56-byte question, an ask
/// fee, a dispute bond, a 2-hour challenge window, a 1,000-byte evidence snippet.
/// @dev Each figure is one call as its own transaction would pay it: storage cooled, 21,000 and the
/// calldata added (under `--isolate`, which `--gas-report` turns on, forge runs each call as its own
/// transaction and `lastCallGas` includes both). The state a call starts from is written in
/// `setUp`, an earlier transaction, so slots count as "clean" the way they would on a chain; the
/// quorum-3 reports are therefore one contract per step. `scripts/gas-anvil.sh` measures the same
/// on a real anvil from the receipts.
abstract contract GasBase is BaseTest {
    uint256 internal constant TX_BASE = 21_000;

    uint256 internal constant LIMIT_ASK = 110_000;
    // Issue #26: 75,000 with the report's stake lock (one more write of the operator's slot).
    uint256 internal constant LIMIT_REPORT_QUORUM_1 = 75_000;
    uint256 internal constant LIMIT_CALLBACK_OVERHEAD = 12_000;
    // v2's 60,000 bonded in one slot; a v3 dispute also pays its court (VeritasCourt's
    // createDispute writes its case, ~72,000 alone) and records the case and the claimed triple.
    // Issue #40 settles the ceiling at what was measured (219,531 then): 225,000, court included.
    uint256 internal constant LIMIT_DISPUTE = 225_000;
    // v2's 70,000 plus ERC-1497's `Evidence` event for the question's court (~2,300) and the read
    // of the question's arbitrator (a cold slot, 2,100); issue #26 adds the submitter's own slot
    // (items and wei paid: the per-account limit and the refund on expiry, ~22,100 when new).
    uint256 internal constant LIMIT_EVIDENCE = 100_000;
    uint256 internal constant LIMIT_BATCH_PER_REPORT = 45_000;
    // Issue #42: a report that defers (the pooling report of a "not yet" majority) costs at most
    // the finalising report's ceiling + 10,000; a clarification 60,000 + 16 per calldata byte.
    uint256 internal constant LIMIT_DEFERRING_REPORT = LIMIT_REPORT_QUORUM_1 + 10_000;
    uint256 internal constant LIMIT_CLARIFICATION_BASE = 60_000;
    // The quorum-3 budget (issue #26: 180,000 for the three reports, 290,000 with the ask; each
    // report also locks its bond in the operator's slot), split per step.
    // Issue #43's re-entrancy lock (~300 gas a call) moved the first report over 66,000; the three
    // reports' total stays within 180,000 (scripts/gas-anvil.sh).
    uint256 internal constant LIMIT_Q3_REPORT_1 = 66_500;
    uint256 internal constant LIMIT_Q3_REPORT_2 = 50_000;
    uint256 internal constant LIMIT_Q3_REPORT_3 = 60_000;

    // Commit-reveal, quorum 3, per step (measured 80,540 + 63,440 + 65,700 commits, 69,759 +
    // 53,146 + 62,055 reveals, before the refunds of the reveals' cleared commitments). Issue #26
    // asks for ask + every report transaction <= 420,000: NOT met (~501,500 with the ask). Each
    // commit writes a fresh commitment slot (22,100) and the first the question's commit round
    // (22,100); see book/src/economics.md, "Commit-reveal", for what would bring it down.
    uint256 internal constant LIMIT_CR_COMMIT_1 = 82_000;
    uint256 internal constant LIMIT_CR_COMMIT_2 = 65_000;
    uint256 internal constant LIMIT_CR_COMMIT_3 = 67_000;
    uint256 internal constant LIMIT_CR_REVEAL_1 = 71_000;
    uint256 internal constant LIMIT_CR_REVEAL_2 = 55_000;
    uint256 internal constant LIMIT_CR_REVEAL_3 = 64_000;
    // The budget these limits add up to with LIMIT_ASK (the issue's target is 420,000).
    uint256 internal constant LIMIT_CR_TOTAL = 514_000;

    // A typical committee outcome: 19 YES, 6 NO, 2 NULL, kappa 0.41...
    uint16 internal constant G_YES = 19;
    uint16 internal constant G_NO = 6;
    uint16 internal constant G_NULL = 2;
    int256 internal constant G_KAPPA = 412_345_678_901_234_568;

    /// @dev Realistic parameters with `quorum`, then a first question answered, so counters and the
    /// operator's slot are nonzero as on a live oracle.
    function _setUpGas(uint8 quorum) internal {
        _setParams(_params(quorum, CHALLENGE_WINDOW));
        uint256 id = _ask();
        for (uint256 i = 0; i < quorum; i++) {
            _report([operator, operator2, operator3][i], id, 1, 0, 0, false);
        }
    }

    function _askData() internal view returns (bytes memory) {
        return abi.encodeCall(IVeritasOracle.askQuestion, (QUESTION, 0, _rules()));
    }

    function _reportData(uint256 id, uint256 salt) internal pure returns (bytes memory) {
        return
            abi.encodeCall(
                IVeritasOracle.submitReport, (id, _root(id + salt), G_YES, G_NO, G_NULL, G_KAPPA, false, false)
            );
    }

    /// @dev Gas of `data` sent by `from` with `value` to the oracle as its own transaction would use
    /// it: execution with cold storage, plus 21,000 and the calldata (EIP-2028: 16 per nonzero
    /// byte, 4 per zero byte) unless forge already runs each call as its own transaction.
    function _txGas(address from, uint256 value, bytes memory data) internal returns (uint256 gas) {
        vm.cool(address(oracle));
        vm.prank(from);
        (bool ok,) = address(oracle).call{value: value}(data);
        assertTrue(ok, "measured call reverted");
        gas = vm.lastCallGas().gasTotalUsed;
        if (!_isolated()) gas += TX_BASE + _calldataGas(data);
    }

    /// @dev True when forge runs every call as its own transaction: transient storage written by
    /// one call is then gone in the next.
    function _isolated() internal returns (bool) {
        TransientProbe probe = new TransientProbe();
        probe.set();
        return probe.get() == 0;
    }

    function _calldataGas(bytes memory data) internal pure returns (uint256 gas) {
        for (uint256 i = 0; i < data.length; i++) {
            gas += data[i] == 0 ? 4 : 16;
        }
    }

    function _root(uint256 i) internal pure returns (bytes32) {
        return sha256(abi.encode("bundle", i));
    }
}

/// @notice Quorum 1: ask, the finalising report, a dispute, a batch of 20, evidence.
contract GasTest is GasBase {
    uint256 internal constant BATCH = 20;

    uint256 internal reportId;
    uint256 internal disputeId;
    uint256 internal evidenceId;
    uint256 internal deferId;
    uint256 internal clarifyId;
    uint256 internal firstBatchId;
    address internal carol = makeAddr("carol");

    function setUp() public override {
        super.setUp();
        _setUpGas(1);
        reportId = _ask();
        disputeId = _ask();
        _report(operator, disputeId, G_YES, G_NO, G_NULL, false);
        evidenceId = _askAt(START_TIME + 1 days);
        deferId = _ask();
        clarifyId = _ask();
        firstBatchId = oracle.questionCount() + 1;
        for (uint256 i = 0; i < BATCH; i++) {
            _ask();
        }
        vm.deal(carol, 10 ether);
    }

    function test_GasAskQuestion() public {
        uint256 gas = _txGas(alice, ASK_FEE, _askData());
        emit log_named_uint("askQuestion (56-byte question, ask fee)", gas);
        assertLe(gas, LIMIT_ASK);
    }

    function test_GasFinalisingReportQuorum1() public {
        uint256 gas = _txGas(operator, 0, _reportData(reportId, 0));
        emit log_named_uint("submitReport, quorum 1, finalises", gas);
        assertLe(gas, LIMIT_REPORT_QUORUM_1);
        assertEq(uint8(oracle.verdictStatus(reportId)), uint8(IVeritasOracle.VerdictStatus.Resolved));
    }

    function test_GasDeferringReportQuorum1() public {
        bytes memory data =
            abi.encodeCall(IVeritasOracle.submitReport, (deferId, _root(deferId), 0, 3, G_YES, G_KAPPA, false, true));
        uint256 gas = _txGas(operator, 0, data);
        emit log_named_uint("submitReport, quorum 1, not yet: defers", gas);
        assertLe(gas, LIMIT_DEFERRING_REPORT);
        (uint256 count,) = oracle.deferral(deferId);
        assertEq(count, 1);
    }

    function test_GasClarification1024Bytes() public {
        bytes memory text = new bytes(1024);
        for (uint256 i = 0; i < text.length; i++) {
            text[i] = bytes1(uint8(97 + i % 26));
        }
        bytes memory data = abi.encodeCall(IVeritasOracle.clarify, (clarifyId, string(text)));
        uint256 gas = _txGas(alice, 0, data);
        emit log_named_uint("clarify, 1,024 bytes", gas);
        emit log_named_uint("its ceiling: 60,000 + 16 per calldata byte", LIMIT_CLARIFICATION_BASE + 16 * data.length);
        assertLe(gas, LIMIT_CLARIFICATION_BASE + 16 * data.length);
    }

    function test_GasDispute() public {
        bytes memory data = abi.encodeCall(IVeritasOracle.dispute, (disputeId, C_YES, C_NO, C_NULL, carol));
        uint256 gas = _txGas(carol, COURT_COST + BOND, data);
        emit log_named_uint("dispute", gas);
        assertLe(gas, LIMIT_DISPUTE);
    }

    function test_GasEvidenceWith1000ByteSnippet() public {
        bytes memory snippet = new bytes(1000);
        for (uint256 i = 0; i < snippet.length; i++) {
            snippet[i] = bytes1(uint8(97 + i % 26));
        }
        bytes memory data = abi.encodeCall(
            IVeritasOracle.submitEvidence,
            (
                evidenceId,
                "https://www.toureiffel.paris/en/news/opening-hours",
                "Opening hours and closures of the Eiffel Tower",
                string(snippet)
            )
        );
        uint256 gas = _txGas(carol, EVIDENCE_FEE, data);
        emit log_named_uint("submitEvidence, 1,000-byte snippet", gas);
        assertLe(gas, LIMIT_EVIDENCE);
    }

    function test_GasBatchOf20() public {
        IVeritasOracle.Report[] memory reports = new IVeritasOracle.Report[](BATCH);
        for (uint256 i = 0; i < BATCH; i++) {
            uint256 id = firstBatchId + i;
            reports[i] = IVeritasOracle.Report(id, _root(id), G_YES, G_NO, G_NULL, G_KAPPA, false, false);
        }
        uint256 gas = _txGas(operator, 0, abi.encodeCall(IVeritasOracle.submitReports, (reports)));
        emit log_named_uint("submitReports, 20 quorum-1 reports, per report", gas / BATCH);
        assertLe(gas / BATCH, LIMIT_BATCH_PER_REPORT);
        assertEq(oracle.verdictCount(), 2 + BATCH);
    }

    function test_Quorum3BudgetsAddUp() public pure {
        assertLe(LIMIT_Q3_REPORT_1 + LIMIT_Q3_REPORT_2 + LIMIT_Q3_REPORT_3, 180_000);
        assertLe(LIMIT_ASK + LIMIT_Q3_REPORT_1 + LIMIT_Q3_REPORT_2 + LIMIT_Q3_REPORT_3, 290_000);
    }
}

/// @dev A consumer that only accepts the call.
contract NoopConsumer {
    fallback() external {}
}

/// @notice The callback's overhead on a finalising quorum-1 report (challenge window 0, so the
/// report is final at once and calls back).
contract GasCallbackTest is GasBase {
    uint256 internal plainId;
    uint256 internal callbackId;
    NoopConsumer internal consumer;

    function setUp() public override {
        super.setUp();
        _setUpGas(1);
        _setParams(_params(1, 0));
        consumer = new NoopConsumer();
        // A first question with a callback, answered, so the consumer's account is not new.
        IVeritasOracle.AskRules memory rules = _rules(address(consumer), 50_000);
        vm.prank(alice);
        uint256 first = oracle.askQuestion{value: ASK_FEE}(QUESTION, 0, rules);
        _report(operator, first, 1, 0, 0, false);
        plainId = _ask();
        rules = _rules(address(consumer), 50_000);
        vm.prank(alice);
        callbackId = oracle.askQuestion{value: ASK_FEE}(QUESTION, 0, rules);
    }

    function test_GasCallbackOverhead() public {
        uint256 plain = _txGas(operator, 0, _reportData(plainId, 0));
        uint256 with = _txGas(operator, 0, _reportData(callbackId, 0));
        // The two reports' calldata differ only in the id's last byte.
        emit log_named_uint("submitReport, quorum 1, final at once, no callback", plain);
        emit log_named_uint("submitReport, quorum 1, final at once, no-op consumer", with);
        emit log_named_uint("callback overhead (no-op consumer included)", with - plain);
        assertLe(plain, LIMIT_REPORT_QUORUM_1);
        assertLe(with - plain, LIMIT_CALLBACK_OVERHEAD);
        assertFalse(oracle.callbackOwed(callbackId));
    }

    function test_GasAskWithCallback() public {
        uint256 gas = _txGas(
            alice, ASK_FEE, abi.encodeCall(IVeritasOracle.askQuestion, (QUESTION, 0, _rules(address(consumer), 50_000)))
        );
        emit log_named_uint("askQuestion with a callback (not limited; one slot more)", gas);
    }
}

/// @notice Quorum 3: the ask and the first report (creates the root slot).
contract GasQuorum3FirstTest is GasBase {
    uint256 internal id;

    function setUp() public override {
        super.setUp();
        _setUpGas(3);
        id = _ask();
    }

    function test_GasQuorum3AskAndFirstReport() public {
        uint256 ask = _txGas(alice, ASK_FEE, _askData());
        uint256 gas = _txGas(operator, 0, _reportData(id, 1));
        emit log_named_uint("askQuestion, quorum 3", ask);
        emit log_named_uint("submitReport, quorum 3, report 1", gas);
        assertLe(ask, LIMIT_ASK);
        assertLe(gas, LIMIT_Q3_REPORT_1);
    }
}

/// @notice Quorum 3: the second report (updates the roots digest).
contract GasQuorum3SecondTest is GasBase {
    uint256 internal id;

    function setUp() public override {
        super.setUp();
        _setUpGas(3);
        id = _ask();
        bytes32 root1 = _root(id + 1); // sha256 is a call: compute it before the prank
        vm.prank(operator);
        oracle.submitReport(id, root1, G_YES, G_NO, G_NULL, G_KAPPA, false, false);
    }

    function test_GasQuorum3SecondReport() public {
        uint256 gas = _txGas(operator2, 0, _reportData(id, 2));
        emit log_named_uint("submitReport, quorum 3, report 2", gas);
        assertLe(gas, LIMIT_Q3_REPORT_2);
    }
}

/// @notice Quorum 3: the third report, which finalises the pooled verdict.
contract GasQuorum3ThirdTest is GasBase {
    uint256 internal id;

    function setUp() public override {
        super.setUp();
        _setUpGas(3);
        id = _ask();
        bytes32 root1 = _root(id + 1); // sha256 is a call: compute it before the prank
        vm.prank(operator);
        oracle.submitReport(id, root1, G_YES, G_NO, G_NULL, G_KAPPA, false, false);
        bytes32 root2 = _root(id + 2);
        vm.prank(operator2);
        oracle.submitReport(id, root2, G_YES, G_NO, G_NULL, G_KAPPA, false, false);
    }

    function test_GasQuorum3ThirdReport() public {
        uint256 gas = _txGas(operator3, 0, _reportData(id, 3));
        emit log_named_uint("submitReport, quorum 3, report 3 (finalises)", gas);
        assertLe(gas, LIMIT_Q3_REPORT_3);
        assertEq(uint8(oracle.verdictStatus(id)), uint8(IVeritasOracle.VerdictStatus.Resolved));
    }
}

/// @notice Commit-reveal, quorum 3: the ask, three commits, three reveals, each measured as its own
/// transaction from the state the steps before it left (one contract per step, as above). Step 0
/// is the ask, 1..3 the commits, 4..6 the reveals (the last posts the verdict).
abstract contract GasCommitRevealBase is GasBase {
    uint32 internal constant G_REVEAL_WINDOW = 1 hours;
    uint256 internal id;

    /// @dev Quorum-3 parameters with a reveal window, a first question answered the plain way
    /// (`_setUpGas`) and a first commit-reveal question answered, then the steps before `step`.
    function _setUpCommitReveal(uint256 step) internal {
        _setUpGas(3);
        IVeritasOracle.Parameters memory p = _params(3, CHALLENGE_WINDOW);
        p.revealWindow = G_REVEAL_WINDOW;
        _setParams(p);
        id = oracle.questionCount() + 1;
        for (uint256 k = 0; k < 7; k++) {
            _doStep(k);
        }
        id = oracle.questionCount() + 1;
        for (uint256 k = 0; k < step; k++) {
            _doStep(k);
        }
    }

    function _stepCall(uint256 step) internal view returns (address from, uint256 value, bytes memory data) {
        if (step == 0) return (alice, ASK_FEE, _askData());
        address[3] memory ops = [operator, operator2, operator3];
        uint256 i = (step - 1) % 3;
        bytes32 root = _rootHash(id + i + 1);
        bytes32 salt = keccak256(abi.encode("salt", id, i));
        if (step <= 3) {
            bytes32 c = keccak256(abi.encode(id, ops[i], root, G_YES, G_NO, G_NULL, G_KAPPA, false, false, salt));
            return (ops[i], 0, abi.encodeCall(IVeritasOracle.commitReport, (id, c)));
        }
        return (
            ops[i],
            0,
            abi.encodeCall(IVeritasOracle.revealReport, (id, root, G_YES, G_NO, G_NULL, G_KAPPA, false, false, salt))
        );
    }

    /// @dev A root without a call (`_root` calls sha256, which would take a prank).
    function _rootHash(uint256 seed) internal pure returns (bytes32) {
        return keccak256(abi.encode("root", seed));
    }

    function _doStep(uint256 step) internal {
        (address from, uint256 value, bytes memory data) = _stepCall(step);
        vm.prank(from);
        (bool ok,) = address(oracle).call{value: value}(data);
        assertTrue(ok, "commit-reveal step reverted");
    }

    function _measure(uint256 step, string memory label, uint256 limit) internal returns (uint256 gas) {
        (address from, uint256 value, bytes memory data) = _stepCall(step);
        gas = _txGas(from, value, data);
        emit log_named_uint(label, gas);
        assertLe(gas, limit);
    }
}

contract GasCommitRevealAskTest is GasCommitRevealBase {
    function setUp() public override {
        super.setUp();
        _setUpCommitReveal(0);
    }

    function test_GasCommitRevealAsk() public {
        _measure(0, "askQuestion, quorum 3, commit-reveal", LIMIT_ASK);
    }
}

contract GasCommitRevealCommit1Test is GasCommitRevealBase {
    function setUp() public override {
        super.setUp();
        _setUpCommitReveal(1);
    }

    function test_GasCommit1() public {
        _measure(1, "commitReport, quorum 3, commit 1", LIMIT_CR_COMMIT_1);
    }
}

contract GasCommitRevealCommit2Test is GasCommitRevealBase {
    function setUp() public override {
        super.setUp();
        _setUpCommitReveal(2);
    }

    function test_GasCommit2() public {
        _measure(2, "commitReport, quorum 3, commit 2", LIMIT_CR_COMMIT_2);
    }
}

contract GasCommitRevealCommit3Test is GasCommitRevealBase {
    function setUp() public override {
        super.setUp();
        _setUpCommitReveal(3);
    }

    function test_GasCommit3() public {
        _measure(3, "commitReport, quorum 3, commit 3 (opens the reveal phase)", LIMIT_CR_COMMIT_3);
    }
}

contract GasCommitRevealReveal1Test is GasCommitRevealBase {
    function setUp() public override {
        super.setUp();
        _setUpCommitReveal(4);
    }

    function test_GasReveal1() public {
        _measure(4, "revealReport, quorum 3, reveal 1", LIMIT_CR_REVEAL_1);
    }
}

contract GasCommitRevealReveal2Test is GasCommitRevealBase {
    function setUp() public override {
        super.setUp();
        _setUpCommitReveal(5);
    }

    function test_GasReveal2() public {
        _measure(5, "revealReport, quorum 3, reveal 2", LIMIT_CR_REVEAL_2);
    }
}

contract GasCommitRevealReveal3Test is GasCommitRevealBase {
    function setUp() public override {
        super.setUp();
        _setUpCommitReveal(6);
    }

    function test_GasReveal3() public {
        _measure(6, "revealReport, quorum 3, reveal 3 (posts the verdict)", LIMIT_CR_REVEAL_3);
        assertEq(uint8(oracle.verdictStatus(id)), uint8(IVeritasOracle.VerdictStatus.Resolved));
    }

    function test_CommitRevealBudgetsAddUp() public pure {
        assertLe(
            LIMIT_ASK + LIMIT_CR_COMMIT_1 + LIMIT_CR_COMMIT_2 + LIMIT_CR_COMMIT_3 + LIMIT_CR_REVEAL_1
                + LIMIT_CR_REVEAL_2 + LIMIT_CR_REVEAL_3,
            LIMIT_CR_TOTAL
        );
    }
}

/// @dev Sees whether two calls share a transaction (see `GasBase._isolated`).
contract TransientProbe {
    function set() external {
        assembly {
            tstore(0, 1)
        }
    }

    function get() external view returns (uint256 value) {
        assembly {
            value := tload(0)
        }
    }
}
