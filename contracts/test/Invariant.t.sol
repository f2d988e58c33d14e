// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Test} from "forge-std/Test.sol";
import {StdInvariant} from "forge-std/StdInvariant.sol";
import {Vm} from "forge-std/Vm.sol";
import {IVeritasOracle} from "../interfaces/IVeritasOracle.sol";
import {IOracleModules, Shipped} from "../../script/Shipped.sol";
import {VeritasCourt} from "../court/VeritasCourt.sol";
import {WadTriple} from "../lib/WadTriple.sol";
import {MuteCourt} from "./harness/MuteCourt.sol";
import {ReentrantOperator} from "./harness/ReentrantOperator.sol";

/// @notice Drives the oracle with random asks (with fees and surpluses), evidence, reports and
/// batches (by operators and strangers, valid and not), finalize, disputes, court requests,
/// rulings (by our court or one the owner controls), appeals, defaults, settlements, withdrawals,
/// parameter and operator changes and time; reads the logs of every call that succeeded and keeps
/// ghost records of what happened.
contract OracleHandler is Test {
    uint256 internal constant WAD = WadTriple.WAD;

    IVeritasOracle public immutable oracle;
    address public immutable owner;
    address public immutable arbitrator;
    address public immutable ownersCourt;
    address public immutable muteCourt;
    /// @dev The contract-key operator that re-enters from every callback (one of `_operators`).
    ReentrantOperator public immutable actor;
    address[] internal _operators;
    address[] internal _users;

    /// @dev Reports seen per (question, operator); settlements seen per question.
    mapping(uint256 id => mapping(address operator => uint256)) public ghostReports;
    mapping(uint256 id => uint256) public ghostSettlements;
    uint256 public ghostMaxReportsPerOperator;
    uint256 public ghostMaxSettlements;

    /// @dev Pooled counts last seen and the round they were seen in, and whether they ever went
    /// down within a round (a deferral empties the tally for the next round).
    mapping(uint256 id => uint256[3]) internal _lastCounts;
    mapping(uint256 id => uint256) internal _lastCountsRound;
    bool public ghostCountsShrank;

    /// @dev Disputed verdicts as last seen, and whether anyone but the arbiter changed one.
    mapping(uint256 id => bytes32) internal _disputedVerdict;
    bool public ghostDisputedChangedByOthers;

    /// @dev Commit-reveal: commits seen per (question, operator); slashed commits, and whether one
    /// was slashed after its report was revealed; the reports committed (only on success), to be
    /// revealed by `reveal`.
    struct Committed {
        bytes32 root;
        uint16 y;
        uint16 n;
        uint16 u;
        int256 kappa;
        bool escalated;
        bool notYet;
        bytes32 salt;
    }

    mapping(uint256 id => mapping(address operator => uint256)) public ghostCommits;
    mapping(uint256 id => mapping(address operator => Committed)) internal _committed;
    uint256 public ghostMaxCommitsPerOperator;
    uint256 public ghostCommitsSlashed;
    uint256 public ghostReveals;
    /// @dev Deferrals the campaign reached (by "not yet" reports or the court's too-early ruling).
    uint256 public ghostDeferrals;
    bool public ghostRevealedCommitSlashed;

    /// @dev Each question's rules (its parameter set and record) when it was asked, and whether
    /// any later action changed them.
    mapping(uint256 id => bytes32) internal _rulesAtAsk;
    bool public ghostRulesChanged;

    /// @dev A lie caught: each question's reporters and their leading outcomes (+1), and whether a
    /// reporter whose leading outcome a ruling rejected was ever credited on that question or
    /// slashed less than its bond, or anyone of them credited on a default; how many such
    /// reporters the rulings judged, and the cases the mute court took.
    mapping(uint256 id => address[]) internal _reporters;
    mapping(uint256 id => mapping(address operator => uint8)) internal _leadingPlusOne;
    bool public ghostLiarProfited;
    uint256 public ghostLiesJudged;

    /// @dev Callback gas prepaid by askers and not yet paid (`CallbackGasPaid`), and whether a
    /// question's deposit was paid twice or before its status was final.
    uint256 public ghostDepositsHeld;
    mapping(uint256 id => uint256) internal _depositPayments;
    bool public ghostDepositMisspent;
    uint256 public ghostDepositsPaid;

    constructor(
        IVeritasOracle oracle_,
        address owner_,
        address arbitrator_,
        address ownersCourt_,
        address muteCourt_,
        ReentrantOperator actor_,
        address[] memory operators_,
        address[] memory users_
    ) {
        oracle = oracle_;
        owner = owner_;
        arbitrator = arbitrator_;
        ownersCourt = ownersCourt_;
        muteCourt = muteCourt_;
        actor = actor_;
        _operators = operators_;
        _users = users_;
    }

    /*//////////////////////////////////////////////////////////////
                                ACTIONS
    //////////////////////////////////////////////////////////////*/

    function ask(uint256 userSeed, uint256 delay, uint256 surplus) external {
        _before();
        uint256 fee = oracle.parameters().askFee + bound(surplus, 0, 3) * (surplus % 2);
        uint64 resolveAfter = delay % 3 == 0 ? 0 : uint64(block.timestamp + bound(delay, 1, 2 hours));
        IVeritasOracle.AskRules memory rules = _rulesNow();
        // One ask in three names the contract operator as consumer: its callbacks re-enter. Its
        // callback gas is prepaid at a gas price of 0 to 3 gwei (0: nothing to pay).
        uint256 price;
        if (userSeed % 3 == 1) {
            rules.consumer = address(actor);
            rules.callbackGasLimit = 500_000;
            price = (delay >> 8) % 4 * 1 gwei;
            fee += (500_000 + oracle.CALLBACK_GAS_OVERHEAD()) * price;
        }
        vm.txGasPrice(price);
        vm.prank(_user(userSeed));
        bool ok;
        try oracle.askQuestion{value: fee}("Will it rain?", resolveAfter, rules) returns (uint256 id) {
            ok = true;
            _rulesAtAsk[id] = _rulesHash(id);
            ghostDepositsHeld += oracle.getQuestion(id).callbackDeposit;
        } catch {}
        vm.txGasPrice(0);
        _after(ok, false);
    }

    function evidence(uint256 userSeed, uint256 idSeed) external {
        _before();
        uint256 id = _id(idSeed);
        uint256 fee = oracle.nextEvidenceFee(id);
        vm.prank(_user(userSeed));
        bool ok;
        try oracle.submitEvidence{value: fee}(id, "https://x", "t", "s") {
            ok = true;
        } catch {}
        _after(ok, false);
    }

    /// @dev One report in four comes from a stranger or is loosely bounded (mostly rejected).
    function report(uint256 actorSeed, uint256 idSeed, uint16 y, uint16 n, uint16 u, int256 kappa, uint8 mode)
        external
    {
        _before();
        address actor = mode % 8 == 0 ? _user(actorSeed) : _operators[actorSeed % _operators.length];
        if (mode % 4 == 1) {
            kappa = bound(kappa, -2e18, 2e18);
        } else {
            y = uint16(bound(y, 0, 30));
            n = uint16(bound(n, 0, 30 - y));
            u = uint16(bound(u, 0, 30 - y - n));
            kappa = bound(kappa, -1e18, 1e18);
        }
        uint256 id = _id(idSeed); // before the prank: `_id` calls the oracle, which would take it
        uint256 deferrals = _deferralsOf(id);
        vm.prank(actor);
        bool ok;
        // One report in nine says "not yet": majorities of them defer.
        try oracle.submitReport(
            id, keccak256(abi.encode(idSeed, actor)), y, n, u, kappa, mode % 5 == 0, mode % 9 == 4
        ) {
            ok = true;
        } catch {}
        _countDeferral(id, deferrals);
        _after(ok, false);
    }

    /// @dev An operator (or, one time in eight, a stranger) commits to a bounded report; one commit
    /// in six is garbage that no reveal opens (its bond burns at finalize).
    function commit(uint256 actorSeed, uint256 idSeed, uint16 y, uint16 n, int256 kappa, bytes32 salt, uint8 mode)
        external
    {
        _before();
        address actor = mode % 8 == 0 ? _user(actorSeed) : _operators[actorSeed % _operators.length];
        Committed memory c;
        c.y = uint16(bound(y, 0, 30));
        c.n = uint16(bound(n, 0, 30 - c.y));
        c.u = mode % 3 == 0 ? 0 : 1;
        c.kappa = bound(kappa, -1e18, 1e18);
        c.escalated = mode % 5 == 0;
        c.notYet = mode % 7 == 4;
        c.salt = salt;
        c.root = keccak256(abi.encode(idSeed, actor));
        uint256 id = _id(idSeed);
        bytes32 commitment = mode % 6 == 1
            ? keccak256(abi.encode(salt, "garbage"))
            : oracle.reportCommitment(id, actor, c.root, c.y, c.n, c.u, c.kappa, c.escalated, c.notYet, c.salt);
        vm.prank(actor);
        bool ok;
        try oracle.commitReport(id, commitment) {
            ok = true;
            _committed[id][actor] = c;
        } catch {}
        _after(ok, false);
    }

    /// @dev An operator reveals what it committed to on the question; one reveal in four tries
    /// another salt (always refused).
    function reveal(uint256 actorSeed, uint256 idSeed, uint8 mode) external {
        _before();
        address actor = _operators[actorSeed % _operators.length];
        uint256 id = _id(idSeed);
        Committed memory c = _committed[id][actor];
        bytes32 salt = mode % 4 == 0 ? keccak256(abi.encode(c.salt)) : c.salt;
        uint256 deferrals = _deferralsOf(id);
        vm.prank(actor);
        bool ok;
        try oracle.revealReport(id, c.root, c.y, c.n, c.u, c.kappa, c.escalated, c.notYet, salt) {
            ok = true;
            ghostReveals++;
        } catch {}
        _countDeferral(id, deferrals);
        _after(ok, false);
    }

    function batch(uint256 actorSeed, uint256 idSeed, uint8 length) external {
        _before();
        length = uint8(bound(length, 1, 4));
        IVeritasOracle.Report[] memory reports = new IVeritasOracle.Report[](length);
        for (uint256 i = 0; i < length; i++) {
            bytes32 root = keccak256(abi.encode(idSeed + i, actorSeed % _operators.length));
            reports[i] = IVeritasOracle.Report(_id(idSeed + i), root, uint16(i), 1, 0, 0, false, (idSeed + i) % 4 == 3);
        }
        vm.prank(_operators[actorSeed % _operators.length]);
        bool ok;
        try oracle.submitReports(reports) {
            ok = true;
        } catch {}
        _after(ok, false);
    }

    /// @dev The asker (or, one time in four, someone else) clarifies a question: no wei moves,
    /// and once a question has a report, a commit or a deferral it is refused.
    function clarify(uint256 idSeed, uint256 userSeed, uint16 length) external {
        _before();
        uint256 id = _id(idSeed);
        address who = userSeed % 4 == 0 ? _user(userSeed) : _askerOf(id);
        length = uint16(bound(length, 0, 1100));
        vm.prank(who);
        bool ok;
        try oracle.clarify(id, string(new bytes(length))) {
            ok = true;
        } catch {}
        _after(ok, false);
    }

    /// @dev The deferrals of `id` so far (0 for an unknown id).
    function _deferralsOf(uint256 id) internal view returns (uint256 count) {
        if (oracle.verdictStatus(id) == IVeritasOracle.VerdictStatus.None) return 0;
        (count,) = oracle.deferral(id);
    }

    function _countDeferral(uint256 id, uint256 before) internal {
        if (_deferralsOf(id) > before) ghostDeferrals++;
    }

    /// @dev Who asked `id` (the zero address for an unknown id).
    function _askerOf(uint256 id) internal view returns (address) {
        if (oracle.verdictStatus(id) == IVeritasOracle.VerdictStatus.None) return address(0);
        return oracle.getQuestion(id).asker;
    }

    function finalize(uint256 idSeed) external {
        _before();
        bool ok;
        uint256 id = _id(idSeed);
        _deliverer(idSeed);
        try oracle.finalize(id) {
            ok = true;
        } catch {}
        _after(ok, false);
    }

    /// @dev The beneficiary is any account the handler knows, the disputer's own or not: the
    /// users include the court's judges (issue #43: a disputer naming the round's judge once made
    /// the court unable to rule).
    function dispute(uint256 userSeed, uint256 idSeed, uint256 extra, uint256 a, uint256 b, uint256 beneficiarySeed)
        external
    {
        _before();
        uint256 id = _id(idSeed);
        uint256 value;
        if (oracle.verdictStatus(id) == IVeritasOracle.VerdictStatus.Resolved) {
            value = oracle.questionParameters(id).disputeBond + oracle.courtCost(id) + bound(extra, 0, 2);
        }
        uint256 pYes = bound(a, 1, WAD - 2);
        _after(_tryDispute(_user(userSeed), id, value, pYes, bound(b, 1, WAD - 1 - pYes), beneficiarySeed), false);
    }

    /// @dev `user` disputes `id` for `_user(beneficiarySeed)` (itself when the seed is even) with
    /// the claim (pYes, pNo, the rest); a function of its own so the handler fits the legacy code
    /// generator's stack (tests compile without via-IR).
    function _tryDispute(address user, uint256 id, uint256 value, uint256 pYes, uint256 pNo, uint256 beneficiarySeed)
        private
        returns (bool ok)
    {
        address beneficiary = beneficiarySeed % 2 == 0 ? user : _user(beneficiarySeed >> 1);
        vm.prank(user);
        try oracle.dispute{value: value}(id, pYes, pNo, WAD - pYes - pNo, beneficiary) {
            ok = true;
        } catch {}
    }

    function requestArbitration(uint256 userSeed, uint256 idSeed) external {
        _before();
        uint256 id = _id(idSeed);
        uint256 cost;
        if (oracle.verdictStatus(id) == IVeritasOracle.VerdictStatus.Escalated) cost = oracle.courtCost(id);
        vm.prank(_user(userSeed));
        bool ok;
        try oracle.requestArbitration{value: cost}(id) {
            ok = true;
        } catch {}
        _after(ok, false);
    }

    /// @dev The judge of the case's round rules (its court may be ours or the owner's).
    function giveRuling(uint256 idSeed, uint256 ruling) external {
        _before();
        uint256 id = _id(idSeed);
        IVeritasOracle.Case memory c = oracle.getCase(id);
        bool ok;
        if (c.arbitrator != address(0)) {
            VeritasCourt court = VeritasCourt(c.arbitrator);
            address judge;
            try court.judgeOf(c.disputeId) returns (address j) {
                judge = j;
            } catch {}
            vm.prank(judge, judge);
            try court.giveRuling(c.disputeId, bound(ruling, 0, 6)) {
                ok = true;
            } catch {}
        }
        _after(ok, true);
    }

    function executeRuling(uint256 idSeed) external {
        _before();
        uint256 id = _id(idSeed);
        IVeritasOracle.Case memory c = oracle.getCase(id);
        uint256 deferrals = _deferralsOf(id);
        bool ok;
        if (c.arbitrator != address(0)) {
            _deliverer(idSeed);
            try VeritasCourt(c.arbitrator).executeRuling(c.disputeId) {
                ok = true;
            } catch {}
        }
        _countDeferral(id, deferrals);
        _after(ok, true);
    }

    function appeal(uint256 userSeed, uint256 idSeed) external {
        _before();
        uint256 id = _id(idSeed);
        uint256 cost;
        if (oracle.verdictStatus(id) == IVeritasOracle.VerdictStatus.Disputed) cost = oracle.courtCost(id);
        if (cost > 10 ether) cost = 0;
        vm.prank(_user(userSeed));
        bool ok;
        try oracle.appeal{value: cost}(id) {
            ok = true;
        } catch {}
        _after(ok, false);
    }

    function resolveByDefault(uint256 idSeed) external {
        _before();
        bool ok;
        uint256 id = _id(idSeed);
        _deliverer(idSeed);
        try oracle.resolveByDefault(id) {
            ok = true;
        } catch {}
        _after(ok, false);
    }

    function settle(uint256 idSeed) external {
        _before();
        bool ok;
        uint256 id = _id(idSeed);
        _deliverer(idSeed);
        try oracle.settle(id) {
            ok = true;
        } catch {}
        _after(ok, false);
    }

    function withdraw(uint256 seed) external {
        _before();
        address who = seed % 2 == 0 ? _user(seed) : _operators[seed % _operators.length];
        vm.prank(who);
        bool ok;
        try oracle.withdraw() {
            ok = true;
        } catch {}
        _after(ok, false);
    }

    /// @dev The owner creates a parameter set (valid or not), naming our court, its own court or
    /// the mute court (`court` % 3).
    /// @dev One set in two has a reveal window (commit-reveal with a quorum above 1; sometimes
    /// out of bounds, refused).
    function setParameters(uint8 quorum, uint32 challengeWindow, uint32 reportWindow, uint96 fee, uint8 court)
        external
    {
        uint32 revealWindow = fee % 2 == 0 ? 0 : uint32(bound(fee >> 24, 20, 2 hours));
        _before();
        uint32 cw = uint32(bound(challengeWindow, 0, 2 hours));
        if (cw < 60 && cw % 2 == 1) cw = 60;
        vm.prank(owner);
        bool ok;
        try oracle.setParameters(
            IVeritasOracle.Parameters({
                quorum: uint8(bound(quorum, 1, 4)),
                maxBallotsPerReport: 30,
                reportWindow: uint32(bound(reportWindow, 30, 1 days)),
                challengeWindow: cw,
                arbitrationWindow: uint32(bound(reportWindow, 1 hours, 6 hours)),
                askFee: uint96(bound(fee, 0, 1 ether)),
                // At least one BOND_UNIT: a smaller nonzero bond is refused (issue #43).
                disputeBond: uint96(bound(fee >> 8, 1e12, 1 ether)),
                evidenceFee: uint96(bound(fee >> 16, 0, 0.1 ether)),
                arbitrator: court % 3 == 0 ? arbitrator : court % 3 == 1 ? ownersCourt : muteCourt,
                arbitratorExtraData: "",
                revealWindow: revealWindow
            }),
            "ipfs://meta"
        ) {
            ok = true;
        } catch {}
        _after(ok, false);
    }

    function toggleOperator(uint256 seed) external {
        _before();
        address op = _operators[seed % _operators.length];
        vm.startPrank(owner);
        if (oracle.isOperator(op)) oracle.removeOperator(op);
        else oracle.addOperator(op);
        vm.stopPrank();
        _after(true, false);
    }

    /// @dev The owner hands its ownership to itself again (a no-op owner action).
    function ownerNoise(uint256 seed) external {
        _before();
        vm.prank(owner);
        oracle.transferOwnership(_user(seed));
        vm.prank(owner);
        oracle.transferOwnership(owner);
        _after(true, false);
    }

    function warp(uint256 seconds_) external {
        _before();
        vm.warp(block.timestamp + bound(seconds_, 0, 6 hours));
        _after(true, false);
    }

    /*//////////////////////////////////////////////////////////////
                                GHOSTS
    //////////////////////////////////////////////////////////////*/

    function _before() internal {
        vm.recordLogs();
    }

    /// @dev The next call is sent, and its gas paid, by a user: whoever delivers a final status
    /// is paid the prepaid callback gas as `tx.origin`, an account the ETH invariants count.
    function _deliverer(uint256 seed) internal {
        address user = _user(seed >> 128);
        vm.prank(user, user);
    }

    /// @dev Reads the action's logs, if its call to the oracle succeeded, and compares every
    /// question with what was last seen. The logs of a call that reverted are dropped unread:
    /// `vm.recordLogs` keeps them, but the chain never saw them.
    function _after(bool succeeded, bool courtAction) internal {
        Vm.Log[] memory logs = vm.getRecordedLogs();
        if (!succeeded) logs = new Vm.Log[](0);
        for (uint256 i = 0; i < logs.length; i++) {
            if (logs[i].emitter != address(oracle)) continue;
            bytes32 topic = logs[i].topics[0];
            if (topic == IVeritasOracle.ReportSubmitted.selector) {
                uint256 id = uint256(logs[i].topics[1]);
                address op = address(uint160(uint256(logs[i].topics[2])));
                uint256 seen = ++ghostReports[id][op];
                if (seen > ghostMaxReportsPerOperator) ghostMaxReportsPerOperator = seen;
            } else if (topic == IVeritasOracle.ReportCommitted.selector) {
                uint256 seen = ++ghostCommits[uint256(logs[i].topics[1])][address(uint160(uint256(logs[i].topics[2])))];
                if (seen > ghostMaxCommitsPerOperator) ghostMaxCommitsPerOperator = seen;
            } else if (topic == IVeritasOracle.CommitSlashed.selector) {
                ghostCommitsSlashed++;
                uint256 id = uint256(logs[i].topics[1]);
                if (ghostReports[id][address(uint160(uint256(logs[i].topics[2])))] != 0) {
                    ghostRevealedCommitSlashed = true;
                }
            } else if (topic == IVeritasOracle.QuestionSettled.selector) {
                uint256 seen = ++ghostSettlements[uint256(logs[i].topics[1])];
                if (seen > ghostMaxSettlements) ghostMaxSettlements = seen;
            } else if (topic == IVeritasOracle.CallbackGasPaid.selector) {
                uint256 id = uint256(logs[i].topics[1]);
                uint256 amount = abi.decode(logs[i].data, (uint256));
                ghostDepositsHeld -= amount;
                ghostDepositsPaid++;
                if (++_depositPayments[id] > 1 || !oracle.isFinal(id)) ghostDepositMisspent = true;
            }
            if (topic == IVeritasOracle.ReportSubmitted.selector) _recordReport(logs[i]);
        }
        for (uint256 i = 0; i < logs.length; i++) {
            if (logs[i].emitter != address(oracle)) continue;
            bytes32 topic = logs[i].topics[0];
            if (topic == IVeritasOracle.VerdictArbitrated.selector) {
                (uint256 pYes, uint256 pNo, uint256 pNull,,) =
                    abi.decode(logs[i].data, (uint256, uint256, uint256, uint256, bool));
                _checkLiars(uint256(logs[i].topics[1]), WadTriple.leading(pYes, pNo, pNull), logs);
            } else if (topic == IVeritasOracle.VerdictDefaulted.selector) {
                _checkLiars(uint256(logs[i].topics[1]), _NO_RULING, logs);
            }
        }
        uint256 n = oracle.questionCount();
        for (uint256 id = 1; id <= n; id++) {
            (, uint256 y, uint256 no, uint256 u) = oracle.tally(id);
            uint256 round = _deferralsOf(id);
            if (round != _lastCountsRound[id]) {
                _lastCountsRound[id] = round;
                delete _lastCounts[id];
            }
            uint256[3] storage last = _lastCounts[id];
            if (y < last[0] || no < last[1] || u < last[2]) ghostCountsShrank = true;
            _lastCounts[id] = [y, no, u];

            IVeritasOracle.VerdictStatus status = oracle.verdictStatus(id);
            bytes32 seenVerdict = _disputedVerdict[id];
            // The court rules, or, once its deadline has passed, anyone defaults the case
            // (`resolveByDefault`, which checks the deadline): nothing else moves a disputed verdict.
            if (seenVerdict != 0 && !courtAction && status != IVeritasOracle.VerdictStatus.Defaulted) {
                if (status != IVeritasOracle.VerdictStatus.Disputed || _verdictHash(id) != seenVerdict) {
                    ghostDisputedChangedByOthers = true;
                }
            }
            _disputedVerdict[id] = status == IVeritasOracle.VerdictStatus.Disputed ? _verdictHash(id) : bytes32(0);
            if (_rulesAtAsk[id] != 0 && _rulesHash(id) != _rulesAtAsk[id]) ghostRulesChanged = true;
        }
    }

    /// @dev A default: no outcome was ruled.
    uint8 internal constant _NO_RULING = 255;

    function _recordReport(Vm.Log memory log) internal {
        uint256 id = uint256(log.topics[1]);
        address op = address(uint160(uint256(log.topics[2])));
        (, uint256 y, uint256 no, uint256 u,,) =
            abi.decode(log.data, (bytes32, uint256, uint256, uint256, int256, bool));
        _reporters[id].push(op);
        _leadingPlusOne[id][op] = WadTriple.leading(y, no, u) + 1;
    }

    /// @dev After a ruling with outcome `outcome` (or a default, `_NO_RULING`) on `id`: every
    /// reporter the ruling proved wrong lost its whole bond and earned nothing; on a default,
    /// no reporter earned anything.
    function _checkLiars(uint256 id, uint8 outcome, Vm.Log[] memory logs) internal {
        IVeritasOracle.Parameters memory p = oracle.questionParameters(id);
        uint256 bond = p.challengeWindow == 0 && p.revealWindow == 0 ? 0 : p.disputeBond / 1e12 * 1e12;
        address[] storage reporters = _reporters[id];
        for (uint256 r = 0; r < reporters.length; r++) {
            address op = reporters[r];
            if (outcome != _NO_RULING && _leadingPlusOne[id][op] == outcome + 1) continue;
            uint256 credited;
            uint256 slashed;
            for (uint256 i = 0; i < logs.length; i++) {
                if (logs[i].emitter != address(oracle)) continue;
                bytes32 topic = logs[i].topics[0];
                if (
                    topic == IVeritasOracle.Credited.selector && logs[i].topics[1] == bytes32(uint256(uint160(op)))
                        && uint256(logs[i].topics[2]) == id
                ) credited += abi.decode(logs[i].data, (uint256));
                if (
                    topic == IVeritasOracle.Slashed.selector && uint256(logs[i].topics[1]) == id
                        && logs[i].topics[2] == bytes32(uint256(uint160(op)))
                ) slashed += abi.decode(logs[i].data, (uint256));
            }
            if (credited != 0) ghostLiarProfited = true;
            if (outcome != _NO_RULING) {
                if (slashed < bond) ghostLiarProfited = true;
                ghostLiesJudged++;
            }
        }
    }

    /// @dev Hash of what governs `id`: its parameter set (with the court) and its record.
    function _rulesHash(uint256 id) internal view returns (bytes32) {
        return keccak256(abi.encode(oracle.questionParameters(id), oracle.getQuestion(id)));
    }

    /// @dev The rules in force, read from the header slot (no call, so a prank can follow).
    function _rulesNow() internal view returns (IVeritasOracle.AskRules memory rules) {
        uint256 header = uint256(vm.load(address(oracle), bytes32(0)));
        rules.parametersId = uint16(header >> 40);
        rules.operatorEpoch = uint32(header >> 56);
    }

    function _verdictHash(uint256 id) internal view returns (bytes32) {
        (bytes32 h, bytes32 root, uint256 a, uint256 b, uint256 c, int256 k, uint256 t) = oracle.getVerdict(id);
        return keccak256(abi.encode(h, root, a, b, c, k, t));
    }

    /*//////////////////////////////////////////////////////////////
                                 VIEWS
    //////////////////////////////////////////////////////////////*/

    function _id(uint256 seed) internal view returns (uint256) {
        return bound(seed, 1, oracle.questionCount() + 1);
    }

    function _user(uint256 seed) internal view returns (address) {
        return _users[seed % _users.length];
    }

    function operatorsLength() external view returns (uint256) {
        return _operators.length;
    }

    function operatorAt(uint256 i) external view returns (address) {
        return _operators[i];
    }

    function usersLength() external view returns (uint256) {
        return _users.length;
    }

    function userAt(uint256 i) external view returns (address) {
        return _users[i];
    }
}

