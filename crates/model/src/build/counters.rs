//! Counters (spec section 7): one series per `(pid, name, id, args key)`.

use rustc_hash::FxHashMap;
use tracescope_format::Int64;

use super::order::{count, Parts};
use super::records::CounterRec;
use crate::strings::StrId;
use crate::tables::{CounterSeries, CounterTable, ProcessId, SeriesId};

/// The rows are the samples by series (in order of first appearance), then by
/// (time, offset), equal keys in file order.
///
/// Linear but for the sort of each series' samples: a counting pass by series,
/// the samples written into the table's columns series by series (one stream
/// each, file order within), then each series' rows sorted where they are not
/// in order, by a permutation of that series only (its columns stay in the
/// caches). Sorting row indexes of the whole table by a key read through two
/// other arrays missed the caches on every comparison at 10 GB (15x the time of
/// 1 GB). Beside the table, only the offsets (8 bytes a sample) and one series'
/// permutation are allocated: fresh pages cost their zeroing, which at 10 GB
/// was half of this step.
pub fn build(parts: Parts<CounterRec>) -> CounterTable {
    let n = count(&parts);
    let mut index: FxHashMap<(ProcessId, StrId, StrId), u32> = FxHashMap::default();
    let mut t = CounterTable::default();
    let mut counts: Vec<u32> = Vec::new();
    for r in parts.iter().flatten() {
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
                counts.push(0);
                next
            });
        counts[s as usize] += 1;
    }
    // Each series' rows; `at`: the next free row of each while filling.
    let mut at: Vec<u32> = Vec::with_capacity(counts.len());
    let mut row = 0u32;
    for (s, &c) in counts.iter().enumerate() {
        at.push(row);
        t.series[s].rows = (row, row + c);
        row += c;
    }
    t.ts = vec![0; n];
    t.value = vec![0.0; n];
    let mut offset = vec![0u64; n];
    // (row, exact integer), in file order: few.
    let mut exact: Vec<(u32, Int64)> = Vec::new();
    for r in parts.iter().flatten() {
        let s = index[&(r.process, r.counter, r.series)];
        let slot = &mut at[s as usize];
        let i = *slot as usize;
        *slot += 1;
        t.ts[i] = r.ts;
        t.value[i] = r.value;
        offset[i] = r.offset;
        if let Some(e) = r.exact {
            exact.push((i as u32, e));
        }
    }
    drop(parts);
    let mut exact: FxHashMap<u32, Int64> = exact.into_iter().collect();
    let mut order: Vec<u32> = Vec::new();
    let mut moved_f: Vec<f64> = Vec::new();
    let mut moved_i: Vec<i64> = Vec::new();
    for series in &t.series {
        let (from, to) = (series.rows.0 as usize, series.rows.1 as usize);
        let (ts, off) = (&t.ts[from..to], &offset[from..to]);
        if (1..ts.len()).all(|k| (ts[k - 1], off[k - 1]) <= (ts[k], off[k])) {
            continue;
        }
        // Stable: equal keys keep file order.
        order.clear();
        order.extend(0..(to - from) as u32);
        order.sort_by_key(|&k| (ts[k as usize], off[k as usize]));
        moved_i.clear();
        moved_i.extend(order.iter().map(|&k| ts[k as usize]));
        t.ts[from..to].copy_from_slice(&moved_i);
        moved_f.clear();
        moved_f.extend(order.iter().map(|&k| t.value[from + k as usize]));
        t.value[from..to].copy_from_slice(&moved_f);
        if !exact.is_empty() {
            let mut old: Vec<(u32, Int64)> = Vec::new();
            exact.retain(|&row, e| {
                let inside = (from..to).contains(&(row as usize));
                if inside {
                    old.push((row, *e));
                }
                !inside
            });
            if !old.is_empty() {
                let old: FxHashMap<u32, Int64> = old.into_iter().collect();
                for (k, &o) in order.iter().enumerate() {
                    if let Some(&e) = old.get(&(from as u32 + o)) {
                        exact.insert((from + k) as u32, e);
                    }
                }
            }
        }
    }
    t.sample_series.reserve_exact(n);
    for (s, series) in t.series.iter().enumerate() {
        let (from, to) = series.rows;
        t.sample_series.extend(std::iter::repeat_n(
            SeriesId::new(s as u32),
            (to - from) as usize,
        ));
    }
    t.exact = exact;
    t
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::build::order::tests::Lcg;

    /// The table as it was built before: row indexes stably sorted by
    /// (series, time, offset), series in order of first appearance.
    fn plain(mut recs: Vec<CounterRec>) -> CounterTable {
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

    fn same(a: &CounterTable, b: &CounterTable) {
        let key = |t: &CounterTable| {
            t.series
                .iter()
                .map(|s| (s.process, s.counter, s.series, s.rows))
                .collect::<Vec<_>>()
        };
        assert_eq!(key(a), key(b));
        assert_eq!(a.sample_series, b.sample_series);
        assert_eq!(a.ts, b.ts);
        // Values are unique per record here: they tell which record made a row.
        assert_eq!(
            a.value.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
            b.value.iter().map(|v| v.to_bits()).collect::<Vec<_>>()
        );
        assert_eq!(a.exact, b.exact);
    }

    /// Unsorted, nearly sorted and sorted series, equal times and equal offsets
    /// (one event's several args keys; an arg key twice), split into parts.
    #[test]
    fn same_table_as_a_stable_sort_of_row_indexes() {
        let mut rng = Lcg(11);
        for round in 0..400 {
            let n = rng.below(60) as usize;
            let mut recs = Vec::with_capacity(n);
            let mut offset = 0u64;
            let mut ts = 0i64;
            for k in 0..n {
                if rng.below(3) != 0 {
                    offset += 1 + rng.below(3);
                }
                ts = match round % 4 {
                    0 => rng.below(8) as i64,
                    1 => ts + rng.below(3) as i64 - 1,
                    2 => ts + rng.below(3) as i64,
                    _ => 7,
                };
                let offset = if round % 5 == 0 { rng.below(6) } else { offset };
                recs.push(CounterRec {
                    offset,
                    ts,
                    process: ProcessId::new(rng.below(2) as u32),
                    counter: StrId::NONE,
                    series: StrId(rng.below(2) as u32),
                    value: k as f64,
                    exact: (rng.below(4) == 0).then_some(Int64::I(k as i64)),
                });
            }
            let mut parts: Parts<CounterRec> = Vec::new();
            let mut rest = &recs[..];
            while !rest.is_empty() || rng.below(3) == 0 {
                let (a, b) = rest.split_at((rng.below(15) as usize).min(rest.len()));
                parts.push(a.to_vec());
                rest = b;
                if rest.is_empty() && rng.below(2) == 0 {
                    break;
                }
            }
            same(&build(parts), &plain(recs));
        }
    }
}
