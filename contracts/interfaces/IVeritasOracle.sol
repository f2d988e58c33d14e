// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title IVeritasOracle
/// @notice The on-chain half of Veritas (version 3): questions are asked here (with a fee),
/// several independent operators each run an off-chain committee of LLM jurors and submit a
/// *report* (the ballot counts, the evidence Merkle root and the committee's Fleiss' kappa), and
/// the contract pools the reports into one verdict: a 1e18-scaled probability triple (YES, NO,
/// NULL).
/// @dev Version 3: every question carries its own rules and its own court. At the ask a question
/// binds (a) its parameter set, which names its ERC-792 arbitrator, (b) the operator epoch whose
/// operators may report on it and (c) an optional callback; the asker states the parameter set
/// and epoch it expects and the ask reverts on a mismatch. Nothing the owner does afterwards
/// changes an open question's rules: owner changes apply to questions asked later. A removed
/// operator may no longer report on any question (removal is the answer to a compromised key),
/// so removal can only take reporters away from an open question, never add any: a question whose
/// quorum becomes unreachable is closed by `finalize` after its report window and goes to its
/// court like any escalation.
///
/// Disputes and escalations go to the question's arbitrator through ERC-792 (this oracle is the
/// `IArbitrable`); the ruling says who wins explicitly (see `RULING_*`). An arbitrator that has
/// not ruled by the question's court deadline is bypassed: anyone may call `resolveByDefault`, and
/// the question becomes final as `Defaulted` with the unresolvable triple (1, 1, 1e18 - 2).
///
/// Integrators read `isFinal(id)` (or `verdictStatus(id)`, never reverts) and then
/// `getVerdict(id)`, or name a consumer at the ask and are called back (`IVeritasConsumer`). All
/// probabilities are WAD-scaled (1e18 = certainty), each > 0, and the three sum to exactly 1e18.
/// Money moves only by pull (`withdraw`).
interface IVeritasOracle {
    /*//////////////////////////////////////////////////////////////
                                 TYPES
    //////////////////////////////////////////////////////////////*/

    /// @notice Lifecycle of a question id. Values are stable: new ones are only ever appended.
    /// @dev None: never asked. Asked: open for evidence (before `resolveAfter`), then for reports.
    /// Resolved: pooled verdict posted; final after the challenge window unless disputed.
    /// Escalated: pooled verdict posted but flagged for the court (see `VerdictPosted`'s reasons);
    /// anyone may take it to the court (`requestArbitration`). Arbitrated: the court ruled; final.
    /// Disputed: before the court (a Resolved verdict disputed in its challenge window, or an
    /// Escalated one taken to the court). Expired: the report window ended with no report; no
    /// verdict, the fee is refunded to the asker (and each evidence fee to its submitter); final.
    /// Defaulted: the court refused to rule or did not rule by the court deadline, or an
    /// escalation was never taken to court by then; final, with the unresolvable triple
    /// (1, 1, 1e18 - 2); the fee goes back to the asker.
    enum VerdictStatus {
        None,
        Asked,
        Resolved,
        Escalated,
        Arbitrated,
        Disputed,
        Expired,
        Defaulted
    }

    /// @notice What the contract keeps of a question (the text lives only in the event).
    struct Question {
        bytes32 questionHash; // sha256 of the UTF-8 question text
        address asker; // who asked
        uint64 askedAt; // block timestamp of the ask
        uint64 resolveAfter; // earliest report time as asked (never before askedAt; see `deferral` for later rounds)
        uint16 parametersId; // the parameter set that governs it (fixed at the ask)
        uint32 operatorEpoch; // the operator epoch whose operators may report on it
        address consumer; // contract called back on the question's outcome (0: none)
        uint32 callbackGasLimit; // gas given to the consumer's callback
        uint64 callbackDeposit; // wei the asker prepaid for the callback's gas (0: none)
    }

    /// @notice What an asker pins when asking: the ask reverts unless the oracle's parameter set
    /// and operator epoch in force are exactly these, so no transaction mined before the ask can
    /// change the rules it was written for.
    struct AskRules {
        uint16 parametersId; // expected `parametersId()`; the set names the arbitrator
        uint32 operatorEpoch; // expected `operatorEpoch()`
        address consumer; // contract to call back (0: none); must have code
        uint32 callbackGasLimit; // gas for the callback: 0 without a consumer, else 1..MAX_CALLBACK_GAS
    }

    /// @notice The rules that govern a question, fixed when it is asked. A set never changes once
    /// created: `setParameters` creates a new one for later questions.
    struct Parameters {
        uint8 quorum; // reports that finalise the verdict, 1..MAX_QUORUM, <= active operators
        uint16 maxBallotsPerReport; // cap on nYes + nNo + nNull of one report, 1..MAX_BALLOTS_PER_REPORT
        uint32 reportWindow; // seconds after resolveAfter during which reports are accepted, >= MIN_REPORT_WINDOW
        uint32 challengeWindow; // seconds a Resolved verdict can be disputed: 0 (final at once) or >= MIN_CHALLENGE_WINDOW
        uint32 arbitrationWindow; // seconds the court has to rule (from the dispute, request or latest appeal), >= MIN_ARBITRATION_WINDOW
        uint96 askFee; // wei required by askQuestion (<= MAX_FEE), paid to the reporting operators
        uint96 disputeBond; // wei bonded by a disputer, and locked from each reporter's stake (<= MAX_FEE); > 0 whenever challengeWindow > 0
        uint96 evidenceFee; // wei of the first 8 evidence items of a question (<= MAX_FEE), doubling every 8; burned, or refunded on expiry
        address arbitrator; // ERC-792 arbitrator (a contract, not an operator); 0 only with challengeWindow 0
        bytes arbitratorExtraData; // passed to the arbitrator (its court and juror count, for Kleros)
        uint32 revealWindow; // 0: reports in the clear; else, with quorum > 1, commit-reveal reporting: seconds of the reveal phase, 30..604,800 (7 days)
    }

    /// @notice One operator's report for one question (the argument of `submitReports`).
    struct Report {
        uint256 id; // question id
        bytes32 merkleRoot; // RFC 6962 root over the question and the operator's evidence bundle
        uint16 nYes; // valid YES ballots
        uint16 nNo; // valid NO ballots
        uint16 nNull; // valid NULL ballots
        int256 fleissKappa; // WAD-scaled Fleiss' kappa of the committee, in [-1e18, 1e18]
        bool escalated; // the operator's routing asks for the court
        bool notYet; // the operator's routing finds the outcome not knowable yet (see `QuestionDeferred`)
    }

    /// @notice A question's case before its court (all zero when it never went there).
    struct Case {
        address arbitrator; // the question's arbitrator
        uint256 disputeId; // the arbitrator's dispute id
        address disputer; // who disputed (0 when an escalation was taken to the court)
        uint256 bond; // the disputer's bond, in wei
        address requester; // who paid the court: the disputer, or who called requestArbitration
        uint64 deadline; // the court must rule before this timestamp (extended by each appeal)
        uint256 pYes; // the disputer's proposed triple (zero for an escalation)
        uint256 pNo;
        uint256 pNull;
        uint256 ruling; // the court's ruling once given (0 before, or if it refused)
    }

