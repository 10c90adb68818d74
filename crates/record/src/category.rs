//! Category filters: which trace points record.
//!
//! The syntax follows Chrome's `--trace-config` category list, as set in
//! `TRACESCOPE_CATEGORIES`: a comma-separated list of patterns (`*` matches any
//! run of characters). A pattern starting with `-` excludes. With no inclusion
//! pattern (empty list, or exclusions only) every category is included.
//! Categories named `disabled-by-default-*` are off unless an inclusion pattern
//! that itself starts with `disabled-by-default-` names them: `*` alone does not.
//! A trace point whose category is a comma list (`"gpu,io"`) records when any of
//! its members is enabled, as in Chrome.

/// The prefix of categories that are off unless named explicitly.
pub const DISABLED_BY_DEFAULT: &str = "disabled-by-default-";

/// A parsed category list.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CategoryFilter {
    include: Vec<String>,
    exclude: Vec<String>,
}

impl CategoryFilter {
    /// Parses a comma-separated list such as `"*,-noisy,disabled-by-default-gpu"`.
    /// Empty items and surrounding spaces are ignored.
    pub fn parse(spec: &str) -> CategoryFilter {
        let mut filter = CategoryFilter::default();
        for item in spec.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            match item.strip_prefix('-') {
                Some(excluded) => filter.exclude.push(excluded.to_string()),
                None => filter.include.push(item.to_string()),
            }
        }
        filter
    }

    /// The filter of `TRACESCOPE_CATEGORIES`, or the default (every category but
    /// `disabled-by-default-*`) when it is unset.
    pub fn from_env() -> CategoryFilter {
        std::env::var("TRACESCOPE_CATEGORIES")
            .map(|s| CategoryFilter::parse(&s))
            .unwrap_or_default()
    }

    /// Whether a trace point of category `cat` (possibly a comma list) records.
    pub fn enabled(&self, cat: &str) -> bool {
        cat.split(',').map(str::trim).any(|c| self.enabled_one(c))
    }

    fn enabled_one(&self, cat: &str) -> bool {
        if self.exclude.iter().any(|p| glob(p, cat)) {
            return false;
        }
        if cat.starts_with(DISABLED_BY_DEFAULT) {
            return self
                .include
                .iter()
                .any(|p| p.starts_with(DISABLED_BY_DEFAULT) && glob(p, cat));
        }
        self.include.is_empty() || self.include.iter().any(|p| glob(p, cat))
    }
}

/// Matches `text` against `pattern`, where `*` matches any (possibly empty) run.
fn glob(pattern: &str, text: &str) -> bool {
    let (p, t) = (pattern.as_bytes(), text.as_bytes());
    let (mut pi, mut ti) = (0, 0);
    // Position of the last `*` seen and the text position it was tried at.
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        if pi < p.len() && p[pi] == b'*' {
            star = Some((pi, ti));
            pi += 1;
        } else if pi < p.len() && p[pi] == t[ti] {
            pi += 1;
            ti += 1;
        } else if let Some((sp, st)) = star {
            pi = sp + 1;
            ti = st + 1;
            star = Some((sp, st + 1));
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|&c| c == b'*')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_enables_all_but_disabled_by_default() {
        let f = CategoryFilter::parse("");
        assert!(f.enabled("io"));
        assert!(f.enabled(""));
        assert!(!f.enabled("disabled-by-default-gpu"));
        assert_eq!(f, CategoryFilter::default());
    }

    #[test]
    fn star_and_exclusions() {
        let f = CategoryFilter::parse("*, -noisy ,-v8.*");
        assert!(f.enabled("io"));
        assert!(!f.enabled("noisy"));
        assert!(!f.enabled("v8.gc"));
        assert!(f.enabled("v8"));
        assert!(!f.enabled("disabled-by-default-gpu"));
        let only_excl = CategoryFilter::parse("-noisy");
        assert!(only_excl.enabled("io"));
        assert!(!only_excl.enabled("noisy"));
    }

    #[test]
    fn inclusion_list_and_disabled_by_default() {
        let f = CategoryFilter::parse("io,gpu*,disabled-by-default-mem");
        assert!(f.enabled("io"));
        assert!(f.enabled("gpu.raster"));
        assert!(!f.enabled("net"));
        assert!(f.enabled("disabled-by-default-mem"));
        assert!(!f.enabled("disabled-by-default-cpu"));
        let all_dbd = CategoryFilter::parse("disabled-by-default-*");
        assert!(all_dbd.enabled("disabled-by-default-cpu"));
        assert!(!all_dbd.enabled("io"));
    }

    #[test]
    fn comma_list_category_records_if_any_member_does() {
        let f = CategoryFilter::parse("io");
        assert!(f.enabled("net,io"));
        assert!(!f.enabled("net,gpu"));
        let g = CategoryFilter::parse("-io");
        assert!(g.enabled("net,io"));
    }

    #[test]
    fn glob_cases() {
        assert!(glob("a*c", "abbbc"));
        assert!(glob("*", ""));
        assert!(glob("a**", "a"));
        assert!(!glob("a*c", "abcd"));
        assert!(glob("*b*", "abc"));
        assert!(!glob("abc", "ab"));
    }
}
