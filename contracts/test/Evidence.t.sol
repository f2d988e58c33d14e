// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {BaseTest} from "./Base.t.sol";
import {IVeritasOracle} from "../interfaces/IVeritasOracle.sol";

/// @notice Evidence submitted on-chain before resolveAfter: every field emitted, a count per
/// question and one hash chain the README specifies.
contract EvidenceTest is BaseTest {
    string internal constant URL = "https://www.toureiffel.paris/en/news/opening-hours";
    string internal constant TITLE = "Opening hours";
    string internal constant SNIPPET = "The tower is open every day of the year.";
    uint64 internal constant RESOLVE_AFTER = START_TIME + 1 days;

    uint256 internal id;

    function setUp() public override {
        super.setUp();
        _setParams(_params(1, 0));
        vm.prank(alice);
        id = oracle.askQuestion{value: ASK_FEE}(QUESTION, RESOLVE_AFTER, _rules());
    }

    /// @dev `who` submits an item at its current price (`nextEvidenceFee`).
    function _submit(address who, string memory snippet) internal returns (uint256) {
        return _submitPaying(who, snippet, oracle.nextEvidenceFee(id));
    }

    /// @dev `who` submits an item paying `fee` (read the price before a `vm.expectRevert`).
    function _submitPaying(address who, string memory snippet, uint256 fee) internal returns (uint256) {
        vm.prank(who);
        return oracle.submitEvidence{value: fee}(id, URL, TITLE, snippet);
    }

    function test_ChainStartsAtTheOracleSeed() public view {
        assertEq(oracle.evidenceHead(), keccak256(abi.encode(block.chainid, address(oracle))));
    }

    function test_SubmitCountsChainsAndEmits() public {
        bytes32 head0 = oracle.evidenceHead();
        bytes32 head1 = keccak256(abi.encode(head0, id, bob, URL, TITLE, SNIPPET));
        vm.expectEmit(address(oracle));
        emit IVeritasOracle.EvidenceSubmitted(id, bob, 1, head1, URL, TITLE, SNIPPET);
        assertEq(_submit(bob, SNIPPET), 1);
        assertEq(oracle.evidenceHead(), head1);

        bytes32 head2 = keccak256(abi.encode(head1, id, alice, URL, TITLE, "second"));
        assertEq(_submit(alice, "second"), 2);
        assertEq(oracle.evidenceHead(), head2);
        assertEq(oracle.evidenceCount(id), 2);
        // Each item paid exactly the fee; the question's fee grew by both.
        assertEq(oracle.pendingFee(id), ASK_FEE + 2 * EVIDENCE_FEE);
    }

    /// @dev Issue #26: evidence fees are burned, never paid to the reporters (v3 added them to
    /// the question's fee, so a reporting operator's own spam came back to it).
    function test_EvidenceFeesAreBurnedNotPaidToTheReporters() public {
        _submit(bob, SNIPPET);
        vm.warp(RESOLVE_AFTER);
        _post(id, false);
        oracle.settle(id);
        assertEq(oracle.credits(operator), ASK_FEE);
        assertEq(oracle.credits(address(0xdEaD)), EVIDENCE_FEE);
    }

    function test_RevertIf_EvidenceAfterResolveAfter() public {
        vm.warp(RESOLVE_AFTER);
        uint256 fee = oracle.nextEvidenceFee(id);
        vm.expectRevert(
            abi.encodeWithSelector(IVeritasOracle.VeritasEvidenceClosed.selector, id, RESOLVE_AFTER, RESOLVE_AFTER)
        );
        _submitPaying(bob, SNIPPET, fee);
    }

    function test_RevertIf_EvidenceForImmediateQuestion() public {
        uint256 now_ = _ask();
        vm.expectRevert(
            abi.encodeWithSelector(IVeritasOracle.VeritasEvidenceClosed.selector, now_, START_TIME, START_TIME)
        );
        vm.prank(bob);
        oracle.submitEvidence{value: EVIDENCE_FEE}(now_, URL, TITLE, SNIPPET);
    }

    function test_RevertIf_EvidenceUnknownQuestion() public {
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasUnknownQuestion.selector, 9));
        vm.prank(bob);
        oracle.submitEvidence{value: EVIDENCE_FEE}(9, URL, TITLE, SNIPPET);
    }

    function test_RevertIf_WrongEvidenceFee() public {
        vm.startPrank(bob);
        vm.expectRevert(
            abi.encodeWithSelector(IVeritasOracle.VeritasWrongPayment.selector, EVIDENCE_FEE - 1, EVIDENCE_FEE)
        );
        oracle.submitEvidence{value: EVIDENCE_FEE - 1}(id, URL, TITLE, SNIPPET);
        vm.expectRevert(
            abi.encodeWithSelector(IVeritasOracle.VeritasWrongPayment.selector, EVIDENCE_FEE + 1, EVIDENCE_FEE)
        );
        oracle.submitEvidence{value: EVIDENCE_FEE + 1}(id, URL, TITLE, SNIPPET);
        vm.stopPrank();
    }

    function test_RevertIf_FieldTooLong() public {
        string memory url = string(new bytes(oracle.MAX_URL_LENGTH() + 1));
        string memory title = string(new bytes(oracle.MAX_TITLE_LENGTH() + 1));
        string memory snippet = string(new bytes(oracle.MAX_SNIPPET_LENGTH() + 1));
        vm.startPrank(bob);
        vm.expectRevert(
            abi.encodeWithSelector(
                IVeritasOracle.VeritasEvidenceTooLong.selector, 0, bytes(url).length, oracle.MAX_URL_LENGTH()
            )
        );
        oracle.submitEvidence{value: EVIDENCE_FEE}(id, url, TITLE, SNIPPET);
        vm.expectRevert(
            abi.encodeWithSelector(
                IVeritasOracle.VeritasEvidenceTooLong.selector, 1, bytes(title).length, oracle.MAX_TITLE_LENGTH()
            )
        );
        oracle.submitEvidence{value: EVIDENCE_FEE}(id, URL, title, SNIPPET);
        vm.expectRevert(
            abi.encodeWithSelector(
                IVeritasOracle.VeritasEvidenceTooLong.selector, 2, bytes(snippet).length, oracle.MAX_SNIPPET_LENGTH()
            )
        );
        oracle.submitEvidence{value: EVIDENCE_FEE}(id, URL, TITLE, snippet);
        vm.stopPrank();
    }

    function test_FieldsAtTheirCapsAreAccepted() public {
        vm.prank(bob);
        oracle.submitEvidence{value: EVIDENCE_FEE}(
            id,
            string(new bytes(oracle.MAX_URL_LENGTH())),
            string(new bytes(oracle.MAX_TITLE_LENGTH())),
            string(new bytes(oracle.MAX_SNIPPET_LENGTH()))
        );
        assertEq(oracle.evidenceCount(id), 1);
    }

    function test_RevertIf_TooMuchEvidence() public {
        uint256 max = oracle.MAX_EVIDENCE_PER_QUESTION();
        // Eight accounts, eight items each (the per-account limit), at the rising price.
        for (uint256 i = 0; i < max; i++) {
            address who = address(uint160(0xe000 + i / 8));
            vm.deal(who, 100 ether);
            _submit(who, "x");
        }
        address late = makeAddr("late");
        vm.deal(late, 100 ether);
        uint256 fee = oracle.nextEvidenceFee(id);
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasTooMuchEvidence.selector, id, max));
        _submitPaying(late, "x", fee);
    }
}
