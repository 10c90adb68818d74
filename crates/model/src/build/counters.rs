//! Counters (spec section 7): one series per `(pid, name, id, args key)`.

use rustc_hash::FxHashMap;

use super::records::CounterRec;
use crate::strings::StrId;
use crate::tables::{CounterSeries, CounterTable, ProcessId, SeriesId};

pub fn build(mut recs: Vec<CounterRec>) -> CounterTable {
    let mut index: FxHashMap<(ProcessId, StrId, StrId), u32> = FxHashMap::default();
    let mut t = CounterTable::default();
    let mut series_of = Vec::with_capacity(recs.len());
    for r in &recs {
        let next = t.series.len() as u32;
        let s = *index
            .entry((r.process, r.counter, r.series))
            .or_insert_with(|| {
                t.series.push(CounterSeries {
                    process: r.process,
                    counter: r.counter,
                    series: r.series,
                    rows: (0, 0),
                });
                next
            });
        series_of.push(s);
    }
    let mut order: Vec<u32> = (0..recs.len() as u32).collect();
    order.sort_by_key(|&i| {
        (
            series_of[i as usize],
            recs[i as usize].ts,
            recs[i as usize].offset,
        )
    });
    for (row, &i) in order.iter().enumerate() {
        let r = &mut recs[i as usize];
        let s = series_of[i as usize];
        let rows = &mut t.series[s as usize].rows;
        if rows.0 == rows.1 {
            *rows = (row as u32, row as u32);
        }
        rows.1 = row as u32 + 1;
        t.sample_series.push(SeriesId::new(s));
        t.ts.push(r.ts);
        t.value.push(r.value);
        if let Some(e) = r.exact.take() {
            t.exact.insert(row as u32, e);
        }
    }
    t
}
