// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {BaseTest} from "./Base.t.sol";
import {IVeritasOracle} from "../interfaces/IVeritasOracle.sol";

/// @notice Every input check of `askQuestion` and `postVerdict`, with fuzzed accepted and
/// rejected triples and kappas.
contract ValidationTest is BaseTest {
    /*//////////////////////////////////////////////////////////////
                               QUESTIONS
    //////////////////////////////////////////////////////////////*/

    function test_RevertIf_QuestionEmpty() public {
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasEmptyQuestion.selector));
        oracle.askQuestion("", 0);
    }

    function test_RevertIf_QuestionTooLong() public {
        uint256 max = oracle.MAX_QUESTION_LENGTH();
        string memory text = string(new bytes(max + 1));
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasQuestionTooLong.selector, max + 1, max));
        oracle.askQuestion(text, 0);
    }

    function test_QuestionOfMaximumLengthIsAccepted() public {
        assertEq(oracle.MAX_QUESTION_LENGTH(), 2048);
        bytes memory text = new bytes(2048);
        for (uint256 i = 0; i < text.length; i++) {
            text[i] = "a";
        }
        uint256 id = oracle.askQuestion(string(text), 0);
        assertEq(oracle.getQuestion(id).questionHash, sha256(text));
    }

    function testFuzz_QuestionLength(uint256 length) public {
        length = bound(length, 0, 3000);
        string memory text = string(new bytes(length));
        if (length == 0) {
            vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasEmptyQuestion.selector));
        } else if (length > 2048) {
            vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasQuestionTooLong.selector, length, 2048));
        }
        oracle.askQuestion(text, 0);
    }

    function test_RevertIf_GetQuestionUnknown() public {
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasUnknownQuestion.selector, 1));
        oracle.getQuestion(1);
    }

    /*//////////////////////////////////////////////////////////////
                            POST: STATE CHECKS
    //////////////////////////////////////////////////////////////*/

    function test_RevertIf_PostUnknownQuestion() public {
        _ask();
        vm.startPrank(operator);
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasUnknownQuestion.selector, 0));
        oracle.postVerdict(0, ROOT, P_YES, P_NO, P_NULL, KAPPA, false);
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasUnknownQuestion.selector, 2));
        oracle.postVerdict(2, ROOT, P_YES, P_NO, P_NULL, KAPPA, false);
        vm.stopPrank();
    }

    function test_RevertIf_VerdictAlreadyPosted() public {
        uint256 id = _askAndPost(false);
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasVerdictAlreadyPosted.selector, id));
        _post(id, false);
    }

    function test_RevertIf_EscalatedVerdictPostedAgain() public {
        uint256 id = _askAndPost(true);
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasVerdictAlreadyPosted.selector, id));
        _post(id, false);
    }

    function test_RevertIf_TooEarly() public {
        uint64 resolveAfter = START_TIME + 1 days;
        vm.prank(alice);
        uint256 id = oracle.askQuestion(QUESTION, resolveAfter);
        vm.warp(resolveAfter - 1);
        vm.expectRevert(
            abi.encodeWithSelector(IVeritasOracle.VeritasTooEarly.selector, id, resolveAfter, resolveAfter - 1)
        );
        _post(id, false);
    }

    function test_RevertIf_GetVerdictNotFound() public {
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasVerdictNotFound.selector, 1));
        oracle.getVerdict(1);
        uint256 id = _ask();
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasVerdictNotFound.selector, id));
        oracle.getVerdict(id);
    }

    /*//////////////////////////////////////////////////////////////
                         POST: TRIPLE AND KAPPA
    //////////////////////////////////////////////////////////////*/

    function test_RevertIf_ZeroProbability() public {
        uint256 id = _ask();
        vm.startPrank(operator);
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasZeroProbability.selector, uint8(0)));
        oracle.postVerdict(id, ROOT, 0, 0.5e18, 0.5e18, KAPPA, false);
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasZeroProbability.selector, uint8(1)));
        oracle.postVerdict(id, ROOT, 0.5e18, 0, 0.5e18, KAPPA, false);
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasZeroProbability.selector, uint8(2)));
        oracle.postVerdict(id, ROOT, 0.5e18, 0.5e18, 0, KAPPA, false);
        vm.stopPrank();
    }

    function test_RevertIf_ProbabilitySumOffByOne() public {
        uint256 id = _ask();
        vm.startPrank(operator);
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasProbabilitySum.selector, WAD - 1));
        oracle.postVerdict(id, ROOT, P_YES, P_NO, P_NULL - 1, KAPPA, false);
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasProbabilitySum.selector, WAD + 1));
        oracle.postVerdict(id, ROOT, P_YES, P_NO, P_NULL + 1, KAPPA, false);
        vm.stopPrank();
    }

    function test_RevertIf_ProbabilitySumOverflows() public {
        uint256 id = _ask();
        vm.startPrank(operator);
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasProbabilitySum.selector, type(uint256).max));
        oracle.postVerdict(id, ROOT, type(uint256).max, 1, 1, KAPPA, false);
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasProbabilitySum.selector, type(uint256).max));
        oracle.postVerdict(id, ROOT, 1, 1, type(uint256).max, KAPPA, false);
        vm.stopPrank();
    }

    function test_RevertIf_KappaOutOfRange() public {
        uint256 id = _ask();
        vm.startPrank(operator);
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasKappaOutOfRange.selector, int256(1e18 + 1)));
        oracle.postVerdict(id, ROOT, P_YES, P_NO, P_NULL, 1e18 + 1, false);
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasKappaOutOfRange.selector, int256(-1e18 - 1)));
        oracle.postVerdict(id, ROOT, P_YES, P_NO, P_NULL, -1e18 - 1, false);
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasKappaOutOfRange.selector, type(int256).min));
        oracle.postVerdict(id, ROOT, P_YES, P_NO, P_NULL, type(int256).min, false);
        vm.stopPrank();
    }

    function testFuzz_AcceptsEveryValidTripleAndKappa(uint256 a, uint256 b, int256 kappa) public {
        (uint256 pYes, uint256 pNo, uint256 pNull) = _validTriple(a, b);
        kappa = bound(kappa, -1e18, 1e18);
        uint256 id = _ask();
        vm.prank(operator);
        oracle.postVerdict(id, ROOT, pYes, pNo, pNull, kappa, false);
        assertEq(oracle.verdictCount(), 1);
    }

    function testFuzz_RevertIf_SumIsNotWad(uint256 pYes, uint256 pNo, uint256 pNull) public {
        pYes = bound(pYes, 1, 3 * WAD);
        pNo = bound(pNo, 1, 3 * WAD);
        pNull = bound(pNull, 1, 3 * WAD);
        uint256 sum = pYes + pNo + pNull;
        vm.assume(sum != WAD);
        uint256 id = _ask();
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasProbabilitySum.selector, sum));
        vm.prank(operator);
        oracle.postVerdict(id, ROOT, pYes, pNo, pNull, KAPPA, false);
    }

    function testFuzz_RevertIf_AnyProbabilityIsZero(uint256 a, uint256 b, uint8 which) public {
        which = uint8(bound(which, 0, 2));
        a = bound(a, 1, WAD);
        b = WAD - a;
        uint256[3] memory p;
        p[which] = 0;
        p[(which + 1) % 3] = a;
        p[(which + 2) % 3] = b;
        uint256 id = _ask();
        vm.expectRevert(
            abi.encodeWithSelector(IVeritasOracle.VeritasZeroProbability.selector, _firstZero(p[0], p[1], p[2]))
        );
        vm.prank(operator);
        oracle.postVerdict(id, ROOT, p[0], p[1], p[2], KAPPA, false);
    }

    function testFuzz_RevertIf_KappaOutOfRange(int256 kappa) public {
        vm.assume(kappa < -1e18 || kappa > 1e18);
        uint256 id = _ask();
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasKappaOutOfRange.selector, kappa));
        vm.prank(operator);
        oracle.postVerdict(id, ROOT, P_YES, P_NO, P_NULL, kappa, false);
    }

    function testFuzz_RevertIf_KappaJustOutOfRange(int256 kappa, bool negative) public {
        kappa = negative ? bound(kappa, -2e18, -1e18 - 1) : bound(kappa, 1e18 + 1, 2e18);
        uint256 id = _ask();
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasKappaOutOfRange.selector, kappa));
        vm.prank(operator);
        oracle.postVerdict(id, ROOT, P_YES, P_NO, P_NULL, kappa, false);
    }

    /// @dev The outcome index the contract reports: the first zero in (YES, NO, NULL) order.
    function _firstZero(uint256 pYes, uint256 pNo, uint256) private pure returns (uint8) {
        if (pYes == 0) return 0;
        if (pNo == 0) return 1;
        return 2;
    }
}
