// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title WadTriple
/// @notice Pure helpers on 1e18-scaled probability triples (YES, NO, NULL).
library WadTriple {
    /// @dev The fixed-point scale: 1e18 means 1 (certainty).
    uint256 internal constant WAD = 1e18;

    /// @notice The probability of outcome `outcome` (0 = YES, 1 = NO, 2 = NULL) is zero.
    error VeritasZeroProbability(uint8 outcome);

    /// @notice The three probabilities sum to `sum` instead of exactly 1e18.
    error VeritasProbabilitySum(uint256 sum);

    /// @dev The leading outcome (0 YES, 1 NO, 2 NULL) of three values, ties in YES, NO, NULL order.
    function leading(uint256 a, uint256 b, uint256 c) internal pure returns (uint8) {
        if (a >= b && a >= c) return 0;
        return b >= c ? 1 : 2;
    }

    /// @dev The auditors' 1e18 rule (README, "Pooled verdict"): α = n + 1,
    /// p_k = floor(α_k·WAD / Σα) (rounding down), and the 0, 1 or 2 units still missing go one each
    /// to the largest remainders α_k·WAD mod Σα, ties in YES, NO, NULL order. Each p_k > 0.
    function fromCounts(uint256 nYes, uint256 nNo, uint256 nNull)
        internal
        pure
        returns (uint256 pYes, uint256 pNo, uint256 pNull)
    {
        // Unchecked: each count is below 2^16, so every product is below 2^77 and the floors sum
        // to at most WAD (the remainders are what is missing).
        unchecked {
            uint256 a0 = (nYes + 1) * WAD;
            uint256 a1 = (nNo + 1) * WAD;
            uint256 a2 = (nNull + 1) * WAD;
            uint256 total = nYes + nNo + nNull + 3;
            pYes = a0 / total;
            pNo = a1 / total;
            pNull = a2 / total;
            uint256 missing = WAD - pYes - pNo - pNull;
            if (missing == 0) return (pYes, pNo, pNull);
            uint256 r0 = a0 % total;
            uint256 r1 = a1 % total;
            uint256 r2 = a2 % total;
            if (missing == 1) {
                // The largest remainder, ties to the earlier outcome.
                if (r0 >= r1 && r0 >= r2) pYes++;
                else if (r1 >= r2) pNo++;
                else pNull++;
            } else {
                // Two units: every outcome but the last in (remainder desc, K order), i.e. the
                // smallest remainder, ties to the later outcome.
                if (r2 <= r0 && r2 <= r1) {
                    pYes++;
                    pNo++;
                } else if (r1 <= r0) {
                    pYes++;
                    pNull++;
                } else {
                    pNo++;
                    pNull++;
                }
            }
        }
    }

    /// @dev Reverts unless each probability is > 0 and the three sum to exactly WAD. On success
    /// each is therefore < WAD, which 64-bit storage casts rely on.
    function check(uint256 pYes, uint256 pNo, uint256 pNull) internal pure {
        if (pYes == 0) revert VeritasZeroProbability(0);
        if (pNo == 0) revert VeritasZeroProbability(1);
        if (pNull == 0) revert VeritasZeroProbability(2);
        uint256 sum;
        // Saturating addition, so that an overflowing triple reverts with `VeritasProbabilitySum`
        // (reporting type(uint256).max) instead of a bare arithmetic panic.
        unchecked {
            sum = pYes + pNo;
            if (sum < pYes) sum = type(uint256).max;
            uint256 total = sum + pNull;
            sum = total < sum ? type(uint256).max : total;
        }
        if (sum != WAD) revert VeritasProbabilitySum(sum);
    }
}
