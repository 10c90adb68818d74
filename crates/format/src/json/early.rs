//! Reading parts of the event list while the text is still arriving (a compressed
//! input being decoded on another thread), so that parsing overlaps decompression.
//!
//! The list is cut on a grid of `chunk_bytes` from offset 0. Workers take the grid's
//! cells in order; for each they wait until the text reaches a little past the cell,
//! guess where the cell's part starts (as the parallel reader does) and read it on
//! the prefix available. A part is kept only when nothing it decided depended on
//! bytes not yet there: it stopped at an event start whose object closes, with
//! something after it, inside the prefix, at least [`EXCERPT_ROOM`] bytes before the
//! prefix ends (diagnostics quote the text after an event). Otherwise it is read
//! again on a longer prefix, or left to the final read. The final read
//! ([`read_json_after`](super::read_json_after)) chains the kept parts exactly as it
//! chains guessed ones: a part is used only if it starts where the previous one
//! stopped, so the result is that of a sequential read.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;

use super::lexer::{Lexer, Prefix};
use super::list::{read_part, Part, PartEnd, PartPlan};
use super::starts::Starts;
use super::{EventSink, ReadOptions};

/// Bytes a kept part leaves between where it stopped and the prefix's end.
const EXCERPT_ROOM: usize = 4096;

/// How many times a cell is read on a longer prefix before it is left to the final read.
const TRIES: usize = 3;

/// Parts read early, by the grid cell their start lies in.
pub struct EarlyParts<S> {
    /// The address of the text they were read from: they are used only with that text.
    base: usize,
    pub(crate) chunk: usize,
    pub(crate) cells: HashMap<usize, Part<S>>,
    checked: CheckedBytes,
}

/// Runs of bytes (by address, with the [`Source`](crate::Source) they are of) the
/// parts read early found to be UTF-8 as they lexed them, on prefixes not checked
/// beforehand ([`Source::prefix_bytes`](crate::Source::prefix_bytes)): the source
/// need not check them again ([`Source::checked_by`](crate::Source::checked_by)).
/// Only [`read_early`] makes one.
#[derive(Debug, Default)]
pub struct CheckedBytes {
    /// (origin, addresses): see `Prefix::origin`.
    pub(crate) runs: Vec<(u64, std::ops::Range<usize>)>,
}

impl<S> EarlyParts<S> {
    /// How many parts were kept.
    pub fn len(&self) -> usize {
        self.cells.len()
    }

    pub fn is_empty(&self) -> bool {
        self.cells.is_empty()
    }

    /// Whether these parts were read from `text` (same address).
    pub(crate) fn belong_to(&self, text: &str) -> bool {
        self.base == text.as_ptr() as usize
    }

    /// The bytes these parts found to be UTF-8 on unchecked prefixes.
    pub fn checked(&self) -> &CheckedBytes {
        &self.checked
    }
}

/// How many sinks [`read_early`] may make for a text of `len` bytes: the `slot`s it
/// passes to `make_sink` are below this.
pub fn early_slots(len: usize, opts: &ReadOptions) -> usize {
    len.div_ceil(opts.chunk_bytes.max(1)) * TRIES
}

