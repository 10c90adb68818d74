//! Level of detail: what of a row of items is visible in a window `[t0, t1)` drawn
//! `px` pixels wide, with runs of sub-pixel items merged into one item per pixel.
//!
//! Pixel buckets are computed in exact integer arithmetic: item start `s` falls in
//! bucket `floor((s - t0) * px / (t1 - t0))`, and an item is narrower than one pixel
//! when `dur * px < t1 - t0`. A row whose items never overlap (the usual case: one
//! depth of a call stack) is walked bucket by bucket with binary searches, so a query
//! costs O(px log n) whatever the number of items in the window. Rows whose items
//! overlap (rare: improper overlaps, out-of-band lanes) are walked item by item.

use crate::tables::block_times::partition_rows;

/// The item ids of a row, by position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ids {
    /// Any ids (table rows in start order).
    List(Vec<u32>),
    /// `first..first + len`: items laid out row by row (flame intervals), which
    /// costs no memory per item.
    Range { first: u32, len: u32 },
}

impl Default for Ids {
    fn default() -> Ids {
        Ids::List(Vec::new())
    }
}

impl Ids {
    pub fn len(&self) -> usize {
        match self {
            Ids::List(v) => v.len(),
            Ids::Range { len, .. } => *len as usize,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The id at position `k < len`.
    pub fn get(&self, k: usize) -> u32 {
        match self {
            Ids::List(v) => v[k],
            Ids::Range { first, .. } => first + k as u32,
        }
    }

    pub fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        (0..self.len()).map(|k| self.get(k))
    }

    /// The first position whose id fails `pred` (which holds on a prefix), as
    /// `slice::partition_point`.
    pub fn partition_point(&self, pred: impl Fn(u32) -> bool) -> usize {
        partition_rows(0..self.len(), |k| pred(self.get(k)))
    }

    fn heap_bytes(&self) -> usize {
        match self {
            Ids::List(v) => v.capacity() * 4,
            Ids::Range { .. } => 0,
        }
    }
}

/// One row's items, by position, in start order.
#[derive(Debug, Default)]
pub struct Row {
    /// Item ids (table rows, or flame interval indexes), sorted by start.
    pub ids: Ids,
    /// Empty when items never overlap; else the running maximum of the visible end
    /// (`max(end, start + 1)`) over positions, to find the first visible item.
    prefix_end: Vec<i64>,
}

/// The rows of one track.
#[derive(Debug, Default)]
pub struct Rows {
    pub rows: Vec<Row>,
}

/// An item of the answer: positions `first..first + count` of the row. `count == 1`
/// is one item drawn exactly; more is a merged run covering `[ts, end)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Piece {
    pub first: u32,
    pub count: u32,
    pub ts: i64,
    pub end: i64,
}

/// The end used for visibility: a zero-length item at `ts` is visible in `[t0, t1)`
/// when `t0 <= ts`.
fn vis_end(start: i64, end: i64) -> i64 {
    end.max(start.saturating_add(1))
}

impl Rows {
    /// Builds rows from `(id, row)` pairs given in start order; `span(id)` gives an
    /// item's `(start, end)`.
    pub fn build(
        items: impl Iterator<Item = (u32, u32)>,
        nrows: usize,
        span: impl Fn(u32) -> (i64, i64),
    ) -> Rows {
        let mut lists: Vec<Vec<u32>> = vec![Vec::new(); nrows];
        for (id, r) in items {
            let r = r as usize;
            if r >= lists.len() {
                lists.resize_with(r + 1, Vec::new);
            }
            lists[r].push(id);
        }
        let rows = lists
            .into_iter()
            .map(|mut ids| {
                ids.shrink_to_fit();
                Row::new(Ids::List(ids), &span)
            })
            .collect();
        Rows { rows }
    }

