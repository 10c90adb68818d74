//! Typed event arguments: how a value is stored in a record.
//!
//! Integers, floats and bools are one word each; strings are copied (so any
//! `&str`, `String` or dynamic value works); [`display`] and [`debug`] format a
//! value on the calling thread into a 256-byte stack buffer. Nothing allocates.

use std::fmt;

use crate::record::{clip, str_words, write_str};

pub(crate) const TAG_I64: u64 = 1;
pub(crate) const TAG_U64: u64 = 2;
pub(crate) const TAG_F64: u64 = 3;
pub(crate) const TAG_BOOL: u64 = 4;
pub(crate) const TAG_STR: u64 = 5;

/// A value as stored in a record.
pub trait Arg {
    #[doc(hidden)]
    const TAG: u64;
    #[doc(hidden)]
    fn words(&self) -> usize;
    /// # Safety
    /// `p` must have room for `self.words()` words.
    #[doc(hidden)]
    unsafe fn write(&self, p: *mut u64) -> *mut u64;
}

/// A type that can be an event argument.
pub trait ToArg {
    #[doc(hidden)]
    type Arg<'a>: Arg
    where
        Self: 'a;
    #[doc(hidden)]
    fn to_arg(&self) -> Self::Arg<'_>;
}

#[doc(hidden)]
pub struct I64(pub i64);
#[doc(hidden)]
pub struct U64(pub u64);
#[doc(hidden)]
pub struct F64(pub f64);
#[doc(hidden)]
pub struct Bool(pub bool);
#[doc(hidden)]
pub struct Str<'a>(pub &'a str);

macro_rules! word_arg {
    ($t:ident, $tag:expr, $v:ident => $bits:expr) => {
        impl Arg for $t {
            const TAG: u64 = $tag;
            #[inline(always)]
            fn words(&self) -> usize {
                1
            }
            #[inline(always)]
            unsafe fn write(&self, p: *mut u64) -> *mut u64 {
                let $v = self.0;
                *p = $bits;
                p.add(1)
            }
        }
    };
}
word_arg!(I64, TAG_I64, v => v as u64);
word_arg!(U64, TAG_U64, v => v);
word_arg!(F64, TAG_F64, v => v.to_bits());
word_arg!(Bool, TAG_BOOL, v => u64::from(v));

impl Arg for Str<'_> {
    const TAG: u64 = TAG_STR;
    #[inline(always)]
    fn words(&self) -> usize {
        str_words(self.0.len())
    }
    #[inline(always)]
    unsafe fn write(&self, p: *mut u64) -> *mut u64 {
        write_str(p, self.0.as_bytes())
    }
}

macro_rules! to_arg {
    ($wrap:ident, $as:ty: $($t:ty),*) => {$(
        impl ToArg for $t {
            type Arg<'a> = $wrap;
            #[inline(always)]
            fn to_arg(&self) -> $wrap {
                $wrap(*self as $as)
            }
        }
    )*};
}
to_arg!(I64, i64: i8, i16, i32, i64, isize);
to_arg!(U64, u64: u8, u16, u32, u64, usize);
to_arg!(F64, f64: f32, f64);

impl ToArg for bool {
    type Arg<'a> = Bool;
    #[inline(always)]
    fn to_arg(&self) -> Bool {
        Bool(*self)
    }
}

impl ToArg for str {
    type Arg<'a> = Str<'a>;
    #[inline(always)]
    fn to_arg(&self) -> Str<'_> {
        Str(clip(self))
    }
}

impl ToArg for String {
    type Arg<'a> = Str<'a>;
    #[inline(always)]
    fn to_arg(&self) -> Str<'_> {
        Str(clip(self))
    }
}

impl<T: ToArg + ?Sized> ToArg for &T {
    type Arg<'a>
        = T::Arg<'a>
    where
        Self: 'a;
    #[inline(always)]
    fn to_arg(&self) -> T::Arg<'_> {
        (**self).to_arg()
    }
}

/// Records a value through its `Display` implementation (cut at 255 bytes).
pub fn display<T: fmt::Display>(value: T) -> DisplayArg<T> {
    DisplayArg(value)
}

/// Records a value through its `Debug` implementation (cut at 255 bytes).
pub fn debug<T: fmt::Debug>(value: T) -> DebugArg<T> {
    DebugArg(value)
}

/// See [`display`].
pub struct DisplayArg<T>(pub T);
/// See [`debug`].
pub struct DebugArg<T>(pub T);

impl<T: fmt::Display> ToArg for DisplayArg<T> {
    type Arg<'a>
        = FmtBuf
    where
        T: 'a;
    fn to_arg(&self) -> FmtBuf {
        FmtBuf::format(format_args!("{}", self.0))
    }
}

impl<T: fmt::Debug> ToArg for DebugArg<T> {
    type Arg<'a>
        = FmtBuf
    where
        T: 'a;
    fn to_arg(&self) -> FmtBuf {
        FmtBuf::format(format_args!("{:?}", self.0))
    }
}

/// A formatted value on the stack.
#[doc(hidden)]
pub struct FmtBuf {
    len: usize,
    buf: [u8; 255],
}

impl FmtBuf {
    fn format(args: fmt::Arguments<'_>) -> FmtBuf {
        let mut b = FmtBuf {
            len: 0,
            buf: [0; 255],
        };
        // A full buffer ends formatting early; what fits is kept.
        let _ = fmt::write(&mut b, args);
        b
    }

    fn as_str(&self) -> &str {
        // Only whole characters are ever appended (see `write_str`).
        std::str::from_utf8(&self.buf[..self.len]).unwrap_or("")
    }
}

