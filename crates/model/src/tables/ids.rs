//! Typed row ids and compact optional times.
//!
//! An id is its row's index plus one in a `NonZeroU32`, so `Option<SliceId>` takes
//! 4 bytes like the bare `u32` it replaces, and "absent" is `None`, not a sentinel.

use std::fmt;
use std::num::{NonZeroI64, NonZeroU32};

macro_rules! row_ids {
    ($($(#[$doc:meta])* $name:ident,)*) => {$(
        $(#[$doc])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(NonZeroU32);

        impl $name {
            /// The id of row `index`.
            pub const fn new(index: u32) -> Self {
                match NonZeroU32::new(index.wrapping_add(1)) {
                    Some(n) => $name(n),
                    None => panic!("row index out of range"),
                }
            }

            /// The id of row `index` (a `usize` row number).
            pub fn at(index: usize) -> Self {
                Self::new(u32::try_from(index).expect("row index fits in u32"))
            }

            /// The row's index.
            pub const fn index(self) -> usize {
                self.0.get() as usize - 1
            }

            /// The row's index as a `u32` (as the API and SQL show it).
            pub const fn raw(self) -> u32 {
                self.0.get() - 1
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{}({})", stringify!($name), self.raw())
            }
        }

        impl From<$name> for super::Value<'static> {
            fn from(id: $name) -> Self {
                super::Value::Int(id.raw() as i64)
            }
        }

        impl From<Option<$name>> for super::Value<'static> {
            fn from(id: Option<$name>) -> Self {
                id.map_or(super::Value::Null, Into::into)
            }
        }

        /// The row index, as ids appear in track ids, the API and SQL.
        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{}", self.raw())
            }
        }
    )*};
}

row_ids! {
    /// A row of `Tables::processes`.
    ProcessId,
    /// A row of `Tables::threads`.
    ThreadId,
    /// A row of the thread slice table.
    SliceId,
    /// A row of the async slice table.
    AsyncSliceId,
    /// An async track: a group of operations of one process by root name.
    AsyncGroupId,
    /// A counter series.
    SeriesId,
    /// An object instance.
    ObjectId,
    /// An object snapshot (`O`).
    SnapshotId,
    /// A stack frame (a profile node or a `stackFrames` entry).
    FrameId,
    /// A CPU profile.
    ProfileId,
    /// The args of one event (see `tables::arg_sets`).
    ArgSetId,
}

/// A time or duration in nanoseconds in 8 bytes, so that `Option<Ns>` (a time that
/// may be absent, such as `tts`) takes 8 bytes rather than the 16 of `Option<i64>`.
/// Holds every `i64` but `i64::MIN`, which is kept as `i64::MIN + 1`.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Ns(NonZeroI64);

impl Ns {
    pub fn new(v: i64) -> Ns {
        // Flipping the sign bit maps `i64::MIN` (made unreachable above) to zero.
        match NonZeroI64::new(v.max(i64::MIN + 1) ^ i64::MIN) {
            Some(n) => Ns(n),
            None => unreachable!("only i64::MIN flips to zero"),
        }
    }

    pub fn get(self) -> i64 {
        self.0.get() ^ i64::MIN
    }

    /// `Some` of a present time.
    pub fn opt(v: Option<i64>) -> Option<Ns> {
        v.map(Ns::new)
    }
}

impl fmt::Debug for Ns {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.get())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn optional_ids_and_times_stay_small() {
        assert_eq!(std::mem::size_of::<Option<SliceId>>(), 4);
        assert_eq!(std::mem::size_of::<Option<Ns>>(), 8);
    }

    #[test]
    fn ids_and_times_round_trip() {
        for i in [0u32, 1, 7, u32::MAX - 1] {
            assert_eq!(SliceId::new(i).raw(), i);
        }
        assert_eq!(ThreadId::new(3).to_string(), "3");
        assert!(ThreadId::new(2) < ThreadId::new(3));
        for v in [0, -1, 1, i64::MAX, i64::MIN + 1] {
            assert_eq!(Ns::new(v).get(), v);
        }
        assert_eq!(Ns::new(i64::MIN).get(), i64::MIN + 1);
    }
}
