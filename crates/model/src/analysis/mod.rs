//! Answers to "where did the time go": statistics of the slices in a time range
//! grouped by name, thread or category; counter statistics over a range; call
//! trees (top-down, bottom-up, sandwich) of CPU samples or of thread slices over a
//! range and a set of threads.
//!
//! Everything reads a built [`Trace`](crate::Trace) and allocates only its answer and
//! per-call scratch; the viewer's `/api/range` and `/api/profile` and the CLI's
//! `summary` and `profile` commands are thin layers over these functions.

pub mod call_tree;
pub mod counter_stats;
pub mod matching;
mod sample_tree;
pub mod sandwich;
pub mod select;
pub mod significance;
pub mod slice_stats;
pub mod slice_summary;
mod slice_tree;
mod tree_builder;

pub use call_tree::{call_tree, tree, CallTree, Function, Source, TreeNode, TreeQuery, TreeView};
pub use counter_stats::{counter_stats, CounterStats};
pub use sandwich::{functions, sandwich, FunctionStats, FunctionTable, Sandwich};
pub use select::{time_bounds, Selection};
pub use slice_stats::{
    slice_stats, slices_in_group, thread_key, GroupBy, GroupKey, NameFilter, SliceGroup, SliceStats,
};
pub use slice_summary::{nearest_rank, summarize, SliceFilter, Summary, SummaryQuery};
