//! RFC 6962 Merkle commitment of a question and its evidence bundle (pure, no I/O).