    /*//////////////////////////////////////////////////////////////
                                 EVENTS
    //////////////////////////////////////////////////////////////*/

    /// @notice `operator` committed to its report on the commit-reveal question `id`
    /// (`commitReport`); the report bond is locked as a report's.
    event ReportCommitted(uint256 indexed id, address indexed operator, bytes32 commitment);

    /// @notice `operator` committed on `id` and did not reveal before the reveal deadline: its report
    /// bond `amount` was slashed from its stake and burned (`finalize`).
    event CommitSlashed(uint256 indexed id, address indexed operator, uint256 amount);

    /// @notice `finalize` burned withheld commits on `id` and reopened its commit phase until
    /// `commitDeadline` for spare operators; `reopening` counts the reopenings (1, then 2).
    event CommitPhaseReopened(uint256 indexed id, uint256 commitDeadline, uint256 reopening);

    /// @notice A question was asked; the node reads the full text from this event. With the
    /// question's other events, enough to rebuild its rules and its money without any view.
    event QuestionAsked(
        uint256 indexed id,
        address indexed asker,
        bytes32 questionHash,
        uint64 resolveAfter,
        uint64 askedAt,
        uint16 parametersId,
        uint32 operatorEpoch,
        uint256 paid,
        address consumer,
        uint32 callbackGasLimit,
        string question
    );

    /// @notice `operator` submitted its report for `id` (every field of the report).
    event ReportSubmitted(
        uint256 indexed id,
        address indexed operator,
        bytes32 merkleRoot,
        uint256 nYes,
        uint256 nNo,
        uint256 nNull,
        int256 fleissKappa,
        bool escalated
    );

    /// @notice The report `operator` just submitted (or revealed) for `id` said "not yet" (its
    /// `notYet` field; emitted right after its `ReportSubmitted`, only then: every other report
    /// pays nothing for the field's log).
    event ReportNotYet(uint256 indexed id, address indexed operator);

    /// @notice A report of a `submitReports` batch was stale and skipped; `reason` is the selector
    /// of the error a single `submitReport` would have reverted with.
    event ReportSkipped(uint256 indexed id, address indexed operator, bytes4 reason);

    /// @notice The pooled verdict of `id` was posted. `operator` is the account whose transaction
    /// posted it: the operator of the quorum-th report, or whoever called `finalize`.
    /// `escalationReasons` says why it escalated (0 when it did not): bit 0 at least half of the
    /// reports escalated, bit 1 at least half of the reports lead with an outcome other than the
    /// pooled one (ties in YES, NO, NULL order), bit 2 the report window closed before the quorum,
    /// bit 3 the pooled counts tie for the top (no outcome leads), bit 4 most reports said "not yet"
    /// but the question was deferred `MAX_DEFERRALS` times already (or its horizon has passed).
    event VerdictPosted(
        uint256 indexed id,
        bytes32 merkleRoot,
        uint256 pYes,
        uint256 pNo,
        uint256 pNull,
        int256 fleissKappa,
        bool escalated,
        uint8 escalationReasons,
        address indexed operator
    );

    /// @notice `id` cannot be answered yet: most of the quorum's reports said "not yet", or the
    /// court ruled `RULING_TOO_EARLY`. Its reports were released, its tally is empty again, and
    /// reports open again at `resolveAfter` (after a backoff, `deferralDelay`, never past the ask
    /// plus `maxHorizon`). `count` is the deferrals so far (at most `MAX_DEFERRALS`). Evidence
    /// stays open; the ask fee, the evidence fees and the callback deposit stay with the question
    /// and settle at its end.
    event QuestionDeferred(uint256 indexed id, uint256 resolveAfter, uint256 count);

    /// @notice The asker of `id` clarified it: clarification number `index` (from 1), shown to
    /// every juror after the question and committed in the evidence root right after it.
    event QuestionClarified(uint256 indexed id, uint256 index, string text);

    /// @notice The report window of `id` ended with no report; `refund` wei was credited to the asker.
    event QuestionExpired(uint256 indexed id, uint256 refund);

    /// @notice `disputer` disputed the Resolved verdict of `id` with a bond of `bond` wei, claiming
    /// the triple (`pYes`, `pNo`, `pNull`); the case is dispute `disputeId` of `arbitrator`. What the
    /// dispute wins is credited to `beneficiary`.
    event VerdictDisputed(
        uint256 indexed id,
        address indexed disputer,
        uint256 bond,
        uint256 pYes,
        uint256 pNo,
        uint256 pNull,
        address arbitrator,
        uint256 disputeId,
        address beneficiary
    );

    /// @notice `requester` took the Escalated verdict of `id` to its court: dispute `disputeId` of
    /// `arbitrator`.
    event ArbitrationRequested(uint256 indexed id, address indexed requester, address arbitrator, uint256 disputeId);

    /// @notice `funder` paid `amount` wei for an appeal of the case of `id`; the court deadline
    /// moved to `deadline`.
    event AppealFunded(uint256 indexed id, address indexed funder, uint256 amount, uint64 deadline);

    /// @notice The court ruled `ruling` on `id`: the triple is final. `disputerWon` is true when a
    /// dispute was upheld (any ruling but `RULING_VERDICT_STANDS`).
    event VerdictArbitrated(
        uint256 indexed id,
        uint256 pYes,
        uint256 pNo,
        uint256 pNull,
        uint256 ruling,
        bool disputerWon,
        address indexed arbitrator
    );

    /// @notice `id` became final as `Defaulted` (unresolvable triple). `reason`: 0 the court refused
    /// to rule (ruling 0), 1 the court did not rule by its deadline, 2 the escalation was never
    /// taken to the court by its deadline.
    event VerdictDefaulted(uint256 indexed id, uint8 reason);

    /// @notice The court ruled on `id` after the question had already defaulted; nothing changed.
    event LateRulingIgnored(uint256 indexed id, address indexed arbitrator, uint256 disputeId, uint256 ruling);

    /// @notice The consumer of `id` was called back with `status` and accepted it.
    event CallbackDelivered(uint256 indexed id, address indexed consumer, VerdictStatus status);

    /// @notice The consumer of `id` reverted or ran out of gas on `status`; anyone may
    /// `retryCallback(id)`. Nothing else was affected.
    event CallbackFailed(uint256 indexed id, address indexed consumer, VerdictStatus status);

    /// @notice `payee` was paid the asker's prepaid callback gas of `id` (`amount` wei) for
    /// delivering its final status: a reporter into its stake, anyone else as a credit.
    event CallbackGasPaid(uint256 indexed id, address indexed payee, uint256 amount);

