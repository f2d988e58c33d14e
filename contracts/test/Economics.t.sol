// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Test} from "forge-std/Test.sol";
import {WadTriple} from "../lib/WadTriple.sol";
import {StdInvariant} from "forge-std/StdInvariant.sol";
import {IVeritasOracle} from "../interfaces/IVeritasOracle.sol";
import {Shipped} from "../../script/Shipped.sol";
import {VeritasCourt} from "../court/VeritasCourt.sol";

/// @notice The economic actors of the book's economics chapter (book/src/economics.md), driven at random: askers, three honest
/// operators, a lying operator and its colluding friend, an honest watcher, evidence spammers and
/// an honest court. The truth of question `id` is YES when `id` is odd, NO when even. Each lie is
/// disputed in the block it lands (the documented assumption: someone watches every verdict), by
/// the watcher or, front-running it, by the liar's friend. The friend also disputes correct
/// verdicts (the freeze attack) and the liar its own report's question once it is Resolved.
/// Every ghost counts only calls that succeeded.
contract EconomicsHandler is Test {
    uint256 internal constant WAD = WadTriple.WAD;
    uint256 internal constant BOND = 0.1 ether;
    uint256 internal constant COURT_COST = 0.05 ether;

    IVeritasOracle public immutable oracle;
    VeritasCourt public immutable court;
    address public immutable judge;
    address public immutable liar;
    address public immutable friend;
    address public immutable watcher;
    address[] internal _honest;
    address[] internal _askers;

    /// @dev Wei each actor sent to the oracle (asks, stakes, bonds and court costs, evidence) and
    /// took out of it (withdrawals), in successful calls only.
    mapping(address actor => uint256) public ghostSpent;
    mapping(address actor => uint256) public ghostWithdrawn;
    /// @dev Lies reported, and lies whose dispute the court ruled.
    uint256 public ghostLies;
    uint256 public ghostLiesRuled;
    /// @dev Disputes by question (0: none), by whom (the beneficiary).
    mapping(uint256 id => address) public disputerOf;

    constructor(
        IVeritasOracle oracle_,
        VeritasCourt court_,
        address judge_,
        address liar_,
        address friend_,
        address watcher_,
        address[] memory honest_,
        address[] memory askers_
    ) {
        oracle = oracle_;
        court = court_;
        judge = judge_;
        liar = liar_;
        friend = friend_;
        watcher = watcher_;
        _honest = honest_;
        _askers = askers_;
    }

    /*//////////////////////////////////////////////////////////////
                                ACTIONS
    //////////////////////////////////////////////////////////////*/

    function ask(uint256 seed, uint256 delay) external {
        address who = _askers[seed % _askers.length];
        uint256 fee = oracle.parameters().askFee;
        uint64 resolveAfter = delay % 2 == 0 ? 0 : uint64(block.timestamp + bound(delay, 1, 1 hours));
        IVeritasOracle.AskRules memory rules;
        rules.parametersId = oracle.parametersId();
        rules.operatorEpoch = oracle.operatorEpoch();
        vm.prank(who);
        try oracle.askQuestion{value: fee}("Is it true?", resolveAfter, rules) {
            ghostSpent[who] += fee;
        } catch {}
    }

    /// @dev Anyone (the liar, its friend, an asker) submits evidence at the current price.
    function evidence(uint256 seed, uint256 idSeed) external {
        address who = [liar, friend, _askers[0], _askers[1]][seed % 4];
        uint256 id = _id(idSeed);
        uint256 fee = oracle.nextEvidenceFee(id);
        vm.deal(who, who.balance + fee);
        vm.prank(who);
        try oracle.submitEvidence{value: fee}(id, "https://e", "t", "s") {
            ghostSpent[who] += fee;
        } catch {}
    }

    /// @dev An operator reports: the honest ones the truth, the liar the opposite; a lie is
    /// disputed at once, by the watcher or (front-running it) by the liar's friend.
    function report(uint256 opSeed, uint256 idSeed, uint16 strength, bool friendFirst) external {
        uint256 id = _id(idSeed);
        uint256 pick = opSeed % (_honest.length + 1);
        address op = pick == _honest.length ? liar : _honest[pick];
        bool lie = op == liar;
        bool yes = (id % 2 == 1) != lie;
        uint16 lead = uint16(bound(strength, 2, 20));
        vm.prank(op);
        try oracle.submitReport(id, keccak256(abi.encode(id, op)), yes ? lead : 1, yes ? 1 : lead, 0, 0, false, false) {
            if (lie) {
                ghostLies++;
                if (oracle.verdictStatus(id) == IVeritasOracle.VerdictStatus.Resolved) {
                    _dispute(friendFirst ? friend : watcher, id, true);
                }
            }
        } catch {}
    }

    /// @dev The freeze attack: the friend (or the liar) disputes a verdict, claiming the wrong side.
    function freeze(uint256 idSeed, bool byLiar) external {
        _dispute(byLiar ? liar : friend, _id(idSeed), false);
    }

    /// @dev The honest court rules the truth on a disputed question, and the ruling is executed.
    function rule(uint256 idSeed) external {
        uint256 id = _id(idSeed);
        if (oracle.verdictStatus(id) != IVeritasOracle.VerdictStatus.Disputed) return;
        IVeritasOracle.Case memory c = oracle.getCase(id);
        (,, uint256 pYes, uint256 pNo,,,) = oracle.getVerdict(id);
        bool truthYes = id % 2 == 1;
        bool verdictRight = truthYes ? pYes > pNo : pNo > pYes;
        uint256 ruling = c.disputer == address(0) ? (truthYes ? 2 : 3) : (verdictRight ? 1 : (truthYes ? 2 : 3));
        vm.prank(judge);
        try court.giveRuling(c.disputeId, ruling) {
            try court.executeRuling(c.disputeId) {
                // A ruling after the court deadline defaults instead (and slashes nobody).
                bool arbitrated = oracle.verdictStatus(id) == IVeritasOracle.VerdictStatus.Arbitrated;
                if (arbitrated && !verdictRight && c.disputer != address(0)) ghostLiesRuled++;
            } catch {}
        } catch {}
    }

    function requestArbitration(uint256 idSeed) external {
        uint256 id = _id(idSeed);
        vm.prank(watcher);
        try oracle.requestArbitration{value: COURT_COST}(id) {
            ghostSpent[watcher] += COURT_COST;
        } catch {}
    }

    function finalize(uint256 idSeed) external {
        try oracle.finalize(_id(idSeed)) {} catch {}
    }

    function settle(uint256 idSeed) external {
        try oracle.settle(_id(idSeed)) {} catch {}
    }

    function resolveByDefault(uint256 idSeed) external {
        try oracle.resolveByDefault(_id(idSeed)) {} catch {}
    }

    function refundEvidence(uint256 seed, uint256 idSeed) external {
        address who = [liar, friend, _askers[0], _askers[1]][seed % 4];
        vm.prank(who);
        try oracle.refundEvidence(_id(idSeed)) {} catch {}
    }

    function withdrawStake(uint256 seed, uint256 amount) external {
        address who = seed % 2 == 0 ? liar : _honest[seed % _honest.length];
        (uint256 staked, uint256 locked,) = oracle.operatorStake(who);
        amount = bound(amount, 0, staked - locked);
        vm.prank(who);
        try oracle.withdrawStake(amount) {} catch {}
    }

    function withdraw(uint256 seed) external {
        address who = actor(seed % actorsLength());
        vm.prank(who);
        try oracle.withdraw() returns (uint256 amount) {
            ghostWithdrawn[who] += amount;
        } catch {}
    }

    function warp(uint256 seconds_) external {
        vm.warp(block.timestamp + bound(seconds_, 0, 3 hours));
    }

    /*//////////////////////////////////////////////////////////////
                                 VIEWS
    //////////////////////////////////////////////////////////////*/

    /// @dev What `who` got out of the oracle so far, counting its credits and its stake as its own.
    function payoff(address who) public view returns (int256) {
        (uint256 staked,,) = oracle.operatorStake(who);
        return int256(ghostWithdrawn[who] + oracle.credits(who) + staked) - int256(ghostSpent[who]);
    }

    function actorsLength() public view returns (uint256) {
        return 3 + _honest.length + _askers.length;
    }

    function actor(uint256 i) public view returns (address) {
        if (i == 0) return liar;
        if (i == 1) return friend;
        if (i == 2) return watcher;
        if (i < 3 + _honest.length) return _honest[i - 3];
        return _askers[i - 3 - _honest.length];
    }

    /// @dev Records an actor's deposit made outside the handler (the initial stakes).
    function recordSpent(address who, uint256 amount) external {
        ghostSpent[who] += amount;
    }

    /*//////////////////////////////////////////////////////////////
                                INTERNAL
    //////////////////////////////////////////////////////////////*/

    /// @dev `who` disputes `id` claiming the truth (`truthful`) or the other side.
    function _dispute(address who, uint256 id, bool truthful) internal {
        bool yes = (id % 2 == 1) == truthful;
        (uint256 y, uint256 n) = yes ? (uint256(0.9e18), uint256(0.05e18)) : (uint256(0.05e18), uint256(0.9e18));
        vm.deal(who, who.balance + COURT_COST + BOND);
        vm.prank(who);
        try oracle.dispute{value: COURT_COST + BOND}(id, y, n, 0.05e18, who) {
            ghostSpent[who] += COURT_COST + BOND;
            disputerOf[id] = who;
        } catch {}
    }

    function _id(uint256 seed) internal view returns (uint256) {
        return bound(seed, 1, oracle.questionCount() + 1);
    }
}

