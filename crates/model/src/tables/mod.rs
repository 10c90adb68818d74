//! The model's tables: plain columns with typed ids between them, no object graphs.
//!
//! One module per table family owns its storage and the one declaration of the
//! columns users see ([`Table`]: name, type, nullability, a line of doc, how to
//! read a cell). `tracescope tables`, SQL, Parquet and the server's JSON all read
//! [`TABLES`], so adding a column is one entry in the module that owns the table.
//!
//! Big tables (slices, instants, async slices, counters, samples) are
//! struct-of-arrays; small ones (processes, threads, metadata) are rows. Row ids are
//! typed ([`SliceId`], [`ThreadId`], ...), and what may be absent is an `Option`.

pub mod arg_sets;
pub(crate) mod args_cells;
mod async_slices;
pub(crate) mod based_times;
pub(crate) mod block_times;
mod counters;
mod decl;
mod diagnostics;
mod flows;
mod ids;
mod instants;
mod leaf_frames;
mod metadata;
mod objects;
mod other;
mod processes;
pub(crate) mod runs;
pub(crate) mod samples;
pub(crate) mod slices;
pub(crate) mod sparse;
mod threads;

pub use arg_sets::{Arg, ArgOwner, ArgValue};
pub use async_slices::{AsyncGroup, AsyncSliceTable, IdVal};
pub use block_times::BlockTimes;
pub use counters::{CounterSeries, CounterTable};
pub use decl::{
    table, ArgGetter, Cell, Column, ColumnInfo, ColumnType, Fill, Getter, RowSource, Rows, Table,
    Value, TABLES,
};
pub use flows::{FlowTable, SliceRef};
pub use ids::{
    ArgSetId, AsyncGroupId, AsyncSliceId, FrameId, Ns, ObjectId, ProcessId, ProfileId, SeriesId,
    SliceId, SnapshotId, ThreadId,
};
pub use instants::{InstantTable, Scope};
pub use metadata::MetadataEvent;
pub use objects::{Object, Snapshot};
pub use other::OtherTable;
pub use processes::{PidK, Process};
pub use samples::{Frame, Profile, SampleTable};
pub use slices::{slice_flags, Lane, SliceTable, SliceTrack};
pub use threads::Thread;
