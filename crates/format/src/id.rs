//! Process, thread and event identifiers, kept exact to 64 bits.

use std::borrow::Cow;
use std::fmt;

/// A JSON integer, exact to 64 bits: signed below zero, unsigned above `i64::MAX`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Int64 {
    I(i64),
    U(u64),
}

impl Int64 {
    /// Parses the text of a JSON integer (no fraction, no exponent).
    pub fn parse(text: &str) -> Option<Int64> {
        if let Some(rest) = text.strip_prefix('-') {
            if rest.is_empty() || !rest.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            return text.parse::<i64>().ok().map(Int64::I);
        }
        let digits = text.strip_prefix('+').unwrap_or(text);
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let v = digits.parse::<u64>().ok()?;
        Some(Int64::from_u64(v))
    }

    pub fn from_u64(v: u64) -> Int64 {
        if v <= i64::MAX as u64 {
            Int64::I(v as i64)
        } else {
            Int64::U(v)
        }
    }

    /// The value's 64 bits, for hashing and compact storage.
    pub fn bits(self) -> u64 {
        match self {
            Int64::I(v) => v as u64,
            Int64::U(v) => v,
        }
    }

    /// Parses a JSON number that may be written as a float but holds an integer
    /// (`1.0`, `1e3`). Returns `None` for fractions and out-of-range values.
    pub fn parse_number(text: &str) -> Option<Int64> {
        if let Some(v) = Int64::parse(text) {
            return Some(v);
        }
        let f: f64 = text.parse().ok()?;
        if f.fract() != 0.0 || !f.is_finite() || f.abs() >= 9.007_199_254_740_992e15 {
            return None;
        }
        Some(Int64::I(f as i64))
    }
}

impl fmt::Display for Int64 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Int64::I(v) => write!(f, "{v}"),
            Int64::U(v) => write!(f, "{v}"),
        }
    }
}

/// A `pid` or `tid`: an integer, or a string that names its process or thread.
/// A string holding a plain decimal integer is read as that integer.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Pid<'a> {
    Int(Int64),
    Str(Cow<'a, str>),
}

impl<'a> Pid<'a> {
    /// Reads a string value of `pid`/`tid`: decimal integer text means that integer.
    pub fn from_str_value(s: Cow<'a, str>) -> Pid<'a> {
        match Int64::parse(&s) {
            Some(v) if !s.starts_with('+') => Pid::Int(v),
            _ => Pid::Str(s),
        }
    }

    pub fn into_owned(self) -> Pid<'static> {
        match self {
            Pid::Int(v) => Pid::Int(v),
            Pid::Str(s) => Pid::Str(Cow::Owned(s.into_owned())),
        }
    }
}

impl fmt::Display for Pid<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Pid::Int(v) => write!(f, "{v}"),
            Pid::Str(s) => f.write_str(s),
        }
    }
}

/// An event id (`id`, `bind_id`, `id2.local`, `id2.global`, `sf`) as written, with
/// the key it compares by: integers, decimal strings and `0x` hex strings of the same
/// value are one id; other strings compare as strings.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Id<'a> {
    /// Written as a JSON number.
    Int(Int64),
    /// Written as a JSON string.
    Str(Cow<'a, str>),
}

/// What two ids compare by.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum IdKey<'a> {
    Int(u64),
    Str(Cow<'a, str>),
}

impl<'a> Id<'a> {
    pub fn key(&self) -> IdKey<'_> {
        match self {
            Id::Int(v) => IdKey::Int(v.bits()),
            Id::Str(s) => {
                let t: &str = s;
                let hex = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X"));
                if let Some(h) = hex {
                    if !h.is_empty() && h.len() <= 16 && h.bytes().all(|b| b.is_ascii_hexdigit()) {
                        return IdKey::Int(u64::from_str_radix(h, 16).unwrap_or(0));
                    }
                } else if let Some(v) = Int64::parse(t) {
                    return IdKey::Int(v.bits());
                }
                IdKey::Str(Cow::Borrowed(t))
            }
        }
    }

    /// The id as written, for display: numbers as digits, strings as they are.
    pub fn as_written(&self) -> Cow<'_, str> {
        match self {
            Id::Int(v) => Cow::Owned(v.to_string()),
            Id::Str(s) => Cow::Borrowed(s),
        }
    }

    pub fn into_owned(self) -> Id<'static> {
        match self {
            Id::Int(v) => Id::Int(v),
            Id::Str(s) => Id::Str(Cow::Owned(s.into_owned())),
        }
    }
}

/// `id2`: `{"local": x}` or `{"global": x}`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Id2<'a> {
    Local(Id<'a>),
    Global(Id<'a>),
}

impl Id2<'_> {
    pub fn into_owned(self) -> Id2<'static> {
        match self {
            Id2::Local(i) => Id2::Local(i.into_owned()),
            Id2::Global(i) => Id2::Global(i.into_owned()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ints_stay_exact() {
        assert_eq!(
            Int64::parse("18446744073709551615"),
            Some(Int64::U(u64::MAX))
        );
        assert_eq!(
            Int64::parse("-9223372036854775808"),
            Some(Int64::I(i64::MIN))
        );
        assert_eq!(Int64::parse("18446744073709551616"), None);
        assert_eq!(Int64::parse_number("1.0"), Some(Int64::I(1)));
        assert_eq!(Int64::parse_number("1.5"), None);
        assert_eq!(Int64::U(u64::MAX).to_string(), "18446744073709551615");
    }

    #[test]
    fn string_pids() {
        assert_eq!(
            Pid::from_str_value("25738".into()),
            Pid::Int(Int64::I(25738))
        );
        assert_eq!(Pid::from_str_value("-3".into()), Pid::Int(Int64::I(-3)));
        assert_eq!(Pid::from_str_value("foo".into()), Pid::Str("foo".into()));
        assert_eq!(Pid::from_str_value("12a".into()), Pid::Str("12a".into()));
    }

    #[test]
    fn id_keys() {
        let k = |id: Id<'static>| format!("{:?}", id.key());
        assert_eq!(k(Id::Str("0x1F".into())), k(Id::Int(Int64::I(31))));
        assert_eq!(k(Id::Str("31".into())), k(Id::Int(Int64::I(31))));
        assert_ne!(k(Id::Str("widget".into())), k(Id::Int(Int64::I(31))));
        assert_eq!(
            k(Id::Str("0xffffffffffffffff".into())),
            k(Id::Int(Int64::U(u64::MAX)))
        );
        assert_eq!(Id::Str("0x1F".into()).as_written(), "0x1F");
    }
}
