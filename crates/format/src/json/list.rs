//! Reading a run of the event list (`[ev, ev, ...]`, or bare `ev, ev, ...`) into a
//! sink: one part of a possibly parallel read.
//!
//! A part starts at an element and reads elements until the first event start (see
//! [`Lexer::is_event_start`]) at or after `stop_at`, or the end of the list. Where a
//! part stops depends only on the text, so reading the parts one after the other gives
//! exactly what one uninterrupted read gives; the parallel reader relies on that.

use super::lexer::{Fail, Lexer, Prefix};
use super::starts::Starts;
use super::EventSink;
use crate::{DiagKind, Diagnostics, Event};

/// Where a part stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PartEnd {
    /// At this event start, which the next part begins with.
    Boundary(usize),
    /// The list ended normally; the offset is just past its `]` (or, for a bare list,
    /// the end of the input or the text that follows the last event).
    Closed(usize),
    /// The input ended inside the list (diagnostic recorded).
    Truncated,
    /// A malformed element and no event after it: the rest of the input is skipped.
    Lost,
    /// A speculative part met a syntax error; its result is not used.
    Aborted,
}

/// Where a part starts and how it ends.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PartPlan {
    pub start: usize,
    /// `]`, or `None` for a bare list that ends with the input.
    pub closer: Option<u8>,
    /// Stop at the first event start at or after this offset.
    pub stop_at: usize,
    /// Read on a guessed start: give up on a syntax error rather than recover, since
    /// the guess was probably wrong and the part will be read again.
    pub speculative: bool,
}

/// One part's result.
pub(crate) struct Part<S> {
    pub start: usize,
    pub sink: S,
    pub diags: Diagnostics,
    pub events: u64,
    pub end: PartEnd,
    /// Every byte of `start..` the stop ([`PartEnd::Boundary`] or
    /// [`PartEnd::Closed`]) was stepped over by the lexer, with no jump: UTF-8 (see
    /// [`Prefix`]), even when the text was not known to be.
    pub checked: bool,
}

/// How to go on after a malformed element.
enum Resume {
    /// The element's brackets closed here and a `,` or the closer follows.
    AfterElement(usize),
    /// At the next event start.
    At(usize),
    Lost,
}

/// Event-start searches of one part: remembers the last one (the first start at or
/// after `from` is `found`, so a later search from inside `from..=found` needs no
/// new scan) and, in [`Starts`], every object found not to be a start. Keeps
/// recovery linear on inputs with many bad elements in a row or deep nesting.
struct FindMemo<'a> {
    starts: Starts<'a>,
    from: usize,
    found: Option<usize>,
    valid: bool,
}

impl<'a> FindMemo<'a> {
    fn new(text: Prefix<'a>) -> Self {
        FindMemo {
            starts: Starts::new(text),
            from: 0,
            found: None,
            valid: false,
        }
    }

    fn next_event(&mut self, from: usize) -> Option<usize> {
        if self.valid && from >= self.from && !matches!(self.found, Some(f) if from > f) {
            return self.found;
        }
        let found = self.starts.find(from, usize::MAX);
        (self.from, self.found, self.valid) = (from, found, true);
        found
    }
}

