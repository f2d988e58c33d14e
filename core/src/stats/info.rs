//! Information measures of posterior means, in bits.

/// KL divergence D(p‖q) = Σ_k p_k·log2(p_k / q_k) in bits. Terms with p_k = 0 contribute 0;
/// posterior means are never 0, so the early-stopping rule never meets q_k = 0 (which
/// would give +∞).
pub fn kl_bits(p: &[f64; 3], q: &[f64; 3]) -> f64 {
    p.iter()
        .zip(q)
        .filter(|(pk, _)| **pk > 0.0)
        .map(|(pk, qk)| pk * (pk / qk).log2())
        .sum()
}

/// Shannon entropy H = −Σ_k P(k)·log2 P(k) in bits (0 terms skipped); at most log2 3.
pub fn entropy_bits(p: &[f64; 3]) -> f64 {
    -p.iter()
        .filter(|pk| **pk > 0.0)
        .map(|pk| pk * pk.log2())
        .sum::<f64>()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    #[test]
    fn vectors() {
        // Uniform: log2 3 bits.
        assert!((entropy_bits(&[1.0 / 3.0; 3]) - 3f64.log2()).abs() < 1e-15);
        // (0.5, 0.25, 0.25): 0.5·1 + 2·0.25·2 = 1.5 bits.
        assert_eq!(entropy_bits(&[0.5, 0.25, 0.25]), 1.5);
        assert_eq!(entropy_bits(&[1.0, 0.0, 0.0]), 0.0);
        // D((.5,.25,.25) ‖ uniform) = log2 3 − 1.5.
        let d = kl_bits(&[0.5, 0.25, 0.25], &[1.0 / 3.0; 3]);
        assert!((d - (3f64.log2() - 1.5)).abs() < 1e-15);
        assert_eq!(kl_bits(&[0.2, 0.3, 0.5], &[0.2, 0.3, 0.5]), 0.0);
        // D((1,0,0) ‖ (.5,.25,.25)) = log2 2 = 1 bit; zero terms skipped.
        assert_eq!(kl_bits(&[1.0, 0.0, 0.0], &[0.5, 0.25, 0.25]), 1.0);
    }
}
