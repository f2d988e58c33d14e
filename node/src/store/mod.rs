//! Node state in SQLite: the block cursor, the jobs and their stage, the intent to post.
