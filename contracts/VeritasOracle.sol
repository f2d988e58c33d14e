// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IVeritasOracle} from "./interfaces/IVeritasOracle.sol";
import {IArbitrator} from "./interfaces/IArbitrator.sol";
import {WadTriple} from "./lib/WadTriple.sol";
import {VeritasStorage} from "./VeritasStorage.sol";
import {VeritasCourtModule} from "./modules/VeritasCourtModule.sol";
import {VeritasAdminModule} from "./modules/VeritasAdminModule.sol";

/// @title VeritasOracle
/// @notice Questions in, pooled committee verdicts out: the on-chain half of Veritas, version 3.
/// One address implements all of `IVeritasOracle` (and ERC-792's `IArbitrable`), split by concern
/// into three contracts on one storage (`VeritasStorage`): this one holds the question's life
/// (ask, evidence, reports, commit-reveal, pooling, settlement, verdict views);
/// `VeritasCourtModule` the court adapter (disputes, escalations, appeals, rulings, defaults);
/// `VeritasAdminModule` parameters, owner, operators, stakes, evidence refunds and constants. The
/// modules' code runs by `delegatecall` from the `fallback`, which routes each of their selectors
/// explicitly (anything else reverts `VeritasUnknownFunction`); both are deployed first and
/// their addresses given to the constructor are immutable, so the oracle stays unupgradeable. Integrators cast this address
/// to `IVeritasOracle`, which declares every function of all three.
/// @dev No single key settles a verdict, no key changes a question's rules after its ask, and
/// lying costs more than it earns. Independent operators each submit a *report* (ballot counts,
/// evidence root, kappa); the contract adds the counts and, at the question's quorum, turns them
/// into the 1e18 triple itself with the auditors' largest-remainder rule (`WadTriple`). A Resolved
/// verdict is final after a challenge window in which anyone may dispute it before the question's
/// ERC-792 arbitrator; escalated verdicts go there too. A court that does not rule by its deadline
/// is bypassed by `resolveByDefault`. Money moves by pull (`withdraw`).
///
/// Stake: each report locks the question's report bond (its `disputeBond`, in whole `BOND_UNIT`s)
/// of the reporter's standing stake until the question settles; the court overturning a disputed
/// verdict slashes the bond of every reporter whose leading outcome lost, pays it to the
/// dispute's beneficiary and burns `BURN_BPS` of it. The fee goes to the reporters whose leading
/// outcome is the final one. Evidence fees are burned (or refunded on expiry), never paid to a
/// reporter or the asker. The book's "Economics and trust model" chapter (book/src/economics.md)
/// gives the figures.
///
/// Escalation: the pooled verdict escalates when at least half of the reports escalated, when at
/// least half of them lead with an outcome other than the pooled one (the minimum weight of a
/// dissent: with three or more reports one dissenting report cannot escalate alone, and gets no
/// fee), when the pooled counts tie for the top, or when the report window closed before the
/// quorum (`finalize`).
///
/// Storage and gas: see `VeritasStorage`.
contract VeritasOracle is VeritasStorage {
    /// @notice The court adapter's code (disputes, escalations, appeals, rulings), run on this
    /// contract's storage.
    address public immutable COURT_MODULE;

    /// @notice The code of parameters, roles, stakes, evidence refunds, constants and cold views,
    /// run on this contract's storage.
    address public immutable ADMIN_MODULE;

    /// @param initialOwner The owner, who then adds operators and creates parameter sets.
    /// @param courtModule A `VeritasCourtModule` deployed before (its code is not in this
    /// contract's initcode, which would exceed EIP-3860's 49,152 bytes with both modules).
    /// @param adminModule A `VeritasAdminModule` deployed before. Auditors compare both modules'
    /// code with the artifacts (`COURT_MODULE()`, `ADMIN_MODULE()`).
    constructor(address initialOwner, address courtModule, address adminModule) {
        if (initialOwner == address(0)) revert IVeritasOracle.VeritasZeroAddress();
        if (courtModule.code.length == 0) revert IVeritasOracle.VeritasNoModuleCode(courtModule);
        if (adminModule.code.length == 0) revert IVeritasOracle.VeritasNoModuleCode(adminModule);
        COURT_MODULE = courtModule;
        ADMIN_MODULE = adminModule;
        _owner = initialOwner;
        // Default parameters of a new oracle: local-chain friendly (one operator settles, final
        // at once, free, no court: an escalation defaults after a day). `script/Deploy.s.sol` sets
        // public-chain values.
        IVeritasOracle.Parameters memory defaults = IVeritasOracle.Parameters({
            quorum: 1,
            maxBallotsPerReport: 30, // T x M of the node's default committee
            reportWindow: 1 days,
            challengeWindow: 0,
            arbitrationWindow: 1 days,
            askFee: 0,
            disputeBond: 0,
            evidenceFee: 0,
            arbitrator: address(0),
            arbitratorExtraData: "",
            revealWindow: 0
        });
        _parameters[0] = defaults;
        _header.quorum = 1;
        _header.maxBallotsPerReport = 30;
        _header.reportWindow = 1 days;
        _counters.maxHorizon = _DEFAULT_MAX_HORIZON;
        // A nonzero start, so no submission pays for creating the slot; unique to this oracle.
        _evidenceHead = keccak256(abi.encode(block.chainid, address(this)));
        emit IVeritasOracle.OwnershipTransferred(address(0), initialOwner);
        emit IVeritasOracle.ParametersChanged(0, defaults);
        emit MetaEvidence(0, "");
        emit IVeritasOracle.MaxHorizonChanged(_DEFAULT_MAX_HORIZON);
    }

    /// @notice Every other function of `IVeritasOracle` runs in its module's code on this
    /// contract's storage (msg.sender and msg.value unchanged). The tables are explicit, so a
    /// selector no contract declares reverts instead of reaching a module.
    fallback() external payable {
        bytes4 s = msg.sig;
        if (
            s == VeritasCourtModule.dispute.selector || s == VeritasCourtModule.requestArbitration.selector
                || s == VeritasCourtModule.appeal.selector || s == VeritasCourtModule.courtCost.selector
                || s == VeritasCourtModule.resolveByDefault.selector || s == VeritasCourtModule.rule.selector
                || s == VeritasCourtModule.courtDeadline.selector || s == VeritasCourtModule.getCase.selector
                || s == VeritasCourtModule.caseOf.selector || s == VeritasCourtModule.retryCallback.selector
                || s == VeritasCourtModule.callbackOwed.selector
        ) _forward(COURT_MODULE);
        if (
            s == VeritasAdminModule.WAD.selector || s == VeritasAdminModule.MAX_QUESTION_LENGTH.selector
                || s == VeritasAdminModule.MAX_QUORUM.selector
                || s == VeritasAdminModule.MAX_BALLOTS_PER_REPORT.selector
                || s == VeritasAdminModule.MAX_OPERATORS.selector || s == VeritasAdminModule.MIN_REPORT_WINDOW.selector
                || s == VeritasAdminModule.MIN_CHALLENGE_WINDOW.selector
                || s == VeritasAdminModule.MIN_ARBITRATION_WINDOW.selector || s == VeritasAdminModule.MAX_FEE.selector
                || s == VeritasAdminModule.MAX_CALLBACK_GAS.selector
                || s == VeritasAdminModule.CALLBACK_GAS_OVERHEAD.selector
                || s == VeritasAdminModule.RULING_REFUSED.selector
                || s == VeritasAdminModule.RULING_VERDICT_STANDS.selector || s == VeritasAdminModule.RULING_YES.selector
                || s == VeritasAdminModule.RULING_NO.selector || s == VeritasAdminModule.RULING_UNRESOLVABLE.selector
                || s == VeritasAdminModule.RULING_DISPUTER_TRIPLE.selector
                || s == VeritasAdminModule.RULING_TOO_EARLY.selector || s == VeritasAdminModule.MAX_DEFERRALS.selector
                || s == VeritasAdminModule.deferralDelay.selector || s == VeritasAdminModule.deferral.selector
                || s == VeritasAdminModule.clarify.selector || s == VeritasAdminModule.clarificationCount.selector
                || s == VeritasAdminModule.MAX_CLARIFICATIONS.selector
                || s == VeritasAdminModule.MAX_CLARIFICATION_LENGTH.selector
                || s == VeritasAdminModule.DISPUTE_CHOICES.selector
                || s == VeritasAdminModule.ESCALATION_CHOICES.selector
                || s == VeritasAdminModule.MAX_EVIDENCE_PER_QUESTION.selector
                || s == VeritasAdminModule.MAX_EVIDENCE_PER_SUBMITTER.selector
                || s == VeritasAdminModule.EVIDENCE_PRICE_STEP.selector
                || s == VeritasAdminModule.MAX_URL_LENGTH.selector || s == VeritasAdminModule.MAX_TITLE_LENGTH.selector
                || s == VeritasAdminModule.MAX_SNIPPET_LENGTH.selector || s == VeritasAdminModule.BURN_BPS.selector
                || s == VeritasAdminModule.BURN_ADDRESS.selector || s == VeritasAdminModule.BOND_UNIT.selector
                || s == VeritasAdminModule.getQuestion.selector || s == VeritasAdminModule.questionCount.selector
                || s == VeritasAdminModule.evidenceCount.selector || s == VeritasAdminModule.evidenceHead.selector
                || s == VeritasAdminModule.nextEvidenceFee.selector || s == VeritasAdminModule.evidenceOf.selector
                || s == VeritasAdminModule.refundEvidence.selector || s == VeritasAdminModule.setMaxHorizon.selector
                || s == VeritasAdminModule.maxHorizon.selector || s == VeritasAdminModule.hasReported.selector
                || s == VeritasAdminModule.canReport.selector || s == VeritasAdminModule.tally.selector
                || s == VeritasAdminModule.credits.selector || s == VeritasAdminModule.pendingFee.selector
                || s == VeritasAdminModule.finalAt.selector || s == VeritasAdminModule.verdictCount.selector
                || s == VeritasAdminModule.setParameters.selector || s == VeritasAdminModule.parametersId.selector
                || s == VeritasAdminModule.parameters.selector || s == VeritasAdminModule.questionParameters.selector
                || s == VeritasAdminModule.parameterSet.selector || s == VeritasAdminModule.owner.selector
                || s == VeritasAdminModule.pendingOwner.selector || s == VeritasAdminModule.transferOwnership.selector
                || s == VeritasAdminModule.acceptOwnership.selector || s == VeritasAdminModule.addOperator.selector
                || s == VeritasAdminModule.removeOperator.selector || s == VeritasAdminModule.isOperator.selector
                || s == VeritasAdminModule.operatorEpoch.selector
                || s == VeritasAdminModule.activeOperatorCount.selector || s == VeritasAdminModule.releaseIndex.selector
                || s == VeritasAdminModule.stake.selector || s == VeritasAdminModule.withdrawStake.selector
                || s == VeritasAdminModule.operatorStake.selector
        ) _forward(ADMIN_MODULE);
        revert IVeritasOracle.VeritasUnknownFunction(s);
    }

    /// @dev Runs the call in `module`'s code on this storage and returns (or reverts) with its
    /// data; never returns to the caller.
    function _forward(address module) private {
        assembly ("memory-safe") {
            calldatacopy(0, 0, calldatasize())
            let ok := delegatecall(gas(), module, 0, calldatasize(), 0, 0)
            returndatacopy(0, 0, returndatasize())
            if iszero(ok) { revert(0, returndatasize()) }
            return(0, returndatasize())
        }
    }

    /*//////////////////////////////////////////////////////////////
                               QUESTIONS
    //////////////////////////////////////////////////////////////*/

    /// @notice See `IVeritasOracle.askQuestion`. `resolveAfter` may be at most `maxHorizon()`
    /// seconds after the ask (`VeritasTooFarAhead`).
    function askQuestion(string calldata question, uint64 resolveAfter, IVeritasOracle.AskRules calldata rules)
        external
        payable
        nonReentrant
        returns (uint256 id)
    {
        uint256 length = bytes(question).length;
        if (length == 0) revert IVeritasOracle.VeritasEmptyQuestion();
        if (length > _MAX_QUESTION_LENGTH) {
            revert IVeritasOracle.VeritasQuestionTooLong(length, _MAX_QUESTION_LENGTH);
        }
        bytes32 questionHash = sha256(bytes(question));
        id = _createQuestion(questionHash, resolveAfter, rules);
        emit IVeritasOracle.QuestionAsked(
            id,
            msg.sender,
            questionHash,
            resolveAfter,
            uint64(_now()),
            rules.parametersId,
            rules.operatorEpoch,
            msg.value,
            rules.consumer,
            rules.callbackGasLimit,
            question
        );
    }

    /*//////////////////////////////////////////////////////////////
                                EVIDENCE
    //////////////////////////////////////////////////////////////*/

    /// @notice See `IVeritasOracle.submitEvidence`.
    function submitEvidence(uint256 id, string calldata url, string calldata title, string calldata snippet)
        external
        payable
        nonReentrant
        returns (uint256 index)
    {
        _checkEvidenceLengths(bytes(url).length, bytes(title).length, bytes(snippet).length);
        address arbitrator;
        (index, arbitrator) = _admitEvidence(id);
        bytes32 head = keccak256(abi.encode(_evidenceHead, id, msg.sender, url, title, snippet));
        _evidenceHead = head;
        emit IVeritasOracle.EvidenceSubmitted(id, msg.sender, index, head, url, title, snippet);
        if (arbitrator != address(0)) emit Evidence(arbitrator, id, msg.sender, url);
    }

    /*//////////////////////////////////////////////////////////////
                                REPORTS
    //////////////////////////////////////////////////////////////*/

    /// @notice See `IVeritasOracle.submitReport`. The report needs at least one valid ballot and
    /// the question's report bond free in the caller's stake (locked until the question settles).
    function submitReport(
        uint256 id,
        bytes32 merkleRoot,
        uint16 nYes,
        uint16 nNo,
        uint16 nNull,
        int256 fleissKappa,
        bool escalated,
        bool notYet
    ) external nonReentrant {
        Operator memory op = _operator(msg.sender);
        IVeritasOracle.Report memory r =
            IVeritasOracle.Report(id, merkleRoot, nYes, nNo, nNull, fleissKappa, escalated, notYet);
        _submit(op, r, false);
        _storeStake(op);
    }

    /// @notice See `IVeritasOracle.submitReports`. A report on a question asked before the caller
    /// was (last) added is skipped too, with `VeritasNotQuestionOperator`'s selector.
    function submitReports(IVeritasOracle.Report[] calldata reports) external nonReentrant returns (uint256 submitted) {
        Operator memory op = _operator(msg.sender);
        for (uint256 i = 0; i < reports.length; i++) {
            if (_submit(op, reports[i], true)) {
                submitted++;
            }
        }
        _storeStake(op);
    }

    /// @notice See `IVeritasOracle.finalize`.
    function finalize(uint256 id) external nonReentrant {
        Record storage record = _questions[id];
        Tally memory t = record.tally;
        if (t.status == IVeritasOracle.VerdictStatus.None) revert IVeritasOracle.VeritasUnknownQuestion(id);
        if (t.status != IVeritasOracle.VerdictStatus.Asked) revert IVeritasOracle.VeritasNotOpen(id, t.status);
        uint256 nowTimestamp = _now();
        uint256 deadline = uint256(t.time) + _parameters[t.parametersId].reportWindow;
        CommitRound memory round;
        // A commit-reveal question with commits closes at its reveal deadline.
        if (t.flags & _FLAG_COMMIT_REVEAL != 0) {
            round = _rounds[id];
            if (round.commits != 0 || _reopenings[id].commitDeadline != 0) (, deadline) = _revealPhase(id, t, round);
        }
        if (nowTimestamp < deadline) revert IVeritasOracle.VeritasReportWindowOpen(id, deadline, nowTimestamp);
        if (round.commits != 0) {
            _slashUnrevealed(id, t, round);
            // Commits withheld: their slots go to spare operators. The withholders lost their
            // bonds above and keep their committer bit (they cannot commit again), the revealed
            // reports stay pooled, and a new commit phase of `revealWindow` seconds opens for the
            // missing count; a bounded number of times, so the question always ends.
            Reopening memory reopening = _reopenings[id];
            if (round.commits > t.reportCount && reopening.count < _MAX_REOPENINGS) {
                // The casts cannot truncate: reportCount <= commits <= 31, a uint40 time plus a
                // uint32 window.
                // forge-lint: disable-start(unsafe-typecast)
                round.commits = uint8(t.reportCount);
                round.revealDeadline = 0;
                reopening.commitDeadline = uint40(nowTimestamp + _parameters[t.parametersId].revealWindow);
                // forge-lint: disable-end(unsafe-typecast)
                reopening.count += 1;
                _rounds[id] = round;
                _reopenings[id] = reopening;
                emit IVeritasOracle.CommitPhaseReopened(id, reopening.commitDeadline, reopening.count);
                return;
            }
        }

        if (t.reportCount == 0) {
            t.status = IVeritasOracle.VerdictStatus.Expired;
            t.time = _now40();
            t.flags |= _FLAG_SETTLED;
            record.tally = t;
            // The ask fee back to the asker; each evidence submitter claims its own fees
            // (`refundEvidence`).
            uint256 refund = _fee(id, t);
            emit IVeritasOracle.QuestionExpired(id, refund);
            _credit(record.info.asker, id, refund);
            emit IVeritasOracle.QuestionSettled(id);
            _notify(id, record, IVeritasOracle.VerdictStatus.Expired, 0, 0, 0, tx.origin);
        } else {
            // The quorum was not met: the pooled verdict goes to the court.
            _post(id, record, t, record.merkleRoot, (_reasons(t) & ~_NOT_YET_MAJORITY) | _REASON_WINDOW_CLOSED);
            _countVerdict();
        }
    }

    /*//////////////////////////////////////////////////////////////
                             COMMIT-REVEAL
    //////////////////////////////////////////////////////////////*/

    /// @notice See `IVeritasOracle.commitReport`.
    function commitReport(uint256 id, bytes32 commitment) external nonReentrant {
        Operator memory op = _operator(msg.sender);
        Tally memory t = _questions[id].tally;
        if (t.status == IVeritasOracle.VerdictStatus.None) revert IVeritasOracle.VeritasUnknownQuestion(id);
        if (t.status != IVeritasOracle.VerdictStatus.Asked) revert IVeritasOracle.VeritasNotOpen(id, t.status);
        if (t.flags & _FLAG_COMMIT_REVEAL == 0) revert IVeritasOracle.VeritasNotCommitReveal(id);
        if (op.addedAfter >= id) revert IVeritasOracle.VeritasNotQuestionOperator(id, msg.sender);
        if (commitment == 0) revert IVeritasOracle.VeritasZeroCommitment();
        uint256 nowTimestamp = _now();
        if (nowTimestamp < t.time) revert IVeritasOracle.VeritasTooEarly(id, t.time, nowTimestamp);
        (uint256 quorum,, uint256 reportWindow,, uint256 bond) = _hot(t.parametersId);
        CommitRound memory round = _rounds[id];
        // After the report window, only a commit phase `finalize` reopened takes commits (read
        // only then: the happy path commits within the report window).
        if (
            round.revealDeadline != 0
                || (nowTimestamp >= uint256(t.time) + reportWindow && nowTimestamp >= _reopenings[id].commitDeadline)
        ) {
            revert IVeritasOracle.VeritasCommitPhaseClosed(id);
        }
        // forge-lint: disable-next-line(incorrect-shift)
        uint256 bit = 1 << op.index; // bit `index` of the committers mask (the lint misreads it)
        if (round.committers & bit != 0) revert IVeritasOracle.VeritasAlreadyCommitted(id, msg.sender);
        // The report's bond, locked now exactly as `submitReport` locks it (see `_submit`).
        uint256 free = uint256(op.stake) - op.locked;
        if (free < bond) revert IVeritasOracle.VeritasInsufficientStake(msg.sender, free, bond);
        // The casts cannot truncate: the lock as in `_submit`; indices are below 32, commits at most
        // the quorum (<= 7), the deadline a uint40 time plus a uint32 window.
        // forge-lint: disable-start(unsafe-typecast)
        op.locked += uint72(bond);
        op.openReports += 1;
        _storeStake(op);
        _commitments[id][msg.sender] = commitment;
        round.committers |= uint32(bit);
        round.commits += 1;
        // The quorum-th commit opens the reveal phase at once.
        if (round.commits >= quorum) {
            round.revealDeadline = uint40(nowTimestamp + _parameters[t.parametersId].revealWindow);
        }
        // forge-lint: disable-end(unsafe-typecast)
        _rounds[id] = round;
        emit IVeritasOracle.ReportCommitted(id, msg.sender, commitment);
    }

    /// @notice See `IVeritasOracle.revealReport`.
    function revealReport(
        uint256 id,
        bytes32 merkleRoot,
        uint16 nYes,
        uint16 nNo,
        uint16 nNull,
        int256 fleissKappa,
        bool escalated,
        bool notYet,
        bytes32 salt
    ) external nonReentrant {
        // Active operators only: removing an operator is the answer to a compromised key, so its
        // commit can no longer be revealed (`finalize` burns its bond).
        Operator memory op = _operator(msg.sender);
        Record storage record = _questions[id];
        Tally memory t = record.tally;
        if (t.status == IVeritasOracle.VerdictStatus.None) revert IVeritasOracle.VeritasUnknownQuestion(id);
        if (t.status != IVeritasOracle.VerdictStatus.Asked) revert IVeritasOracle.VeritasNotOpen(id, t.status);
        bytes32 commitment = _commitments[id][msg.sender];
        if (commitment == 0) revert IVeritasOracle.VeritasNoCommitment(id, msg.sender);
        CommitRound memory round = _rounds[id];
        (uint256 opens, uint256 deadline) = _revealPhase(id, t, round);
        uint256 nowTimestamp = _now();
        if (nowTimestamp < opens || nowTimestamp >= deadline) {
            revert IVeritasOracle.VeritasNotRevealPhase(id, opens, deadline, nowTimestamp);
        }
        IVeritasOracle.Report memory r =
            IVeritasOracle.Report(id, merkleRoot, nYes, nNo, nNull, fleissKappa, escalated, notYet);
        if (_commitmentOf(msg.sender, r, salt) != commitment) {
            revert IVeritasOracle.VeritasCommitmentMismatch(id, msg.sender);
        }
        delete _commitments[id][msg.sender];
        (uint256 quorum, uint256 maxBallots,, uint256 challengeWindow,) = _hot(t.parametersId);
        _checkBallots(r, maxBallots);
        // The bond was locked by the commit; the report is pooled as `_submit` pools it.
        bytes32 root = _pool(record, t, r, op.index);
        emit IVeritasOracle.ReportSubmitted(id, msg.sender, merkleRoot, nYes, nNo, nNull, fleissKappa, escalated);
        if (notYet) emit IVeritasOracle.ReportNotYet(id, msg.sender);
        if (t.reportCount >= round.commits) {
            // Every commit revealed: the verdict, escalated (window closed) below the quorum;
            // or, at the quorum, a deferral (see `_submit`).
            uint8 reasons = _reasons(t);
            bool mostNotYet = reasons & _NOT_YET_MAJORITY != 0;
            reasons &= ~_NOT_YET_MAJORITY;
            if (t.reportCount < quorum) {
                reasons |= _REASON_WINDOW_CLOSED;
            } else if (mostNotYet) {
                uint256 nextRound = _nextRound(t, record.info.askedAt);
                if (nextRound != 0) {
                    // Every bond of the round is in storage (locked by the commits).
                    _releaseReports(t, 0);
                    _defer(id, record, t, nextRound);
                    return;
                }
                reasons |= _REASON_DEFERRALS;
            }
            (uint256 pYes, uint256 pNo, uint256 pNull) = _post(id, record, t, root, reasons);
            _countVerdict();
            if (reasons == 0 && challengeWindow == 0 && t.flags & _FLAG_CALLBACK != 0) {
                _payReporter(id, op);
                _notify(id, record, IVeritasOracle.VerdictStatus.Resolved, pYes, pNo, pNull, address(0));
            }
        } else {
            record.tally = t;
        }
    }

    /// @notice See `IVeritasOracle.reportCommitment`.
    function reportCommitment(
        uint256 id,
        address reporter,
        bytes32 merkleRoot,
        uint16 nYes,
        uint16 nNo,
        uint16 nNull,
        int256 fleissKappa,
        bool escalated,
        bool notYet,
        bytes32 salt
    ) external pure returns (bytes32) {
        return _commitmentOf(
            reporter, IVeritasOracle.Report(id, merkleRoot, nYes, nNo, nNull, fleissKappa, escalated, notYet), salt
        );
    }

    /// @notice See `IVeritasOracle.commitPhase`.
    function commitPhase(uint256 id) external view returns (uint8 phase, uint256 deadline, uint256 commits) {
        Tally memory t = _questions[id].tally;
        if (t.status != IVeritasOracle.VerdictStatus.Asked || t.flags & _FLAG_COMMIT_REVEAL == 0) return (0, 0, 0);
        CommitRound memory round = _rounds[id];
        commits = round.commits;
        uint256 nowTimestamp = _now();
        if (commits == 0 && _reopenings[id].commitDeadline == 0) {
            deadline = uint256(t.time) + _parameters[t.parametersId].reportWindow;
            return (nowTimestamp < deadline ? 1 : 3, deadline, 0);
        }
        uint256 opens;
        (opens, deadline) = _revealPhase(id, t, round);
        phase = nowTimestamp < opens ? 1 : nowTimestamp < deadline ? 2 : 3;
        if (phase == 1) deadline = opens;
    }

    /// @notice See `IVeritasOracle.commitmentOf`.
    function commitmentOf(uint256 id, address operator) external view returns (bytes32) {
        return _commitments[id][operator];
    }

    /*//////////////////////////////////////////////////////////////
                           VERDICTS AND MONEY
    //////////////////////////////////////////////////////////////*/

    /// @notice See `IVeritasOracle.settle`. The fee goes to the reporters whose leading outcome is
    /// the verdict's; the evidence fees are burned; every report bond is released.
    function settle(uint256 id) external nonReentrant {
        Record storage record = _questions[id];
        Tally memory t = record.tally;
        if (t.flags & _FLAG_SETTLED != 0) revert IVeritasOracle.VeritasAlreadySettled(id);
        uint256 challengeWindow = _parameters[t.parametersId].challengeWindow;
        if (t.status != IVeritasOracle.VerdictStatus.Resolved || _now() < uint256(t.time) + challengeWindow) {
            revert IVeritasOracle.VeritasNotFinal(id, t.status);
        }
        t.flags |= _FLAG_SETTLED;
        record.tally = t;
        uint8 outcome = WadTriple.leading(t.nYes, t.nNo, t.nNull);
        (, uint256 unpaid) = _closeReporters(id, t, outcome, false, _fee(id, t));
        _credit(record.info.asker, id, unpaid);
        _credit(_BURN_ADDRESS, id, _evidenceFees(t));
        emit IVeritasOracle.QuestionSettled(id);
        // A verdict final at once was called back by the report that posted it.
        if (challengeWindow != 0) {
            (uint256 pYes, uint256 pNo, uint256 pNull) = WadTriple.fromCounts(t.nYes, t.nNo, t.nNull);
            _notify(id, record, IVeritasOracle.VerdictStatus.Resolved, pYes, pNo, pNull, tx.origin);
        }
    }

    /// @notice See `IVeritasOracle.withdraw`.
    function withdraw() external nonReentrant returns (uint256 amount) {
        amount = _credits[msg.sender];
        if (amount == 0) revert IVeritasOracle.VeritasNothingToWithdraw(msg.sender);
        // State before the external call: a re-entrant withdraw finds nothing.
        delete _credits[msg.sender];
        emit IVeritasOracle.Withdrawn(msg.sender, amount);
        _hold(true);
        (bool ok,) = msg.sender.call{value: amount}("");
        _hold(false);
        if (!ok) revert IVeritasOracle.VeritasTransferFailed(msg.sender, amount);
    }

    /// @notice See `IVeritasOracle.getVerdict`.
    function getVerdict(uint256 id)
        external
        view
        returns (
            bytes32 questionHash,
            bytes32 merkleRoot,
            uint256 pYes,
            uint256 pNo,
            uint256 pNull,
            int256 fleissKappa,
            uint256 timestamp
        )
    {
        Record storage record = _questions[id];
        Tally memory t = record.tally;
        if (
            t.status == IVeritasOracle.VerdictStatus.None || t.status == IVeritasOracle.VerdictStatus.Asked
                || t.status == IVeritasOracle.VerdictStatus.Expired
        ) {
            revert IVeritasOracle.VeritasVerdictNotFound(id);
        }
        (pYes, pNo, pNull) = _triple(id, t);
        return (record.questionHash, record.merkleRoot, pYes, pNo, pNull, t.kappa, t.time);
    }

    /// @notice See `IVeritasOracle.verdictStatus`.
    function verdictStatus(uint256 id) external view returns (IVeritasOracle.VerdictStatus) {
        return _questions[id].tally.status;
    }

    /// @notice See `IVeritasOracle.isFinal`.
    function isFinal(uint256 id) external view returns (bool) {
        Tally memory t = _questions[id].tally;
        if (_finalStatus(t.status)) return true;
        if (t.status != IVeritasOracle.VerdictStatus.Resolved) return false;
        return _now() >= uint256(t.time) + _parameters[t.parametersId].challengeWindow;
    }

    /*//////////////////////////////////////////////////////////////
                                INTERNAL
    //////////////////////////////////////////////////////////////*/

    /// @dev The auditors' 1e18 rule, kept here under its v2 name (tests and auditors call it).
    function _wadTriple(uint256 nYes, uint256 nNo, uint256 nNull) internal pure returns (uint256, uint256, uint256) {
        return WadTriple.fromCounts(nYes, nNo, nNull);
    }

    /// @dev The caller's operator record; reverts with `VeritasNotOperator` unless it is active.
    function _operator(address account) private view returns (Operator memory op) {
        op = _operators[account];
        if (!op.active) revert IVeritasOracle.VeritasNotOperator(account);
    }

    /// @dev Writes back the stake fields of the caller's record `op` (its reports' locks).
    function _storeStake(Operator memory op) private {
        Operator storage s = _operators[msg.sender];
        s.openReports = op.openReports;
        s.locked = op.locked;
    }

    /// @dev Pays the reporter `op` (the caller) that delivers the final status of `id` the asker's
    /// prepaid callback gas, into its stake: the report writes that record anyway, so the payment
    /// costs no new slot (a credit would, up to 22,100 gas, on every final-at-once callback).
    function _payReporter(uint256 id, Operator memory op) private {
        uint64 deposit = _callbacks[id].deposit;
        if (deposit == 0) return;
        // Checked uint96 arithmetic: a stake above 2^96 wei reverts.
        op.stake += deposit;
        _operators[msg.sender].stake = op.stake;
        emit IVeritasOracle.CallbackGasPaid(id, msg.sender, deposit);
    }

    /// @dev Checks the rules an asker pinned, takes the ask fee and writes question `id`.
    function _createQuestion(bytes32 questionHash, uint64 resolveAfter, IVeritasOracle.AskRules calldata rules)
        private
        returns (uint256 id)
    {
        Header memory h = _header;
        if (rules.parametersId != h.parametersId) {
            revert IVeritasOracle.VeritasParametersMismatch(rules.parametersId, h.parametersId);
        }
        if (rules.operatorEpoch != h.operatorEpoch) {
            revert IVeritasOracle.VeritasEpochMismatch(rules.operatorEpoch, h.operatorEpoch);
        }
        uint256 quorum = h.quorum;
        if (quorum > h.activeOperators) revert IVeritasOracle.VeritasQuorumUnreachable(quorum, h.activeOperators);
        uint40 nowTimestamp = _now40();
        uint256 latest = uint256(nowTimestamp) + _counters.maxHorizon;
        if (resolveAfter > latest) revert IVeritasOracle.VeritasTooFarAhead(resolveAfter, latest);
        id = uint256(h.questionCount) + 1;
        uint256 askFee = _parameters[h.parametersId].askFee;
        if (msg.value < askFee) revert IVeritasOracle.VeritasInsufficientPayment(msg.value, askFee);
        uint256 surplus = msg.value - askFee;

        uint8 flags;
        address consumer = rules.consumer;
        uint256 gasLimit = rules.callbackGasLimit;
        if (consumer != address(0) || gasLimit != 0) {
            if (consumer.code.length == 0 || gasLimit == 0 || gasLimit > _MAX_CALLBACK_GAS) {
                revert IVeritasOracle.VeritasInvalidCallback(consumer, gasLimit, _MAX_CALLBACK_GAS);
            }
            // The surplus prepays the callback's gas, at least its limit and the oracle's part at
            // this transaction's gas price: whoever delivers the final status is paid for the gas
            // it spends on the asker's consumer (`_notify`), never the quorum-th reporter's loss.
            uint256 required = (gasLimit + _CALLBACK_GAS_OVERHEAD) * tx.gasprice;
            if (surplus < required) {
                revert IVeritasOracle.VeritasInsufficientPayment(msg.value, askFee + required);
            }
            if (surplus > type(uint64).max) revert IVeritasOracle.VeritasCallbackDepositTooLarge(surplus);
            // forge-lint: disable-next-line(unsafe-typecast)
            _callbacks[id] = Callback({consumer: consumer, gasLimit: uint32(gasLimit), deposit: uint64(surplus)});
            flags = _FLAG_CALLBACK;
        } else if (surplus != 0) {
            // Only a surplus costs a slot: the common exact payment is known from the parameter set.
            _extraFees[id] = surplus;
        }
        // The set in force commits then reveals its reports (header bit 255, see `VeritasStorage`).
        if (h.bondUnits >> 31 != 0) flags |= _FLAG_COMMIT_REVEAL;

        // The casts cannot truncate: 2^40 asks exceed any chain's capacity, `resolveAfter` is at
        // most a uint40 time plus a uint32 horizon, and epochs are capped at 2^16 - 1.
        // forge-lint: disable-start(unsafe-typecast)
        _header.questionCount = uint40(id);
        Record storage record = _questions[id];
        record.questionHash = questionHash;
        record.info = Info({
            asker: msg.sender,
            askedAt: nowTimestamp,
            // At most `maxHorizon` (checked above), a uint32.
            resolveDelay: resolveAfter > nowTimestamp ? uint32(resolveAfter - nowTimestamp) : 0,
            operatorEpoch: uint16(h.operatorEpoch),
            clarifications: 0
        });
        record.tally = Tally({
            status: IVeritasOracle.VerdictStatus.Asked,
            reportCount: 0,
            flags: flags,
            nYes: 0,
            nNo: 0,
            nNull: 0,
            kappa: 0,
            // The report window opens at resolveAfter, or at the ask when that is later.
            time: resolveAfter > nowTimestamp ? uint40(resolveAfter) : nowTimestamp,
            parametersId: h.parametersId,
            reporters: 0,
            evidenceCount: 0
        });
        // forge-lint: disable-end(unsafe-typecast)
    }

    /// @dev Reverts with `VeritasEvidenceTooLong` on the first field above its cap.
    function _checkEvidenceLengths(uint256 url, uint256 title, uint256 snippet) private pure {
        if (url > _MAX_URL_LENGTH) revert IVeritasOracle.VeritasEvidenceTooLong(0, url, _MAX_URL_LENGTH);
        if (title > _MAX_TITLE_LENGTH) revert IVeritasOracle.VeritasEvidenceTooLong(1, title, _MAX_TITLE_LENGTH);
        if (snippet > _MAX_SNIPPET_LENGTH) {
            revert IVeritasOracle.VeritasEvidenceTooLong(2, snippet, _MAX_SNIPPET_LENGTH);
        }
    }

    /// @dev Checks that question `id` takes evidence now, from this submitter, at this price, and
    /// counts the item for the question and the submitter. Returns its index (from 1) and the
    /// question's arbitrator.
    function _admitEvidence(uint256 id) private returns (uint256 index, address arbitrator) {
        Tally storage tallySlot = _questions[id].tally;
        Tally memory t = tallySlot;
        if (t.status == IVeritasOracle.VerdictStatus.None) revert IVeritasOracle.VeritasUnknownQuestion(id);
        uint256 nowTimestamp = _now();
        // While Asked, `time` is when reports open (resolveAfter, or the ask when later); no report
        // comes before it, so the question is still Asked whenever this check passes.
        if (nowTimestamp >= t.time) revert IVeritasOracle.VeritasEvidenceClosed(id, t.time, nowTimestamp);
        uint256 count = t.evidenceCount;
        if (count >= _MAX_EVIDENCE_PER_QUESTION) {
            revert IVeritasOracle.VeritasTooMuchEvidence(id, _MAX_EVIDENCE_PER_QUESTION);
        }
        uint256 mine = _evidence[id][msg.sender];
        if (mine & 0xff >= _MAX_EVIDENCE_PER_SUBMITTER) {
            revert IVeritasOracle.VeritasEvidenceLimit(id, msg.sender, _MAX_EVIDENCE_PER_SUBMITTER);
        }
        IVeritasOracle.Parameters storage params = _parameters[t.parametersId];
        // Exactly the price of this item, so the question's evidence fees are a function of its
        // item count (`_evidenceTotal`) and no slot records their sum.
        uint256 fee = uint256(params.evidenceFee) << (count / _EVIDENCE_PRICE_STEP);
        if (msg.value != fee) revert IVeritasOracle.VeritasWrongPayment(msg.value, fee);
        _evidence[id][msg.sender] = mine + 1 + (fee << 8);
        index = count + 1;
        // Cannot truncate: bounded by MAX_EVIDENCE_PER_QUESTION just above.
        // forge-lint: disable-next-line(unsafe-typecast)
        tallySlot.evidenceCount = uint8(index);
        arbitrator = params.arbitrator;
    }

    /// @dev Pools one report of the operator `op` (its lock and report count updated in memory;
    /// the caller writes them back). A stale report (question not open, window closed, already
    /// reported, or in a batch a question asked before the operator's addition) reverts, or in a
    /// batch (`batch`) is skipped with `ReportSkipped`. Returns whether it counted.
    function _submit(Operator memory op, IVeritasOracle.Report memory r, bool batch) private returns (bool) {
        Record storage record = _questions[r.id];
        Tally memory t = record.tally;
        (uint256 quorum, uint256 challengeWindow, uint256 bond) = _admitReport(r, t, op, batch);
        if (quorum == 0) return false;
        // The stake this report locks until the question settles. Checked: a lock above 2^72 wei
        // (4,722 ether) reverts.
        uint256 free = uint256(op.stake) - op.locked;
        if (free < bond) revert IVeritasOracle.VeritasInsufficientStake(msg.sender, free, bond);
        // forge-lint: disable-next-line(unsafe-typecast)
        op.locked += uint72(bond);
        op.openReports += 1;
        bytes32 root = _pool(record, t, r, op.index);
        emit IVeritasOracle.ReportSubmitted(
            r.id, msg.sender, r.merkleRoot, r.nYes, r.nNo, r.nNull, r.fleissKappa, r.escalated
        );
        if (r.notYet) emit IVeritasOracle.ReportNotYet(r.id, msg.sender);
        if (t.reportCount >= quorum) {
            uint8 reasons = _reasons(t);
            if (reasons & _NOT_YET_MAJORITY != 0) {
                reasons &= ~_NOT_YET_MAJORITY;
                // "Not yet": the question is deferred instead of answered, and every bond of the
                // round released (the caller's here, in memory; the caller writes it back).
                uint256 opens = _nextRound(t, record.info.askedAt);
                if (opens != 0) {
                    // forge-lint: disable-next-line(unsafe-typecast)
                    op.locked -= uint72(bond);
                    op.openReports -= 1;
                    _releaseReports(t, op.index);
                    _defer(r.id, record, t, opens);
                    return true;
                }
                reasons |= _REASON_DEFERRALS;
            }
            (uint256 pYes, uint256 pNo, uint256 pNull) = _post(r.id, record, t, root, reasons);
            _countVerdict();
            if (reasons == 0 && challengeWindow == 0 && t.flags & _FLAG_CALLBACK != 0) {
                // The reporter's stake record first, with the prepaid callback gas: no external call
                // before all state is written.
                _payReporter(r.id, op);
                _storeStake(op);
                _notify(r.id, record, IVeritasOracle.VerdictStatus.Resolved, pYes, pNo, pNull, address(0));
            }
        } else {
            record.tally = t;
        }
        return true;
    }

    /// @dev The checks of a report against its question's tally `t`. Returns the question's
    /// quorum, challenge window and report bond, or a zero quorum when the report is stale and
    /// skipped (`batch`); reverts otherwise.
    function _admitReport(IVeritasOracle.Report memory r, Tally memory t, Operator memory op, bool batch)
        private
        returns (uint256 quorum, uint256 challengeWindow, uint256 bond)
    {
        uint256 id = r.id;
        if (t.status == IVeritasOracle.VerdictStatus.None) revert IVeritasOracle.VeritasUnknownQuestion(id);
        if (t.status != IVeritasOracle.VerdictStatus.Asked) {
            if (batch) return (_skip(id, IVeritasOracle.VeritasNotOpen.selector), 0, 0);
            revert IVeritasOracle.VeritasNotOpen(id, t.status);
        }
        if (op.addedAfter >= id) {
            if (batch) return (_skip(id, IVeritasOracle.VeritasNotQuestionOperator.selector), 0, 0);
            revert IVeritasOracle.VeritasNotQuestionOperator(id, msg.sender);
        }
        uint256 nowTimestamp = _now();
        if (t.flags & _FLAG_COMMIT_REVEAL != 0) revert IVeritasOracle.VeritasCommitRevealQuestion(id);
        if (nowTimestamp < t.time) revert IVeritasOracle.VeritasTooEarly(id, t.time, nowTimestamp);
        uint256 maxBallots;
        uint256 reportWindow;
        (quorum, maxBallots, reportWindow, challengeWindow, bond) = _hot(t.parametersId);
        uint256 deadline = uint256(t.time) + reportWindow;
        if (nowTimestamp >= deadline) {
            if (batch) return (_skip(id, IVeritasOracle.VeritasReportWindowClosed.selector), 0, 0);
            revert IVeritasOracle.VeritasReportWindowClosed(id, deadline, nowTimestamp);
        }
        if (_reported(t, op.index)) {
            if (batch) return (_skip(id, IVeritasOracle.VeritasAlreadyReported.selector), 0, 0);
            revert IVeritasOracle.VeritasAlreadyReported(id, msg.sender);
        }
        _checkBallots(r, maxBallots);
    }

    /// @dev The checks of a report's fields: a valid ballot, at most `maxBallots`, kappa's range.
    function _checkBallots(IVeritasOracle.Report memory r, uint256 maxBallots) private pure {
        uint256 total;
        // Unchecked: three 16-bit values.
        unchecked {
            total = uint256(r.nYes) + r.nNo + r.nNull;
        }
        if (total == 0) revert IVeritasOracle.VeritasNoValidBallot(r.id);
        if (total > maxBallots) revert IVeritasOracle.VeritasTooManyBallots(total, maxBallots);
        if (r.fleissKappa < -_KAPPA_BOUND || r.fleissKappa > _KAPPA_BOUND) {
            revert IVeritasOracle.VeritasKappaOutOfRange(r.fleissKappa);
        }
    }

    /// @dev keccak256 of the ABI encoding of the commitment's fields (`reportCommitment`).
    function _commitmentOf(address reporter, IVeritasOracle.Report memory r, bytes32 salt)
        private
        pure
        returns (bytes32)
    {
        return keccak256(
            abi.encode(r.id, reporter, r.merkleRoot, r.nYes, r.nNo, r.nNull, r.fleissKappa, r.escalated, r.notYet, salt)
        );
    }

    /// @dev When the reveal phase of the commit-reveal question `id` of tally `t` (with at least one
    /// commit in `round`, or a reopened commit phase) opens and ends: at once and `revealWindow`
    /// after the quorum-th commit, else at the end of the commit phase (the report window, or the
    /// reopened phase's deadline) and `revealWindow` after it.
    function _revealPhase(uint256 id, Tally memory t, CommitRound memory round)
        private
        view
        returns (uint256 opens, uint256 deadline)
    {
        if (round.revealDeadline != 0) return (0, round.revealDeadline);
        IVeritasOracle.Parameters storage p = _parameters[t.parametersId];
        uint256 reopened = _reopenings[id].commitDeadline;
        opens = reopened != 0 ? reopened : uint256(t.time) + p.reportWindow;
        deadline = opens + p.revealWindow;
    }

    /// @dev Slashes and burns the report bond of every commit of `round` on `id` not revealed
    /// (`CommitSlashed`), releasing its lock and unsettled-report count.
    function _slashUnrevealed(uint256 id, Tally memory t, CommitRound memory round) private {
        uint256 bond = _bondOf(t.parametersId);
        uint256 burned;
        for (uint256 i = 1; i <= _MAX_OPERATORS; i++) {
            if ((round.committers >> i) & 1 == 0) continue;
            address committer = _operatorAt[i];
            if (_commitments[id][committer] == 0) continue;
            delete _commitments[id][committer];
            Operator storage op = _operators[committer];
            // The casts cannot truncate: the bond was added to `locked` (checked) by the commit.
            // forge-lint: disable-start(unsafe-typecast)
            op.openReports -= 1;
            op.locked -= uint72(bond);
            op.stake -= uint96(bond);
            // forge-lint: disable-end(unsafe-typecast)
            burned += bond;
            emit IVeritasOracle.CommitSlashed(id, committer, bond);
        }
        _credit(_BURN_ADDRESS, id, burned);
    }

    /// @dev Adds report `r` to the tally `t` (in memory) and writes the root or roots digest.
    /// Returns the new root.
    function _pool(Record storage record, Tally memory t, IVeritasOracle.Report memory r, uint256 operatorIndex)
        private
        returns (bytes32 root)
    {
        uint256 leader = r.notYet ? _NOT_YET : WadTriple.leading(r.nYes, r.nNo, r.nNull);
        uint256 count = t.reportCount;
        // The casts cannot truncate: kappa was bounded by +-WAD < 2^63; each count sum is at most
        // MAX_QUORUM x MAX_BALLOTS_PER_REPORT = 63,000 < 2^16; `count` < MAX_QUORUM (a question
        // leaves Asked at its quorum) and operator indices are 5-bit.
        // forge-lint: disable-start(unsafe-typecast)
        if (count == 0) {
            t.kappa = int64(r.fleissKappa);
            root = r.merkleRoot;
        } else {
            bytes32 previous = record.merkleRoot;
            // Identical roots are NOT refused: the root commits to the question and the evidence
            // bundle only, so honest operators that read the same evidence post the same root.
            if (r.fleissKappa < t.kappa) t.kappa = int64(r.fleissKappa);
            root = sha256(abi.encodePacked(previous, r.merkleRoot));
        }
        record.merkleRoot = root;
        uint256 entry = operatorIndex | (leader << 5) | (r.escalated ? 128 : 0);
        // Unchecked: see the casts above (the sums stay below 2^16, `count` below 7).
        unchecked {
            t.nYes += r.nYes;
            t.nNo += r.nNo;
            t.nNull += r.nNull;
            t.reporters |= uint56(entry << (8 * count));
            t.reportCount = uint8(count + 1);
        }
        // forge-lint: disable-end(unsafe-typecast)
    }

    /// @dev The hot fields of parameter set `parametersId_`: from the header when it is the set in
    /// force (the header is read anyway, to count the verdict), else from the set.
    function _hot(uint16 parametersId_)
        private
        view
        returns (uint256 quorum, uint256 maxBallots, uint256 reportWindow, uint256 challengeWindow, uint256 bond)
    {
        uint256 header;
        // One SLOAD of the header slot (layout in `VeritasStorage`); Solidity would read it per field.
        assembly ("memory-safe") {
            header := sload(_header.slot)
        }
        if ((header >> 40) & 0xffff == parametersId_) {
            return (
                (header >> 136) & 0xff,
                (header >> 144) & 0xffff,
                (header >> 160) & 0xffffffff,
                (header >> 192) & 0xffffffff,
                ((header >> 224) & 0x7fffffff) * _BOND_UNIT
            );
        }
        IVeritasOracle.Parameters storage p = _parameters[parametersId_];
        return (p.quorum, p.maxBallotsPerReport, p.reportWindow, p.challengeWindow, _bondOf(parametersId_));
    }

    /// @dev Adds one to the header's verdict count ([135..96]) with one SLOAD and one SSTORE. It
    /// cannot overflow into the next field: never more verdicts than questions (< 2^40).
    function _countVerdict() private {
        assembly ("memory-safe") {
            sstore(_header.slot, add(sload(_header.slot), shl(96, 1)))
        }
    }

    /// @dev Emits `ReportSkipped` and returns 0 (the report did not count).
    function _skip(uint256 id, bytes4 reason) private returns (uint256) {
        emit IVeritasOracle.ReportSkipped(id, msg.sender, reason);
        return 0;
    }

    /// @dev Posts the pooled verdict of the tally `t` (written back here), escalated when
    /// `reasons` is nonzero; the caller counts it. Returns the triple.
    function _post(uint256 id, Record storage record, Tally memory t, bytes32 root, uint8 reasons)
        private
        returns (uint256 pYes, uint256 pNo, uint256 pNull)
    {
        (pYes, pNo, pNull) = WadTriple.fromCounts(t.nYes, t.nNo, t.nNull);
        bool escalated = reasons != 0;
        t.status = escalated ? IVeritasOracle.VerdictStatus.Escalated : IVeritasOracle.VerdictStatus.Resolved;
        t.time = _now40();
        record.tally = t;
        emit IVeritasOracle.VerdictPosted(id, root, pYes, pNo, pNull, t.kappa, escalated, reasons, msg.sender);
    }
}
