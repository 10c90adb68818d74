//! Lazy args: each event's `args` stays in the input until someone asks: as JSON
//! text in a JSON input, encoded in the stream files of a CTF trace in
//! tracescope's own layout ([`TextRef::is_ctf`]).

use std::borrow::Cow;

pub use crate::arena::{ArenaText, LocalArena, SharedArena};

/// Where an event's raw JSON text lives: a byte range of the trace text, or (high
/// bit of `start` set) of the model's own arena for events that did not come from
/// JSON text (ETW, the recorder, CTF traces not in tracescope's own layout). `len
/// == 0` means absent. The next bit of `start` ([`TextRef::is_compact`]) marks args
/// text the load found already compact; the one after ([`TextRef::is_ctf`]) marks
/// the encoded args of a CTF record, whose text is made when asked for.
/// [`TextRef::offset`] is `start` without these bits.
///
/// Packed to 12 bytes (from 16 with the padding after `len`): a column of these
/// is in every table with args (the slice table keeps its own in 6-byte cells,
/// see `tables::args_cells`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(C, packed(4))]
pub struct TextRef {
    pub start: u64,
    pub len: u32,
}

pub(crate) const ARENA_BIT: u64 = 1 << 63;
/// Set on args text in an input file that the load found already compact JSON
/// (see [`TextRef::known_compact`]); no offset comes near it (4 EiB).
const COMPACT_BIT: u64 = 1 << 62;
/// Set on the args of a CTF record in the input's stream files, still encoded.
const CTF_BIT: u64 = 1 << 61;

impl TextRef {
    pub const NONE: TextRef = TextRef { start: 0, len: 0 };

    pub fn is_none(self) -> bool {
        self.len == 0
    }

    /// `len` bytes of the model's arena from `at`.
    pub(crate) const fn in_arena(at: u64, len: u32) -> TextRef {
        TextRef {
            start: at | ARENA_BIT,
            len,
        }
    }

    /// Text kept in the model's arena, not in an input file.
    pub fn is_arena(self) -> bool {
        self.start & ARENA_BIT != 0
    }

    /// The `len` bytes at `at` of the input's stream files (in the input files'
    /// space of offsets): a CTF record's `arguments` as written, which
    /// `tracescope_format::ctf::args_json` turns into the args text.
    pub(crate) const fn in_ctf(at: u64, len: u32) -> TextRef {
        TextRef {
            start: at | CTF_BIT,
            len,
        }
    }

    /// The encoded args of a CTF record in the input's stream files (its
    /// `arguments` as written), not text: resolving them writes their text
    /// (`tracescope_format::ctf::args_json`).
    pub fn is_ctf(self) -> bool {
        self.start & CTF_BIT != 0
    }

    /// Where the text starts: in the arena when [`is_arena`](Self::is_arena),
    /// else in the input files' space of offsets (`start` without its flag bits).
    pub fn offset(self) -> u64 {
        self.start & !(ARENA_BIT | COMPACT_BIT | CTF_BIT)
    }

    /// The load found this args text already the compact JSON that
    /// `tracescope_format::json::value::compact` writes (the text parses, and
    /// `compact` gives it back as it is): the export copies it without walking it.
    pub fn is_compact(self) -> bool {
        self.start & COMPACT_BIT != 0
    }

    /// The same text, marked compact (see [`is_compact`](Self::is_compact)).
    /// The caller knows it: the reader's validating skip accepted the text
    /// without comments or trailing commas, and `walk::known_compact` holds.
    pub(crate) fn known_compact(self) -> TextRef {
        TextRef {
            start: self.start | COMPACT_BIT,
            len: self.len,
        }
    }

    /// The same text once its file is placed at `base` among several inputs (a
    /// range of the arena, or none, stays as it is).
    pub fn moved(self, base: u64) -> TextRef {
        if self.is_none() || self.start & ARENA_BIT != 0 {
            return self;
        }
        TextRef {
            start: self.start + base,
            len: self.len,
        }
    }
}

