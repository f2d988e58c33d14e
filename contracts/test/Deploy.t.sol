// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Test} from "forge-std/Test.sol";
import {Deploy} from "../../script/Deploy.s.sol";
import {Shipped} from "../../script/Shipped.sol";
import {VeritasCourt} from "../court/VeritasCourt.sol";
import {IVeritasOracle} from "../interfaces/IVeritasOracle.sol";

/// @notice The deploy script grants the roles it reads from the environment, deploys a court
/// unless given an arbitrator, refuses weak rules on a public chain, range-checks every value and
/// records the deployment.
contract DeployTest is Test {
    uint256 internal constant CHAIN_ID = 4_242_424;
    uint256 internal constant KEY = 0xA11CE;

    string[] internal _vars = [
        "VERITAS_OPERATORS",
        "VERITAS_ARBITRATOR",
        "VERITAS_JUDGES",
        "VERITAS_OWNER",
        "VERITAS_QUORUM",
        "VERITAS_MAX_BALLOTS",
        "VERITAS_REPORT_WINDOW",
        "VERITAS_CHALLENGE_WINDOW",
        "VERITAS_ARBITRATION_WINDOW",
        "VERITAS_ASK_FEE",
        "VERITAS_DISPUTE_BOND",
        "VERITAS_EVIDENCE_FEE",
        "VERITAS_ALLOW_WEAK_RULES",
        "VERITAS_COURT_COST",
        "VERITAS_APPEAL_COST",
        "VERITAS_OPERATOR_STAKE",
        "VERITAS_REVEAL_WINDOW",
        "VERITAS_COMMIT_WINDOW"
    ];

    address internal op1 = makeAddr("op1");
    address internal op2 = makeAddr("op2");
    address internal judge1 = makeAddr("judge1");
    address internal newOwner = makeAddr("newOwner");

    /// @dev The environment is shared by the whole process (and forge runs tests in parallel):
    /// every scenario runs here, one after the other, each from a clean environment.
    function test_DeployScenarios() public {
        _reset();
        _DeployReadsRolesFromEnvAndWritesRecord();
        _reset();
        _UsesAGivenArbitrator();
        _reset();
        _RevertIf_WeakRulesOnAPublicChain();
        _reset();
        _LocalChainAllowsTheDefaults();
        _reset();
        _RevertIf_ValuesOutOfRange();
        _reset();
        _RevertIf_ClearTextSetOnAPublicChain();
        _reset();
        _RevertIf_MoneyRulesLeftUnsetOnAPublicChain();
        _reset();
        _RevertIf_ACommitWindowIsGiven();
        _reset();
    }

    function _reset() internal {
        // A chain id of its own, so the record never clobbers a real deployments/<chainId>.json.
        vm.chainId(CHAIN_ID);
        vm.setEnv("PRIVATE_KEY", vm.toString(KEY));
        for (uint256 i = 0; i < _vars.length; i++) {
            vm.setEnv(_vars[i], "");
        }
    }

    /// @dev A complete, strong configuration for a public chain.
    function _strongEnv() internal {
        vm.setEnv("VERITAS_OPERATORS", string.concat(vm.toString(op1), ",", vm.toString(op2)));
        vm.setEnv("VERITAS_JUDGES", vm.toString(judge1));
        vm.setEnv("VERITAS_OWNER", vm.toString(newOwner));
        vm.setEnv("VERITAS_QUORUM", "2");
        vm.setEnv("VERITAS_CHALLENGE_WINDOW", "86400");
        vm.setEnv("VERITAS_ASK_FEE", "10000000000000000");
        vm.setEnv("VERITAS_DISPUTE_BOND", "100000000000000000");
        vm.setEnv("VERITAS_COURT_COST", "50000000000000000");
        vm.setEnv("VERITAS_APPEAL_COST", "50000000000000000");
        vm.setEnv("VERITAS_EVIDENCE_FEE", "0");
        vm.setEnv("VERITAS_OPERATOR_STAKE", "0");
        vm.setEnv("VERITAS_REVEAL_WINDOW", "3600");
    }

    function _path() internal pure returns (string memory) {
        return string.concat("deployments/", vm.toString(CHAIN_ID), ".json");
    }

    function _DeployReadsRolesFromEnvAndWritesRecord() internal {
        _strongEnv();
        address deployer = vm.addr(KEY);
        IVeritasOracle oracle = new Deploy().run();

        assertTrue(oracle.isOperator(op1));
        assertTrue(oracle.isOperator(op2));
        assertFalse(oracle.isOperator(deployer));
        assertEq(oracle.owner(), deployer);
        assertEq(oracle.pendingOwner(), newOwner);
        IVeritasOracle.Parameters memory p = oracle.parameters();
        assertEq(p.quorum, 2);
        assertEq(p.maxBallotsPerReport, 30);
        assertEq(p.reportWindow, 1 days);
        assertEq(p.challengeWindow, 86400);
        assertEq(p.arbitrationWindow, 1 days);
        assertEq(p.askFee, 0.01 ether);
        assertEq(p.disputeBond, 0.1 ether);
        assertEq(p.evidenceFee, 0);
        assertEq(p.revealWindow, 3600);
        VeritasCourt court = VeritasCourt(p.arbitrator);
        assertEq(court.judges()[0], judge1);
        assertEq(court.ARBITRATION_COST(), 0.05 ether);

        string memory json = vm.readFile(_path());
        vm.removeFile(_path());
        assertEq(vm.parseJsonAddress(json, ".address"), address(oracle));
        assertEq(vm.parseJsonUint(json, ".chainId"), CHAIN_ID);
        assertEq(vm.parseJsonAddress(json, ".deployer"), deployer);
        assertEq(vm.parseJsonAddress(json, ".arbitrator"), address(court));
        assertEq(vm.parseJsonAddress(json, ".court"), address(court));
        assertEq(vm.parseJsonAddress(json, ".pendingOwner"), newOwner);
        assertEq(vm.parseJsonUint(json, ".parametersId"), 1);
        assertEq(vm.parseJsonUint(json, ".operatorEpoch"), 2);
        address[] memory operators = vm.parseJsonAddressArray(json, ".operators");
        assertEq(operators.length, 2);
        assertEq(operators[0], op1);
        assertEq(operators[1], op2);
        address[] memory judges = vm.parseJsonAddressArray(json, ".judges");
        assertEq(judges[0], judge1);
    }

    function _UsesAGivenArbitrator() internal {
        _strongEnv();
        address[] memory judges = new address[](1);
        judges[0] = judge1;
        VeritasCourt existing = new VeritasCourt(judges, 0, 0, 1);
        vm.setEnv("VERITAS_ARBITRATOR", vm.toString(address(existing)));
        IVeritasOracle oracle = new Deploy().run();
        vm.removeFile(_path());
        assertEq(oracle.parameters().arbitrator, address(existing));
    }

    function _RevertIf_WeakRulesOnAPublicChain() internal {
        _strongEnv();
        Deploy script = new Deploy();
        vm.setEnv("VERITAS_QUORUM", "1");
        vm.expectRevert(
            bytes("Deploy: VERITAS_QUORUM=1 lets one operator decide (VERITAS_ALLOW_WEAK_RULES=1 to allow)")
        );
        script.run();
        vm.setEnv("VERITAS_QUORUM", "2");
        vm.setEnv("VERITAS_CHALLENGE_WINDOW", "0");
        vm.expectRevert(
            bytes("Deploy: VERITAS_CHALLENGE_WINDOW=0 leaves no dispute (VERITAS_ALLOW_WEAK_RULES=1 to allow)")
        );
        script.run();
        vm.setEnv("VERITAS_CHALLENGE_WINDOW", "86400");
        vm.setEnv("VERITAS_JUDGES", "");
        vm.expectRevert(
            bytes(
                "Deploy: set VERITAS_OPERATORS, VERITAS_OWNER and VERITAS_JUDGES (or VERITAS_ARBITRATOR) explicitly (VERITAS_ALLOW_WEAK_RULES=1 to allow)"
            )
        );
        script.run();
        // Told explicitly, it deploys.
        vm.setEnv("VERITAS_ALLOW_WEAK_RULES", "1");
        vm.setEnv("VERITAS_QUORUM", "1");
        IVeritasOracle oracle = script.run();
        vm.removeFile(_path());
        assertEq(oracle.parameters().quorum, 1);
    }

    function _LocalChainAllowsTheDefaults() internal {
        vm.chainId(31337);
        IVeritasOracle oracle = new Deploy().run();
        string memory path = "deployments/31337.json";
        if (vm.exists(path)) vm.removeFile(path);
        assertTrue(oracle.isOperator(vm.addr(KEY)));
        assertEq(oracle.parameters().quorum, 1);
        assertEq(VeritasCourt(oracle.parameters().arbitrator).judges()[0], vm.addr(KEY));
        assertEq(oracle.parameters().revealWindow, 0);
    }

    /// @dev Reports in the clear let an operator copy the others' reports and look last: on a
    /// public chain the script wants a reveal window, and refuses an explicit 0 as well.
    function _RevertIf_ClearTextSetOnAPublicChain() internal {
        _strongEnv();
        Deploy script = new Deploy();
        bytes memory refusal = bytes(
            "Deploy: no VERITAS_REVEAL_WINDOW leaves reports in the clear, to be copied (VERITAS_ALLOW_WEAK_RULES=1 to allow)"
        );
        vm.setEnv("VERITAS_REVEAL_WINDOW", "");
        vm.expectRevert(refusal);
        script.run();
        vm.setEnv("VERITAS_REVEAL_WINDOW", "0");
        vm.expectRevert(refusal);
        script.run();
        vm.setEnv("VERITAS_REVEAL_WINDOW", "29");
        vm.expectRevert(bytes("Deploy: VERITAS_REVEAL_WINDOW=29 is neither 0 nor within 30..604800"));
        script.run();
        vm.setEnv("VERITAS_REVEAL_WINDOW", "604801");
        vm.expectRevert(bytes("Deploy: VERITAS_REVEAL_WINDOW=604801 is outside 0..604800"));
        script.run();
        // Told explicitly, it deploys a clear-text set.
        vm.setEnv("VERITAS_REVEAL_WINDOW", "0");
        vm.setEnv("VERITAS_ALLOW_WEAK_RULES", "1");
        IVeritasOracle oracle = script.run();
        vm.removeFile(_path());
        assertEq(oracle.parameters().revealWindow, 0);
    }

    /// @dev Each money rule whose local default is 0 must be named on a public chain: a missing
    /// variable is refused, an explicit 0 is a choice. The court's costs only when the script
    /// deploys the court.
    function _RevertIf_MoneyRulesLeftUnsetOnAPublicChain() internal {
        string[4] memory rules =
            ["VERITAS_EVIDENCE_FEE", "VERITAS_OPERATOR_STAKE", "VERITAS_COURT_COST", "VERITAS_APPEAL_COST"];
        Deploy script = new Deploy();
        for (uint256 i = 0; i < rules.length; i++) {
            _reset();
            _strongEnv();
            vm.setEnv(rules[i], "");
            vm.expectRevert(
                bytes(
                    string.concat(
                        "Deploy: set ",
                        rules[i],
                        " explicitly (0 is allowed; unset is not) (VERITAS_ALLOW_WEAK_RULES=1 to allow)"
                    )
                )
            );
            script.run();
            // An explicit 0 is a choice.
            vm.setEnv(rules[i], "0");
            IVeritasOracle oracle = script.run();
            vm.removeFile(_path());
            assertEq(oracle.parameters().quorum, 2);
        }
        // With a given arbitrator the court's costs are its own: not asked for.
        _reset();
        _strongEnv();
        vm.setEnv("VERITAS_COURT_COST", "");
        vm.setEnv("VERITAS_APPEAL_COST", "");
        address[] memory judges = new address[](1);
        judges[0] = judge1;
        vm.setEnv("VERITAS_ARBITRATOR", vm.toString(address(new VeritasCourt(judges, 0, 0, 1))));
        script.run();
        vm.removeFile(_path());
        // Told explicitly, every unset money rule is allowed.
        _reset();
        _strongEnv();
        for (uint256 i = 0; i < rules.length; i++) {
            vm.setEnv(rules[i], "");
        }
        vm.setEnv("VERITAS_ALLOW_WEAK_RULES", "1");
        IVeritasOracle weak = script.run();
        vm.removeFile(_path());
        assertEq(weak.parameters().evidenceFee, 0);
    }

    /// @dev There is no commit window to set (commits run in the report window): a variable that
    /// would be silently ignored is refused, on every chain.
    function _RevertIf_ACommitWindowIsGiven() internal {
        vm.chainId(31337);
        vm.setEnv("VERITAS_COMMIT_WINDOW", "3600");
        Deploy script = new Deploy();
        vm.expectRevert(
            bytes(
                "Deploy: VERITAS_COMMIT_WINDOW does not exist: commits are taken during VERITAS_REPORT_WINDOW and the quorum-th commit opens the reveal phase"
            )
        );
        script.run();
    }

    function _RevertIf_ValuesOutOfRange() internal {
        _strongEnv();
        Deploy script = new Deploy();
        vm.setEnv("VERITAS_QUORUM", "258");
        vm.expectRevert(bytes("Deploy: VERITAS_QUORUM=258 is outside 1..7"));
        script.run();
        vm.setEnv("VERITAS_QUORUM", "2");
        vm.setEnv("VERITAS_DISPUTE_BOND", vm.toString(uint256(1) << 96));
        vm.expectRevert(
            bytes(
                string.concat(
                    "Deploy: VERITAS_DISPUTE_BOND=",
                    vm.toString(uint256(1) << 96),
                    " is outside 0..1000000000000000000000"
                )
            )
        );
        script.run();
        vm.setEnv("VERITAS_DISPUTE_BOND", "1");
        vm.setEnv("VERITAS_REPORT_WINDOW", vm.toString(uint256(type(uint32).max) + 1));
        vm.expectRevert(
            bytes(
                string.concat(
                    "Deploy: VERITAS_REPORT_WINDOW=4294967296 is outside 30..", vm.toString(uint256(type(uint32).max))
                )
            )
        );
        script.run();
    }
}
