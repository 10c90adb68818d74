//! Whether a change between two sets of runs is beyond run-to-run noise: Welch's
//! t-test per group, the p-values corrected for the number of groups tested with
//! Holm's step-down method.
//!
//! Welch's test fits what a benchmark gives: a few runs a side (2 to 10), sides with
//! different variance. A rank test (Mann-Whitney U) cannot help with so few runs
//! once corrected for many groups: with 5 runs a side its smallest two-sided
//! p-value is 2/252 = 0.008, more than 0.05 divided by 10 groups. Holm's method
//! keeps the chance of calling any unchanged group changed under `alpha` (the
//! family-wise error rate), which is what a CI gate needs: a false alarm fails a
//! build.

/// The outcome of Welch's test on two samples.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Welch {
    /// `(mean(b) - mean(a)) / standard error`; infinite when both samples are
    /// constant and differ.
    pub t: f64,
    /// Welch-Satterthwaite degrees of freedom.
    pub df: f64,
    /// Two-sided p-value.
    pub p: f64,
}

/// Mean and sample variance (n - 1).
fn mean_var(x: &[f64]) -> (f64, f64) {
    let n = x.len() as f64;
    let m = x.iter().sum::<f64>() / n;
    let v = x.iter().map(|v| (v - m) * (v - m)).sum::<f64>() / (n - 1.0);
    (m, v)
}

/// Welch's two-sample t-test; `None` with fewer than two values on a side.
/// Two constant samples give p = 1 when equal and p = 0 when not.
pub fn welch(a: &[f64], b: &[f64]) -> Option<Welch> {
    if a.len() < 2 || b.len() < 2 {
        return None;
    }
    let (ma, va) = mean_var(a);
    let (mb, vb) = mean_var(b);
    let (na, nb) = (a.len() as f64, b.len() as f64);
    let (sa, sb) = (va / na, vb / nb);
    let se2 = sa + sb;
    let diff = mb - ma;
    // Below this the variance is rounding error of the means, not spread.
    let tiny = 1e-24 * (ma * ma + mb * mb);
    if se2 <= tiny {
        let df = na + nb - 2.0;
        return Some(if diff == 0.0 {
            Welch { t: 0.0, df, p: 1.0 }
        } else {
            Welch {
                t: diff.signum() * f64::INFINITY,
                df,
                p: 0.0,
            }
        });
    }
    let t = diff / se2.sqrt();
    let df = se2 * se2 / (sa * sa / (na - 1.0) + sb * sb / (nb - 1.0));
    Some(Welch {
        t,
        df,
        p: t_two_sided(t, df),
    })
}

/// Two-sided p-value of Student's t distribution: `P(|T| >= |t|)` with `df`
/// degrees of freedom.
pub fn t_two_sided(t: f64, df: f64) -> f64 {
    if t.is_infinite() {
        return 0.0;
    }
    let x = df / (df + t * t);
    incomplete_beta(df / 2.0, 0.5, x).clamp(0.0, 1.0)
}

/// Holm's step-down adjustment: the adjusted p-value of each test (`None` stays
/// `None`: not tested, and not counted among the tests). A test is significant
/// at level `alpha` when its adjusted p-value is below `alpha`.
pub fn holm(p: &[Option<f64>]) -> Vec<Option<f64>> {
    let mut order: Vec<usize> = (0..p.len()).filter(|&i| p[i].is_some()).collect();
    order.sort_by(|&i, &j| p[i].partial_cmp(&p[j]).unwrap_or(std::cmp::Ordering::Equal));
    let m = order.len();
    let mut out = vec![None; p.len()];
    let mut running = 0f64;
    for (rank, &i) in order.iter().enumerate() {
        let adj = (p[i].unwrap_or(1.0) * (m - rank) as f64).min(1.0);
        running = running.max(adj);
        out[i] = Some(running);
    }
    out
}

/// The regularized incomplete beta function `I_x(a, b)`, by its continued
/// fraction (Lentz's method), on the side where it converges fast.
fn incomplete_beta(a: f64, b: f64, x: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    if x >= 1.0 {
        return 1.0;
    }
    let ln_front = ln_gamma(a + b) - ln_gamma(a) - ln_gamma(b) + a * x.ln() + b * (1.0 - x).ln();
    let front = ln_front.exp();
    if x < (a + 1.0) / (a + b + 2.0) {
        front * beta_fraction(a, b, x) / a
    } else {
        1.0 - front * beta_fraction(b, a, 1.0 - x) / b
    }
}

