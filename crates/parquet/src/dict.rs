//! A column of few distinct cells (`tracescope_model::Fill::Keyed`: names,
//! categories, pids, tids, thread names and ids) buffered as its Parquet
//! dictionary straight from the model's ids: each key's cell is made once,
//! the first time a row group meets the key, and every row is its cell's
//! index, found through a vector indexed by key. No cell is made, hashed or
//! compared per row, as the column writer's dictionary did (BENCHMARKS.md,
//! "SQL and Parquet", round 9).

use tracescope_model::{ColumnType, Trace, Value};

use crate::buf::Buf;

/// A `Fill::Keyed`'s keys of a block of rows, and a key's cell.
type KeysOf = for<'t> fn(&'t Trace, &[u32], &mut Vec<u32>);
type CellOf = for<'t> fn(&'t Trace, u32) -> Value<'t>;

/// What a key's rows hold: its cell's index in the dictionary ([`NULL`]: no
/// cell, [`UNSEEN`]: not met in this row group), and whether its cell had no
/// form in the column (counted as nulled for every row).
#[derive(Clone, Copy)]
struct Slot {
    index: u32,
    nulled: bool,
}

const UNSEEN: Slot = Slot {
    index: u32::MAX,
    nulled: false,
};

const NULL: u32 = u32::MAX - 1;

/// A row group's rows of one keyed column.
pub(crate) struct Dict {
    /// The distinct cells in the order first met: the dictionary, in a buffer
    /// of the column's kind.
    pub(crate) values: Buf,
    /// Each present row's index in `values`.
    pub(crate) indices: Vec<u32>,
    /// A definition level per row (1 present, 0 null).
    pub(crate) defs: Vec<i16>,
    /// By key: where its rows go.
    slots: Vec<Slot>,
    /// The keys met in this row group (their slots are set).
    met: Vec<u32>,
    /// A block's keys, reused.
    keys: Vec<u32>,
}

impl Dict {
    pub(crate) fn new(ty: ColumnType) -> Dict {
        Dict {
            values: Buf::new(ty),
            indices: Vec::new(),
            defs: Vec::new(),
            slots: Vec::new(),
            met: Vec::new(),
            keys: Vec::new(),
        }
    }

    /// Adds the rows `rows`, their keys given by `keys` and each key's cell by
    /// `cell` (a `Fill::Keyed`); returns how many had no form in the column
    /// (as `Buf::extend`).
    pub(crate) fn fill(
        &mut self,
        (keys, cell): (KeysOf, CellOf),
        trace: &Trace,
        rows: &[u32],
        optional: bool,
    ) -> usize {
        self.keys.clear();
        keys(trace, rows, &mut self.keys);
        let mut nulled = 0;
        for &key in &self.keys {
            let k = key as usize;
            if k >= self.slots.len() {
                self.slots.resize(k + 1, UNSEEN);
            }
            let mut slot = self.slots[k];
            if slot.index == UNSEEN.index {
                let before = self.values.values_len();
                let formed = self.values.push(&cell(trace, key), optional);
                let added = self.values.values_len() > before;
                slot = Slot {
                    index: if added { before as u32 } else { NULL },
                    nulled: !formed,
                };
                self.slots[k] = slot;
                self.met.push(key);
            }
            let present = slot.index != NULL;
            self.defs.push(present as i16);
            if present {
                self.indices.push(slot.index);
            }
            nulled += slot.nulled as usize;
        }
        nulled
    }

    /// Empties the row group (the slots of the keys met are unset again).
    pub(crate) fn clear(&mut self) {
        for &k in &self.met {
            self.slots[k as usize] = UNSEEN;
        }
        self.met.clear();
        self.values.clear();
        self.indices.clear();
        self.defs.clear();
    }
}