    /// Rows of items laid out row by row: row `r` holds ids
    /// `offsets[r]..offsets[r + 1]`, each row in start order.
    pub fn from_offsets(offsets: &[u32], span: impl Fn(u32) -> (i64, i64)) -> Rows {
        let rows = offsets
            .windows(2)
            .map(|w| {
                let ids = Ids::Range {
                    first: w[0],
                    len: w[1] - w[0],
                };
                Row::new(ids, &span)
            })
            .collect();
        Rows { rows }
    }

    pub fn heap_bytes(&self) -> usize {
        self.rows
            .iter()
            .map(|r| r.ids.heap_bytes() + r.prefix_end.capacity() * 8 + 64)
            .sum()
    }
}

/// The pixel grid of a window.
#[derive(Clone, Copy, Debug)]
pub struct Grid {
    pub t0: i64,
    pub t1: i64,
    pub px: u32,
}

impl Grid {
    /// `None` unless `t0 < t1` and `px > 0`.
    pub fn new(t0: i64, t1: i64, px: u32) -> Option<Grid> {
        (t0 < t1 && px > 0).then_some(Grid { t0, t1, px })
    }

    fn span(&self) -> i128 {
        self.t1 as i128 - self.t0 as i128
    }

    /// Narrower than one pixel.
    pub fn narrow(&self, start: i64, end: i64) -> bool {
        (end as i128 - start as i128) * (self.px as i128) < self.span()
    }

    /// The first time after the bucket that holds `t` (for `t` before `t0`, buckets
    /// continue to the left on the same grid).
    pub fn bucket_end(&self, t: i64) -> i64 {
        let d = self.span();
        let p = (t as i128 - self.t0 as i128) * self.px as i128;
        let bucket = p.div_euclid(d);
        let end =
            self.t0 as i128 + ((bucket + 1) * d + self.px as i128 - 1).div_euclid(self.px as i128);
        end.clamp(i64::MIN as i128, i64::MAX as i128) as i64
    }
}

impl Row {
    fn new(ids: Ids, span: impl Fn(u32) -> (i64, i64)) -> Row {
        let n = ids.len();
        let disjoint = (1..n).all(|k| span(ids.get(k - 1)).1 <= span(ids.get(k)).0);
        let mut prefix_end = Vec::new();
        if !disjoint {
            let mut m = i64::MIN;
            prefix_end = ids
                .iter()
                .map(|id| {
                    let (s, e) = span(id);
                    m = m.max(vis_end(s, e));
                    m
                })
                .collect();
        }
        Row { ids, prefix_end }
    }

    /// The visible items of the row in the window, sub-pixel runs merged per pixel.
    pub fn pieces(&self, g: Grid, span: impl Fn(u32) -> (i64, i64)) -> Vec<Piece> {
        let at = |k: usize| span(self.ids.get(k));
        let n = self.ids.len();
        let hi = self.ids.partition_point(|id| span(id).0 < g.t1);
        let mut out = Vec::new();
        if self.prefix_end.is_empty() {
            // Disjoint items: ends are sorted like starts, and in a bucket only the
            // last item can be a pixel wide or more (anything after it starts past
            // its end, so past the bucket).
            let mut k = self.ids.partition_point(|id| {
                let (s, e) = span(id);
                vis_end(s, e) <= g.t0
            });
            while k < hi.min(n) {
                let (s, e) = at(k);
                if !g.narrow(s, e) {
                    out.push(Piece {
                        first: k as u32,
                        count: 1,
                        ts: s,
                        end: e,
                    });
                    k += 1;
                    continue;
                }
                let b = g.bucket_end(s);
                let j = gallop(&self.ids, k, hi, |id| span(id).0 < b);
                let (ls, le) = at(j - 1);
                let wide_last = j - 1 > k && !g.narrow(ls, le);
                let last = if wide_last { j - 2 } else { j - 1 };
                let end = at(last).1;
                out.push(Piece {
                    first: k as u32,
                    count: (last + 1 - k) as u32,
                    ts: s,
                    end,
                });
                if wide_last {
                    out.push(Piece {
                        first: (j - 1) as u32,
                        count: 1,
                        ts: ls,
                        end: le,
                    });
                }
                k = j;
            }
            return out;
        }
        // Overlapping items: walk every item in the window.
        let mut k = self.prefix_end.partition_point(|&m| m <= g.t0);
        let mut open: Option<(Piece, i64)> = None; // run and its bucket end
        while k < hi {
            let (s, e) = at(k);
            if vis_end(s, e) > g.t0 {
                if !g.narrow(s, e) {
                    out.push(Piece {
                        first: k as u32,
                        count: 1,
                        ts: s,
                        end: e,
                    });
                } else {
                    match &mut open {
                        Some((p, b)) if s < *b => {
                            p.count = (k + 1) as u32 - p.first;
                            p.end = p.end.max(e);
                        }
                        _ => {
                            if let Some((p, _)) = open.take() {
                                out.push(p);
                            }
                            let p = Piece {
                                first: k as u32,
                                count: 1,
                                ts: s,
                                end: e,
                            };
                            open = Some((p, g.bucket_end(s)));
                        }
                    }
                }
            }
            k += 1;
        }
        out.extend(open.map(|(p, _)| p));
        out
    }
}