fn beta_fraction(a: f64, b: f64, x: f64) -> f64 {
    const TINY: f64 = 1e-300;
    const EPS: f64 = 1e-15;
    let nonzero = |v: f64| if v.abs() < TINY { TINY } else { v };
    let (qab, qap, qam) = (a + b, a + 1.0, a - 1.0);
    let mut c = 1.0;
    let mut d = 1.0 / nonzero(1.0 - qab * x / qap);
    let mut h = d;
    // One step of Lentz's method with coefficient `aa`: the factor it multiplies by.
    let mut step = |aa: f64| {
        d = 1.0 / nonzero(1.0 + aa * d);
        c = nonzero(1.0 + aa / c);
        d * c
    };
    for m in 1..=300 {
        let m = m as f64;
        let m2 = 2.0 * m;
        h *= step(m * (b - m) * x / ((qam + m2) * (a + m2)));
        let del = step(-(a + m) * (qab + m) * x / ((a + m2) * (qap + m2)));
        h *= del;
        if (del - 1.0).abs() < EPS {
            break;
        }
    }
    h
}

/// `ln Γ(x)` for `x > 0` (Lanczos, g = 7, 9 terms: about 15 significant digits).
fn ln_gamma(x: f64) -> f64 {
    const G: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        // Reflection: Γ(x) Γ(1 - x) = π / sin(πx).
        let pi = std::f64::consts::PI;
        return (pi / (pi * x).sin()).ln() - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let mut a = G[0];
    let t = x + 7.5;
    for (i, g) in G.iter().enumerate().skip(1) {
        a += g / (x + i as f64);
    }
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + a.ln()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) {
        assert!((a - b).abs() <= tol, "{a} vs {b}");
    }

    #[test]
    fn t_distribution_matches_closed_forms() {
        // df = 1 is Cauchy: P(|T| >= t) = 1 - 2 atan(t) / pi.
        for t in [0.1, 0.5, 1.0, 3.0, 12.706] {
            let want = 1.0 - 2.0 * f64::atan(t) / std::f64::consts::PI;
            close(t_two_sided(t, 1.0), want, 1e-12);
        }
        // df = 2: P(|T| >= t) = 1 - t / sqrt(2 + t^2).
        for t in [0.2, 1.0, 4.303, 30.0] {
            close(t_two_sided(t, 2.0), 1.0 - t / (2.0 + t * t).sqrt(), 1e-12);
        }
        // Table values: the 5% two-sided critical values.
        close(t_two_sided(2.228_138_85, 10.0), 0.05, 1e-8);
        close(t_two_sided(2.570_581_84, 5.0), 0.05, 1e-8);
        close(t_two_sided(2.306_004_14, 8.0), 0.05, 1e-8);
        close(t_two_sided(0.0, 7.0), 1.0, 1e-12);
    }

    #[test]
    fn ln_gamma_of_integers_and_halves() {
        close(ln_gamma(1.0), 0.0, 1e-13);
        close(ln_gamma(5.0), 24f64.ln(), 1e-13);
        close(ln_gamma(0.5), std::f64::consts::PI.sqrt().ln(), 1e-13);
        close(ln_gamma(10.5), 1_133_278.388_948_441_6f64.ln(), 1e-11);
    }

    #[test]
    fn welch_by_hand() {
        // a: mean 2, variance 1; b: mean 4, variance 4 (n = 3 each).
        // se^2 = 1/3 + 4/3 = 5/3; t = 2 / sqrt(5/3);
        // df = (5/3)^2 / ((1/3)^2/2 + (4/3)^2/2) = (25/9) / (17/18) = 50/17.
        let w = welch(&[1.0, 2.0, 3.0], &[2.0, 4.0, 6.0]).unwrap();
        close(w.t, 2.0 / (5.0f64 / 3.0).sqrt(), 1e-12);
        close(w.df, 50.0 / 17.0, 1e-12);
        close(w.p, t_two_sided(w.t, 50.0 / 17.0), 1e-15);
        assert!(w.p > 0.05 && w.p < 0.5, "{}", w.p);
        // Swapping the sides flips t, not p.
        let r = welch(&[2.0, 4.0, 6.0], &[1.0, 2.0, 3.0]).unwrap();
        close(r.t, -w.t, 1e-12);
        close(r.p, w.p, 1e-15);
    }

    #[test]
    fn welch_edge_cases() {
        assert_eq!(welch(&[1.0], &[1.0, 2.0]), None);
        assert_eq!(welch(&[3.0, 3.0], &[3.0, 3.0, 3.0]).unwrap().p, 1.0);
        let w = welch(&[3.0, 3.0], &[4.0, 4.0]).unwrap();
        assert_eq!((w.p, w.t), (0.0, f64::INFINITY));
    }

    #[test]
    fn holm_adjusts_in_order_and_stays_monotone() {
        // m = 4 tests: 0.01*4, 0.02*3, 0.03*2 -> max with 0.06, 0.04*1 -> 0.06.
        let adj = holm(&[Some(0.03), None, Some(0.01), Some(0.04), Some(0.02)]);
        let want = [Some(0.06), None, Some(0.04), Some(0.06), Some(0.06)];
        for (a, w) in adj.iter().zip(want) {
            match (a, w) {
                (Some(a), Some(w)) => close(*a, w, 1e-12),
                _ => assert_eq!(*a, w),
            }
        }
        assert_eq!(holm(&[Some(0.9), Some(0.8)]), vec![Some(1.0), Some(1.0)]);
    }
}
