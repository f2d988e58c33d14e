// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Script} from "forge-std/Script.sol";
import {Shipped} from "./Shipped.sol";
import {VeritasCourt} from "../contracts/court/VeritasCourt.sol";
import {IVeritasOracle} from "../contracts/interfaces/IVeritasOracle.sol";

/// @title Deploy
/// @notice Deploys VeritasOracle (and, unless an arbitrator is given, a VeritasCourt), grants its
/// roles, creates its parameter set from the environment, and records the deployment in
/// `deployments/<chainId>.json`.
/// @dev Environment:
///   PRIVATE_KEY               deployer key (required; `make deploy-local` defaults it to anvil's account 0)
///   VERITAS_OPERATORS         comma-separated operator addresses (default: the deployer)
///   VERITAS_ARBITRATOR        an existing ERC-792 arbitrator (e.g. a Kleros court); when unset a
///                             VeritasCourt is deployed:
///   VERITAS_JUDGES            the court's judges, comma-separated, round 0 first (default: the deployer)
///   VERITAS_COURT_COST        wei per dispute (default 0 on the local chain; required elsewhere)
///   VERITAS_APPEAL_COST       wei per appeal (default 0 on the local chain; required elsewhere)
///   VERITAS_APPEAL_PERIOD     seconds a ruling can be appealed (default 3600)
///   VERITAS_ARBITRATOR_EXTRA_DATA  hex bytes passed to the arbitrator (default empty)
///   VERITAS_META_EVIDENCE     ERC-1497 meta-evidence URI of the parameter set (default empty)
///   VERITAS_OWNER             if set and not the deployer, proposed as owner; it must call
///                             `acceptOwnership()` itself (two-step transfer).
/// Parameters of the questions (every value is range-checked before it is cast):
///   VERITAS_QUORUM            reports that finalise a verdict, 1..7 (default 1)
///   VERITAS_MAX_BALLOTS       ballots per report, 1..9000 (default 30)
///   VERITAS_REPORT_WINDOW     seconds after resolveAfter to report, >= 30 (default 86400)
///   VERITAS_CHALLENGE_WINDOW  seconds a verdict can be disputed: 0 or >= 60 (default 0: final at once)
///   VERITAS_ARBITRATION_WINDOW seconds the court has to rule, >= 3600 (default 86400)
///   VERITAS_ASK_FEE           wei per question (default 0)
///   VERITAS_DISPUTE_BOND      wei per dispute (default 0; > 0 with a challenge window)
///   VERITAS_EVIDENCE_FEE      wei per evidence item (doubles every 8 items of a question; default 0
///                             on the local chain, required elsewhere)
///   VERITAS_REVEAL_WINDOW     seconds of the reveal phase: 0 (reports in the clear) or 30..604800
///                             (commit-reveal with quorum > 1; default 0 on the local chain,
///                             required and nonzero elsewhere). There is no separate commit
///                             window: commits are taken during VERITAS_REPORT_WINDOW, and the
///                             quorum-th commit opens the reveal phase (VERITAS_COMMIT_WINDOW is
///                             refused so that nobody believes it was applied).
///   VERITAS_OPERATOR_STAKE    wei the deployer stakes for each operator (default 0 on the local
///                             chain, required elsewhere; an explicit 0 leaves staking to the
///                             operators). Each report locks the question's dispute bond of its
///                             operator's stake, so operators need at least one bond per open report.
/// The local default (chain id 31337, `make deploy-local`, no variable but PRIVATE_KEY): the
/// deployer is the only operator and the only judge, quorum 1, no challenge window, reports in the
/// clear, every fee, cost and stake 0: one key decides every verdict, final at once, with nothing
/// at stake. That is what a demo on anvil needs and nothing else, so on any other chain the script
/// refuses, unless VERITAS_ALLOW_WEAK_RULES=1: quorum 1; a zero challenge window; reports in the
/// clear (no VERITAS_REVEAL_WINDOW: an operator copies the others' reports and looks last); roles
/// left implicit (operators, judges or owner defaulting to the deployer); and an evidence fee,
/// court cost, appeal cost or operator stake left unset (each defaults to 0, which makes evidence
/// spam, disputes and appeals free; an explicit 0 is a choice, a missing variable is not).
/// A script cannot know the hash or block of the transactions it broadcasts, so this file leaves
/// out `txHash` and `deployBlock`; `script/record-deployment.js` adds them from forge's broadcast
/// receipts.
contract Deploy is Script {
    /// @dev anvil's chain id: the only chain where weak rules are the default.
    uint256 internal constant LOCAL_CHAIN_ID = 31337;

    /// @dev What `run` decided, kept for the record.
    struct Plan {
        address deployer;
        address[] operators;
        address[] judges;
        address arbitrator;
        address newOwner;
        bool implicitRoles;
    }

    function run() external returns (IVeritasOracle oracle) {
        uint256 key = vm.envUint("PRIVATE_KEY");
        Plan memory plan;
        plan.deployer = vm.addr(key);

        address[] memory deployerOnly = new address[](1);
        deployerOnly[0] = plan.deployer;
        plan.implicitRoles = !_has("VERITAS_OPERATORS") || !_has("VERITAS_OWNER");
        plan.operators = _has("VERITAS_OPERATORS") ? vm.envAddress("VERITAS_OPERATORS", ",") : deployerOnly;
        if (_has("VERITAS_ARBITRATOR")) {
            plan.arbitrator = vm.envAddress("VERITAS_ARBITRATOR");
        } else {
            if (!_has("VERITAS_JUDGES")) plan.implicitRoles = true;
            plan.judges = _has("VERITAS_JUDGES") ? vm.envAddress("VERITAS_JUDGES", ",") : deployerOnly;
        }
        if (_has("VERITAS_OWNER")) plan.newOwner = vm.envAddress("VERITAS_OWNER");

        IVeritasOracle.Parameters memory params = _parameters();
        _checkRules(params, plan);
        uint256 courtCost = _env("VERITAS_COURT_COST", 0, 0, 1000 ether);
        uint256 appealCost = _env("VERITAS_APPEAL_COST", 0, 0, 1000 ether);
        uint256 appealPeriod = _env("VERITAS_APPEAL_PERIOD", 1 hours, 0, 365 days);
        string memory metaEvidence = _has("VERITAS_META_EVIDENCE") ? vm.envString("VERITAS_META_EVIDENCE") : "";
        uint256 operatorStake = _env("VERITAS_OPERATOR_STAKE", 0, 0, type(uint96).max);

        vm.startBroadcast(key);
        if (plan.arbitrator == address(0)) {
            plan.arbitrator = address(new VeritasCourt(plan.judges, courtCost, appealCost, appealPeriod));
        }
        oracle = Shipped.oracle(plan.deployer);
        for (uint256 i = 0; i < plan.operators.length; i++) {
            oracle.addOperator(plan.operators[i]);
            if (operatorStake != 0) oracle.stake{value: operatorStake}(plan.operators[i]);
        }
        params.arbitrator = plan.arbitrator;
        oracle.setParameters(params, metaEvidence);
        if (plan.newOwner != address(0) && plan.newOwner != plan.deployer) {
            oracle.transferOwnership(plan.newOwner);
        }
        vm.stopBroadcast();

        _record(oracle, plan);
    }

    /// @dev The question parameters from the environment, each range-checked before its cast.
    function _parameters() internal view returns (IVeritasOracle.Parameters memory p) {
        // The casts cannot truncate: each value was range-checked by `_env` just before.
        // forge-lint: disable-start(unsafe-typecast)
        p.quorum = uint8(_env("VERITAS_QUORUM", 1, 1, 7));
        p.maxBallotsPerReport = uint16(_env("VERITAS_MAX_BALLOTS", 30, 1, 9000));
        p.reportWindow = uint32(_env("VERITAS_REPORT_WINDOW", 1 days, 30, type(uint32).max));
        p.challengeWindow = uint32(_env("VERITAS_CHALLENGE_WINDOW", 0, 0, type(uint32).max));
        p.arbitrationWindow = uint32(_env("VERITAS_ARBITRATION_WINDOW", 1 days, 1 hours, type(uint32).max));
        p.askFee = uint96(_env("VERITAS_ASK_FEE", 0, 0, 1000 ether));
        p.disputeBond = uint96(_env("VERITAS_DISPUTE_BOND", 0, 0, 1000 ether));
        p.evidenceFee = uint96(_env("VERITAS_EVIDENCE_FEE", 0, 0, 1000 ether));
        p.revealWindow = uint32(_env("VERITAS_REVEAL_WINDOW", 0, 0, 7 days));
        // forge-lint: disable-end(unsafe-typecast)
        if (p.revealWindow != 0 && p.revealWindow < 30) {
            revert(
                string.concat(
                    "Deploy: VERITAS_REVEAL_WINDOW=", vm.toString(p.revealWindow), " is neither 0 nor within 30..604800"
                )
            );
        }
        if (_has("VERITAS_COMMIT_WINDOW")) {
            revert(
                "Deploy: VERITAS_COMMIT_WINDOW does not exist: commits are taken during VERITAS_REPORT_WINDOW and the quorum-th commit opens the reveal phase"
            );
        }
        if (_has("VERITAS_ARBITRATOR_EXTRA_DATA")) {
            p.arbitratorExtraData = vm.envBytes("VERITAS_ARBITRATOR_EXTRA_DATA");
        }
    }

    /// @dev Whether `name` is set to something (an empty variable counts as unset).
    function _has(string memory name) internal view returns (bool) {
        return vm.envExists(name) && bytes(vm.envString(name)).length > 0;
    }

    /// @dev `name` from the environment (default `fallback_`), reverting with a clear message
    /// unless it lies in [min, max].
    function _env(string memory name, uint256 fallback_, uint256 min, uint256 max) internal view returns (uint256 v) {
        v = _has(name) ? vm.envUint(name) : fallback_;
        if (v < min || v > max) {
            revert(
                string.concat(
                    "Deploy: ", name, "=", vm.toString(v), " is outside ", vm.toString(min), "..", vm.toString(max)
                )
            );
        }
    }

    /// @dev On a public chain, refuses rules that let one key decide, reports in the clear, and
    /// money rules left at their local defaults, unless explicitly allowed.
    function _checkRules(IVeritasOracle.Parameters memory p, Plan memory plan) internal view {
        if (block.chainid == LOCAL_CHAIN_ID) return;
        if (_has("VERITAS_ALLOW_WEAK_RULES")) {
            bytes32 allow = keccak256(bytes(vm.envString("VERITAS_ALLOW_WEAK_RULES")));
            if (allow == keccak256("1") || allow == keccak256("true")) return;
        }
        if (p.quorum == 1) {
            revert("Deploy: VERITAS_QUORUM=1 lets one operator decide (VERITAS_ALLOW_WEAK_RULES=1 to allow)");
        }
        if (p.challengeWindow == 0) {
            revert("Deploy: VERITAS_CHALLENGE_WINDOW=0 leaves no dispute (VERITAS_ALLOW_WEAK_RULES=1 to allow)");
        }
        if (p.revealWindow == 0) {
            revert(
                "Deploy: no VERITAS_REVEAL_WINDOW leaves reports in the clear, to be copied (VERITAS_ALLOW_WEAK_RULES=1 to allow)"
            );
        }
        if (plan.implicitRoles) {
            revert(
                "Deploy: set VERITAS_OPERATORS, VERITAS_OWNER and VERITAS_JUDGES (or VERITAS_ARBITRATOR) explicitly (VERITAS_ALLOW_WEAK_RULES=1 to allow)"
            );
        }
        _requireExplicit("VERITAS_EVIDENCE_FEE");
        _requireExplicit("VERITAS_OPERATOR_STAKE");
        // A given arbitrator prices its own rulings; the court's costs are the script's only when
        // it deploys the court.
        if (!_has("VERITAS_ARBITRATOR")) {
            _requireExplicit("VERITAS_COURT_COST");
            _requireExplicit("VERITAS_APPEAL_COST");
        }
    }

    /// @dev Reverts unless `name` is set: its local default (0) is no choice on a public chain.
    function _requireExplicit(string memory name) internal view {
        if (!_has(name)) {
            revert(
                string.concat(
                    "Deploy: set ",
                    name,
                    " explicitly (0 is allowed; unset is not) (VERITAS_ALLOW_WEAK_RULES=1 to allow)"
                )
            );
        }
    }

    /// @dev Writes `deployments/<chainId>.json`; keys are documented in deployments/README.md.
    function _record(IVeritasOracle oracle, Plan memory plan) private {
        string memory key = "deployment";
        vm.serializeString(key, "contract", "VeritasOracle");
        vm.serializeAddress(key, "address", address(oracle));
        vm.serializeUint(key, "chainId", block.chainid);
        vm.serializeAddress(key, "deployer", plan.deployer);
        vm.serializeAddress(key, "owner", oracle.owner());
        vm.serializeAddress(key, "pendingOwner", oracle.pendingOwner());
        vm.serializeAddress(key, "operators", plan.operators);
        vm.serializeUint(key, "parametersId", oracle.parametersId());
        vm.serializeUint(key, "operatorEpoch", oracle.operatorEpoch());
        vm.serializeAddress(key, "judges", plan.judges);
        vm.serializeAddress(key, "court", plan.judges.length > 0 ? plan.arbitrator : address(0));
        string memory json = vm.serializeAddress(key, "arbitrator", plan.arbitrator);
        vm.writeJson(json, string.concat("deployments/", vm.toString(block.chainid), ".json"));
    }
}