    /// @notice The money of `id` (fee, and bond if disputed) was credited; nothing more is owed.
    event QuestionSettled(uint256 indexed id);

    /// @notice `amount` wei was credited to `account` for question `id`.
    event Credited(address indexed account, uint256 indexed id, uint256 amount);

    /// @notice `account` withdrew `amount` wei.
    event Withdrawn(address indexed account, uint256 amount);

    /// @notice `from` added `amount` wei to the stake of `operator`, which now holds `stake` wei.
    event Staked(address indexed operator, address indexed from, uint256 amount, uint256 stake);

    /// @notice `operator` withdrew `amount` wei of its free stake; `stake` wei remain.
    event StakeWithdrawn(address indexed operator, uint256 amount, uint256 stake);

    /// @notice The court overturned the verdict of `id` and `operator`, whose report led with an
    /// outcome other than the final one, lost `amount` wei of its stake (the question's report bond).
    event Slashed(uint256 indexed id, address indexed operator, uint256 amount);

    /// @notice `operator` left for good and its 5-bit index `index` is free for a new operator.
    event OperatorIndexReleased(address indexed operator, uint256 index);

    /// @notice The owner set the farthest `resolveAfter` an ask may name: `seconds_` after the ask.
    event MaxHorizonChanged(uint256 seconds_);

    /// @notice Evidence for `id` was submitted (every field). `index` counts the question's items
    /// from 1; `evidenceHead` is the contract's evidence hash chain after this item.
    event EvidenceSubmitted(
        uint256 indexed id,
        address indexed submitter,
        uint256 index,
        bytes32 evidenceHead,
        string url,
        string title,
        string snippet
    );

    /// @notice The owner created parameter set `parametersId`; questions asked from now on use it.
    event ParametersChanged(uint256 indexed parametersId, Parameters parameters);

    /// @notice `operator` may now report on questions asked from `epoch` on.
    event OperatorAdded(address indexed operator, uint32 epoch);

    /// @notice `operator` may no longer report on any question; later questions use `epoch`.
    event OperatorRemoved(address indexed operator, uint32 epoch);

    /// @notice The owner proposed `newOwner`; ownership moves when `newOwner` accepts.
    event OwnershipTransferStarted(address indexed previousOwner, address indexed newOwner);

    /// @notice Ownership moved from `previousOwner` to `newOwner`.
    event OwnershipTransferred(address indexed previousOwner, address indexed newOwner);

    /*//////////////////////////////////////////////////////////////
                                 ERRORS
    //////////////////////////////////////////////////////////////*/

    /// @notice The question text is empty.
    error VeritasEmptyQuestion();

    /// @notice The question text is `length` bytes, above the maximum `maxLength`.
    error VeritasQuestionTooLong(uint256 length, uint256 maxLength);

    /// @notice The ask expected parameter set `expected`, but `inForce` is in force.
    error VeritasParametersMismatch(uint256 expected, uint256 inForce);

    /// @notice The ask expected operator epoch `expected`, but `inForce` is in force.
    error VeritasEpochMismatch(uint256 expected, uint256 inForce);

    /// @notice The quorum `quorum` exceeds the `active` operators: no question could resolve.
    error VeritasQuorumUnreachable(uint256 quorum, uint256 active);

    /// @notice A callback needs a consumer with code and a gas limit in 1..`maxGas` (0 without one).
    error VeritasInvalidCallback(address consumer, uint256 gasLimit, uint256 maxGas);

    /// @notice A callback's prepaid gas above 2^64 - 1 wei (the ask's surplus over the fee).
    error VeritasCallbackDepositTooLarge(uint256 deposit);

    /// @notice The transaction left `available` gas where the callback needs `required`: send more gas.
    error VeritasCallbackGas(uint256 available, uint256 required);

    /// @notice The oracle was called again while one of its calls is still running (from a consumer's
    /// callback, an arbitrator or a withdrawal): nothing enters the oracle before a call has written
    /// its state.
    error VeritasReentrantCall();

    /// @notice `id` has no callback owed (no consumer, or it was delivered).
    error VeritasNoCallbackOwed(uint256 id);

    /// @notice No question with this id was asked.
    error VeritasUnknownQuestion(uint256 id);

    /// @notice The question has no verdict.
    error VeritasVerdictNotFound(uint256 id);

    /// @notice A report was submitted before the question's `resolveAfter`.
    error VeritasTooEarly(uint256 id, uint64 resolveAfter, uint256 nowTimestamp);

    /// @notice The question no longer takes reports or `finalize`: it is in `status`.
    error VeritasNotOpen(uint256 id, VerdictStatus status);

    /// @notice `operator` already reported on `id`.
    error VeritasAlreadyReported(uint256 id, address operator);

    /// @notice `operator` is not an operator of `id`'s epoch (added later, or removed).
    error VeritasNotQuestionOperator(uint256 id, address operator);

    /// @notice The report window of `id` closed at `deadline`.
    error VeritasReportWindowClosed(uint256 id, uint256 deadline, uint256 nowTimestamp);

    /// @notice `finalize(id)` before the report window closes at `deadline`.
    error VeritasReportWindowOpen(uint256 id, uint256 deadline, uint256 nowTimestamp);

    /// @notice A report holds `total` ballots, above the question's cap `maxBallots`.
    error VeritasTooManyBallots(uint256 total, uint256 maxBallots);

    /// @notice The probability of outcome `outcome` (0 = YES, 1 = NO, 2 = NULL) is zero.
    error VeritasZeroProbability(uint8 outcome);

    /// @notice The three probabilities sum to `sum` instead of exactly 1e18.
    error VeritasProbabilitySum(uint256 sum);

    /// @notice Kappa is outside [-1e18, 1e18].
    error VeritasKappaOutOfRange(int256 fleissKappa);

    /// @notice `paid` wei sent where `required` wei are needed.
    error VeritasInsufficientPayment(uint256 paid, uint256 required);

    /// @notice `paid` wei sent where exactly `required` wei are needed.
    error VeritasWrongPayment(uint256 paid, uint256 required);

    /// @notice `value` wei does not fit the 96-bit amounts the contract stores (more than all ether).
    error VeritasAmountTooLarge(uint256 value);

    /// @notice Evidence for `id` is accepted only before its `resolveAfter`.
    error VeritasEvidenceClosed(uint256 id, uint64 resolveAfter, uint256 nowTimestamp);

    /// @notice An evidence field (0 = url, 1 = title, 2 = snippet) is `length` bytes, above `maxLength`.
    error VeritasEvidenceTooLong(uint8 field, uint256 length, uint256 maxLength);

    /// @notice Question `id` already holds the maximum number of evidence items.
    error VeritasTooMuchEvidence(uint256 id, uint256 maxItems);

    /// @notice Only a Resolved verdict within its challenge window can be disputed; `id` is in `status`.
    error VeritasNotDisputable(uint256 id, VerdictStatus status);

    /// @notice The challenge window of `id` ended at `finalAt`.
    error VeritasChallengeWindowClosed(uint256 id, uint256 finalAt, uint256 nowTimestamp);

