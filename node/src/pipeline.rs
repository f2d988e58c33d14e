//! One question through the node: evidence, commitment, committee, routing, report, post.
