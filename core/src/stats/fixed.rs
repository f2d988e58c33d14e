//! 1e18 fixed point read for display: the one conversion from the posted integers to a
//! probability a person reads, and the one text form of them (the integer stays the truth;
//! neither the float nor the text is ever posted).

use alloy_primitives::U256;

use super::WAD;

/// A posted 1e18 integer as a probability (display only).
pub fn wad_to_f64(value: U256) -> f64 {
    let wad = U256::from(WAD);
    // Integer part and 18 decimals, each exact in f64's range for values ≤ 1e18.
    let whole = u64::try_from(value / wad).unwrap_or(u64::MAX) as f64;
    let frac = u64::try_from(value % wad).unwrap_or(0) as f64 / WAD as f64;
    whole + frac
}

/// `magnitude / 10^exponent` with `places` decimals, truncated: exact integer arithmetic,
/// so a display never rounds a posted value up past what was posted.
fn decimal(magnitude: u128, exponent: u32, places: u32) -> String {
    let places = places.min(exponent);
    let scaled = magnitude / 10u128.pow(exponent - places);
    if places == 0 {
        return scaled.to_string();
    }
    let base = 10u128.pow(places);
    let width = places as usize;
    format!("{}.{:0width$}", scaled / base, scaled % base)
}

/// A signed 1e18 integer (a kappa) as a decimal with `places` decimals, truncated toward
/// zero (display only): `-250000000000000000` with 4 places is `-0.2500`.
pub fn format_wad(value: i128, places: u32) -> String {
    let sign = if value < 0 { "-" } else { "" };
    format!("{sign}{}", decimal(value.unsigned_abs(), 18, places))
}

/// A 1e18 probability as a percentage with `places` decimals, truncated (display only):
/// `333333333333333334` with 2 places is `33.33%`.
pub fn format_percent(wad: u128, places: u32) -> String {
    format!("{}%", decimal(wad, 16, places))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wad_values_format_truncated() {
        assert_eq!(format_percent(500_000_000_000_000_000, 2), "50.00%");
        assert_eq!(format_percent(333_333_333_333_333_334, 2), "33.33%");
        assert_eq!(format_percent(666_666_666_666_666_667, 1), "66.6%");
        assert_eq!(format_percent(1, 2), "0.00%");
        assert_eq!(format_percent(WAD, 0), "100%");
        assert_eq!(format_wad(1_000_000_000_000_000_000, 4), "1.0000");
        assert_eq!(format_wad(-250_000_000_000_000_000, 4), "-0.2500");
        assert_eq!(format_wad(412_345_678_901_234_567, 2), "0.41");
        assert_eq!(format_wad(i128::MIN, 0), "-170141183460469231731");
    }

    #[test]
    fn wad_values_read_as_probabilities() {
        assert_eq!(wad_to_f64(U256::from(WAD)), 1.0);
        // Display only: within a unit in the last place of the true quotient.
        let two_thirds = wad_to_f64(U256::from(666_666_666_666_666_667u64));
        assert!((two_thirds - 2.0 / 3.0).abs() < 1e-15, "{two_thirds}");
        assert_eq!(wad_to_f64(U256::ZERO), 0.0);
    }
}