/// Reads one part of an event list into `sink`.
pub(crate) fn read_part<'a, S: EventSink<'a>>(
    text: impl Into<Prefix<'a>>,
    plan: PartPlan,
    mut sink: S,
) -> Part<S> {
    let text = text.into();
    let mut lx = Lexer::new(text, plan.start);
    // The cursor jumped over bytes it did not lex (a repair).
    let mut jumped = false;
    let mut events = 0u64;
    // The event being read (see `Lexer::event`), emptied by the sink.
    let mut slot = Event::default();
    let mut memo = FindMemo::new(text);
    // The comma after the last element, while no element has followed it.
    let mut pending_comma: Option<usize> = None;
    let end = 'list: loop {
        lx.ws();
        let at = lx.pos;
        let Some(c) = lx.peek() else {
            break end_of_input(&mut lx, plan.closer, pending_comma);
        };
        if Some(c) == plan.closer {
            if let Some(comma) = pending_comma {
                lx.diag(DiagKind::TrailingComma, comma);
            }
            break PartEnd::Closed(at + 1);
        }
        if c == b',' {
            // `[,` or `,,`: nothing is lost by stepping over it.
            lx.diag(DiagKind::SyntaxError, at);
            lx.pos += 1;
            continue;
        }
        if c == b'{' && at >= plan.stop_at && Lexer::is_event_start(text, at) {
            break PartEnd::Boundary(at);
        }
        pending_comma = None;
        let read = if c == b'{' {
            match lx.event(&mut slot) {
                Ok(true) => {
                    sink.event_in_place(&mut slot, &mut lx.diags);
                    events += 1;
                    Ok(())
                }
                Ok(false) => {
                    lx.diag(DiagKind::EmptyEvent, at);
                    Ok(())
                }
                Err(e) => {
                    slot = Event::default();
                    Err(e)
                }
            }
        } else {
            lx.diag(DiagKind::BadField, at);
            lx.skip_value(1)
        };
        let mut resume = match read {
            Ok(()) => None,
            Err(Fail::Eof) => {
                lx.diag(DiagKind::Truncated, at);
                break PartEnd::Truncated;
            }
            Err(Fail::Syntax(bad)) => {
                if plan.speculative {
                    break PartEnd::Aborted;
                }
                let kind = match lx.too_deep.take() {
                    Some(deep) if deep == bad => DiagKind::TooDeep,
                    _ => DiagKind::SyntaxError,
                };
                lx.diag(kind, bad);
                Some(recover(&mut lx, &mut memo, at, bad, plan.closer))
            }
        };
        // Between elements: a comma, the closer, or a repair.
        loop {
            match resume.take() {
                Some(Resume::At(next)) => {
                    jumped = true;
                    lx.pos = next;
                    continue 'list;
                }
                Some(Resume::AfterElement(end)) => {
                    jumped = true;
                    lx.pos = end;
                }
                Some(Resume::Lost) => break 'list PartEnd::Lost,
                None => {}
            }
            lx.ws();
            let sep = lx.pos;
            match lx.peek() {
                Some(b',') => {
                    pending_comma = Some(sep);
                    lx.pos += 1;
                    continue 'list;
                }
                Some(c) if Some(c) == plan.closer => break 'list PartEnd::Closed(sep + 1),
                None => break 'list end_of_input(&mut lx, plan.closer, None),
                // A bare list (no brackets) ends where something other than an event
                // follows; the caller reports that text as trailing content.
                Some(c) if plan.closer.is_none() && c != b'{' => break 'list PartEnd::Closed(sep),
                Some(b'{') => {
                    // A missing comma between two objects (JSON Lines style): read on.
                    lx.diag(DiagKind::SyntaxError, sep);
                    continue 'list;
                }
                Some(_) => {
                    if plan.speculative {
                        break 'list PartEnd::Aborted;
                    }
                    lx.diag(DiagKind::SyntaxError, sep);
                    resume = Some(match memo.next_event(sep + 1) {
                        Some(next) => Resume::At(next),
                        None => Resume::Lost,
                    });
                }
            }
        }
    };
    let stop = match end {
        PartEnd::Boundary(at) | PartEnd::Closed(at) => at,
        PartEnd::Truncated | PartEnd::Lost | PartEnd::Aborted => text.len(),
    };
    if end != PartEnd::Aborted {
        sink.part_done(plan.start..stop, &mut lx.diags);
    }
    Part {
        start: plan.start,
        sink,
        diags: lx.diags,
        events,
        end,
        checked: !jumped && matches!(end, PartEnd::Boundary(_) | PartEnd::Closed(_)),
    }
}

/// The input ended between elements.
fn end_of_input(lx: &mut Lexer<'_>, closer: Option<u8>, pending_comma: Option<usize>) -> PartEnd {
    if closer.is_some() {
        lx.diag(DiagKind::Truncated, lx.b.len());
        return PartEnd::Truncated;
    }
    if let Some(comma) = pending_comma {
        lx.diag(DiagKind::TrailingComma, comma);
    }
    PartEnd::Closed(lx.b.len())
}

/// After a syntax error at `bad` in the element starting at `elem`: skip that element
/// if its brackets close before the next event start and a separator follows them,
/// else go to the next event start.
fn recover(
    lx: &mut Lexer<'_>,
    memo: &mut FindMemo<'_>,
    elem: usize,
    bad: usize,
    closer: Option<u8>,
) -> Resume {
    let next = memo.next_event(bad.max(elem + 1));
    let bracketed = matches!(lx.b.get(elem), Some(b'{' | b'['));
    if let Some(end) =
        Lexer::bracket_end(lx.b, elem, next.unwrap_or(lx.b.len())).filter(|_| bracketed)
    {
        let mut after = end;
        while let Some(b' ' | b'\n' | b'\r' | b'\t') = lx.b.get(after) {
            after += 1;
        }
        let sep = lx.b.get(after).copied();
        if sep == Some(b',') || sep == closer || sep.is_none() {
            return Resume::AfterElement(end);
        }
    }
    match next {
        Some(next) => Resume::At(next),
        None => Resume::Lost,
    }
}
