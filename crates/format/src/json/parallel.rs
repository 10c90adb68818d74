//! Reading the event list in parallel, speculatively, with the same result as one
//! sequential pass.
//!
//! The list is cut at `start + k * chunk_bytes`. Part 0 starts at the list's start;
//! for every later cut a worker guesses where the part starts (the first event start
//! in its chunk, see `Lexer::is_event_start`) and reads from there until the first
//! event start at or after the next cut. Then, in file order, each part must begin
//! exactly where the previous one stopped: a guess that does not (a nested object
//! that looked like an event, a syntax error met while guessing) is read again from
//! the right place with a fresh sink. The sequential path reads the same parts one
//! after another, so both give identical parts, events and diagnostics.

use super::list::{read_part, Part, PartEnd, PartPlan};
use super::reader::{ListOutcome, Lists};
use super::{EventSink, ReadOptions};
use crate::Diagnostics;

use super::early::EarlyParts;
use super::starts::Starts;
use rayon::prelude::*;

/// The event-list reader of [`read_json`](super::read_json): collects one sink per part.
pub(crate) struct PartLists<'o, F, S> {
    make_sink: &'o F,
    opts: &'o ReadOptions,
    /// Parts read while the text was arriving, for the first list read with `]`.
    early: Option<EarlyParts<S>>,
    pub parts: Vec<S>,
}

impl<'o, F, S> PartLists<'o, F, S> {
    pub fn new(make_sink: &'o F, opts: &'o ReadOptions, early: Option<EarlyParts<S>>) -> Self {
        PartLists {
            make_sink,
            opts,
            early,
            parts: Vec::new(),
        }
    }
}

/// Where the cuts of one list are: on a grid of `chunk` bytes from `origin` (the
/// list's start, or 0 to meet the grid of parts read early).
#[derive(Clone, Copy)]
struct Cuts {
    origin: usize,
    chunk: usize,
    len: usize,
}

impl Cuts {
    /// The grid cell holding `pos`.
    fn cell(self, pos: usize) -> usize {
        (pos - self.origin) / self.chunk
    }

    /// The first cut after `pos`: a part starting at `pos` stops at the first event
    /// start at or after it.
    fn after(self, pos: usize) -> usize {
        let k = self.cell(pos) + 1;
        self.origin.saturating_add(k.saturating_mul(self.chunk))
    }

    /// The cell of the text's last byte.
    fn last(self) -> usize {
        self.cell(self.len.max(self.origin + 1) - 1)
    }

    fn plan(self, start: usize, closer: Option<u8>, speculative: bool) -> PartPlan {
        PartPlan {
            start,
            closer,
            stop_at: self.after(start),
            speculative,
        }
    }
}

impl<'a, F, S> Lists<'a> for PartLists<'_, F, S>
where
    S: EventSink<'a> + Send,
    F: Fn() -> S + Sync,
{
    fn read_list(&mut self, text: &'a str, start: usize, closer: Option<u8>) -> ListOutcome {
        let early = match self.early.take() {
            Some(e)
                if closer == Some(b']')
                    && e.belong_to(text)
                    && e.chunk == self.opts.chunk_bytes.max(1) =>
            {
                Some(e)
            }
            // Read from another text or grid, or for a list without `]`: of no use.
            _ => None,
        };
        let cuts = Cuts {
            origin: if early.is_some() { 0 } else { start },
            chunk: self.opts.chunk_bytes.max(1),
            len: text.len(),
        };
        let make = self.make_sink;
        let threads = match self.opts.threads {
            0 => rayon::current_num_threads(),
            n => n,
        };
        let (first, last) = (cuts.cell(start), cuts.last());
        let mut early_cells = early.map(|e| e.cells).unwrap_or_default();
        // Guessed parts, by cell from `first`: part k starts in cell `first + k`.
        let mut guessed: Vec<Option<Part<S>>> = Vec::new();
        let cells: Vec<(usize, Option<Part<S>>)> = (first..=last)
            .map(|c| {
                (
                    c,
                    early_cells
                        .remove(&c)
                        .filter(|p| c != first || p.start == start),
                )
            })
            .collect();
        if threads > 1 && last > first || cells.iter().any(|(_, p)| p.is_some()) {
            let guess = |(cell, early): (usize, Option<Part<S>>)| -> Option<Part<S>> {
                if early.is_some() {
                    return early;
                }
                if cell == first {
                    return Some(read_part(text, cuts.plan(start, closer, false), make()));
                }
                if threads <= 1 {
                    return None;
                }
                let cut = cuts.origin + cell * cuts.chunk;
                // A guess walks at most a chunk from each `{`, so deep nesting
                // costs no more than reading.
                let at =
                    Starts::guessing(text, cuts.chunk).find(cut, cut.saturating_add(cuts.chunk))?;
                Some(read_part(text, cuts.plan(at, closer, true), make()))
            };
            let run = || cells.into_par_iter().map(guess).collect::<Vec<_>>();
            guessed = if self.opts.threads == 0 {
                run()
            } else {
                match rayon::ThreadPoolBuilder::new().num_threads(threads).build() {
                    Ok(pool) => pool.install(run),
                    // No threads to be had: the sequential path below reads everything.
                    Err(_) => Vec::new(),
                }
            };
        }

        let mut out = ListOutcome {
            end: PartEnd::Lost,
            events: 0,
            diags: Diagnostics::new(),
        };
        let mut next = guessed.first_mut().and_then(Option::take);
        let mut pos = start;
        loop {
            let part = match next.take() {
                Some(p) if p.start == pos && p.end != PartEnd::Aborted => p,
                _ => read_part(text, cuts.plan(pos, closer, false), make()),
            };
            out.events += part.events;
            out.diags.merge(part.diags);
            self.parts.push(part.sink);
            match part.end {
                PartEnd::Boundary(at) => {
                    pos = at;
                    next = guessed
                        .get_mut(cuts.cell(at) - first)
                        .and_then(Option::take);
                }
                end => {
                    out.end = end;
                    return out;
                }
            }
        }
    }
}
