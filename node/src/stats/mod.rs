//! Statistics of a ballot set (pure, no I/O): DESIGN.md §2, bit for bit.
