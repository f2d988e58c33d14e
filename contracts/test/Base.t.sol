// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Test} from "forge-std/Test.sol";
import {WadTriple} from "../lib/WadTriple.sol";
import {IVeritasOracle} from "../interfaces/IVeritasOracle.sol";
import {Shipped} from "../../script/Shipped.sol";
import {VeritasCourt} from "../court/VeritasCourt.sol";

/// @notice Shared fixture: a deployed oracle with three operators (quorum 1 by default, the
/// constructor's local defaults), a reference court (`VeritasCourt`) whose judges are `arbiter`
/// then `judge2`, and helpers to ask, report, dispute, rule and set parameters. Every concern's
/// test contract inherits it.
abstract contract BaseTest is Test {
    uint256 internal constant WAD = WadTriple.WAD;
    uint64 internal constant START_TIME = 1_750_000_000;

    // The report of 5 YES, 2 NO, 0 NULL ballots; its pooled posterior under Dir(1,1,1) is
    // (6, 3, 1) / 10 exactly.
    uint16 internal constant N_YES = 5;
    uint16 internal constant N_NO = 2;
    uint16 internal constant N_NULL = 0;
    uint256 internal constant P_YES = 0.6e18;
    uint256 internal constant P_NO = 0.3e18;
    uint256 internal constant P_NULL = 0.1e18;
    int256 internal constant KAPPA = -0.25e18;
    bytes32 internal constant ROOT = keccak256("evidence root");
    string internal constant QUESTION = "Will the Eiffel Tower be open to visitors on 2026-12-01?";

    uint32 internal constant REPORT_WINDOW = 1 days;
    uint32 internal constant CHALLENGE_WINDOW = 2 hours;
    uint96 internal constant ASK_FEE = 0.01 ether;
    uint96 internal constant BOND = 0.1 ether;
    uint96 internal constant EVIDENCE_FEE = 0.001 ether;
    uint32 internal constant ARBITRATION_WINDOW = 1 days;
    uint256 internal constant COURT_COST = 0.05 ether;
    uint256 internal constant APPEAL_COST = 0.2 ether;
    uint256 internal constant APPEAL_PERIOD = 1 hours;
    // What each fixture operator stakes: 100 reports' worth of `BOND`.
    uint256 internal constant STAKE = 10 ether;
    // A disputer's claimed triple that differs from (P_YES, P_NO, P_NULL).
    uint256 internal constant C_YES = 0.2e18;
    uint256 internal constant C_NO = 0.7e18;
    uint256 internal constant C_NULL = 0.1e18;

    IVeritasOracle internal oracle;
    VeritasCourt internal court;
    address internal owner = makeAddr("owner");
    address internal operator = makeAddr("operator");
    address internal operator2 = makeAddr("operator2");
    address internal operator3 = makeAddr("operator3");
    address internal arbiter = makeAddr("arbiter");
    address internal alice = makeAddr("alice");
    address internal bob = makeAddr("bob");
    address internal judge2 = makeAddr("judge2");

    function setUp() public virtual {
        vm.warp(START_TIME);
        oracle = Shipped.oracle(owner);
        vm.startPrank(owner);
        oracle.addOperator(operator);
        oracle.addOperator(operator2);
        oracle.addOperator(operator3);
        vm.stopPrank();
        // Each operator stakes enough for `STAKE / BOND` open reports at this file's bond.
        _stake(operator, STAKE);
        _stake(operator2, STAKE);
        _stake(operator3, STAKE);
        address[] memory judges = new address[](2);
        judges[0] = arbiter;
        judges[1] = judge2;
        court = new VeritasCourt(judges, COURT_COST, APPEAL_COST, APPEAL_PERIOD);
        vm.deal(alice, 100 ether);
        vm.deal(bob, 100 ether);
    }

    /// @dev `who` stakes `amount` wei (dealt to it first).
    function _stake(address who, uint256 amount) internal {
        vm.deal(who, who.balance + amount);
        vm.prank(who);
        oracle.stake{value: amount}(who);
    }

    /// @dev Parameters with the given quorum and challenge window, this file's fees and bond, and
    /// the fixture's court.
    function _params(uint8 quorum, uint32 challengeWindow) internal view returns (IVeritasOracle.Parameters memory) {
        return IVeritasOracle.Parameters({
            quorum: quorum,
            maxBallotsPerReport: 30,
            reportWindow: REPORT_WINDOW,
            challengeWindow: challengeWindow,
            arbitrationWindow: ARBITRATION_WINDOW,
            askFee: ASK_FEE,
            disputeBond: BOND,
            evidenceFee: EVIDENCE_FEE,
            arbitrator: address(court),
            arbitratorExtraData: "",
            revealWindow: 0
        });
    }

    /// @dev The owner sets `p` for later questions.
    function _setParams(IVeritasOracle.Parameters memory p) internal {
        vm.prank(owner);
        oracle.setParameters(p, "ipfs://meta");
    }

    /// @dev The rules in force now on `target`, without a callback (what an honest asker pins).
    /// Read with `vm.load` from the header slot (slot 0: [55..40] parametersId, [87..56]
    /// operatorEpoch), not with calls, so that it can sit between `vm.prank` and the ask.
    function _rulesOf(address target) internal view returns (IVeritasOracle.AskRules memory rules) {
        uint256 header = uint256(vm.load(target, bytes32(0)));
        rules.parametersId = uint16(header >> 40);
        rules.operatorEpoch = uint32(header >> 56);
    }

    /// @dev `_rulesOf(oracle)`.
    function _rules() internal view returns (IVeritasOracle.AskRules memory) {
        return _rulesOf(address(oracle));
    }

    /// @dev The rules in force now, with `consumer` called back with `gasLimit`.
    function _rules(address consumer, uint32 gasLimit) internal view returns (IVeritasOracle.AskRules memory rules) {
        rules = _rules();
        rules.consumer = consumer;
        rules.callbackGasLimit = gasLimit;
    }

    /// @dev Alice asks `QUESTION`, resolvable at once, paying the current ask fee.
    function _ask() internal returns (uint256 id) {
        id = _askAt(0);
    }

    /// @dev Alice asks `QUESTION`, resolvable from `resolveAfter`, paying the current ask fee.
    function _askAt(uint64 resolveAfter) internal returns (uint256 id) {
        uint256 fee = oracle.parameters().askFee;
        IVeritasOracle.AskRules memory rules = _rules();
        vm.prank(alice);
        id = oracle.askQuestion{value: fee}(QUESTION, resolveAfter, rules);
    }

    /// @dev `who` disputes `id` claiming (C_YES, C_NO, C_NULL), paying the court and the bond.
    function _dispute(address who, uint256 id) internal returns (uint256 disputeId) {
        vm.prank(who);
        disputeId = oracle.dispute{value: COURT_COST + BOND}(id, C_YES, C_NO, C_NULL, who);
    }

    /// @dev The fixture court's first judge rules `ruling` on `id`'s case, and after the appeal
    /// period anyone executes it.
    function _rule(uint256 id, uint256 ruling) internal {
        uint256 disputeId = _giveRuling(id, ruling);
        court.executeRuling(disputeId);
    }

    /// @dev `_rule` up to the execution: the judge rules and the appeal period passes.
    function _giveRuling(uint256 id, uint256 ruling) internal returns (uint256 disputeId) {
        disputeId = oracle.getCase(id).disputeId;
        address judge = court.judgeOf(disputeId);
        vm.prank(judge);
        court.giveRuling(disputeId, ruling);
        vm.warp(block.timestamp + APPEAL_PERIOD);
    }

    /// @dev Anyone (bob) takes the Escalated `id` to the court.
    function _request(uint256 id) internal returns (uint256 disputeId) {
        vm.prank(bob);
        disputeId = oracle.requestArbitration{value: COURT_COST}(id);
    }

    /// @dev `who` reports (nYes, nNo, nNull) with `KAPPA` on `id`, and `_rootOf(who)`.
    function _report(address who, uint256 id, uint16 nYes, uint16 nNo, uint16 nNull, bool escalated) internal {
        bytes32 root = _rootOf(who);
        vm.prank(who);
        oracle.submitReport(id, root, nYes, nNo, nNull, KAPPA, escalated, false);
    }

    /// @dev The root `who` reports: `ROOT` for the first operator, one of its own for any other
    /// (so that a pooled verdict's roots digest differs from a single report's root).
    function _rootOf(address who) internal view returns (bytes32) {
        return who == operator ? ROOT : keccak256(abi.encode(ROOT, who));
    }

    /// @dev The operator submits the default report for `id` (finalising under quorum 1).
    function _post(uint256 id, bool escalated) internal {
        _report(operator, id, N_YES, N_NO, N_NULL, escalated);
    }

    /// @dev Alice asks, the operator reports; returns the id.
    function _askAndPost(bool escalated) internal returns (uint256 id) {
        id = _ask();
        _post(id, escalated);
    }

    /// @dev Reshapes two fuzzed values into a valid triple: each >= 1, summing to exactly WAD.
    function _validTriple(uint256 a, uint256 b) internal pure returns (uint256 pYes, uint256 pNo, uint256 pNull) {
        pYes = bound(a, 1, WAD - 2);
        pNo = bound(b, 1, WAD - 1 - pYes);
        pNull = WAD - pYes - pNo;
    }

    /// @dev The whole stake of `who` (free and locked).
    function _staked(address who) internal view returns (uint256 staked) {
        (staked,,) = oracle.operatorStake(who);
    }

    /// @dev Shorthand for the status of `id`.
    function _status(uint256 id) internal view returns (IVeritasOracle.VerdictStatus) {
        return oracle.verdictStatus(id);
    }

    /// @dev The independent reference of the pooled 1e18 rule (README, auditor section): sorts the
    /// three (remainder, outcome) pairs explicitly instead of the contract's case analysis.
    function _referenceTriple(uint256 nYes, uint256 nNo, uint256 nNull) internal pure returns (uint256[3] memory p) {
        uint256[3] memory alpha = [nYes + 1, nNo + 1, nNull + 1];
        uint256 total = alpha[0] + alpha[1] + alpha[2];
        uint256[3] memory rem;
        uint256 sum;
        for (uint256 k = 0; k < 3; k++) {
            p[k] = alpha[k] * WAD / total;
            rem[k] = alpha[k] * WAD % total;
            sum += p[k];
        }
        // Insertion sort of outcome indices by remainder, descending; stable (K order on ties).
        uint256[3] memory order = [uint256(0), 1, 2];
        for (uint256 i = 1; i < 3; i++) {
            uint256 j = i;
            while (j > 0 && rem[order[j]] > rem[order[j - 1]]) {
                (order[j], order[j - 1]) = (order[j - 1], order[j]);
                j--;
            }
        }
        for (uint256 i = 0; i < WAD - sum; i++) {
            p[order[i]] += 1;
        }
    }
}
