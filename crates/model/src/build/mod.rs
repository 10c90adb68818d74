//! Import as a pipeline: parts of the input become records in parallel
//! ([`part`]), then each family of records becomes its table.

mod asyncs;
mod counters;
mod flows;
mod metadata;
mod objects;
pub(crate) mod part;
mod profile_chunk;
mod profiles;
pub(crate) mod records;
pub(crate) mod registry;
mod slices;

use tracescope_format::Diagnostics;

use crate::args::SharedArena;
use crate::strings::SharedStrings;
use crate::tables::{InstantTable, OtherTable};
use crate::trace::{Tables, TopLevel};
use records::Records;
use registry::SharedRegistry;

pub use metadata::TraceFacts;

/// A short excerpt of the input at `offset`, for diagnostics.
pub(crate) fn excerpt(input: &str, offset: u64) -> String {
    let start = (offset as usize).min(input.len());
    let mut start_ok = start;
    while start_ok > 0 && !input.is_char_boundary(start_ok) {
        start_ok -= 1;
    }
    let mut end = (start_ok + 160).min(input.len());
    while end > start_ok && !input.is_char_boundary(end) {
        end -= 1;
    }
    input.get(start_ok..end).unwrap_or("").to_string()
}

/// Turns the records of all parts (in file order) into tables.
pub(crate) fn finish(
    mut recs: Records,
    input: &str,
    strings: SharedStrings,
    registry: SharedRegistry,
    arena: SharedArena,
    top: &TopLevel<'_>,
    mut diags: Diagnostics,
) -> (Tables, Diagnostics, TraceFacts) {
    let mut registry = registry.0.into_inner().unwrap_or_else(|e| e.into_inner());
    let (pmap, tmap) = registry.canonicalize();
    recs.remap(&pmap, &tmap);
    let arena_text = arena.take();
    let trace_end = recs.max_end.unwrap_or(0);
    let texts = (input, arena_text.as_str());
    let (metadata, facts) = metadata::apply(
        &recs.metadata,
        &recs.tracing_started,
        &mut registry,
        &strings,
        texts,
        &mut diags,
    );
    let slices = slices::build(recs.dur, &recs.thread_end, &mut diags, input);
    let async_slices = asyncs::build(recs.asyncs, trace_end, &mut diags, input);
    let flows = flows::build(
        recs.flows,
        recs.flows_v2,
        &slices,
        &async_slices,
        &mut diags,
        input,
    );
    let counters = counters::build(recs.counters);
    let (objects, snapshots) = objects::build(recs.objects, trace_end, &mut diags, input);
    let inputs = profiles::ProfileInputs {
        input,
        arena: texts.1,
        stack_frames: top.stack_frames,
        top_samples: top.samples,
        cpu_profile: top.cpu_profile,
        source_name: top.source_name,
    };
    let prof = profiles::build(
        recs.profiles,
        recs.chunks,
        recs.samples,
        &inputs,
        &mut registry,
        &strings,
        &mut diags,
    );
    let instants = instants(recs.instants);
    let other = other(recs.other);
    let tables = Tables {
        strings: strings.into_inner(),
        processes: registry.processes,
        threads: registry.threads,
        slices,
        instants,
        async_slices,
        flows,
        counters,
        objects,
        snapshots,
        frames: prof.frames,
        profiles: prof.profiles,
        samples: prof.samples,
        metadata,
        other,
        arena: arena_text,
    };
    (tables, diags, facts)
}

fn instants(mut recs: Vec<records::InstantRec>) -> InstantTable {
    recs.sort_by_key(|r| (r.ts, r.offset));
    let mut t = InstantTable::default();
    for r in recs {
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

fn other(recs: Vec<records::OtherRec>) -> OtherTable {
    let mut t = OtherTable::default();
    for r in recs {
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