impl fmt::Write for FmtBuf {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let room = self.buf.len() - self.len;
        if s.len() <= room {
            self.buf[self.len..self.len + s.len()].copy_from_slice(s.as_bytes());
            self.len += s.len();
            return Ok(());
        }
        let mut end = room;
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        self.buf[self.len..self.len + end].copy_from_slice(&s.as_bytes()[..end]);
        self.len += end;
        Err(fmt::Error)
    }
}

impl Arg for FmtBuf {
    const TAG: u64 = TAG_STR;
    fn words(&self) -> usize {
        str_words(self.len)
    }
    unsafe fn write(&self, p: *mut u64) -> *mut u64 {
        write_str(p, self.as_str().as_bytes())
    }
}

/// A tuple of arguments, written one after the other.
#[doc(hidden)]
pub trait ArgList {
    const TAGS: u64;
    /// The type tags of these arguments (fixed by the type, except for C's).
    #[inline(always)]
    fn tags(&self) -> u64 {
        Self::TAGS
    }
    fn words(&self) -> usize;
    /// # Safety
    /// `p` must have room for `self.words()` words.
    unsafe fn write(&self, p: *mut u64) -> *mut u64;
}

macro_rules! arg_list {
    ($($T:ident $i:tt),*) => {
        impl<$($T: Arg),*> ArgList for ($($T,)*) {
            const TAGS: u64 = 0 $(| ($T::TAG << (4 * $i)))*;
            #[inline(always)]
            fn words(&self) -> usize {
                0 $(+ self.$i.words())*
            }
            #[inline(always)]
            #[allow(unused_mut)]
            unsafe fn write(&self, mut p: *mut u64) -> *mut u64 {
                $(p = self.$i.write(p);)*
                p
            }
        }
    };
}
arg_list!();
arg_list!(A 0);
arg_list!(A 0, B 1);
arg_list!(A 0, B 1, C 2);
arg_list!(A 0, B 1, C 2, D 3);
arg_list!(A 0, B 1, C 2, D 3, E 4);
arg_list!(A 0, B 1, C 2, D 3, E 4, F 5);
arg_list!(A 0, B 1, C 2, D 3, E 4, F 5, G 6);
arg_list!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7);

/// Pre-formatted JSON object body (`"k":v,...`), from the `tracing` layer.
#[cfg(feature = "tracing")]
pub(crate) struct JsonArgs<'a>(pub &'a [u8]);

#[cfg(feature = "tracing")]
impl ArgList for JsonArgs<'_> {
    const TAGS: u64 = 0;
    fn words(&self) -> usize {
        str_words(self.0.len())
    }
    unsafe fn write(&self, p: *mut u64) -> *mut u64 {
        write_str(p, self.0)
    }
}

/// One argument whose type is known only at run time (from the C ABI).
#[cfg(feature = "capi")]
pub(crate) enum DynArg<'a> {
    I64(i64),
    U64(u64),
    F64(f64),
    Bool(bool),
    Str(&'a str),
}

/// Up to eight run-time typed arguments.
#[cfg(feature = "capi")]
pub(crate) struct DynArgs<'a>(pub &'a [DynArg<'a>]);

#[cfg(feature = "capi")]
impl ArgList for DynArgs<'_> {
    const TAGS: u64 = 0;
    fn tags(&self) -> u64 {
        self.0.iter().take(8).enumerate().fold(0, |tags, (i, a)| {
            let tag = match a {
                DynArg::I64(_) => I64::TAG,
                DynArg::U64(_) => U64::TAG,
                DynArg::F64(_) => F64::TAG,
                DynArg::Bool(_) => Bool::TAG,
                DynArg::Str(_) => Str::TAG,
            };
            tags | tag << (4 * i)
        })
    }
    fn words(&self) -> usize {
        self.0
            .iter()
            .take(8)
            .map(|a| match a {
                DynArg::Str(s) => str_words(clip(s).len()),
                _ => 1,
            })
            .sum()
    }
    unsafe fn write(&self, mut p: *mut u64) -> *mut u64 {
        for a in self.0.iter().take(8) {
            p = match *a {
                DynArg::I64(v) => I64(v).write(p),
                DynArg::U64(v) => U64(v).write(p),
                DynArg::F64(v) => F64(v).write(p),
                DynArg::Bool(v) => Bool(v).write(p),
                DynArg::Str(s) => Str(clip(s)).write(p),
            };
        }
        p
    }
}

/// A value usable as an async, flow or object id.
pub trait AsId {
    #[doc(hidden)]
    fn as_id(&self) -> u64;
}

macro_rules! as_id {
    ($($t:ty),*) => {$(
        impl AsId for $t {
            #[inline(always)]
            fn as_id(&self) -> u64 {
                *self as u64
            }
        }
    )*};
}
as_id!(u8, u16, u32, u64, usize, i8, i16, i32, i64, isize);

impl<T: ?Sized> AsId for *const T {
    fn as_id(&self) -> u64 {
        self.cast::<()>() as usize as u64
    }
}

impl<T: ?Sized> AsId for *mut T {
    fn as_id(&self) -> u64 {
        self.cast::<()>() as usize as u64
    }
}

impl<T: AsId + ?Sized> AsId for &T {
    fn as_id(&self) -> u64 {
        (**self).as_id()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_is_cut_at_a_char_boundary() {
        let s = "é".repeat(200); // 400 bytes
        let b = display(&s).to_arg();
        assert_eq!(b.len, 254);
        assert_eq!(b.as_str(), &s[..254]);
    }

    #[test]
    fn tags_pack_four_bits_per_argument() {
        type L = (I64, Str<'static>, F64);
        assert_eq!(L::TAGS, TAG_I64 | TAG_STR << 4 | TAG_F64 << 8);
        let l: L = (I64(1), Str("abcdefghi"), F64(0.5));
        assert_eq!(l.words(), 1 + 3 + 1);
    }
}
