//! The instant and other events' tables: the records as columns, the instants in
//! time order.

use super::order::{count, sorted_by, Parts};
use super::records::{InstantRec, OtherRec};
use crate::tables::{InstantTable, OtherTable};

/// Instants by (time, offset), equal keys in file order. Each column is reserved
/// at its length: grown by doubling, each one was copied into fresh pages at
/// every step and kept up to twice its length.
pub fn instants(parts: Parts<InstantRec>) -> InstantTable {
    let recs = sorted_by(&parts, |r| (r.ts, r.offset));
    let n = recs.len();
    let mut t = InstantTable::default();
    t.scope.reserve_exact(n);
    t.process.reserve_exact(n);
    t.thread.reserve_exact(n);
    t.ts.reserve_exact(n);
    t.name.reserve_exact(n);
    t.cat.reserve_exact(n);
    t.args.reserve_exact(n);
    t.cname.reserve_exact(n);
    t.offset.reserve_exact(n);
    t.ph.reserve_exact(n);
    for (_, r) in recs {
        t.scope.push(r.scope);
        t.process.push(r.process);
        t.thread.push(r.thread);
        t.ts.push(r.ts);
        t.name.push(r.name);
        t.cat.push(r.cat);
        t.args.push(r.args);
        t.cname.push(r.cname);
        t.offset.push(r.offset);
        t.ph.push(r.ph);
    }
    t
}

/// Other events in file order.
pub fn other(parts: Parts<OtherRec>) -> OtherTable {
    let n = count(&parts);
    let mut t = OtherTable::default();
    t.ph.reserve_exact(n);
    t.name.reserve_exact(n);
    t.cat.reserve_exact(n);
    t.process.reserve_exact(n);
    t.thread.reserve_exact(n);
    t.ts.reserve_exact(n);
    t.args.reserve_exact(n);
    t.offset.reserve_exact(n);
    for r in parts.into_iter().flatten() {
        t.ph.push(r.ph);
        t.name.push(r.name);
        t.cat.push(r.cat);
        t.process.push(r.process);
        t.thread.push(r.thread);
        t.ts.push(r.ts);
        t.args.push(r.args);
        t.offset.push(r.offset);
    }
    t
}