/// Resolves [`TextRef`]s of text: the input text plus the arena (encoded CTF
/// args, which are not text, resolve with [`Texts::resolve`]).
pub fn resolve<'t>(input: &'t str, arena: &'t str, r: TextRef) -> &'t str {
    if r.is_none() || r.is_ctf() {
        return "";
    }
    let base = if r.is_arena() { arena } else { input };
    let start = r.offset() as usize;
    base.get(start..start + r.len as usize).unwrap_or("")
}

/// The [`TextRef`] of text that lies inside `input` (found by address), or of an
/// arena copy of any other text.
pub fn text_ref(input: &str, arena: &SharedArena, text: &str) -> TextRef {
    in_input(input, text).unwrap_or_else(|| arena.push(text))
}

/// The [`TextRef`] of text that lies inside `input` (found by address).
pub fn in_input(input: &str, text: &str) -> Option<TextRef> {
    in_bytes(input.as_bytes(), text)
}

/// The [`TextRef`] of text that lies inside `input` (found by address).
pub(crate) fn in_bytes(input: &[u8], text: &str) -> Option<TextRef> {
    let base = input.as_ptr() as usize;
    let p = text.as_ptr() as usize;
    (p >= base && p + text.len() <= base + input.len() && text.len() <= u32::MAX as usize).then(
        || TextRef {
            start: (p - base) as u64,
            len: text.len() as u32,
        },
    )
}

/// The text of every input file, each at its place (`base`) in one space of byte
/// offsets: the first file at 0, each next one after the previous one's end. One
/// file is the usual case; several are the files of `tracescope view A B`, or the
/// stream files of a CTF trace (binary: their `text` is empty).
#[derive(Clone, Copy, Debug)]
pub struct TextFile<'t> {
    pub base: u64,
    pub text: &'t str,
    /// The file's name, for diagnostics (when there are several).
    pub name: &'t str,
    /// A CTF stream file's bytes, which [`TextRef::is_ctf`] args lie in (empty for
    /// text).
    pub binary: &'t [u8],
}

/// The args text of the encoded CTF args `len` bytes at `local` of `binary` (empty
/// when they are not all there: a file changed since it was read).
pub(crate) fn ctf_args(binary: &[u8], local: u64, len: u32) -> String {
    let at = usize::try_from(local).unwrap_or(usize::MAX);
    let bytes = binary.get(at..at.saturating_add(len as usize));
    bytes
        .and_then(tracescope_format::ctf::args_json)
        .unwrap_or_default()
}

#[derive(Debug)]
pub struct Texts<'t> {
    pub files: Vec<TextFile<'t>>,
}

impl<'t> Texts<'t> {
    pub fn one(text: &'t str) -> Texts<'t> {
        Texts {
            files: vec![TextFile {
                base: 0,
                text,
                name: "",
                binary: &[],
            }],
        }
    }

    /// The index of the file holding `offset` (the last one starting at or before it).
    pub fn file_of(&self, offset: u64) -> usize {
        self.files
            .partition_point(|f| f.base <= offset)
            .saturating_sub(1)
    }

    /// The file holding `offset`, and the offset within it.
    pub fn at(&self, offset: u64) -> (&TextFile<'t>, u64) {
        let f = &self.files[self.file_of(offset)];
        (f, offset - f.base.min(offset))
    }

    /// [`resolve`] across files, and the text of encoded CTF args.
    pub fn resolve<'a>(&'a self, arena: &'a str, r: TextRef) -> Cow<'a, str> {
        if r.is_none() || r.is_arena() {
            return Cow::Borrowed(resolve("", arena, r));
        }
        let (f, local) = self.at(r.offset());
        if r.is_ctf() {
            return Cow::Owned(ctf_args(f.binary, local, r.len));
        }
        Cow::Borrowed(resolve(
            f.text,
            arena,
            TextRef {
                start: local,
                len: r.len,
            },
        ))
    }

    /// A short excerpt at `offset`, after its file's name when there are several.
    pub fn excerpt(&self, offset: u64) -> String {
        let (f, local) = self.at(offset);
        let e = crate::build::excerpt(f.text.as_bytes(), local);
        if self.files.len() > 1 {
            format!("{}: {e}", f.name)
        } else {
            e
        }
    }
}
