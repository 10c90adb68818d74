//! Puts decoded events in their final order without sorting the (large) events
//! themselves: by `seq` when every event has one (tracescope's input order), else
//! by time, stably in both cases.

use crate::Event;

/// Decoded events of a trace with their `seq` (the writer's input index) while
/// every event has one.
#[derive(Default)]
pub(crate) struct Decoded<'a> {
    pub events: Vec<Event<'a>>,
    pub seqs: Vec<u64>,
    pub all_seq: bool,
}

impl<'a> Decoded<'a> {
    pub(crate) fn push(&mut self, event: Event<'a>, seq: Option<u64>) {
        self.events.push(event);
        self.all_seq &= seq.is_some();
        self.seqs.push(seq.unwrap_or(0));
    }
}

pub(crate) fn in_order(d: Decoded<'_>) -> Vec<Event<'_>> {
    let Decoded {
        events,
        seqs,
        all_seq,
    } = d;
    let keys: Vec<i128> = if all_seq && !events.is_empty() {
        seqs.iter().map(|&s| i128::from(s)).collect()
    } else {
        events
            .iter()
            .map(|e| e.ts.map_or(i128::MIN, i128::from))
            .collect()
    };
    // The usual case: written in input order (or time order) already.
    if keys.is_sorted() {
        return events;
    }
    let mut perm: Vec<u32> = (0..keys.len() as u32).collect();
    // Stable: equal keys keep their decoded order.
    perm.sort_by_key(|&i| keys[i as usize]);
    let mut slots: Vec<Option<Event<'_>>> = events.into_iter().map(Some).collect();
    perm.iter()
        .map(|&i| slots[i as usize].take().expect("each index once"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(ts: Option<i64>, offset: u64) -> Event<'static> {
        Event {
            ts,
            offset,
            ..Event::default()
        }
    }

    #[test]
    fn by_seq_then_by_time_stably() {
        let d = Decoded {
            events: vec![ev(Some(5), 0), ev(Some(1), 1), ev(Some(3), 2)],
            seqs: vec![2, 0, 0],
            all_seq: true,
        };
        let order: Vec<u64> = in_order(d).iter().map(|e| e.offset).collect();
        assert_eq!(order, [1, 2, 0]);
        let d = Decoded {
            events: vec![ev(Some(5), 0), ev(None, 1), ev(Some(5), 2), ev(Some(1), 3)],
            seqs: vec![0, 0, 0, 0],
            all_seq: false,
        };
        let order: Vec<u64> = in_order(d).iter().map(|e| e.offset).collect();
        assert_eq!(order, [1, 3, 0, 2]);
    }
}