/// The first position in `k..hi` where `before` turns false, given it holds at `k`:
/// galloping from `k`, so a bucket holding few items costs few probes, all near `k`.
fn gallop(ids: &Ids, k: usize, hi: usize, before: impl Fn(u32) -> bool) -> usize {
    let (mut lo, mut step) = (k, 1);
    while lo + step < hi && before(ids.get(lo + step)) {
        lo += step;
        step *= 2;
    }
    // `before` fails at `lo + step` (or that is past `hi`).
    partition_rows(lo + 1..(lo + step).min(hi), |k| before(ids.get(k)))
}

/// Min and max over ranges of a value column: a pyramid of blocks of `FAN` values.
#[derive(Debug, Default)]
pub struct MinMax {
    levels: Vec<Vec<(f64, f64)>>,
    pub min: f64,
    pub max: f64,
}

const FAN: usize = 64;

impl MinMax {
    pub fn build(values: &[f64]) -> MinMax {
        let mut levels: Vec<Vec<(f64, f64)>> = Vec::new();
        let mut cur: Vec<(f64, f64)> = values
            .chunks(FAN)
            .map(|c| {
                c.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |a, &v| {
                    (a.0.min(v), a.1.max(v))
                })
            })
            .collect();
        while cur.len() > 1 {
            let next = cur
                .chunks(FAN)
                .map(|c| {
                    c.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |a, v| {
                        (a.0.min(v.0), a.1.max(v.1))
                    })
                })
                .collect();
            levels.push(std::mem::replace(&mut cur, next));
        }
        let (min, max) = cur.first().copied().unwrap_or((0.0, 0.0));
        levels.push(cur);
        MinMax { levels, min, max }
    }

    /// Min and max of `values[a..b]` (`values` as given to `build`), `a < b`.
    pub fn range(&self, values: &[f64], a: usize, b: usize) -> (f64, f64) {
        let mut acc = (f64::INFINITY, f64::NEG_INFINITY);
        let add = |acc: &mut (f64, f64), v: (f64, f64)| {
            acc.0 = acc.0.min(v.0);
            acc.1 = acc.1.max(v.1);
        };
        let (mut a, mut b) = (a, b);
        // Level 0 is the raw values; level l >= 1 is `self.levels[l - 1]`.
        let mut lvl = 0;
        loop {
            let get = |x: usize| {
                if lvl == 0 {
                    (values[x], values[x])
                } else {
                    self.levels[lvl - 1][x]
                }
            };
            if b - a <= 2 * FAN || lvl == self.levels.len() {
                (a..b).for_each(|x| add(&mut acc, get(x)));
                return acc;
            }
            let (a2, b2) = (a.div_ceil(FAN), b / FAN);
            (a..a2 * FAN).for_each(|x| add(&mut acc, get(x)));
            (b2 * FAN..b).for_each(|x| add(&mut acc, get(x)));
            (a, b, lvl) = (a2, b2, lvl + 1);
        }
    }

    pub fn heap_bytes(&self) -> usize {
        self.levels.iter().map(|l| l.capacity() * 16).sum()
    }
}