/// @notice The deployed actors: four operators (three honest, one liar) staking 10 ether each,
/// quorum 1, a one-hour challenge window, a 0.1-ether bond (the report bond) and a 0.01-ether fee.
abstract contract EconomicsHarness is Test {
    uint256 internal constant STAKE = 10 ether;

    IVeritasOracle internal oracle;
    VeritasCourt internal court;
    EconomicsHandler internal handler;

    function _deploy() internal {
        vm.warp(1_750_000_000);
        address owner = makeAddr("owner");
        address judge = makeAddr("judge");
        address[] memory judges = new address[](1);
        judges[0] = judge;
        court = new VeritasCourt(judges, 0.05 ether, 0, 0);
        address[] memory honest = new address[](3);
        for (uint256 i = 0; i < honest.length; i++) {
            honest[i] = makeAddr(string.concat("honest", vm.toString(i)));
        }
        address[] memory askers = new address[](2);
        askers[0] = makeAddr("asker0");
        askers[1] = makeAddr("asker1");
        vm.deal(askers[0], 1_000 ether);
        vm.deal(askers[1], 1_000 ether);
        address liar = makeAddr("liar");

        oracle = Shipped.oracle(owner);
        vm.startPrank(owner);
        for (uint256 i = 0; i < honest.length; i++) {
            oracle.addOperator(honest[i]);
        }
        oracle.addOperator(liar);
        oracle.setParameters(
            IVeritasOracle.Parameters({
                quorum: 1,
                maxBallotsPerReport: 30,
                reportWindow: 1 hours,
                challengeWindow: 1 hours,
                arbitrationWindow: 2 hours,
                askFee: 0.01 ether,
                disputeBond: 0.1 ether,
                evidenceFee: 0.001 ether,
                arbitrator: address(court),
                arbitratorExtraData: "",
                revealWindow: 0
            }),
            "ipfs://meta"
        );
        vm.stopPrank();
        handler =
            new EconomicsHandler(oracle, court, judge, liar, makeAddr("friend"), makeAddr("watcher"), honest, askers);
        _stake(liar);
        for (uint256 i = 0; i < honest.length; i++) {
            _stake(honest[i]);
        }
    }

    function _stake(address op) internal {
        vm.deal(op, STAKE);
        vm.prank(op);
        oracle.stake{value: STAKE}(op);
        handler.recordSpent(op, STAKE);
    }

    /// @dev Every wei the oracle holds, by whom it is owed: credits (the burned ones included),
    /// stakes, the fees and evidence fees of open questions, disputed bonds, and the evidence fees
    /// of expired questions not yet refunded.
    function _owed() internal view returns (uint256 owed) {
        for (uint256 i = 0; i < handler.actorsLength(); i++) {
            address who = handler.actor(i);
            owed += oracle.credits(who);
            (uint256 staked,,) = oracle.operatorStake(who);
            owed += staked;
        }
        owed += oracle.credits(address(0xdEaD));
        uint256 n = oracle.questionCount();
        for (uint256 id = 1; id <= n; id++) {
            owed += oracle.pendingFee(id);
            IVeritasOracle.VerdictStatus s = oracle.verdictStatus(id);
            if (s == IVeritasOracle.VerdictStatus.Disputed) owed += oracle.getCase(id).bond;
            if (s == IVeritasOracle.VerdictStatus.Expired) {
                for (uint256 i = 0; i < 2; i++) {
                    (uint256 paid,) = oracle.evidenceOf(id, handler.actor(i)); // liar, friend
                    owed += paid;
                }
                for (uint256 i = handler.actorsLength() - 2; i < handler.actorsLength(); i++) {
                    (uint256 paid,) = oracle.evidenceOf(id, handler.actor(i)); // askers
                    owed += paid;
                }
            }
        }
    }
}

