//! 1e18 fixed point read for display: the one conversion from the posted integers to a
//! probability a person reads (the integer stays the truth; the float is never posted).

use alloy::primitives::U256;

use super::WAD;

/// A posted 1e18 integer as a probability (display only).
pub fn wad_to_f64(value: U256) -> f64 {
    let wad = U256::from(WAD);
    // Integer part and 18 decimals, each exact in f64's range for values ≤ 1e18.
    let whole = u64::try_from(value / wad).unwrap_or(u64::MAX) as f64;
    let frac = u64::try_from(value % wad).unwrap_or(0) as f64 / 1e18;
    whole + frac
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wad_values_read_as_probabilities() {
        assert_eq!(wad_to_f64(U256::from(WAD)), 1.0);
        // Display only: within a unit in the last place of the true quotient.
        let two_thirds = wad_to_f64(U256::from(666_666_666_666_666_667u64));
        assert!((two_thirds - 2.0 / 3.0).abs() < 1e-15, "{two_thirds}");
        assert_eq!(wad_to_f64(U256::ZERO), 0.0);
    }
}