/// Counter points for a window: one per non-empty pixel bucket, plus the last
/// sample before `t0` so the line starts at the left edge.
#[derive(Debug, Default, PartialEq)]
pub struct CounterPoints {
    /// Time of the first sample in the bucket.
    pub ts: Vec<i64>,
    /// Last value in the bucket.
    pub value: Vec<f64>,
    pub min: Vec<f64>,
    pub max: Vec<f64>,
}

pub fn counter_points(ts: &[i64], values: &[f64], mm: &MinMax, g: Grid) -> CounterPoints {
    let mut out = CounterPoints::default();
    let mut push = |t: i64, v: f64, (lo, hi): (f64, f64)| {
        out.ts.push(t);
        out.value.push(v);
        out.min.push(lo);
        out.max.push(hi);
    };
    let mut k = ts.partition_point(|&t| t < g.t0);
    let hi = ts.partition_point(|&t| t < g.t1);
    if k > 0 {
        let v = values[k - 1];
        push(ts[k - 1], v, (v, v));
    }
    while k < hi {
        let b = g.bucket_end(ts[k]);
        let j = k + ts[k..hi].partition_point(|&t| t < b);
        push(ts[k], values[j - 1], mm.range(values, k, j));
        k = j;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A single row from `(start, end)` spans.
    fn row(spans: &[(i64, i64)]) -> (Rows, Vec<(i64, i64)>) {
        let v = spans.to_vec();
        let rows = Rows::build((0..v.len() as u32).map(|i| (i, 0)), 1, |i| v[i as usize]);
        (rows, v)
    }

    /// Rows given as id ranges (flame charts) answer exactly as the same rows given
    /// as id lists, disjoint or overlapping, at every zoom.
    #[test]
    fn id_ranges_answer_like_id_lists() {
        // Row 0 (ids 0..6) is disjoint with sub-pixel runs; row 1 (ids 6..9) overlaps.
        let spans = [
            (0, 10),
            (10, 11),
            (11, 12),
            (12, 13),
            (40, 90),
            (95, 96),
            (0, 50),
            (5, 20),
            (60, 61),
        ];
        let span = |i: u32| spans[i as usize];
        let lists = Rows::build(
            (0..spans.len() as u32).map(|i| (i, u32::from(i >= 6))),
            2,
            span,
        );
        let ranges = Rows::from_offsets(&[0, 6, 9], span);
        assert_eq!(ranges.rows[1].ids, Ids::Range { first: 6, len: 3 });
        assert!(ranges.rows[0].prefix_end.is_empty() && !ranges.rows[1].prefix_end.is_empty());
        assert_eq!(ranges.heap_bytes() + 9 * 4, lists.heap_bytes());
        for (t0, t1, px) in [
            (0, 100, 10),
            (0, 100, 100),
            (9, 14, 3),
            (41, 97, 7),
            (-50, 5, 2),
        ] {
            let g = Grid::new(t0, t1, px).unwrap();
            for r in 0..2 {
                let (a, b) = (&lists.rows[r], &ranges.rows[r]);
                let ids = |row: &Row| -> Vec<(u32, Piece)> {
                    row.pieces(g, span)
                        .into_iter()
                        .map(|p| (row.ids.get(p.first as usize), p))
                        .collect()
                };
                assert_eq!(ids(a), ids(b), "row {r} at {t0}..{t1} / {px} px");
            }
        }
    }

    fn pieces(spans: &[(i64, i64)], t0: i64, t1: i64, px: u32) -> Vec<Piece> {
        let (rows, v) = row(spans);
        rows.rows[0].pieces(Grid::new(t0, t1, px).unwrap(), |i| v[i as usize])
    }

    #[test]
    fn thousand_tiny_slices_at_ten_pixels() {
        // 1000 slices of 1 ns every 10 ns over [0, 10000): 1000 ns per pixel.
        let spans: Vec<_> = (0..1000).map(|i| (i * 10, i * 10 + 1)).collect();
        let p = pieces(&spans, 0, 10_000, 10);
        let expect: Vec<Piece> = (0..10)
            .map(|b| Piece {
                first: b * 100,
                count: 100,
                ts: b as i64 * 1000,
                end: b as i64 * 1000 + 991,
            })
            .collect();
        assert_eq!(p, expect);
        assert_eq!(p.iter().map(|p| p.count).sum::<u32>(), 1000);
    }

    #[test]
    fn wide_items_stay_exact_between_merged_runs() {
        // Tiny, tiny, a 5 px slice, tiny: px = 10 over [0, 100): 10 ns per pixel.
        let spans = [(0, 1), (2, 3), (4, 54), (60, 61), (62, 63)];
        let p = pieces(&spans, 0, 100, 10);
        assert_eq!(
            p,
            vec![
                Piece {
                    first: 0,
                    count: 2,
                    ts: 0,
                    end: 3
                },
                Piece {
                    first: 2,
                    count: 1,
                    ts: 4,
                    end: 54
                },
                Piece {
                    first: 3,
                    count: 2,
                    ts: 60,
                    end: 63
                },
            ]
        );
    }

    #[test]
    fn a_lone_narrow_item_is_exact() {
        let p = pieces(&[(5, 6), (50, 51)], 0, 100, 10);
        assert_eq!(
            p,
            vec![
                Piece {
                    first: 0,
                    count: 1,
                    ts: 5,
                    end: 6
                },
                Piece {
                    first: 1,
                    count: 1,
                    ts: 50,
                    end: 51
                }
            ]
        );
    }

    #[test]
    fn window_edges() {
        // [0,100) straddles t0, [950,1050) straddles t1, [1000, 1100) starts at t1,
        // [40, 50) ends at t0, a zero-length item at t0 is visible.
        let spans = [(0, 50), (50, 50), (60, 100), (950, 1050), (1050, 1100)];
        let p = pieces(&spans, 50, 1050, 1000);
        assert_eq!(
            p,
            vec![
                Piece {
                    first: 1,
                    count: 1,
                    ts: 50,
                    end: 50
                },
                Piece {
                    first: 2,
                    count: 1,
                    ts: 60,
                    end: 100
                },
                Piece {
                    first: 3,
                    count: 1,
                    ts: 950,
                    end: 1050
                },
            ]
        );
    }

    #[test]
    fn wide_item_last_in_a_bucket() {
        // 10 ns per pixel; bucket [0,10) holds tiny items then a 12 ns item at 8.
        let p = pieces(&[(0, 1), (2, 3), (8, 20), (21, 22)], 0, 100, 10);
        assert_eq!(
            p,
            vec![
                Piece {
                    first: 0,
                    count: 2,
                    ts: 0,
                    end: 3
                },
                Piece {
                    first: 2,
                    count: 1,
                    ts: 8,
                    end: 20
                },
                Piece {
                    first: 3,
                    count: 1,
                    ts: 21,
                    end: 22
                },
            ]
        );
    }

    #[test]
    fn overlapping_row_is_walked_item_by_item() {
        // A long item overlapping later tiny ones (an overlap row).
        let spans = [(0, 500), (10, 11), (12, 13), (300, 301), (600, 601)];
        let (rows, v) = row(&spans);
        assert!(!rows.rows[0].prefix_end.is_empty());
        let g = Grid::new(200, 1000, 8).unwrap(); // 100 ns per pixel
        let p = rows.rows[0].pieces(g, |i| v[i as usize]);
        assert_eq!(
            p,
            vec![
                Piece {
                    first: 0,
                    count: 1,
                    ts: 0,
                    end: 500
                },
                Piece {
                    first: 3,
                    count: 1,
                    ts: 300,
                    end: 301
                },
                Piece {
                    first: 4,
                    count: 1,
                    ts: 600,
                    end: 601
                },
            ]
        );
        let g = Grid::new(0, 1000, 10).unwrap();
        let p = rows.rows[0].pieces(g, |i| v[i as usize]);
        assert_eq!(
            p[1],
            Piece {
                first: 1,
                count: 2,
                ts: 10,
                end: 13
            }
        );
    }

    #[test]
    fn million_items_cost_pixels_not_items() {
        let spans: Vec<_> = (0..1_000_000i64).map(|i| (i * 4, i * 4 + 3)).collect();
        let p = pieces(&spans, 0, 4_000_000, 1500);
        assert!(p.len() <= 1501, "{}", p.len());
        assert_eq!(p.iter().map(|p| p.count as u64).sum::<u64>(), 1_000_000);
        // Zoomed in to 10 items at 1500 px: all exact.
        let p = pieces(&spans, 400, 440, 1500);
        assert_eq!(p.len(), 10);
        assert!(p.iter().all(|p| p.count == 1));
    }

    #[test]
    fn bucket_end_is_exact() {
        let g = Grid::new(0, 10, 3).unwrap(); // buckets [0,4) [4,7) [7,10)
        assert_eq!(
            [
                g.bucket_end(0),
                g.bucket_end(3),
                g.bucket_end(4),
                g.bucket_end(9)
            ],
            [4, 4, 7, 10]
        );
        assert_eq!(g.bucket_end(-1), 0);
        assert!(Grid::new(5, 5, 10).is_none() && Grid::new(0, 5, 0).is_none());
    }

    #[test]
    fn min_max_ranges_match_a_scan() {
        let values: Vec<f64> = (0..20_000)
            .map(|i| ((i * 7919) % 1000) as f64 - 500.0)
            .collect();
        let mm = MinMax::build(&values);
        assert_eq!((mm.min, mm.max), (-500.0, 499.0));
        for &(a, b) in &[
            (0, 1),
            (3, 200),
            (63, 64 * 70 + 5),
            (100, 20_000),
            (0, 20_000),
            (19_999, 20_000),
        ] {
            let scan = values[a..b]
                .iter()
                .fold((f64::INFINITY, f64::NEG_INFINITY), |m, &v| {
                    (m.0.min(v), m.1.max(v))
                });
            assert_eq!(mm.range(&values, a, b), scan, "{a}..{b}");
        }
    }

    #[test]
    fn counter_points_per_bucket() {
        let ts = [0, 1, 2, 15, 30, 31];
        let values = [5.0, 9.0, 1.0, 4.0, 7.0, 8.0];
        let mm = MinMax::build(&values);
        // Window [10, 40) at 3 px: buckets of 10 ns; the sample at 2 leads in.
        let p = counter_points(&ts, &values, &mm, Grid::new(10, 40, 3).unwrap());
        assert_eq!(p.ts, vec![2, 15, 30]);
        assert_eq!(p.value, vec![1.0, 4.0, 8.0]);
        assert_eq!(p.min, vec![1.0, 4.0, 7.0]);
        assert_eq!(p.max, vec![1.0, 4.0, 8.0]);
        let p = counter_points(&ts, &values, &mm, Grid::new(0, 10, 1).unwrap());
        assert_eq!(
            (p.ts, p.value, p.min, p.max),
            (vec![0], vec![1.0], vec![1.0], vec![9.0])
        );
    }
}