/// @notice The oracle (five operators, quorum 2, fees) and its handler, shared by the invariant
/// campaign and the handler's own tests.
abstract contract OracleHarness is Test {
    uint256 internal constant WAD = WadTriple.WAD;

    IVeritasOracle internal oracle;
    OracleHandler internal handler;

    function _deployHarness() internal {
        vm.warp(1_750_000_000);
        address owner = makeAddr("owner");
        address[] memory judges = new address[](2);
        judges[0] = makeAddr("judge0");
        judges[1] = makeAddr("judge1");
        VeritasCourt court = new VeritasCourt(judges, 0.05 ether, 0.1 ether, 10 minutes);
        address[] memory ownerJudges = new address[](1);
        ownerJudges[0] = makeAddr("owner");
        VeritasCourt ownersCourt = new VeritasCourt(ownerJudges, 0, 0, 1);
        MuteCourt muteCourt = new MuteCourt();
        oracle = Shipped.oracle(owner);
        // Five operators with keys, and one whose key is a contract that re-enters from callbacks.
        ReentrantOperator actor = new ReentrantOperator(oracle);
        address[] memory operators = new address[](6);
        for (uint256 i = 0; i < 5; i++) {
            operators[i] = makeAddr(string.concat("operator", vm.toString(i)));
        }
        operators[5] = address(actor);
        // The court's judges are users too: they ask, dispute, and are named as beneficiaries, so
        // a judge who is a party is part of the campaign, and their credits are counted and drained.
        address[] memory users = new address[](6);
        for (uint256 i = 0; i < 4; i++) {
            users[i] = makeAddr(string.concat("user", vm.toString(i)));
        }
        users[4] = judges[0];
        users[5] = judges[1];
        for (uint256 i = 0; i < users.length; i++) {
            vm.deal(users[i], 1_000_000 ether);
        }

        vm.startPrank(owner);
        for (uint256 i = 0; i < operators.length; i++) {
            oracle.addOperator(operators[i]);
        }
        vm.stopPrank();
        // Each operator stakes 100 ether: a thousand reports' worth of the harness's largest bond.
        for (uint256 i = 0; i < operators.length; i++) {
            vm.deal(operators[i], 100 ether);
            vm.prank(operators[i]);
            oracle.stake{value: 100 ether}(operators[i]);
        }
        vm.startPrank(owner);
        oracle.setParameters(
            IVeritasOracle.Parameters({
                quorum: 2,
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

        handler = new OracleHandler(
            oracle, owner, address(court), address(ownersCourt), address(muteCourt), actor, operators, users
        );
    }

    /// @dev balance == withdrawable credits (burned ones included) + stakes + bonds held by
    /// disputes + fees not yet credited + evidence fees of expired questions not yet refunded +
    /// callback gas prepaid and not yet paid.
    function _assertEthConserved() internal view {
        uint256 owed = oracle.credits(address(0xdEaD));
        for (uint256 i = 0; i < handler.operatorsLength(); i++) {
            owed += oracle.credits(handler.operatorAt(i));
            (uint256 staked,,) = oracle.operatorStake(handler.operatorAt(i));
            owed += staked;
        }
        for (uint256 i = 0; i < handler.usersLength(); i++) {
            owed += oracle.credits(handler.userAt(i));
        }
        uint256 n = oracle.questionCount();
        owed += handler.ghostDepositsHeld();
        for (uint256 id = 1; id <= n; id++) {
            owed += oracle.pendingFee(id);
            IVeritasOracle.VerdictStatus s = oracle.verdictStatus(id);
            if (s == IVeritasOracle.VerdictStatus.Disputed) {
                owed += oracle.getCase(id).bond;
            }
            if (s == IVeritasOracle.VerdictStatus.Expired) {
                for (uint256 i = 0; i < handler.usersLength(); i++) {
                    (uint256 paid,) = oracle.evidenceOf(id, handler.userAt(i));
                    owed += paid;
                }
            }
        }
        assertEq(address(oracle).balance, owed);
        _assertModulesHoldNothing();
    }

    /// @dev The oracle's modules never hold a wei: all money lives at the oracle's address.
    function _assertModulesHoldNothing() internal view {
        IOracleModules modules = IOracleModules(address(oracle));
        assertEq(modules.COURT_MODULE().balance, 0, "the court module holds wei");
        assertEq(modules.ADMIN_MODULE().balance, 0, "the admin module holds wei");
    }
}

/// @notice The handler's ghosts count what happened, and only that: a call that reverted emitted
/// nothing, though `vm.recordLogs` keeps its logs.
contract OracleHandlerTest is OracleHarness {
    function setUp() public {
        _deployHarness();
    }

    /// @dev Question 1 is open; question 2 opens in a second, so a batch of (1, 2) reverts with
    /// `VeritasTooEarly` on its second item after its first emitted `ReportSubmitted`.
    function test_ARevertedBatchIsNotCounted() public {
        handler.ask(0, 0, 0);
        handler.ask(0, 1, 0);
        address op = handler.operatorAt(0);
        handler.batch(0, 1, 2);
        (uint256 reports,,,) = oracle.tally(1);
        assertEq(reports, 0, "the batch reverted");
        assertEq(handler.ghostReports(1, op), 0, "a reverted batch's report was counted");

        // The same operator's one real report counts once.
        handler.report(0, 1, 1, 0, 0, 0, 2);
        (reports,,,) = oracle.tally(1);
        assertEq(reports, 1);
        assertEq(handler.ghostReports(1, op), 1);
        assertEq(handler.ghostMaxReportsPerOperator(), 1);
    }

    /// @dev An operator's report and the judge's ruling through the handler are the operator's
    /// and the judge's: the handler's own calls to the oracle do not take their prank.
    function test_ReportAndRulingActAsTheirActors() public {
        handler.ask(0, 0, 0);
        handler.report(0, 1, 1, 0, 0, 0, 2);
        handler.report(1, 1, 1, 0, 0, 0, 2);
        assertEq(uint8(oracle.verdictStatus(1)), uint8(IVeritasOracle.VerdictStatus.Resolved));
        handler.dispute(0, 1, 0, 0.5e18, 0.25e18, 0);
        assertEq(uint8(oracle.verdictStatus(1)), uint8(IVeritasOracle.VerdictStatus.Disputed));
        handler.giveRuling(1, 6);
        handler.warp(1 hours);
        handler.executeRuling(1);
        assertEq(uint8(oracle.verdictStatus(1)), uint8(IVeritasOracle.VerdictStatus.Arbitrated));
    }

    /// @dev A reverted ask is not snapshotted, and the swap of the owner's court after an ask is
    /// seen as no change of that question's rules.
    /// @dev The disputer actor can name the round-0 judge as its beneficiary (seed 9: user 4 =
    /// judge0); the court still rules (the round goes to judge1) and the ruling executes.
    function test_ADisputerNamingTheJudgeCannotMuteTheCourt() public {
        handler.ask(0, 0, 0);
        handler.report(0, 1, 1, 0, 0, 0, 2);
        handler.report(1, 1, 1, 0, 0, 0, 2);
        handler.dispute(0, 1, 0, 0.5e18, 0.25e18, 9);
        assertEq(uint8(oracle.verdictStatus(1)), uint8(IVeritasOracle.VerdictStatus.Disputed));
        assertEq(oracle.getCase(1).disputer, handler.userAt(4), "the judge is the beneficiary");
        handler.giveRuling(1, 6);
        handler.warp(1 hours);
        handler.executeRuling(1);
        assertEq(uint8(oracle.verdictStatus(1)), uint8(IVeritasOracle.VerdictStatus.Arbitrated));
    }

    /// @dev The contract operator reports on a question that names it as consumer (the "gun");
    /// at the settle, its callback tries all 25 state-changing entry points, and each refuses the re-entry.
    function test_TheContractOperatorsCallbackIsRefusedEverywhere() public {
        ReentrantOperator actor = handler.actor();
        handler.ask(1, 0, 0); // user seed 1: the contract operator is the consumer
        handler.report(5, 1, 1, 0, 0, 0, 2); // operator 5: the contract operator itself
        handler.report(0, 1, 1, 0, 0, 0, 2);
        assertEq(uint8(oracle.verdictStatus(1)), uint8(IVeritasOracle.VerdictStatus.Resolved));
        handler.warp(1 hours); // the challenge window: the consumer hears of the final verdict
        handler.settle(1);
        assertTrue(oracle.isFinal(1));
        assertEq(actor.callbacks(), 1, "the callback ran to its end");
        assertEq(actor.attempts(), 25);
        assertEq(actor.unguarded(), bytes4(0));
    }

    /// @dev Issue #43: a callback asked at 2 gwei prepays its gas; a dispute's notice is not paid,
    /// the ruling's delivery is, once, to a counted account, and the ETH invariants hold.
    function test_ACallbackDepositIsPaidOnceToItsDeliverer() public {
        handler.ask(1, 513, 0); // the contract operator is the consumer; delay 513: at once, 2 gwei
        uint256 deposit = oracle.getQuestion(1).callbackDeposit;
        assertEq(deposit, (500_000 + 25_000) * 2 gwei);
        assertEq(handler.ghostDepositsHeld(), deposit);
        handler.report(0, 1, 1, 0, 0, 0, 2);
        handler.report(1, 1, 1, 0, 0, 0, 2);
        handler.dispute(0, 1, 0, 0.25e18, 0.5e18, 0);
        assertEq(uint8(oracle.verdictStatus(1)), uint8(IVeritasOracle.VerdictStatus.Disputed));
        assertEq(handler.ghostDepositsPaid(), 0, "the Disputed notice is not paid");
        handler.giveRuling(1, 1);
        handler.warp(1 hours);
        handler.executeRuling(1);
        assertTrue(oracle.isFinal(1));
        assertEq(handler.ghostDepositsPaid(), 1);
        assertEq(handler.ghostDepositsHeld(), 0);
        assertFalse(handler.ghostDepositMisspent());
        _assertEthConserved();
    }

    /// @dev An escalation (one YES, one NO at quorum 2) ruled YES: the NO reporter is a caught
    /// liar, slashed its whole bond and paid nothing, and the ghost counts it.
    function test_ACaughtLiarIsSeenByTheGhost() public {
        handler.ask(0, 0, 0);
        handler.report(0, 1, 1, 0, 0, 0, 2);
        handler.report(1, 1, 0, 1, 0, 0, 2);
        assertEq(uint8(oracle.verdictStatus(1)), uint8(IVeritasOracle.VerdictStatus.Escalated));
        handler.requestArbitration(0, 1);
        handler.giveRuling(1, 2); // YES
        handler.warp(1 hours);
        handler.executeRuling(1);
        assertEq(uint8(oracle.verdictStatus(1)), uint8(IVeritasOracle.VerdictStatus.Arbitrated));
        assertEq(handler.ghostLiesJudged(), 1);
        assertFalse(handler.ghostLiarProfited());
        (uint256 staked,,) = oracle.operatorStake(handler.operatorAt(1));
        assertEq(staked, 100 ether - 0.1 ether, "the liar's bond");
    }

    /// @dev A set naming the mute court: its case takes the court's cost and ends by default.
    function test_AMuteCourtsCaseDefaults() public {
        handler.setParameters(2, 3600, 3600, 0, 2);
        assertEq(oracle.parameters().arbitrator, handler.muteCourt());
        handler.ask(0, 0, 0);
        handler.report(0, 1, 1, 0, 0, 0, 2);
        handler.report(1, 1, 1, 0, 0, 0, 2);
        handler.dispute(0, 1, 0, 0.25e18, 0.5e18, 0);
        assertEq(uint8(oracle.verdictStatus(1)), uint8(IVeritasOracle.VerdictStatus.Disputed));
        assertEq(MuteCourt(handler.muteCourt()).disputes(), 1);
        handler.giveRuling(1, 6);
        handler.executeRuling(1);
        handler.warp(2 hours);
        handler.resolveByDefault(1);
        assertEq(uint8(oracle.verdictStatus(1)), uint8(IVeritasOracle.VerdictStatus.Defaulted));
        assertFalse(handler.ghostLiarProfited());
    }

    function test_RulesSnapshotOnlyForSuccessfulAsks() public {
        handler.ask(0, 0, 0);
        handler.setParameters(1, 0, 60, 0, 1);
        handler.ask(0, 0, 0);
        assertEq(oracle.questionCount(), 2);
        assertEq(oracle.questionParameters(1).arbitrator, handler.arbitrator());
        assertEq(oracle.questionParameters(2).arbitrator, handler.ownersCourt());
        assertFalse(handler.ghostRulesChanged());
    }

    /// @dev Commits and reveals through the handler: a reverted reveal (wrong salt) is not counted;
    /// a garbage commit burns at finalize and the ghosts see it.
    function test_CommitAndRevealAreCountedOnlyOnSuccess() public {
        // fee 3: odd, so a reveal window of bound(0, 20, 2 hours) = 20 s, refused (below 30 s).
        handler.setParameters(3, 0, 60, 3, 0);
        assertEq(oracle.parameters().revealWindow, 0, "a 20 s reveal window was accepted");
        // fee 2^24 * 100 + 1: odd, a reveal window of 100 s; quorum 3, no challenge window.
        handler.setParameters(3, 0, 60, (uint96(100) << 24) + 1, 0);
        assertEq(oracle.parameters().revealWindow, 100);
        handler.ask(0, 0, 0);
        uint256 id = oracle.questionCount();
        address op0 = handler.operatorAt(0);
        address op1 = handler.operatorAt(1);
        handler.commit(0, id, 3, 1, 0, bytes32(uint256(7)), 2);
        handler.commit(1, id, 2, 2, 0, bytes32(uint256(8)), 1); // garbage (mode % 6 == 1)
        handler.commit(0, id, 3, 1, 0, bytes32(uint256(7)), 2); // a second commit: refused
        assertEq(handler.ghostCommits(id, op0), 1);
        assertEq(handler.ghostCommits(id, op1), 1);
        assertEq(handler.ghostMaxCommitsPerOperator(), 1);
        handler.warp(60); // the report window closes: the reveal phase opens
        handler.reveal(0, id, 0); // wrong salt: refused, not counted
        assertEq(handler.ghostReveals(), 0);
        assertEq(handler.ghostReports(id, op0), 0);
        handler.reveal(0, id, 1);
        assertEq(handler.ghostReveals(), 1);
        assertEq(handler.ghostReports(id, op0), 1);
        handler.reveal(1, id, 1); // the garbage commit cannot be opened
        assertEq(handler.ghostReveals(), 1);
        handler.warp(100);
        handler.finalize(id);
        assertEq(handler.ghostCommitsSlashed(), 1);
        assertFalse(handler.ghostRevealedCommitSlashed());
        // The withheld slot reopened (100 s of commits, then 100 s of reveals); nobody fills it.
        assertEq(uint8(oracle.verdictStatus(id)), uint8(IVeritasOracle.VerdictStatus.Asked));
        handler.warp(200);
        handler.finalize(id);
        assertEq(handler.ghostCommitsSlashed(), 1);
        assertEq(uint8(oracle.verdictStatus(id)), uint8(IVeritasOracle.VerdictStatus.Escalated));
    }

    /// @dev A batch that succeeds is counted, item by item.
    function test_ASuccessfulBatchIsCounted() public {
        handler.ask(0, 0, 0);
        handler.ask(0, 0, 0);
        address op = handler.operatorAt(1);
        handler.batch(1, 1, 2);
        assertEq(handler.ghostReports(1, op), 1);
        assertEq(handler.ghostReports(2, op), 1);
    }
}

/// @notice Properties that hold after any sequence of handler calls.
contract InvariantTest is StdInvariant, OracleHarness {
    function setUp() public {
        _deployHarness();
        bytes4[] memory selectors = new bytes4[](23);
        selectors[0] = OracleHandler.ask.selector;
        selectors[1] = OracleHandler.evidence.selector;
        selectors[2] = OracleHandler.report.selector;
        selectors[3] = OracleHandler.batch.selector;
        selectors[4] = OracleHandler.finalize.selector;
        selectors[5] = OracleHandler.dispute.selector;
        selectors[6] = OracleHandler.giveRuling.selector;
        selectors[7] = OracleHandler.settle.selector;
        selectors[8] = OracleHandler.withdraw.selector;
        selectors[9] = OracleHandler.setParameters.selector;
        selectors[10] = OracleHandler.toggleOperator.selector;
        selectors[11] = OracleHandler.warp.selector;
        selectors[12] = OracleHandler.report.selector; // reports twice as likely
        selectors[13] = OracleHandler.requestArbitration.selector;
        selectors[14] = OracleHandler.executeRuling.selector;
        selectors[15] = OracleHandler.appeal.selector;
        selectors[16] = OracleHandler.resolveByDefault.selector;
        selectors[17] = OracleHandler.ownerNoise.selector;
        selectors[18] = OracleHandler.ask.selector; // asks twice as likely
        selectors[19] = OracleHandler.commit.selector;
        selectors[20] = OracleHandler.reveal.selector;
        selectors[21] = OracleHandler.reveal.selector; // reveals twice as likely
        selectors[22] = OracleHandler.clarify.selector;
        targetSelector(FuzzSelector({addr: address(handler), selectors: selectors}));
        targetContract(address(handler));
    }

    function invariant_AtMostOneReportPerOperatorPerQuestion() public view {
        assertLe(handler.ghostMaxReportsPerOperator(), 1);
    }

    /// @dev Commit-reveal: one commit per operator and question; a revealed commit is never slashed.
    function invariant_CommitRevealGhosts() public view {
        assertLe(handler.ghostMaxCommitsPerOperator(), 1);
        assertFalse(handler.ghostRevealedCommitSlashed());
    }

    /// @dev Within a report round; a deferral starts the next one from an empty tally.
    function invariant_CountsNeverShrink() public view {
        assertFalse(handler.ghostCountsShrank());
    }

    function invariant_VerdictTriplesSumToWad() public view {
        uint256 n = oracle.questionCount();
        for (uint256 id = 1; id <= n; id++) {
            IVeritasOracle.VerdictStatus s = oracle.verdictStatus(id);
            if (s == IVeritasOracle.VerdictStatus.Asked || s == IVeritasOracle.VerdictStatus.Expired) continue;
            (,, uint256 pYes, uint256 pNo, uint256 pNull, int256 kappa,) = oracle.getVerdict(id);
            assertGt(pYes, 0);
            assertGt(pNo, 0);
            assertGt(pNull, 0);
            assertEq(pYes + pNo + pNull, WAD);
            assertLe(kappa, 1e18);
            assertGe(kappa, -1e18);
        }
    }

    /// @dev See `_assertEthConserved`.
    function invariant_EthIsConserved() public view {
        _assertEthConserved();
    }

    /// @dev Every locked wei has a path out: from any state, public calls after enough time make
    /// every question final and settled, and then everyone's withdrawal empties the oracle.
    /// Run on a snapshot, which is then restored.
    function invariant_EveryLockedWeiHasAPathOut() public {
        uint256 snapshot = vm.snapshotState();
        uint256 n = oracle.questionCount();
        // A commit-reveal question whose commits were withheld reopens its commit phase at most
        // twice (each reopened phase and its reveal window last at most 2 × 2 hours here): three
        // rounds of `finalize` end every question.
        for (uint256 rounds = 0; rounds < 3; rounds++) {
            vm.warp(block.timestamp + 3 days);
            for (uint256 id = 1; id <= n; id++) {
                if (oracle.verdictStatus(id) == IVeritasOracle.VerdictStatus.Asked) oracle.finalize(id);
            }
        }
        vm.warp(block.timestamp + 7 days);
        for (uint256 id = 1; id <= n; id++) {
            IVeritasOracle.VerdictStatus s = oracle.verdictStatus(id);
            if (s == IVeritasOracle.VerdictStatus.Escalated || s == IVeritasOracle.VerdictStatus.Disputed) {
                oracle.resolveByDefault(id);
            }
            if (oracle.pendingFee(id) != 0 || oracle.verdictStatus(id) == IVeritasOracle.VerdictStatus.Resolved) {
                try oracle.settle(id) {} catch {}
            }
            assertTrue(oracle.isFinal(id), "a question cannot become final");
            assertEq(oracle.pendingFee(id), 0, "a fee is stuck");
            if (oracle.verdictStatus(id) == IVeritasOracle.VerdictStatus.Expired) {
                for (uint256 i = 0; i < handler.usersLength(); i++) {
                    address user = handler.userAt(i);
                    (uint256 paid,) = oracle.evidenceOf(id, user);
                    if (paid == 0) continue;
                    vm.prank(user);
                    oracle.refundEvidence(id);
                }
            }
        }
        for (uint256 i = 0; i < handler.operatorsLength(); i++) {
            address op = handler.operatorAt(i);
            (uint256 staked, uint256 locked,) = oracle.operatorStake(op);
            assertEq(locked, 0, "a report bond stays locked");
            vm.prank(op);
            oracle.withdrawStake(staked);
            _drain(op);
        }
        for (uint256 i = 0; i < handler.usersLength(); i++) {
            _drain(handler.userAt(i));
        }
        // This function's own calls delivered the last final statuses: their prepaid callback
        // gas was credited to this transaction's origin.
        _drain(tx.origin);
        assertEq(address(oracle).balance, oracle.credits(address(0xdEaD)), "wei left with no way out");
        _assertModulesHoldNothing();
        vm.revertToState(snapshot);
    }

    function _drain(address account) internal {
        if (oracle.credits(account) == 0) return;
        vm.prank(account);
        oracle.withdraw();
    }

    /// @dev No owner or court action changes an open question's rules (its parameter set, court
    /// and record as snapshotted at its ask).
    function invariant_NoActionChangesAQuestionsRules() public view {
        assertFalse(handler.ghostRulesChanged());
    }

    function invariant_OnlyTheCourtChangesADisputedVerdict() public view {
        assertFalse(handler.ghostDisputedChangedByOthers());
    }

    /// @dev Issue #43: no callback re-enters any state-changing entry point (each refuses with
    /// `VeritasReentrantCall` before any other check).
    function invariant_NoEntryPointCanBeReentered() public view {
        assertEq(handler.actor().unguarded(), bytes4(0));
    }

    /// @dev Issue #43: a lie the court caught (a dispute or an escalation, whatever the ruling)
    /// costs its reporter the whole bond and earns it nothing; a default pays no reporter.
    function invariant_ACaughtLiarNeverProfits() public view {
        assertFalse(handler.ghostLiarProfited());
    }

    /// @dev Issue #43: the asker's prepaid callback gas is paid once, for a final status only.
    function invariant_ACallbackDepositIsPaidOnceWhenFinal() public view {
        assertFalse(handler.ghostDepositMisspent());
    }

    function invariant_NothingSettlesTwice() public view {
        assertLe(handler.ghostMaxSettlements(), 1);
    }

    function invariant_VerdictCountMatchesStatuses() public view {
        uint256 withVerdict;
        uint256 n = oracle.questionCount();
        for (uint256 id = 1; id <= n; id++) {
            uint8 s = uint8(oracle.verdictStatus(id));
            if (s >= uint8(IVeritasOracle.VerdictStatus.Resolved) && s != uint8(IVeritasOracle.VerdictStatus.Expired)) {
                withVerdict++;
            }
        }
        assertEq(oracle.verdictCount(), withVerdict);
        assertEq(uint8(oracle.verdictStatus(n + 1)), uint8(IVeritasOracle.VerdictStatus.None));
    }
}