    /// @notice A dispute must claim a triple other than the posted one.
    error VeritasSameTriple(uint256 id);

    /// @notice `caller` is the question's arbitrator and may not dispute what it rules on.
    error VeritasArbitratorCannotDispute(uint256 id, address caller);

    /// @notice `id` is in `status`: only an Escalated verdict can be taken to the court.
    error VeritasNotEscalated(uint256 id, VerdictStatus status);

    /// @notice `id` is not before its court (`status`).
    error VeritasNotInCourt(uint256 id, VerdictStatus status);

    /// @notice The question of `id` has no arbitrator; it can only default.
    error VeritasNoArbitrator(uint256 id);

    /// @notice `caller` is not the arbitrator of a case of this oracle with dispute id `disputeId`.
    error VeritasUnknownDispute(address caller, uint256 disputeId);

    /// @notice Ruling `ruling` is above the `choices` the case was created with.
    error VeritasInvalidRuling(uint256 ruling, uint256 choices);

    /// @notice `resolveByDefault(id)` before its deadline `deadline`.
    error VeritasCourtDeadlineNotReached(uint256 id, uint256 deadline, uint256 nowTimestamp);

    /// @notice The court deadline of `id` passed at `deadline`: no more appeals or court requests.
    error VeritasCourtDeadlinePassed(uint256 id, uint256 deadline, uint256 nowTimestamp);

    /// @notice `settle(id)` needs a final Resolved verdict; `id` is in `status` (or still in its window).
    error VeritasNotFinal(uint256 id, VerdictStatus status);

    /// @notice The money of `id` was already settled.
    error VeritasAlreadySettled(uint256 id);

    /// @notice `account` has no credit to withdraw.
    error VeritasNothingToWithdraw(address account);

    /// @notice Sending `amount` wei to `account` failed.
    error VeritasTransferFailed(address account, uint256 amount);

    /// @notice Quorum `quorum` is outside 1..MAX_QUORUM.
    error VeritasInvalidQuorum(uint256 quorum);

    /// @notice Ballot cap `cap` is outside 1..MAX_BALLOTS_PER_REPORT.
    error VeritasInvalidBallotCap(uint256 cap);

    /// @notice A window (0 = report, 1 = challenge, 2 = arbitration) of `seconds_` is below its minimum `minimum`.
    error VeritasWindowTooShort(uint8 window, uint256 seconds_, uint256 minimum);

    /// @notice A fee (0 = ask, 1 = dispute bond, 2 = evidence) of `amount` wei is above `MAX_FEE`.
    error VeritasFeeTooHigh(uint8 fee, uint256 amount, uint256 maximum);

    /// @notice A dispute bond below `BOND_UNIT` (1e12 wei) locks nothing: a set with a challenge window
    /// (else every verdict is disputed for free) or a reveal window (else a commit never revealed
    /// costs nothing) needs at least one unit, and a nonzero bond is at least one unit.
    error VeritasBondRequired();

    /// @notice A challenge window needs an arbitrator; `arbitrator` has no code or is an operator.
    error VeritasInvalidArbitrator(address arbitrator);

    /// @notice The owner changed the parameters 65,535 times; deploy a new oracle.
    error VeritasParametersExhausted();

    /// @notice The operator set changed 2^16 - 1 times (questions store their epoch in 16 bits);
    /// deploy a new oracle.
    error VeritasEpochsExhausted();

    /// @notice Every one of the MAX_OPERATORS indices is held (by an operator that is active or
    /// has stake or unsettled reports); release one first (`releaseIndex`).
    error VeritasTooManyOperators(uint256 maxOperators);

    /// @notice `account` is the arbitrator of the parameters in force and may not report.
    error VeritasOperatorIsArbitrator(address account);

    /// @notice `caller` is not an operator.
    error VeritasNotOperator(address caller);

    /// @notice A report on `id` holds no valid ballot (nYes + nNo + nNull == 0).
    error VeritasNoValidBallot(uint256 id);

    /// @notice `operator` has `free` wei of unlocked stake where its report needs `required`.
    error VeritasInsufficientStake(address operator, uint256 free, uint256 required);

    /// @notice `account` already submitted `limit` evidence items on `id`.
    error VeritasEvidenceLimit(uint256 id, address account, uint256 limit);

    /// @notice `resolveAfter` is beyond `latest`, the farthest the ask may name (`maxHorizon`).
    error VeritasTooFarAhead(uint256 resolveAfter, uint256 latest);

    /// @notice A horizon of `seconds_` is outside 1 day .. 100 years.
    error VeritasInvalidHorizon(uint256 seconds_);

    /// @notice `account` has nothing to refund on `id` (not Expired, or no evidence fee left).
    error VeritasNothingToRefund(uint256 id, address account);

    /// @notice The index of `operator` cannot be released: it is active, holds stake, or has
    /// unsettled reports.
    error VeritasIndexInUse(address operator);

    /// @notice `caller` is not the owner.
    error VeritasNotOwner(address caller);

    /// @notice No function of the oracle has selector `selector` (a call the interface does not declare).
    error VeritasUnknownFunction(bytes4 selector);

    /// @notice The oracle's constructor was given `module`, an address without code, as a module.
    error VeritasNoModuleCode(address module);

    /// @notice Only the asker of `id` may clarify it.
    error VeritasNotAsker(uint256 id, address caller);

    /// @notice `id` takes no clarification any more: it has a report or a commit, was deferred,
    /// or is no longer open (what the jurors saw must not change under them).
    error VeritasClarificationClosed(uint256 id);

    /// @notice A clarification must be 1 to `maxLength` bytes.
    error VeritasClarificationLength(uint256 length, uint256 maxLength);

    /// @notice `id` has `MAX_CLARIFICATIONS` clarifications already.
    error VeritasTooManyClarifications(uint256 id, uint256 maxClarifications);

    /// @notice A payable function of one of the oracle's modules was called on the module's own
    /// address: call it on the oracle's.
    error VeritasModuleCalledDirectly();

    /// @notice `caller` is not the pending owner.
    error VeritasNotPendingOwner(address caller);

    /// @notice The zero address is not allowed here.
    error VeritasZeroAddress();

    /// @notice `submitReport`/`submitReports` on a commit-reveal question: use `commitReport` then
    /// `revealReport`.
    error VeritasCommitRevealQuestion(uint256 id);

    /// @notice `commitReport` on a question whose parameter set has no reveal window (or quorum 1).
    error VeritasNotCommitReveal(uint256 id);

    /// @notice The commit phase of `id` is over (its quorum committed or its report window closed).
    error VeritasCommitPhaseClosed(uint256 id);

    /// @notice `operator` already committed on `id`.
    error VeritasAlreadyCommitted(uint256 id, address operator);

    /// @notice A commitment of zero (the value of "no commitment").
    error VeritasZeroCommitment();

