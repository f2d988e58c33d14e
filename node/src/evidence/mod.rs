//! Evidence: the search planner, the collectors and the bundle rules.
