//! Answers to "where did the time go": statistics of the slices in a time range
//! grouped by name, thread or category; counter statistics over a range; CPU-profile
//! call trees (top-down and bottom-up) over a range.
//!
//! Everything reads a built [`Trace`](crate::Trace) and allocates only its answer and
//! per-call scratch; the viewer's `/api/range` and `/api/profile` and the CLI's
//! `summary` and `profile` commands are thin layers over these functions.

pub mod call_tree;
pub mod counter_stats;
pub mod matching;
pub mod select;
pub mod significance;
pub mod slice_stats;

pub use call_tree::{call_tree, CallTree, TreeNode, TreeView};
pub use counter_stats::{counter_stats, CounterStats};
pub use select::Selection;
pub use slice_stats::{
    slice_stats, slices_in_group, thread_key, GroupBy, GroupKey, NameFilter, SliceGroup, SliceStats,
};