/// @notice The economic invariants: ETH is conserved, lying never pays, and neither does the
/// liar's collusion with a disputer.
contract EconomicsInvariantTest is StdInvariant, EconomicsHarness {
    function setUp() public {
        _deploy();
        bytes4[] memory selectors = new bytes4[](15);
        selectors[0] = EconomicsHandler.ask.selector;
        selectors[1] = EconomicsHandler.ask.selector;
        selectors[2] = EconomicsHandler.evidence.selector;
        selectors[3] = EconomicsHandler.report.selector;
        selectors[4] = EconomicsHandler.report.selector;
        selectors[5] = EconomicsHandler.freeze.selector;
        selectors[6] = EconomicsHandler.rule.selector;
        selectors[7] = EconomicsHandler.requestArbitration.selector;
        selectors[8] = EconomicsHandler.finalize.selector;
        selectors[9] = EconomicsHandler.settle.selector;
        selectors[10] = EconomicsHandler.resolveByDefault.selector;
        selectors[11] = EconomicsHandler.refundEvidence.selector;
        selectors[12] = EconomicsHandler.withdrawStake.selector;
        selectors[13] = EconomicsHandler.withdraw.selector;
        selectors[14] = EconomicsHandler.warp.selector;
        targetSelector(FuzzSelector({addr: address(handler), selectors: selectors}));
        targetContract(address(handler));
    }

    /// @dev balance == every credit (burned included) + stakes + what open questions hold.
    function invariant_EthIsConservedWithStakesAndBurns() public view {
        assertEq(address(oracle).balance, _owed());
    }

    /// @dev The liar never ends ahead: every lie is disputed, so it never earns a fee, and every
    /// ruled lie costs it its report bond.
    function invariant_LyingNeverPays() public view {
        int256 liar = handler.payoff(handler.liar());
        assertLe(liar, 0, "the liar is ahead");
        assertLe(liar, -int256(0.1 ether) * int256(handler.ghostLiesRuled()), "a ruled lie kept its bond");
    }

    /// @dev Neither does collusion: the liar and its friend together lose at least half a bond
    /// (the burned share) per ruled lie, whoever of the friend and the watcher disputed it.
    function invariant_CollusionNeverPays() public view {
        int256 pair = handler.payoff(handler.liar()) + handler.payoff(handler.friend());
        assertLe(pair, -int256(0.05 ether) * int256(handler.ghostLiesRuled()), "collusion pays");
    }
}

