// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {BaseTest} from "./Base.t.sol";
import {IVeritasOracle} from "../interfaces/IVeritasOracle.sol";
import {VeritasOracle} from "../VeritasOracle.sol";

/// @dev An oracle on a clock the test sets, to show `_now()` is the only source of time.
contract ClockedOracle is VeritasOracle {
    uint256 public clock;

    constructor(address initialOwner) VeritasOracle(initialOwner) {}

    function setClock(uint256 t) external {
        clock = t;
    }

    function _now() internal view override returns (uint256) {
        return clock;
    }
}

/// @notice Ask, post, read: the happy path and the status machine.
contract LifecycleTest is BaseTest {
    function test_AskAssignsSequentialIdsFromOne() public {
        assertEq(oracle.questionCount(), 0);
        assertEq(_ask(), 1);
        assertEq(_ask(), 2);
        assertEq(_ask(), 3);
        assertEq(oracle.questionCount(), 3);
    }

    function test_AskStoresQuestionRecord() public {
        vm.prank(alice);
        uint256 id = oracle.askQuestion(QUESTION, START_TIME + 1 days);
        IVeritasOracle.Question memory q = oracle.getQuestion(id);
        assertEq(q.questionHash, sha256(bytes(QUESTION)));
        assertEq(q.asker, alice);
        assertEq(q.askedAt, START_TIME);
        assertEq(q.resolveAfter, START_TIME + 1 days);
        assertEq(uint8(_status(id)), uint8(IVeritasOracle.VerdictStatus.Asked));
    }

    function test_QuestionHashIsSha256OfUtf8Text() public {
        string memory text = unicode"Le pont d'Avignon sera-t-il rouvert en 2027 ? ✓";
        vm.prank(alice);
        uint256 id = oracle.askQuestion(text, 0);
        assertEq(oracle.getQuestion(id).questionHash, sha256(bytes(text)));
    }

    function test_ResolveAfterBeyond56BitsSaturates() public {
        vm.prank(alice);
        uint256 id = oracle.askQuestion(QUESTION, type(uint64).max);
        assertEq(oracle.getQuestion(id).resolveAfter, type(uint56).max);
    }

    function test_PostVerdictStoresEverything() public {
        uint256 id = _ask();
        vm.warp(START_TIME + 100);
        _post(id, false);

        (
            bytes32 questionHash,
            bytes32 merkleRoot,
            uint256 pYes,
            uint256 pNo,
            uint256 pNull,
            int256 fleissKappa,
            uint256 timestamp
        ) = oracle.getVerdict(id);
        assertEq(questionHash, sha256(bytes(QUESTION)));
        assertEq(merkleRoot, ROOT);
        assertEq(pYes, P_YES);
        assertEq(pNo, P_NO);
        assertEq(pNull, P_NULL);
        assertEq(fleissKappa, KAPPA);
        assertEq(timestamp, START_TIME + 100);
        assertEq(oracle.verdictCount(), 1);
        assertEq(uint8(_status(id)), uint8(IVeritasOracle.VerdictStatus.Resolved));
    }

    function test_GetVerdictReturnsTheSeedsSevenWords() public {
        uint256 id = _askAndPost(false);
        // Integrators of the seed decode exactly seven static words from this selector.
        assertEq(IVeritasOracle.getVerdict.selector, bytes4(keccak256("getVerdict(uint256)")));
        (bool ok, bytes memory ret) = address(oracle).staticcall(abi.encodeWithSignature("getVerdict(uint256)", id));
        assertTrue(ok);
        assertEq(ret.length, 7 * 32);
        (bytes32 questionHash,,,,, int256 fleissKappa,) =
            abi.decode(ret, (bytes32, bytes32, uint256, uint256, uint256, int256, uint256));
        assertEq(questionHash, sha256(bytes(QUESTION)));
        assertEq(fleissKappa, KAPPA);
    }

    function test_EscalatedVerdictIsReadable() public {
        uint256 id = _askAndPost(true);
        assertEq(uint8(_status(id)), uint8(IVeritasOracle.VerdictStatus.Escalated));
        (,, uint256 pYes,,,,) = oracle.getVerdict(id);
        assertEq(pYes, P_YES);
    }

    function test_PostAtExactlyResolveAfter() public {
        vm.prank(alice);
        uint256 id = oracle.askQuestion(QUESTION, START_TIME + 1 hours);
        vm.warp(START_TIME + 1 hours);
        _post(id, false);
        assertEq(uint8(_status(id)), uint8(IVeritasOracle.VerdictStatus.Resolved));
    }

    function test_KappaBoundsAreAccepted() public {
        uint256 a = _ask();
        uint256 b = _ask();
        vm.startPrank(operator);
        oracle.postVerdict(a, ROOT, P_YES, P_NO, P_NULL, 1e18, false);
        oracle.postVerdict(b, ROOT, P_YES, P_NO, P_NULL, -1e18, false);
        vm.stopPrank();
        (,,,,, int256 ka,) = oracle.getVerdict(a);
        (,,,,, int256 kb,) = oracle.getVerdict(b);
        assertEq(ka, 1e18);
        assertEq(kb, -1e18);
    }

    function test_VerdictsAreIndependentPerQuestion() public {
        uint256 a = _ask();
        uint256 b = _ask();
        vm.prank(operator);
        oracle.postVerdict(b, bytes32(uint256(7)), 1, 2, WAD - 3, 0, true);
        assertEq(uint8(_status(a)), uint8(IVeritasOracle.VerdictStatus.Asked));
        assertEq(uint8(_status(b)), uint8(IVeritasOracle.VerdictStatus.Escalated));
        (, bytes32 root, uint256 pYes, uint256 pNo, uint256 pNull,,) = oracle.getVerdict(b);
        assertEq(root, bytes32(uint256(7)));
        assertEq(pYes, 1);
        assertEq(pNo, 2);
        assertEq(pNull, WAD - 3);
        assertEq(oracle.verdictCount(), 1);
        assertEq(oracle.questionCount(), 2);
    }

    function test_VerdictStatusOfUnknownIdsIsNone() public {
        _ask();
        assertEq(uint8(_status(0)), uint8(IVeritasOracle.VerdictStatus.None));
        assertEq(uint8(_status(2)), uint8(IVeritasOracle.VerdictStatus.None));
        assertEq(uint8(_status(type(uint256).max)), uint8(IVeritasOracle.VerdictStatus.None));
    }

    function testFuzz_VerdictStatusNeverReverts(uint256 id) public {
        _askAndPost(false);
        IVeritasOracle.VerdictStatus status = oracle.verdictStatus(id);
        if (id == 1) assertEq(uint8(status), uint8(IVeritasOracle.VerdictStatus.Resolved));
        else assertEq(uint8(status), uint8(IVeritasOracle.VerdictStatus.None));
    }

    function testFuzz_PostedTripleReadsBackExactly(uint256 a, uint256 b, int256 kappa) public {
        (uint256 pYes, uint256 pNo, uint256 pNull) = _validTriple(a, b);
        kappa = bound(kappa, -1e18, 1e18);
        uint256 id = _ask();
        vm.prank(operator);
        oracle.postVerdict(id, ROOT, pYes, pNo, pNull, kappa, false);
        (,, uint256 rYes, uint256 rNo, uint256 rNull, int256 rKappa,) = oracle.getVerdict(id);
        assertEq(rYes, pYes);
        assertEq(rNo, pNo);
        assertEq(rNull, pNull);
        assertEq(rKappa, kappa);
        assertEq(rYes + rNo + rNull, WAD);
    }

    function test_TimeComesFromVirtualNow() public {
        ClockedOracle clocked = new ClockedOracle(owner);
        vm.prank(owner);
        clocked.addOperator(operator);
        clocked.setClock(500);
        vm.prank(alice);
        uint256 id = clocked.askQuestion(QUESTION, 1000);
        assertEq(clocked.getQuestion(id).askedAt, 500);

        // block.timestamp is far past resolveAfter, but the oracle's own clock is not.
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasTooEarly.selector, id, uint64(1000), 500));
        vm.prank(operator);
        clocked.postVerdict(id, ROOT, P_YES, P_NO, P_NULL, KAPPA, false);

        clocked.setClock(1000);
        vm.prank(operator);
        clocked.postVerdict(id, ROOT, P_YES, P_NO, P_NULL, KAPPA, false);
        (,,,,,, uint256 timestamp) = clocked.getVerdict(id);
        assertEq(timestamp, 1000);
    }
}