    /// @notice A reveal outside the reveal phase of `id`, [opens, deadline).
    error VeritasNotRevealPhase(uint256 id, uint256 opens, uint256 deadline, uint256 nowTimestamp);

    /// @notice `operator` has no unrevealed commitment on `id`.
    error VeritasNoCommitment(uint256 id, address operator);

    /// @notice The revealed report and salt do not hash to `operator`'s commitment on `id`.
    error VeritasCommitmentMismatch(uint256 id, address operator);

    /// @notice A reveal window outside 0 or [minimum, maximum] seconds.
    error VeritasInvalidRevealWindow(uint256 seconds_, uint256 minimum, uint256 maximum);

    /*//////////////////////////////////////////////////////////////
                               QUESTIONS
    //////////////////////////////////////////////////////////////*/

    /// @notice Ask a question for the oracle to resolve, paying at least the `askFee` of the
    /// parameter set in force.
    /// @dev Without a consumer the whole `msg.value` becomes the question's fee (a surplus is kept
    /// for the operators, never refunded). With one, the surplus over `askFee` prepays the
    /// callback's gas: at least `(callbackGasLimit + CALLBACK_GAS_OVERHEAD) × tx.gasprice`, else
    /// `VeritasInsufficientPayment`. Whoever delivers the question's final status (Resolved once
    /// final, Arbitrated, Defaulted or Expired) is paid all of it, a reporter into its stake and
    /// anyone else (`tx.origin`: a court's ruling is sent by the court) as a credit
    /// (`CallbackGasPaid`); the Disputed notice and `retryCallback` are not paid. Reverts unless
    /// `rules` names the parameter set and operator epoch in force and the quorum is reachable by
    /// the active operators.
    /// @param question The question, UTF-8, 1 to `MAX_QUESTION_LENGTH` bytes.
    /// @param resolveAfter Earliest timestamp of a report (0 = at once); evidence is accepted before it.
    /// @param rules The rules the asker expects and its optional callback.
    /// @return id The sequential id of the question, starting at 1.
    function askQuestion(string calldata question, uint64 resolveAfter, AskRules calldata rules)
        external
        payable
        returns (uint256 id);

    /// @notice Maximum length of a question in bytes.
    function MAX_QUESTION_LENGTH() external view returns (uint256);

    /// @notice The fixed-point scale of every probability and of kappa: 1e18 means 1 (certainty).
    function WAD() external view returns (uint256);

    /// @notice Shortest report window a parameter set may have (seconds).
    function MIN_REPORT_WINDOW() external view returns (uint256);

    /// @notice Shortest nonzero challenge window a parameter set may have (seconds).
    function MIN_CHALLENGE_WINDOW() external view returns (uint256);

    /// @notice Shortest arbitration window a parameter set may have (seconds).
    function MIN_ARBITRATION_WINDOW() external view returns (uint256);

    /// @notice Largest ask fee, dispute bond or evidence fee a parameter set may have (wei).
    function MAX_FEE() external view returns (uint256);

    /// @notice Most reports a verdict pools.
    function MAX_QUORUM() external view returns (uint256);

    /// @notice Largest `maxBallotsPerReport`.
    function MAX_BALLOTS_PER_REPORT() external view returns (uint256);

    /// @notice Most operator indices held at once (active operators, and removed ones that still
    /// hold stake or unsettled reports).
    function MAX_OPERATORS() external view returns (uint256);

    /// @notice Most gas an asker may give its consumer's callback.
    function MAX_CALLBACK_GAS() external view returns (uint256);

    /// @notice Gas an ask with a callback prepays beyond the callback's limit: the ask's surplus
    /// must be at least `(callbackGasLimit + CALLBACK_GAS_OVERHEAD) × tx.gasprice`.
    function CALLBACK_GAS_OVERHEAD() external view returns (uint256);

    /// @notice Most evidence items per question.
    function MAX_EVIDENCE_PER_QUESTION() external view returns (uint256);

    /// @notice Most evidence items one account may submit per question.
    function MAX_EVIDENCE_PER_SUBMITTER() external view returns (uint256);

    /// @notice The evidence fee doubles after every this many items of a question.
    function EVIDENCE_PRICE_STEP() external view returns (uint256);

    /// @notice Longest evidence URL in bytes.
    function MAX_URL_LENGTH() external view returns (uint256);

    /// @notice Longest evidence title in bytes.
    function MAX_TITLE_LENGTH() external view returns (uint256);

    /// @notice Longest evidence snippet in bytes.
    function MAX_SNIPPET_LENGTH() external view returns (uint256);

    /// @notice Share of every slashed stake and every lost dispute bond that is burned, in basis points.
    function BURN_BPS() external view returns (uint256);

    /// @notice Where burned wei are credited (an account nobody controls; they never leave the oracle).
    function BURN_ADDRESS() external view returns (address);

    /// @notice A report locks its question's `disputeBond` rounded down to a multiple of this (wei).
    function BOND_UNIT() external view returns (uint256);

    /// @notice The stored record of question `id`.
    /// @dev Reverts with `VeritasUnknownQuestion` for an id never asked.
    function getQuestion(uint256 id) external view returns (Question memory);

    /// @notice Number of questions asked so far (also the id of the latest one).
    function questionCount() external view returns (uint256);

    /*//////////////////////////////////////////////////////////////
                                EVIDENCE
    //////////////////////////////////////////////////////////////*/

    /// @notice Submit an evidence item for question `id` before its `resolveAfter`, paying exactly
    /// `nextEvidenceFee(id)`: the question's `evidenceFee`, doubled every `EVIDENCE_PRICE_STEP`
    /// items, at most `MAX_EVIDENCE_PER_SUBMITTER` items per account. Evidence fees never go to the
    /// reporters or the asker: they are burned once the question has a verdict and refunded to each
    /// submitter (`refundEvidence`) when it expires. Every field is emitted (and an
    /// ERC-1497 `Evidence` event for the question's court); the contract keeps only the question's
    /// item count and the global evidence hash chain.
    /// @param id The question id.
    /// @param url Where the evidence is, at most `MAX_URL_LENGTH` bytes.
    /// @param title Its title, at most `MAX_TITLE_LENGTH` bytes.
    /// @param snippet The relevant excerpt, at most `MAX_SNIPPET_LENGTH` bytes.
    /// @return index The item's number within question `id`, from 1.
    function submitEvidence(uint256 id, string calldata url, string calldata title, string calldata snippet)
        external
        payable
        returns (uint256 index);

    /// @notice Number of evidence items submitted for `id`.
    function evidenceCount(uint256 id) external view returns (uint256);

    /// @notice Head of the evidence hash chain over every submission to this contract:
    /// head_0 = keccak256(abi.encode(chainId, oracle)), then for each submission
    /// head_n = keccak256(abi.encode(head_{n-1}, id, submitter, url, title, snippet)).
    function evidenceHead() external view returns (bytes32);

    /*//////////////////////////////////////////////////////////////
                                REPORTS
    //////////////////////////////////////////////////////////////*/