/// @notice The handler's ghosts count successful calls only.
contract EconomicsHandlerTest is EconomicsHarness {
    function setUp() public {
        _deploy();
    }

    /// @dev A lie, disputed by the liar's friend and ruled: the liar loses its bond, the pair half
    /// a bond and the court's cost (the fee goes to the friend as disputer).
    function test_FrontRunLieCostsThePair() public {
        handler.ask(0, 0);
        handler.report(3, 1, 20, true); // the liar (pick 3) lies on question 1
        assertEq(handler.ghostLies(), 1);
        assertEq(handler.disputerOf(1), handler.friend());
        handler.rule(1);
        assertEq(handler.ghostLiesRuled(), 1);
        assertEq(handler.payoff(handler.liar()), -int256(0.1 ether));
        assertEq(
            handler.payoff(handler.liar()) + handler.payoff(handler.friend()),
            -int256(0.05 ether) - int256(0.05 ether) + int256(0.01 ether)
        );
        assertEq(address(oracle).balance, _owed());
    }

    /// @dev A reverted report (a second one on a Resolved question) counts as no lie.
    function test_RevertedReportIsNotCounted() public {
        handler.ask(0, 0);
        handler.report(0, 1, 20, false); // honest: resolves question 1
        handler.report(3, 1, 20, false); // the liar's report reverts (not open)
        assertEq(handler.ghostLies(), 0);
        assertEq(handler.disputerOf(1), address(0));
    }
}
