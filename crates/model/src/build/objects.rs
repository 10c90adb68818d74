//! Objects (spec section 8): instances from `N` to `D`, with `O` snapshots.

use rustc_hash::FxHashMap;
use tracescope_format::{DiagKind, Diagnostics};

use super::order::{sorted_by, Parts};
use super::records::{IdK, ObjectRec};
use crate::strings::StrId;
use crate::tables::{Object, ObjectId, ProcessId, Snapshot, SnapshotId};

pub fn build(
    parts: Parts<ObjectRec>,
    trace_end: i64,
    diags: &mut Diagnostics,
) -> (Vec<Object>, Vec<Snapshot>) {
    // By time, equal times in file order.
    let recs = sorted_by(&parts, |r| r.ts);
    let mut objects: Vec<Object> = Vec::new();
    let mut snapshots: Vec<Snapshot> = Vec::new();
    let mut alive: FxHashMap<(Option<ProcessId>, StrId, IdK), u32> = FxHashMap::default();
    for &(_, r) in &recs {
        let key = ((!r.global).then_some(r.process), r.name, r.key);
        let new_object = |objects: &mut Vec<Object>| {
            objects.push(Object {
                process: r.process,
                global: r.global,
                name: r.name,
                cat: r.cat,
                id: r.id,
                start: r.ts,
                end: trace_end.max(r.ts),
                alive_at_end: true,
                snapshots: Vec::new(),
                offset: r.offset,
            });
            objects.len() as u32 - 1
        };
        match r.ph {
            b'N' => {
                if let Some(prev) = alive.remove(&key) {
                    diags.add_excerpt(DiagKind::DuplicateObject, r.offset, String::new);
                    let o = &mut objects[prev as usize];
                    o.end = r.ts;
                    o.alive_at_end = false;
                }
                let o = new_object(&mut objects);
                alive.insert(key, o);
            }
            b'O' => {
                // A snapshot of an object never created starts it (as catapult does).
                let o = match alive.get(&key) {
                    Some(&o) => o,
                    None => {
                        let o = new_object(&mut objects);
                        alive.insert(key, o);
                        o
                    }
                };
                objects[o as usize]
                    .snapshots
                    .push(SnapshotId::at(snapshots.len()));
                snapshots.push(Snapshot {
                    object: ObjectId::new(o),
                    ts: r.ts,
                    args: r.args,
                    offset: r.offset,
                });
            }
            _ => match alive.remove(&key) {
                Some(o) => {
                    let o = &mut objects[o as usize];
                    o.end = r.ts.max(o.start);
                    o.alive_at_end = false;
                }
                None => diags.add_excerpt(DiagKind::UnmatchedObject, r.offset, String::new),
            },
        }
    }
    (objects, snapshots)
}