    /// @notice Submit the caller's report for question `id`: operators of the question's epoch
    /// that are still active, once per operator, from `resolveAfter` until the report window
    /// closes. The quorum-th report posts the pooled verdict (`VerdictPosted`); a verdict final at
    /// once (no challenge window, not escalated) calls the question's consumer back. The report
    /// needs a valid ballot (`VeritasNoValidBallot`) and the question's report bond free in the caller's stake
    /// (`VeritasInsufficientStake`), which it locks until the question settles.
    /// @param id The question id.
    /// @param merkleRoot RFC 6962 SHA-256 Merkle root over the question and the operator's bundle.
    /// @param nYes Valid YES ballots of the committee.
    /// @param nNo Valid NO ballots.
    /// @param nNull Valid NULL ballots; nYes + nNo + nNull <= the question's `maxBallotsPerReport`.
    /// @param fleissKappa WAD-scaled Fleiss' kappa of the committee, in [-1e18, 1e18].
    /// @param escalated True when the operator's routing asks for the court.
    /// @param notYet True when the operator's routing finds the outcome not knowable yet (the
    /// question's deadline has not passed and the committee did not find that the event already
    /// happened). When more than half of the quorum's reports say so, the quorum-th report defers
    /// the question instead of posting a verdict (`QuestionDeferred`), and every report bond of
    /// that round is released; after `MAX_DEFERRALS` deferrals it escalates instead.
    function submitReport(
        uint256 id,
        bytes32 merkleRoot,
        uint16 nYes,
        uint16 nNo,
        uint16 nNull,
        int256 fleissKappa,
        bool escalated,
        bool notYet
    ) external;

    /// @notice Submit many reports of the caller in one transaction. A stale report (question no
    /// longer open, report window closed, already reported by the caller, or asked before the
    /// caller's latest addition) is skipped with `ReportSkipped`; any other invalid report reverts
    /// the whole batch.
    /// @return submitted Number of reports accepted.
    function submitReports(Report[] calldata reports) external returns (uint256 submitted);

    /// @notice After the report window of `id`, anyone may close it: with at least one report the
    /// pooled verdict is posted escalated (quorum not met); with none the question is Expired, its
    /// fee is credited back to the asker and the consumer is called back. On a commit-reveal
    /// question with commits, only after the reveal deadline (`VeritasReportWindowOpen` names it):
    /// the bond of every commit not revealed is slashed and burned (`CommitSlashed`); then, the
    /// first two times a commit was withheld, the commit phase reopens for `revealWindow` seconds
    /// for the missing count (the revealed reports stay pooled; the withholders cannot commit
    /// again; spare operators commit, and the quorum-th commit opens a new reveal phase), and
    /// `finalize` is due again at that phase's end; otherwise the revealed reports are pooled as
    /// above (none revealed: Expired).
    function finalize(uint256 id) external;

    /// @notice Commit to a report on the commit-reveal question `id` (its parameter set has a
    /// `revealWindow` and a quorum above 1): the report itself stays hidden until the reveal phase,
    /// so no operator can copy another's report or choose its own after a look at the tally.
    /// @dev Only in the commit phase (from `resolveAfter` until the quorum-th commit or the end of
    /// the report window, or of a phase `finalize` reopened for withheld commits), once per operator, by an operator that `canReport`. Locks the question's
    /// report bond of the caller's stake exactly as a report does (`VeritasInsufficientStake`). The
    /// quorum-th commit opens the reveal phase at once, for `revealWindow` seconds; otherwise it
    /// opens when the report window closes with at least one commit. Emits `ReportCommitted`.
    /// @param id The question id.
    /// @param commitment `reportCommitment(id, msg.sender, ...)` of the report to reveal; nonzero.
    function commitReport(uint256 id, bytes32 commitment) external;