/// Reads the event list's parts from a text expected to grow to about `len` bytes
/// (a guess: parts past it are left to the final read, and a text that ends before
/// it ends the reading early). `prefix(n)`
/// blocks until at least `n` bytes (or all of them) are there and returns the text so
/// far (shorter than `n` only when that is all of it; its bytes checked as UTF-8 or
/// not: see [`Prefix`] and [`EarlyParts::checked`]), or `None` when no more
/// prefixes will come (the caller then reads as usual). `make_sink(slot, prefix)`
/// makes the sink of one attempt at a part, read on `prefix`; each attempt has its
/// own `slot` (see [`early_slots`]). Runs on the current rayon pool; returns when
/// every cell was tried.
pub fn read_early<'a, S, P, F>(
    prefix: P,
    len: usize,
    opts: &ReadOptions,
    make_sink: F,
) -> EarlyParts<S>
where
    S: EventSink<'a> + Send,
    P: Fn(usize) -> Option<Prefix<'a>> + Sync,
    F: Fn(usize, Prefix<'a>) -> S + Sync,
{
    let chunk = opts.chunk_bytes.max(1);
    let checked = Mutex::new(Vec::new());
    let cells = len.div_ceil(chunk);
    let next = AtomicUsize::new(0);
    let stopped = AtomicBool::new(false);
    let kept = Mutex::new(HashMap::new());
    let base = AtomicUsize::new(0);
    let work = || {
        while !stopped.load(Ordering::Relaxed) {
            let cell = next.fetch_add(1, Ordering::Relaxed);
            if cell >= cells {
                return;
            }
            match read_cell(cell, chunk, len, &prefix, &make_sink, &checked) {
                Err(NoMore) => stopped.store(true, Ordering::Relaxed),
                Ok(None) => {}
                Ok(Some((text_base, part))) => {
                    base.store(text_base, Ordering::Relaxed);
                    let mut kept = kept.lock().unwrap_or_else(|e| e.into_inner());
                    kept.insert(cell, part);
                }
            }
        }
    };
    let workers = match opts.threads {
        0 => rayon::current_num_threads(),
        n => n,
    };
    rayon::scope(|s| {
        for _ in 0..workers {
            s.spawn(|_| work());
        }
    });
    EarlyParts {
        base: base.into_inner(),
        chunk,
        cells: kept.into_inner().unwrap_or_else(|e| e.into_inner()),
        checked: CheckedBytes {
            runs: checked.into_inner().unwrap_or_else(|e| e.into_inner()),
        },
    }
}

struct NoMore;

/// Reads one cell on prefixes long enough for it; `Ok(None)` leaves it to the final read.
/// Adds to `checked` the bytes (by address) of each attempt that lexed all of its
/// run on an unchecked prefix.
fn read_cell<'a, S, P, F>(
    cell: usize,
    chunk: usize,
    len: usize,
    prefix: &P,
    make_sink: &F,
    checked: &Mutex<Vec<(u64, std::ops::Range<usize>)>>,
) -> Result<Option<(usize, Part<S>)>, NoMore>
where
    S: EventSink<'a>,
    P: Fn(usize) -> Option<Prefix<'a>>,
    F: Fn(usize, Prefix<'a>) -> S,
{
    let cut = cell * chunk;
    let stop_at = cut.saturating_add(chunk);
    // One byte more than expected at most: a text of exactly the expected length
    // then comes back shorter than asked, which is how its end shows (the length is
    // only a guess, so reaching it says nothing).
    let most = len.saturating_add(1);
    let mut want = stop_at.saturating_add(chunk / 8 + EXCERPT_ROOM).min(most);
    for attempt in 0..TRIES {
        let text = prefix(want).ok_or(NoMore)?;
        // Shorter than asked: that is all the text there is.
        let complete = text.len() < want;
        let Some(start) = Starts::guessing(text, chunk).find(cut, stop_at) else {
            // No event starts in this cell (yet): a longer prefix may show one.
            if complete {
                return Ok(None);
            }
            want = want.saturating_add(chunk).min(most);
            continue;
        };
        let plan = PartPlan {
            start,
            closer: Some(b']'),
            stop_at,
            speculative: true,
        };
        let part = read_part(text, plan, make_sink(cell * TRIES + attempt, text));
        let base = text.as_bytes().as_ptr() as usize;
        if let (false, true, PartEnd::Boundary(stop) | PartEnd::Closed(stop)) =
            (text.is_checked(), part.checked, part.end)
        {
            let mut runs = checked.lock().unwrap_or_else(|e| e.into_inner());
            runs.push((text.origin, base + part.start..base + stop));
        }
        if complete || settled(text.as_bytes(), &part.end) {
            return Ok(Some((base, part)));
        }
        want = want.saturating_add(chunk).min(most);
    }
    Ok(None)
}

/// Whether a part read on `text` ended the same way it would on any longer text.
fn settled(b: &[u8], end: &PartEnd) -> bool {
    match *end {
        // `]` closed the list inside the prefix: nothing after it was read.
        PartEnd::Closed(at) => at + EXCERPT_ROOM <= b.len(),
        // The next event's object closes and something follows it inside the prefix,
        // so "an event starts here" was decided on bytes that are all there.
        PartEnd::Boundary(at) => Lexer::bracket_end(b, at, b.len()).is_some_and(|end| {
            let after = end
                + b[end..]
                    .iter()
                    .take_while(|c| c.is_ascii_whitespace())
                    .count();
            after < b.len() && after.max(at + EXCERPT_ROOM) <= b.len()
        }),
        PartEnd::Truncated | PartEnd::Lost | PartEnd::Aborted => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::{read_json, read_json_after};
    use crate::{Diagnostics, Event};

    /// Each event's offset, name and phase.
    #[derive(Default)]
    struct Seen(Vec<(u64, String, String)>);

    impl<'a> EventSink<'a> for Seen {
        fn event(&mut self, ev: Event<'a>, _: &mut Diagnostics) {
            self.0.push((
                ev.offset,
                ev.name.unwrap_or_default().into_owned(),
                ev.ph.unwrap_or_default().into_owned(),
            ));
        }
    }

    /// A trace with what makes cutting hard: objects with a `ph` nested in args,
    /// events larger than a part, multi-byte characters, a syntax error, keys after
    /// the list.
    fn tricky() -> String {
        let mut t = String::from("{\"otherData\":{\"ph\":\"X\"},\"traceEvents\":[\n");
        for i in 0..400 {
            let args = match i % 7 {
                0 => format!("{{\"inner\":{{\"ph\":\"B\",\"name\":\"not an event {i}\"}}}}"),
                1 => format!("{{\"big\":\"{}\"}}", "é".repeat(300)),
                _ => format!("{{\"i\":{i}}}"),
            };
            t += &format!("{{\"ph\":\"X\",\"name\":\"ev{i}\",\"ts\":{i},\"dur\":1,\"pid\":1,\"tid\":1,\"args\":{args}}},\n");
            if i == 250 {
                t += "{\"ph\":\"X\",\"name\":oops},\n";
            }
        }
        t += "{\"ph\":\"i\",\"name\":\"last\",\"ts\":999}],\"metadata\":{\"ph\":\"M\"}}";
        t
    }

    /// Prefixes of `text` as a decoder hands them out: in steps of 1 KB, cut
    /// anywhere (mid-character too, then moved to the next character).
    fn arriving<'t>(text: &'t str) -> impl Fn(usize) -> Option<Prefix<'t>> + Sync + 't {
        move |min: usize| {
            let mut end = (min.div_ceil(1024) * 1024).min(text.len());
            while !text.is_char_boundary(end) {
                end += 1;
            }
            Some(text[..end].into())
        }
    }

    /// Prefixes of `bytes` not checked as UTF-8, cut anywhere (mid-character too).
    fn arriving_unchecked<'t>(bytes: &'t [u8]) -> impl Fn(usize) -> Option<Prefix<'t>> + Sync + 't {
        move |min: usize| {
            let end = (min.div_ceil(1000) * 1000).min(bytes.len());
            Some(Prefix::unchecked(&bytes[..end]))
        }
    }

    fn read_all(
        text: &str,
        opts: &ReadOptions,
        early: Option<EarlyParts<Seen>>,
    ) -> (Vec<(u64, String, String)>, Diagnostics) {
        let t = read_json_after(text, Seen::default, opts, early).unwrap();
        (
            t.parts.into_iter().flat_map(|p| p.0).collect(),
            t.diagnostics,
        )
    }

    #[test]
    fn parts_read_early_give_the_sequential_result() {
        let text = tricky();
        let want = {
            let t = read_json(
                &text,
                Seen::default,
                &ReadOptions {
                    threads: 1,
                    chunk_bytes: usize::MAX,
                },
            )
            .unwrap();
            (
                t.parts.into_iter().flat_map(|p| p.0).collect::<Vec<_>>(),
                t.diagnostics,
            )
        };
        assert_eq!(
            want.0.len(),
            401,
            "the event with a syntax error is dropped"
        );
        for chunk_bytes in [97, 500, 1500, 4000] {
            let opts = ReadOptions {
                threads: 2,
                chunk_bytes,
            };
            let early = read_early(arriving(&text), text.len(), &opts, |_, _| Seen::default());
            assert!(!early.is_empty(), "chunk {chunk_bytes}: no part was kept");
            let got = read_all(&text, &opts, Some(early));
            assert_eq!(got.0, want.0, "chunk {chunk_bytes}");
            assert_eq!(got.1, want.1, "chunk {chunk_bytes}");
        }
    }

    /// A compressed input's decoded size is often a guess (a gzip trailer is the last
    /// member's size, a streamed zstd frame declares none): whether the text ends
    /// before or after the guess, the result is the sequential one.
    #[test]
    fn a_wrong_length_guess_gives_the_sequential_result() {
        let text = tricky();
        let opts = ReadOptions {
            threads: 2,
            chunk_bytes: 500,
        };
        let want = read_all(&text, &opts, None);
        let prefix = arriving(&text);
        let n = text.len();
        for guess in [n / 3, n - 1, n, n + 1, 3 * n] {
            let early = read_early(&prefix, guess, &opts, |_, _| Seen::default());
            assert!(!early.is_empty(), "guess {guess}: no part was kept");
            // Parts are kept only from cells below the guess.
            assert!(
                early.cells.keys().all(|&c| c * 500 < guess),
                "guess {guess}"
            );
            assert_eq!(read_all(&text, &opts, Some(early)), want, "guess {guess}");
        }
    }

    #[test]
    fn no_more_prefixes_or_another_text_reads_as_usual() {
        let text = tricky();
        let opts = ReadOptions {
            threads: 2,
            chunk_bytes: 700,
        };
        let want = read_all(&text, &opts, None);
        let none = read_early(
            |_| None::<Prefix>,
            text.len(),
            &opts,
            |_, _| Seen::default(),
        );
        assert!(none.is_empty());
        assert_eq!(read_all(&text, &opts, Some(none)), want);
        // Parts read from a copy of the text are not used with the original.
        let copy = text.clone();
        let other = read_early(
            |_| Some(copy.as_str().into()),
            copy.len(),
            &opts,
            |_, _| Seen::default(),
        );
        assert!(!other.is_empty() && !other.belong_to(&text));
        assert_eq!(read_all(&text, &opts, Some(other)), want);
    }

    /// Prefixes not checked as UTF-8 (a mapped file read as it is): the result is the
    /// sequential one, and each run the parts vouch for is UTF-8, wherever a bad byte
    /// is put (in a name, in args, in a key, between events, after the list).
    #[test]
    fn unchecked_prefixes_vouch_only_for_utf8() {
        let text = tricky();
        let opts = ReadOptions {
            threads: 2,
            chunk_bytes: 500,
        };
        let want = read_all(&text, &opts, None);
        let early = read_early(
            arriving_unchecked(text.as_bytes()),
            text.len(),
            &opts,
            |_, _| Seen::default(),
        );
        let covered: usize = early.checked().runs.iter().map(|r| r.1.len()).sum();
        assert!(covered > text.len() / 2, "{covered} of {}", text.len());
        assert_eq!(read_all(&text, &opts, Some(early)), want);
        for bad in [0xFFu8, 0x80, 0xC3] {
            for at in (0..text.len()).step_by(89) {
                let mut bytes = text.clone().into_bytes();
                bytes[at] = bad;
                if std::str::from_utf8(&bytes).is_ok() {
                    continue;
                }
                let early = read_early(arriving_unchecked(&bytes), bytes.len(), &opts, |_, _| {
                    Seen::default()
                });
                let base = bytes.as_ptr() as usize;
                for (_, r) in &early.checked().runs {
                    let run = &bytes[r.start - base..r.end - base];
                    assert!(
                        std::str::from_utf8(run).is_ok(),
                        "byte {bad:#x} at {at}: vouched for {:?}",
                        r.start - base..r.end - base
                    );
                }
            }
        }
    }

    /// "An event starts here" may change when more text comes: an object that closes
    /// at the very end of the prefix (here one nested in args, which the `}` after
    /// it shows is no event) must not end a kept part.
    #[test]
    fn a_boundary_decided_at_the_end_of_the_prefix_is_not_settled() {
        let head = "[{\"ph\":\"X\",\"args\":";
        let nested = "{\"ph\":\"B\"}";
        let at = head.len();
        let cut = format!("{head}{nested}");
        assert!(
            Lexer::is_event_start(&cut, at),
            "taken for a start on the prefix"
        );
        assert!(!settled(cut.as_bytes(), &PartEnd::Boundary(at)));
        let room = " ".repeat(EXCERPT_ROOM);
        let full = format!("{head}{nested}}}{room}]");
        assert!(
            !Lexer::is_event_start(&full, at),
            "not a start on the whole text"
        );
        let event = format!("{head}1}},{nested},{room}");
        assert!(settled(
            event.as_bytes(),
            &PartEnd::Boundary(event.find(nested).unwrap())
        ));
        assert!(!settled(event.as_bytes(), &PartEnd::Truncated));
    }
}
