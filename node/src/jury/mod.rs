//! The Monte Carlo committee: archetypes, the seeded sampler, jurors and their ballots.