    /// @notice Reveal the report committed to on `id` (the fields of `submitReport` and the salt).
    /// @dev Only in the reveal phase and by the committer. The report must hash to the commitment
    /// (`VeritasCommitmentMismatch`) and pass every check of `submitReport` (a valid ballot, the
    /// ballot cap, kappa's range); it is then pooled exactly as a report (`ReportSubmitted`). The
    /// last reveal of the commits posts the pooled verdict: as at the quorum, or escalated
    /// (window closed) when fewer than the quorum committed. A commit not revealed by the deadline
    /// loses its bond at `finalize`.
    /// @param id The question id.
    /// @param merkleRoot As `submitReport`'s.
    /// @param nYes As `submitReport`'s.
    /// @param nNo As `submitReport`'s.
    /// @param nNull As `submitReport`'s.
    /// @param fleissKappa As `submitReport`'s.
    /// @param escalated As `submitReport`'s.
    /// @param notYet As `submitReport`'s.
    /// @param salt The secret the commitment was made with (random, 32 bytes; never reused).
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
    ) external;

    /// @notice The commitment `reporter` sends to `commitReport` for this report on `id`:
    /// keccak256(abi.encode(id, reporter, merkleRoot, nYes, nNo, nNull, fleissKappa, escalated,
    /// notYet, salt)). The reporter's address is bound in, so a copied commitment cannot be revealed by
    /// anyone else.
    /// @param id The question id.
    /// @param reporter The committing operator.
    /// @param merkleRoot The report's root.
    /// @param nYes The report's YES ballots.
    /// @param nNo The report's NO ballots.
    /// @param nNull The report's NULL ballots.
    /// @param fleissKappa The report's kappa.
    /// @param escalated The report's escalation flag.
    /// @param notYet The report's "not yet" flag.
    /// @param salt The reporter's secret salt.
    /// @return The commitment.
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
    ) external pure returns (bytes32);

    /// @notice The commit-reveal phase of `id` now.
    /// @param id The question id.
    /// @return phase 0: not a commit-reveal question, or no longer open; 1: commit (from
    /// `resolveAfter`; `deadline` is the end of the report window); 2: reveal (until `deadline`);
    /// 3: over, `finalize` is due (after `deadline`).
    /// @return deadline See `phase`.
    /// @return commits The commits made.
    function commitPhase(uint256 id) external view returns (uint8 phase, uint256 deadline, uint256 commits);

    /// @notice `operator`'s unrevealed commitment on `id` (zero when none, or once revealed or slashed).
    function commitmentOf(uint256 id, address operator) external view returns (bytes32);

    /// @notice Whether `operator` has submitted a report on `id`.
    function hasReported(uint256 id, address operator) external view returns (bool);

    /// @notice Whether `operator` may report (or commit) on `id` now (an active operator of its
    /// epoch that has not reported nor committed; the question's timing is not checked).
    function canReport(uint256 id, address operator) external view returns (bool);

    /// @notice The reports pooled so far for `id`: how many, and the summed counts.
    function tally(uint256 id) external view returns (uint256 reports, uint256 nYes, uint256 nNo, uint256 nNull);

    /*//////////////////////////////////////////////////////////////
                           VERDICTS AND THE COURT
    //////////////////////////////////////////////////////////////*/

    /// @notice Ruling: the court refused to arbitrate; the question defaults (ERC-792's 0).
    function RULING_REFUSED() external view returns (uint256);

    /// @notice Ruling: the posted pooled verdict stands; the reporters win a dispute.
    function RULING_VERDICT_STANDS() external view returns (uint256);

    /// @notice Ruling: YES, triple (1e18 - 2, 1, 1); a disputer wins.
    function RULING_YES() external view returns (uint256);

    /// @notice Ruling: NO, triple (1, 1e18 - 2, 1); a disputer wins.
    function RULING_NO() external view returns (uint256);

    /// @notice Ruling: unresolvable, triple (1, 1, 1e18 - 2); a disputer wins.
    function RULING_UNRESOLVABLE() external view returns (uint256);

    /// @notice Ruling: too early to tell. The question is deferred (`QuestionDeferred`) instead of
    /// ending: every reporter whose report did not say "not yet" is slashed as for a ruling against
    /// it (a disputer wins and gets its bond back; an escalation's requester is paid from the
    /// slashed bonds), and the ask fee and evidence fees stay for the question's end. At the
    /// deferral bound (`MAX_DEFERRALS`, or past the horizon) it counts as `RULING_UNRESOLVABLE`.
    function RULING_TOO_EARLY() external view returns (uint256);

    /// @notice Ruling (disputes only): the disputer's claimed triple; the disputer wins.
    function RULING_DISPUTER_TRIPLE() external view returns (uint256);

    /// @notice Deferrals a question may have (by "not yet" reports or the court); the next "not
    /// yet" majority escalates.
    function MAX_DEFERRALS() external view returns (uint256);

    /// @notice Seconds from a deferral to the next report round, by the deferrals before it
    /// (`count` from 0): 1 h, 6 h, 1 d, 3 d, 7 d, 14 d, 30 d.
    function deferralDelay(uint256 count) external view returns (uint256);

    /// @notice How many times `id` was deferred, and when its reports open (while it is Asked;
    /// the time of its last status change otherwise).
    function deferral(uint256 id) external view returns (uint256 count, uint256 reportsOpenAt);

    /// @notice Post a clarification of question `id`: the asker's words, shown to every juror
    /// after the question and committed in the evidence root right after it (the text lives only
    /// in `QuestionClarified`). Only the asker, only while `id` has no report, no commit and no
    /// deferral (`VeritasClarificationClosed`), 1 to `MAX_CLARIFICATION_LENGTH` bytes, at most
    /// `MAX_CLARIFICATIONS`.
    /// @param id The question id.
    /// @param text The clarification (UTF-8; jurors read it as untrusted text).
    function clarify(uint256 id, string calldata text) external;

    /// @notice Clarifications of `id` so far.
    function clarificationCount(uint256 id) external view returns (uint256);

    /// @notice Clarifications a question may have.
    function MAX_CLARIFICATIONS() external view returns (uint256);

    /// @notice Bytes a clarification may have.
    function MAX_CLARIFICATION_LENGTH() external view returns (uint256);

    /// @notice The choices a dispute offers its court (ERC-792 `createDispute`'s `choices`).
    function DISPUTE_CHOICES() external view returns (uint256);

    /// @notice The choices an escalation taken to the court offers it (no disputer's triple).
    function ESCALATION_CHOICES() external view returns (uint256);

    /// @notice Dispute the Resolved verdict of `id` within its challenge window, claiming the
    /// triple you hold right. `msg.value` pays the court's `arbitrationCost` exactly and bonds the
    /// rest (at least the question's `disputeBond`). One dispute per question; the question's
    /// arbitrator may not dispute (and our reference court, `VeritasCourt`, refuses a judge who is the
    /// disputer or a reporter of the question). Whatever the dispute wins is credited to
    /// `beneficiary` (a relayer or a contract may dispute for someone else).
    /// @dev Money: the disputer wins on any ruling but `RULING_VERDICT_STANDS`: bond back, the
    /// question's fee, and the slashed report bonds of the reporters whose leading outcome differs
    /// from the final one, less `BURN_BPS` of them (burned). When the verdict stands, `BURN_BPS` of
    /// the bond is burned and the rest goes with the fee to the reporters who agree with it.
    /// Defaulted: the bond goes back to the beneficiary, the fee to the asker.
    /// @return disputeId The arbitrator's id of the case.
    function dispute(uint256 id, uint256 pYes, uint256 pNo, uint256 pNull, address beneficiary)
        external
        payable
        returns (uint256 disputeId);

    /// @notice Take the Escalated verdict of `id` to its court, paying exactly `arbitrationCost`.
    /// Anyone may, until the question's court deadline (posting + arbitrationWindow).
    /// @return disputeId The arbitrator's id of the case.
    function requestArbitration(uint256 id) external payable returns (uint256 disputeId);

    /// @notice Fund an appeal of the ruling on `id` (forwarded to the arbitrator's `appeal`, which
    /// checks the amount and the appeal period); moves the court deadline to now + arbitrationWindow.
    /// The oracle records the ruling in force (the arbitrator's `currentRuling`): when the final
    /// ruling differs from it, the appeal won and its fee is refunded (`Credited`) from what the
    /// losing side forfeits (the slashed report bonds, or the losing disputer's bond), before
    /// the burn, in the order the appeals were funded; a default refunds none.
    function appeal(uint256 id) external payable;

    /// @notice What the court of `id` charges now: the arbitration cost (before a case exists) or
    /// the appeal cost (once it does).
    function courtCost(uint256 id) external view returns (uint256);

    /// @notice Close `id` when its court failed it: a case with no ruling by the court deadline,
    /// or an escalation nobody took to court by then. Anyone may call it. The question becomes
    /// `Defaulted` with the unresolvable triple, the disputer's bond is credited back, the fee
    /// goes back to the asker (no reporter is paid for a verdict that was never confirmed), the
    /// report bonds are released, and the consumer is called back.
    function resolveByDefault(uint256 id) external;

    /// @notice When the court of `id` must have ruled (or an escalation be taken there); 0 when the
    /// question is not Escalated or Disputed.
    function courtDeadline(uint256 id) external view returns (uint256);

    /// @notice The case of `id` before its court (all zero when none).
    function getCase(uint256 id) external view returns (Case memory);

    /// @notice The question and disputer of dispute `disputeId` of `arbitrator` (zero when unknown);
    /// a court uses it to refuse judges who are parties.
    function caseOf(address arbitrator, uint256 disputeId) external view returns (uint256 id, address disputer);

    /// @notice ERC-792: the question's arbitrator gives its final ruling on its dispute `disputeId`
    /// (0..5 for a dispute, 0..4 for an escalation; see `RULING_*`). Only the arbitrator of a
    /// known case may call it; a ruling on a question that already defaulted (or after its court
    /// deadline) changes nothing and emits `LateRulingIgnored` instead of reverting.
    function rule(uint256 disputeId, uint256 ruling) external;

    /// @notice Once the Resolved verdict of `id` is final, credit its fee to the reporters whose
    /// leading outcome is the verdict's, burn its evidence fees, release its report bonds and call
    /// the consumer back. Anyone may call it, once (an operator calls it to free its stake).
    function settle(uint256 id) external;

    /// @notice Call the consumer of `id` again with the question's current status, after a
    /// `CallbackFailed`. Anyone may call it.
    function retryCallback(uint256 id) external;

    /// @notice Whether a callback of `id` failed and was not yet delivered.
    function callbackOwed(uint256 id) external view returns (bool);

    /// @notice Pay the caller all its credits.
    /// @return amount Wei sent.
    function withdraw() external returns (uint256 amount);

    /// @notice Wei the caller of `withdraw` would receive.
    function credits(address account) external view returns (uint256);

    /// @notice Wei held for `id` and not yet credited (the ask fee and the evidence fees): 0 once
    /// settled (an expired question's evidence fees wait for `refundEvidence`: see `evidenceOf`).
    function pendingFee(uint256 id) external view returns (uint256);

    /// @notice The verdict of question `id`, in the seed's reading shape.
    /// @dev Reverts with `VeritasVerdictNotFound` when there is none; check `verdictStatus` or
    /// `isFinal` first. A verdict may still change until `isFinal(id)`.
    /// @return questionHash sha256 of the question text.
    /// @return merkleRoot Evidence root (one report) or the digest of the reports' roots.
    /// @return pYes WAD-scaled probability of YES.
    /// @return pNo WAD-scaled probability of NO.
    /// @return pNull WAD-scaled probability of NULL.
    /// @return fleissKappa WAD-scaled Fleiss' kappa (signed; the minimum of the reports').
    /// @return timestamp Block timestamp of the posting (or of the ruling or default).
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
        );

    /// @notice The lifecycle status of `id`; never reverts (`None` for an unknown id).
    function verdictStatus(uint256 id) external view returns (VerdictStatus);

    /// @notice Whether `id` will never change again: Resolved past its challenge window,
    /// Arbitrated, Expired or Defaulted. Integrators act only on a final question.
    function isFinal(uint256 id) external view returns (bool);

    /// @notice When `id` becomes (or became) final: the end of a Resolved verdict's challenge window,
    /// the ruling, expiry or default time; 0 while unknown (Asked, Escalated, Disputed).
    function finalAt(uint256 id) external view returns (uint256);

    /// @notice Number of pooled verdicts posted so far (O(1)).
    function verdictCount() external view returns (uint256);

    /*//////////////////////////////////////////////////////////////
                           STAKE AND EVIDENCE
    //////////////////////////////////////////////////////////////*/

    /// @notice Add `msg.value` to the stake of `operator` (anyone may fund an operator; only the
    /// operator withdraws). Each report locks the question's report bond (`disputeBond`, in whole
    /// `BOND_UNIT`s; nothing for a set without a challenge window) of the reporter's free stake
    /// until the question settles; a verdict the court
    /// overturns slashes the locked bond of every reporter whose leading outcome lost.
    function stake(address operator) external payable;

    /// @notice Withdraw `amount` wei of the caller's free (unlocked) stake; credited at once and
    /// sent like any credit by `withdraw`. An operator that was removed and holds no stake or
    /// unsettled report gives its index back (`OperatorIndexReleased`).
    function withdrawStake(uint256 amount) external;

    /// @notice The stake of `operator`: total wei, wei locked by unsettled reports, and how many
    /// unsettled reports it has.
    function operatorStake(address operator) external view returns (uint256 staked, uint256 locked, uint256 openReports);

    /// @notice Free the index of a removed `operator` with no stake and no unsettled report, so a
    /// new operator can use it. Anyone may call it.
    function releaseIndex(address operator) external;

    /// @notice On an Expired question, credit the caller the evidence fees it paid for `id`.
    /// @return amount Wei credited.
    function refundEvidence(uint256 id) external returns (uint256 amount);

    /// @notice What the next evidence item of `id` costs: `evidenceFee` doubled every
    /// `EVIDENCE_PRICE_STEP` items already submitted.
    function nextEvidenceFee(uint256 id) external view returns (uint256);

    /// @notice Evidence fees `account` paid for `id` and the number of its items.
    function evidenceOf(uint256 id, address account) external view returns (uint256 paid, uint256 items);

    /// @notice Set the farthest `resolveAfter` an ask may name, in seconds after the ask (1 day to
    /// 100 years; one year at deployment). Owner only; applies to later asks.
    function setMaxHorizon(uint32 seconds_) external;

    /// @notice The farthest `resolveAfter` an ask may name, in seconds after the ask.
    function maxHorizon() external view returns (uint256);

    /*//////////////////////////////////////////////////////////////
                               PARAMETERS
    //////////////////////////////////////////////////////////////*/

    /// @notice Create a parameter set for questions asked from now on, with the ERC-1497
    /// `metaEvidence` URI a court's interface shows for them. Owner only. Open questions keep theirs.
    /// @return parametersId The new set's id.
    function setParameters(Parameters calldata parameters, string calldata metaEvidence)
        external
        returns (uint16 parametersId);

    /// @notice The id of the parameter set in force (what an ask must pin).
    function parametersId() external view returns (uint16);

    /// @notice The parameters in force now (those of the next question).
    function parameters() external view returns (Parameters memory);

    /// @notice The parameters that govern question `id` (fixed when it was asked).
    function questionParameters(uint256 id) external view returns (Parameters memory);

    /// @notice Parameter set `parametersId` (every set ever created stays readable).
    function parameterSet(uint16 parametersId) external view returns (Parameters memory);

    /*//////////////////////////////////////////////////////////////
                                 ROLES
    //////////////////////////////////////////////////////////////*/

    /// @notice The current owner.
    function owner() external view returns (address);

    /// @notice The owner proposed by `transferOwnership`, until accepted.
    function pendingOwner() external view returns (address);

    /// @notice Step one of an ownership transfer: propose `newOwner`. Owner only.
    function transferOwnership(address newOwner) external;

    /// @notice Step two of an ownership transfer: the pending owner accepts.
    function acceptOwnership() external;

    /// @notice Allow `operator` to report on questions asked from the next epoch on. Owner only.
    /// Starts a new operator epoch.
    function addOperator(address operator) external;

    /// @notice Stop `operator` from reporting on any question, open ones included. Owner only.
    /// Starts a new operator epoch.
    function removeOperator(address operator) external;

    /// @notice Whether `account` is an active operator.
    function isOperator(address account) external view returns (bool);

    /// @notice The operator epoch in force (what an ask must pin); it changes with every operator
    /// addition or removal.
    function operatorEpoch() external view returns (uint32);

    /// @notice Number of active operators now.
    function activeOperatorCount() external view returns (uint256);
}
