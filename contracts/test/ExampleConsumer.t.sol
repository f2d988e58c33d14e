// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Test} from "forge-std/Test.sol";
import {IVeritasOracle} from "../interfaces/IVeritasOracle.sol";
import {ExampleConsumer} from "../examples/ExampleConsumer.sol";
import {Shipped} from "../../script/Shipped.sol";

/// @dev The reference court's calls this test makes.
interface ITestCourt {
    function giveRuling(uint256 disputeId, uint256 ruling) external;
    function executeRuling(uint256 disputeId) external;
}

/// @notice The example consumer records every final status (Resolved, Arbitrated, Expired,
/// Defaulted), only notes a dispute, ignores questions asked under other rules, trusts only the
/// oracle, and recovers a failed callback through its pull path.
/// @dev Every contract is deployed from its shipped artifact (the oracle via `Shipped`).
contract ExampleConsumerTest is Test {
    uint32 internal constant GAS = 200_000;
    uint32 internal constant CHALLENGE = 2 hours;
    uint32 internal constant REPORT_WINDOW = 1 days;
    uint32 internal constant ARBITRATION_WINDOW = 1 days;
    uint96 internal constant ASK_FEE = 0.01 ether;
    uint96 internal constant BOND = 0.1 ether;
    uint256 internal constant COURT_COST = 0.05 ether;
    string internal constant QUESTION = "Did the lane open on time?";

    IVeritasOracle internal oracle;
    address internal court;
    ExampleConsumer internal consumer;
    address internal owner = makeAddr("owner");
    address internal operator = makeAddr("operator");
    address internal judge = makeAddr("judge");
    address internal alice = makeAddr("alice");
    address internal bob = makeAddr("bob");

    function setUp() public {
        vm.warp(1_750_000_000);
        oracle = Shipped.oracle(owner);
        address[] memory judges = new address[](1);
        judges[0] = judge;
        court = deployCode("VeritasCourt.sol:VeritasCourt", abi.encode(judges, COURT_COST, 0, 0));
        vm.prank(owner);
        oracle.addOperator(operator);
        vm.deal(operator, 10 ether);
        vm.prank(operator);
        oracle.stake{value: 10 ether}(operator);
        vm.prank(owner);
        oracle.setParameters(
            IVeritasOracle.Parameters({
                quorum: 1,
                maxBallotsPerReport: 30,
                reportWindow: REPORT_WINDOW,
                challengeWindow: CHALLENGE,
                arbitrationWindow: ARBITRATION_WINDOW,
                askFee: ASK_FEE,
                disputeBond: BOND,
                evidenceFee: 0,
                arbitrator: court,
                arbitratorExtraData: "",
                revealWindow: 0
            }),
            ""
        );
        consumer = ExampleConsumer(
            deployCode("ExampleConsumer.sol:ExampleConsumer", abi.encode(oracle, oracle.parametersId(), court))
        );
        vm.deal(alice, 10 ether);
        vm.deal(bob, 10 ether);
    }

    /// @dev Alice asks naming `target` as consumer with `gas`.
    function _ask(address target, uint32 gas) internal returns (uint256 id) {
        IVeritasOracle.AskRules memory rules = IVeritasOracle.AskRules({
            parametersId: oracle.parametersId(),
            operatorEpoch: oracle.operatorEpoch(),
            consumer: target,
            callbackGasLimit: gas
        });
        vm.prank(alice);
        id = oracle.askQuestion{value: ASK_FEE}(QUESTION, 0, rules);
    }

    /// @dev The operator reports 5 YES, 2 NO: the verdict (0.6, 0.3, 0.1) posts at once.
    function _post(uint256 id) internal {
        vm.prank(operator);
        oracle.submitReport(id, keccak256("root"), 5, 2, 0, 0, false, false);
    }

    /// @dev Bob disputes `id` claiming NO.
    function _dispute(uint256 id) internal {
        vm.prank(bob);
        oracle.dispute{value: COURT_COST + BOND}(id, 0.2e18, 0.7e18, 0.1e18, bob);
    }

    function _outcome(ExampleConsumer c, uint256 id) internal view returns (ExampleConsumer.Outcome o, bool disputed) {
        (o,, disputed,,,) = c.records(id);
    }

    function test_resolved_after_its_window_records_the_leading_outcome() public {
        uint256 id = _ask(address(consumer), GAS);
        _post(id);
        (ExampleConsumer.Outcome o,) = _outcome(consumer, id);
        assertEq(uint8(o), uint8(ExampleConsumer.Outcome.Unknown), "not final yet");
        vm.warp(block.timestamp + CHALLENGE);
        oracle.settle(id);
        bool disputed;
        (o, disputed) = _outcome(consumer, id);
        assertEq(uint8(o), uint8(ExampleConsumer.Outcome.Yes));
        assertFalse(disputed);
        (,,, uint256 pYes, uint256 pNo, uint256 pNull) = consumer.records(id);
        assertEq(pYes, 0.6e18);
        assertEq(pNo, 0.3e18);
        assertEq(pNull, 0.1e18);
    }

    function test_a_dispute_is_only_noted_and_the_ruling_is_recorded() public {
        uint256 id = _ask(address(consumer), GAS);
        _post(id);
        _dispute(id);
        (ExampleConsumer.Outcome o, bool disputed) = _outcome(consumer, id);
        assertEq(uint8(o), uint8(ExampleConsumer.Outcome.Unknown), "Disputed is not final");
        assertTrue(disputed);
        uint256 disputeId = oracle.getCase(id).disputeId;
        vm.prank(judge);
        ITestCourt(court).giveRuling(disputeId, 3); // RULING_NO
        ITestCourt(court).executeRuling(disputeId);
        (o, disputed) = _outcome(consumer, id);
        assertEq(uint8(o), uint8(ExampleConsumer.Outcome.No));
        assertTrue(disputed);
    }

    function test_expired_and_defaulted_are_outcomes_of_their_own() public {
        uint256 expired = _ask(address(consumer), GAS);
        uint256 defaulted = _ask(address(consumer), GAS);
        _post(defaulted);
        _dispute(defaulted);
        vm.warp(block.timestamp + REPORT_WINDOW + ARBITRATION_WINDOW);
        oracle.finalize(expired);
        oracle.resolveByDefault(defaulted);
        (ExampleConsumer.Outcome o,) = _outcome(consumer, expired);
        assertEq(uint8(o), uint8(ExampleConsumer.Outcome.Expired));
        (o,) = _outcome(consumer, defaulted);
        assertEq(uint8(o), uint8(ExampleConsumer.Outcome.Defaulted));
    }

    function test_a_question_under_other_rules_is_ignored() public {
        ExampleConsumer strict = ExampleConsumer(
            deployCode("ExampleConsumer.sol:ExampleConsumer", abi.encode(oracle, oracle.parametersId() + 1, court))
        );
        uint256 id = _ask(address(strict), GAS);
        _post(id);
        vm.warp(block.timestamp + CHALLENGE);
        oracle.settle(id);
        (ExampleConsumer.Outcome o,) = _outcome(strict, id);
        assertEq(uint8(o), uint8(ExampleConsumer.Outcome.WrongRules));
        assertFalse(strict.rulesOk(id));
    }

    function test_only_the_oracle_calls_back() public {
        uint256 id = _ask(address(consumer), GAS);
        vm.expectRevert(abi.encodeWithSelector(ExampleConsumer.ConsumerNotOracle.selector, address(this)));
        consumer.onVeritasVerdict(id, IVeritasOracle.VerdictStatus.Resolved, 1e18 - 2, 1, 1);
    }

    function test_a_failed_callback_is_recovered_by_sync_or_retry() public {
        // Too little gas for the consumer's rule check: the callback fails, nothing else does.
        uint256 id = _ask(address(consumer), 5_000);
        _post(id);
        vm.expectRevert(
            abi.encodeWithSelector(ExampleConsumer.ConsumerNotFinal.selector, id, IVeritasOracle.VerdictStatus.Resolved)
        );
        consumer.sync(id);
        vm.warp(block.timestamp + CHALLENGE);
        oracle.settle(id);
        assertTrue(oracle.callbackOwed(id));
        assertEq(uint8(consumer.sync(id)), uint8(ExampleConsumer.Outcome.Yes));
        // A retry after that changes nothing (the outcome is known) and clears the debt.
        oracle.retryCallback(id);
        assertFalse(oracle.callbackOwed(id));
        (ExampleConsumer.Outcome o,) = _outcome(consumer, id);
        assertEq(uint8(o), uint8(ExampleConsumer.Outcome.Yes));
    }
}
