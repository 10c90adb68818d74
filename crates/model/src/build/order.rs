//! Records of one family as the parts made them, and orders over them that read
//! each record once.
//!
//! The families (all but `dur`) are no longer copied into one vector per family
//! before their tables are built: each builder reads every part's vector in turn
//! (file order), and frees it when done. A builder that needs another order sorts
//! small `(key, reference)` pairs, not the records (up to 100 bytes each) nor
//! indexes whose keys are read through other arrays (a random read per
//! comparison, which at 10 GB missed the caches on nearly every one).

/// One family's records: each part's vector, in file order.
pub type Parts<T> = Vec<Vec<T>>;

/// The parts copied into one vector of their length, the parts freed: for a
/// family kept past the slices step. Each part's vector is a small block of the
/// heap with room to spare, and blocks left among freed ones keep their pages
/// resident (a trim cannot give back a page still partly in use).
pub fn joined<T>(mut parts: Parts<T>) -> Parts<T> {
    if parts.len() > 1 {
        let mut one = Vec::with_capacity(count(&parts));
        for mut p in parts.drain(..) {
            one.append(&mut p);
        }
        parts.push(one);
    }
    parts
}

/// How many records the parts hold.
pub fn count<T>(parts: &[Vec<T>]) -> usize {
    parts.iter().map(Vec::len).sum()
}

/// The records of `parts` stably sorted by `key`: equal keys in file order, as a
/// stable sort of the joined records gives. Records already in order are not
/// sorted (a check, then nothing to do).
pub fn sorted_by<T, K: Ord + Copy>(parts: &[Vec<T>], key: impl Fn(&T) -> K) -> Vec<(K, &T)> {
    let mut v: Vec<(K, &T)> = Vec::with_capacity(count(parts));
    v.extend(parts.iter().flatten().map(|r| (key(r), r)));
    sort_stable_by_key(&mut v, |p| p.0);
    v
}

/// A stable sort by `key` that first checks whether `v` is already in order (most
/// families come in file order, which is often time order).
pub fn sort_stable_by_key<T, K: Ord>(v: &mut [T], key: impl Fn(&T) -> K) {
    if !v.is_sorted_by_key(&key) {
        v.sort_by_key(key);
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A small random generator (no dependency): a linear congruential step.
    pub(crate) struct Lcg(pub u64);

    impl Lcg {
        pub fn below(&mut self, m: u64) -> u64 {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (self.0 >> 33) % m.max(1)
        }
    }

    /// Against a stable sort of the joined records: the same records, equal keys
    /// in file order, for sorted, nearly sorted and shuffled input with many ties.
    #[test]
    fn sorted_by_is_a_stable_sort_of_the_joined_records() {
        let mut rng = Lcg(3);
        // Ascending times (sorted input), ties included.
        let mut last = 0i64;
        let mut k_ts = move |rng: &mut Lcg| {
            last += rng.below(2) as i64;
            last
        };
        for round in 0..300 {
            let parts: Parts<(i64, u32)> = (0..rng.below(5))
                .map(|_| {
                    (0..rng.below(40))
                        .map(|_| {
                            let ts = match round % 4 {
                                0 => rng.below(10) as i64,
                                1 => (rng.below(4) as i64) - 2,
                                2 => k_ts(&mut rng),
                                _ => 5,
                            };
                            (ts, 0)
                        })
                        .collect()
                })
                .collect();
            // Mark each record with its place in file order.
            let mut parts = parts;
            for (k, r) in parts.iter_mut().flatten().enumerate() {
                r.1 = k as u32;
            }
            let mut joined: Vec<(i64, u32)> = parts.iter().flatten().copied().collect();
            joined.sort_by_key(|r| r.0);
            let got: Vec<(i64, u32)> = sorted_by(&parts, |r| r.0)
                .into_iter()
                .map(|(_, r)| *r)
                .collect();
            assert_eq!(got, joined, "round {round}");
        }
    }
}
