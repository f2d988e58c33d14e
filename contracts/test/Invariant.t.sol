// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Test} from "forge-std/Test.sol";
import {StdInvariant} from "forge-std/StdInvariant.sol";
import {IVeritasOracle} from "../interfaces/IVeritasOracle.sol";
import {VeritasOracle} from "../VeritasOracle.sol";

/// @notice Drives the oracle with random asks, posts (valid and not, by operators and strangers),
/// arbitrations, operator changes and time, and keeps ghost counts of what succeeded.
contract OracleHandler is Test {
    uint256 internal constant WAD = 1e18;

    VeritasOracle public immutable oracle;
    address public immutable owner;
    address public immutable arbiter;
    address[] internal _actors;

    uint256 public ghostAsks;
    uint256 public ghostPosts;
    uint256 public ghostPostsByNonOperators;
    mapping(uint256 id => uint256) public ghostPostsOf;

    constructor(VeritasOracle oracle_, address owner_, address arbiter_, address[] memory actors_) {
        oracle = oracle_;
        owner = owner_;
        arbiter = arbiter_;
        _actors = actors_;
    }

    function ask(uint256 length, uint256 delay, uint256 actorSeed) external {
        length = bound(length, 1, 64);
        uint64 resolveAfter = delay % 3 == 0 ? uint64(block.timestamp + bound(delay, 0, 2 hours)) : 0;
        vm.prank(_actor(actorSeed));
        oracle.askQuestion(string(new bytes(length)), resolveAfter);
        ghostAsks++;
    }

    /// @dev Posts as a random actor on a random (possibly unknown) id; one time in four the triple
    /// and kappa are only loosely bounded, so those posts are mostly rejected. Only successes count.
    function post(
        uint256 actorSeed,
        uint256 idSeed,
        uint256 a,
        uint256 b,
        uint256 c,
        int256 kappa,
        bool escalated,
        uint8 mode
    ) external {
        address actor = _actor(actorSeed);
        uint256 id = bound(idSeed, 0, oracle.questionCount() + 1);
        uint256 pYes;
        uint256 pNo;
        uint256 pNull;
        // One post in four is loosely bounded (mostly rejected); the rest are valid triples.
        if (mode % 4 == 0) {
            pYes = bound(a, 0, WAD);
            pNo = bound(b, 0, WAD);
            pNull = bound(c, 0, WAD);
            kappa = bound(kappa, -2e18, 2e18);
        } else {
            pYes = bound(a, 1, WAD - 2);
            pNo = bound(b, 1, WAD - 1 - pYes);
            pNull = WAD - pYes - pNo;
            kappa = bound(kappa, -1e18, 1e18);
        }
        bool wasOperator = oracle.isOperator(actor);
        vm.prank(actor);
        try oracle.postVerdict(id, keccak256(abi.encode(id)), pYes, pNo, pNull, kappa, escalated) {
            ghostPosts++;
            ghostPostsOf[id]++;
            if (!wasOperator) ghostPostsByNonOperators++;
        } catch {}
    }

    function arbitrate(uint256 idSeed, uint256 a, uint256 b) external {
        uint256 id = bound(idSeed, 1, oracle.questionCount() + 1);
        uint256 pYes = bound(a, 1, WAD - 2);
        uint256 pNo = bound(b, 1, WAD - 1 - pYes);
        vm.prank(arbiter);
        try oracle.arbitrate(id, pYes, pNo, WAD - pYes - pNo) {} catch {}
    }

    function toggleOperator(uint256 actorSeed) external {
        address actor = _actor(actorSeed);
        vm.startPrank(owner);
        if (oracle.isOperator(actor)) oracle.removeOperator(actor);
        else oracle.addOperator(actor);
        vm.stopPrank();
    }

    function warp(uint256 seconds_) external {
        vm.warp(block.timestamp + bound(seconds_, 0, 1 hours));
    }

    function _actor(uint256 seed) internal view returns (address) {
        return _actors[seed % _actors.length];
    }
}

/// @notice Properties that hold after any sequence of handler calls.
contract InvariantTest is StdInvariant, Test {
    uint256 internal constant WAD = 1e18;

    VeritasOracle internal oracle;
    OracleHandler internal handler;

    function setUp() public {
        vm.warp(1_750_000_000);
        address owner = makeAddr("owner");
        address arbiter = makeAddr("arbiter");
        address[] memory actors = new address[](4);
        actors[0] = makeAddr("operator1");
        actors[1] = makeAddr("operator2");
        actors[2] = makeAddr("stranger1");
        actors[3] = makeAddr("stranger2");

        oracle = new VeritasOracle(owner);
        vm.startPrank(owner);
        oracle.addOperator(actors[0]);
        oracle.addOperator(actors[1]);
        oracle.setArbiter(arbiter);
        vm.stopPrank();

        handler = new OracleHandler(oracle, owner, arbiter, actors);
        bytes4[] memory selectors = new bytes4[](5);
        selectors[0] = OracleHandler.ask.selector;
        selectors[1] = OracleHandler.post.selector;
        selectors[2] = OracleHandler.arbitrate.selector;
        selectors[3] = OracleHandler.toggleOperator.selector;
        selectors[4] = OracleHandler.warp.selector;
        targetSelector(FuzzSelector({addr: address(handler), selectors: selectors}));
        targetContract(address(handler));
    }

    function invariant_AtMostOneVerdictPerQuestion() public view {
        uint256 n = oracle.questionCount();
        for (uint256 id = 0; id <= n + 1; id++) {
            assertLe(handler.ghostPostsOf(id), 1);
        }
    }

    function invariant_PostedTriplesSumToWad() public view {
        uint256 n = oracle.questionCount();
        for (uint256 id = 1; id <= n; id++) {
            if (uint8(oracle.verdictStatus(id)) < uint8(IVeritasOracle.VerdictStatus.Resolved)) continue;
            (,, uint256 pYes, uint256 pNo, uint256 pNull, int256 kappa,) = oracle.getVerdict(id);
            assertGt(pYes, 0);
            assertGt(pNo, 0);
            assertGt(pNull, 0);
            assertEq(pYes + pNo + pNull, WAD);
            assertLe(kappa, 1e18);
            assertGe(kappa, -1e18);
        }
    }

    function invariant_OnlyOperatorsPost() public view {
        assertEq(handler.ghostPostsByNonOperators(), 0);
    }

    function invariant_VerdictCountEqualsPosts() public view {
        assertEq(oracle.verdictCount(), handler.ghostPosts());
        uint256 withVerdict;
        uint256 n = oracle.questionCount();
        for (uint256 id = 1; id <= n; id++) {
            if (uint8(oracle.verdictStatus(id)) >= uint8(IVeritasOracle.VerdictStatus.Resolved)) withVerdict++;
        }
        assertEq(withVerdict, handler.ghostPosts());
    }

    function invariant_QuestionCountEqualsAsks() public view {
        assertEq(oracle.questionCount(), handler.ghostAsks());
        assertEq(uint8(oracle.verdictStatus(handler.ghostAsks() + 1)), uint8(IVeritasOracle.VerdictStatus.None));
    }
}
