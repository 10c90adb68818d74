//! Import as a pipeline: parts of the input become records in parallel
//! ([`part`]), then each family of records becomes its table.

mod append;
mod asyncs;
mod counters;
mod dur_rec;
mod files;
mod flows;
mod instants;
mod live_slices;
mod metadata;
mod objects;
mod order;
pub(crate) mod part;
mod profile_chunk;
mod profile_chunk_text;
mod profiles;
pub(crate) mod records;
pub(crate) mod registry;
mod slice_rows;
mod slices;
mod trim;

use tracescope_format::Diagnostics;

use crate::args::{SharedArena, Texts};
use crate::strings::SharedStrings;
use crate::trace::{Tables, TopLevel};
use records::Records;
use registry::SharedRegistry;

pub use append::{Change, Follow};
pub use files::{Align, FileInput};
pub(crate) use live_slices::LiveSlices;
pub use metadata::TraceFacts;

/// Wall time of each build step, for `stats --json` (`load_phases`).
#[derive(Debug)]
pub(crate) struct Phases {
    last: std::time::Instant,
    pub done: Vec<(&'static str, f64)>,
}

impl Default for Phases {
    fn default() -> Self {
        Phases {
            last: std::time::Instant::now(),
            done: Vec::new(),
        }
    }
}

impl Phases {
    pub fn mark(&mut self, name: &'static str) {
        let now = std::time::Instant::now();
        self.done
            .push((name, (now - self.last).as_secs_f64() * 1e3));
        self.last = now;
    }
}

/// A short excerpt of the input at `offset`, for diagnostics: cut on character
/// boundaries, and repaired where the bytes are not UTF-8 (a prefix read early,
/// not checked yet, whose result is then not used).
pub(crate) fn excerpt(input: &[u8], offset: u64) -> String {
    // Where a `str` would have a character boundary: not a continuation byte.
    let boundary = |i: usize| i >= input.len() || input[i] & 0xC0 != 0x80;
    let start = (offset as usize).min(input.len());
    let mut start_ok = start;
    while start_ok > 0 && !boundary(start_ok) {
        start_ok -= 1;
    }
    let mut end = (start_ok + 160).min(input.len());
    while end > start_ok && !boundary(end) {
        end -= 1;
    }
    String::from_utf8_lossy(&input[start_ok..end]).into_owned()
}

/// Turns the records of all parts (in file order) into tables; a followed file's
/// duration records are in `live`, not in `recs`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn finish(
    mut recs: Records,
    input: &Texts<'_>,
    strings: SharedStrings,
    registry: SharedRegistry,
    arena: SharedArena,
    top: &TopLevel<'_>,
    mut diags: Diagnostics,
    live: Option<&mut LiveSlices>,
) -> (Tables, Diagnostics, TraceFacts) {
    let mut clock = Phases::default();
    let mut registry = registry.0.into_inner().unwrap_or_else(|e| e.into_inner());
    let (mut used_p, mut used_t) = (
        vec![false; registry.processes.len()],
        vec![false; registry.threads.len()],
    );
    // The duration records (most of the records) are counted by thread on both
    // cores, then gathered by thread on both cores once renumbered: they are not
    // visited nor remapped with the others.
    let dur = recs.take_dur();
    let dur_counts = slices::DurCounts::of(&dur, registry.threads.len());
    dur_counts.mark_used(&mut used_t);
    recs.visit(
        |p| {
            if let Some(u) = used_p.get_mut(p.index()) {
                *u = true;
            }
        },
        |t| {
            if let Some(u) = used_t.get_mut(t.index()) {
                *u = true;
            }
        },
    );
    if let Some(live) = &live {
        live.mark_used(&mut used_t);
    }
    let (pmap, tmap) = registry.canonicalize(&used_p, &used_t);
    recs.remap(&pmap, &tmap);
    clock.mark("canonicalize");
    let (dur, dur_wide) = slices::gather(dur, &dur_counts, &tmap);
    clock.mark("gather");
    let arena_text = arena.take();
    let trace_end = recs.max_end.unwrap_or(0);
    let texts = (input, arena_text.as_str());
    let (meta_recs, started) = (
        recs.take_joined(|r| &mut r.metadata),
        recs.take_joined(|r| &mut r.tracing_started),
    );
    let (metadata, facts) = metadata::apply(
        &meta_recs,
        &started,
        &mut registry,
        &strings,
        texts,
        &mut diags,
    );
    clock.mark("metadata");
    // Two independent branches, one per core: the thread slices (which run their
    // threads on both cores too); async operations, counters, objects and CPU
    // profiles. The flows join slices of both, after. The steps' times
    // (`load_phases`) overlap, so they add up to more than the wall time. Each
    // family's records are freed as soon as its table is built, the small ones
    // first. The families but `dur` are joined there too (a copy of each into
    // one vector), on the core the slices leave free.
    let thread_end = &std::mem::take(&mut recs.thread_end);
    let inputs = profiles::ProfileInputs {
        input,
        arena: texts.1,
        stack_frames: top.stack_frames,
        top_samples: top.samples,
        cpu_profile: top.cpu_profile,
        source_name: top.source_name,
    };
    let (timeline, rest) = rayon::join(
        || {
            let mut d = Diagnostics::new();
            let mut clock = Phases::default();
            let slices = match live {
                // A followed file's duration records are kept there, not in `recs`.
                Some(live) => live.build(&tmap, thread_end, &mut d),
                None => slices::build(dur, &dur_wide, dur_counts.spans, thread_end, &mut d),
            };
            clock.mark("slices");
            (slices, d, clock)
        },
        || {
            let mut clock = Phases::default();
            // Each family as the parts made it (not copied into one vector): the
            // builders read the parts in turn.
            let mut recs = recs;
            let counter_recs = recs.take_parts(|r| &mut r.counters);
            let object_recs = recs.take_parts(|r| &mut r.objects);
            let async_recs = recs.take_parts(|r| &mut r.asyncs);
            // The flows are built after the slices: copied into one vector each.
            let flow_recs = order::joined(recs.take_parts(|r| &mut r.flows));
            let flows_v2 = order::joined(recs.take_parts(|r| &mut r.flows_v2));
            let instants = instants::instants(recs.take_parts(|r| &mut r.instants));
            let other = instants::other(recs.take_parts(|r| &mut r.other));
            let profile_recs = recs.take_parts(|r| &mut r.profiles);
            let chunks = recs.take_parts(|r| &mut r.chunks);
            let sample_recs = recs.take_parts(|r| &mut r.samples);
            drop(recs);
            clock.mark("join+instants+other");
            // The instants', other events' and flows' vectors of the parts were
            // freed: their pages go back here, beside the slices.
            trim::free_heap_pages();
            let mut d = Diagnostics::new();
            let counters = counters::build(counter_recs);
            clock.mark("counters");
            let objects = objects::build(object_recs, trace_end, &mut d);
            clock.mark("objects");
            let async_slices = asyncs::build(async_recs, trace_end, &mut d);
            clock.mark("async");
            let prof = profiles::build(
                profile_recs,
                chunks,
                sample_recs,
                &inputs,
                &mut registry,
                &strings,
                &mut d,
            );
            // The profile chunks' and the other families' vectors were freed.
            trim::free_heap_pages();
            clock.mark("profiles");
            let kept = (flow_recs, flows_v2, instants, other);
            (counters, objects, async_slices, prof, kept, d, clock)
        },
    );
    let (slices, d1, c1) = timeline;
    let (counters, (objects, snapshots), async_slices, prof, kept, d2, c2) = rest;
    let (flow_recs, flows_v2, instants, other) = kept;
    diags.merge(d1);
    diags.merge(d2);
    clock.done.extend(c1.done.into_iter().chain(c2.done));
    clock.last = std::time::Instant::now();
    let flows = flows::build(flow_recs, flows_v2, &slices, &async_slices, &mut diags);
    clock.mark("flows");
    // The steps above only noted where their examples are: the file's pages were
    // released by the parse, and cutting the excerpts now reads the kept ones only.
    diags.cut_excerpts(|offset| input.excerpt(offset));
    registry.name_string_ids();
    let tables = Tables {
        strings: strings.into_inner(),
        processes: std::mem::take(&mut registry.processes),
        threads: std::mem::take(&mut registry.threads),
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
    let mut facts = facts;
    facts.phases = clock.done;
    facts.process_file = registry.process_file;
    (tables, diags, facts)
}
