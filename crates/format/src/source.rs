//! [`Source`]: the bytes of a trace file as UTF-8 text, mapped or decompressed once.
//!
//! Plain files are memory-mapped, so a multi-gigabyte trace costs page cache, not heap,
//! and [`Source::release`] can hand parsed pages back to the kernel. A big one is
//! handed to the reader unchecked ([`Source::prefix_bytes`]): the lexer checks the
//! string bodies it steps over as UTF-8, and `text()` checks only the bytes it did
//! not vouch for ([`Source::checked_by`]), so its pages are read once. Gzip (also multi-member) and zstd inputs are recognised
//! by their magic bytes, never by the file name, and decompressed into memory.
//!
//! Decompression is bounded ([`SourceOptions::max_ratio`]): real traces compress 5 to
//! 35 times, a decompression bomb a thousand times or more, so reading stops with
//! [`RatioExceeded`] as soon as the text grows past `max_ratio` times the compressed
//! bytes consumed so far (and past [`ALWAYS_ALLOWED`], by default). Memory is then bounded by the
//! input's size times the ratio, whatever the input holds.
//!
//! Offsets: every offset the readers report counts bytes of [`Source::text`], which is
//! the decompressed input with a leading UTF-8 byte order mark removed. Add
//! [`Source::text_start`] (3 with a BOM, else 0) to get the position in the
//! decompressed input. When the input is not valid UTF-8, `text` is a lossy copy in
//! which each bad sequence became U+FFFD, so offsets after the first bad byte (which the
//! `invalid_utf8` diagnostic names exactly) are offsets into that copy.

use std::fs::File;
use std::io::{self, Read};
use std::ops::Range;
use std::path::Path;
use std::sync::{Arc, Mutex, OnceLock};

use memmap2::Mmap;

use crate::json::{CheckedBytes, Prefix};
use crate::pending::{Input, Pending};

use crate::{DiagKind, Diagnostics};

/// The default of [`SourceOptions::max_ratio`]: about three times the best ratio of a
/// real trace (zstd -19 on the catapult corpus: at most 35), a tenth of a gzip bomb's.
pub const DEFAULT_MAX_RATIO: u64 = 100;

/// Decompressed bytes always allowed, whatever the ratio: a small input cannot do
/// harm, and the first megabytes of a stream may compress far better than the rest.
pub const ALWAYS_ALLOWED: u64 = 64 << 20;

/// How an input is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SourceOptions {
    /// Decompressed bytes allowed per compressed byte read (past `always_allowed`);
    /// 0 means no limit.
    pub max_ratio: u64,
    /// Decompressed bytes allowed whatever the ratio ([`ALWAYS_ALLOWED`]).
    pub always_allowed: u64,
    /// From this decompressed size on ([`PIPELINE_FROM`]; declared by the input, or
    /// guessed from its size), a gzip stream or single zstd frame is decoded on a
    /// thread of its own while [`Source::prefix`] hands its decoded start to a reader;
    /// from this file size on, a plain file is handed to readers unchecked, the
    /// lexer checking what it reads ([`Source::prefix_bytes`]; instead of all of it
    /// before the parse starts). `u64::MAX`: always decode or check first.
    pub pipeline_from: u64,
}

/// The default of [`SourceOptions::pipeline_from`]: below it a second thread gains
/// little.
pub const PIPELINE_FROM: u64 = 32 << 20;

impl Default for SourceOptions {
    fn default() -> Self {
        SourceOptions {
            max_ratio: DEFAULT_MAX_RATIO,
            always_allowed: ALWAYS_ALLOWED,
            pipeline_from: PIPELINE_FROM,
        }
    }
}

/// A compressed input that grew past [`SourceOptions::max_ratio`] times the
/// compressed bytes read; carried inside the [`io::Error`] that
/// [`Source::open_with`] returns (`InvalidData`, see [`RatioExceeded::of`]).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "the {compression} stream grew to {decompressed} bytes from the first {consumed} of its \
     {input_len} compressed bytes, past the limit of {max_ratio} times (a decompression \
     bomb, or a trace that compresses unusually well); reading stopped there"
)]
pub struct RatioExceeded {
    pub compression: &'static str,
    /// Decompressed bytes produced when reading stopped.
    pub decompressed: u64,
    /// Compressed bytes the decoder had read by then.
    pub consumed: u64,
    pub input_len: u64,
    pub max_ratio: u64,
}

impl RatioExceeded {
    /// The limit error inside an error from [`Source::open_with`], if that is what it is.
    pub fn of(e: &io::Error) -> Option<&RatioExceeded> {
        e.get_ref()?.downcast_ref()
    }
}

/// How the input was compressed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compression {
    None,
    Gzip,
    Zstd,
}

impl Compression {
    /// Recognises a compressed stream by its first bytes.
    pub fn detect(bytes: &[u8]) -> Compression {
        if bytes.starts_with(&[0x1f, 0x8b]) {
            Compression::Gzip
        } else if bytes.starts_with(&[0x28, 0xb5, 0x2f, 0xfd])
            || crate::zstd_frames::is_skippable(bytes)
        {
            // A skippable frame first is zstd too: `pzstd` starts every file with one.
            Compression::Zstd
        } else {
            Compression::None
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Compression::None => "none",
            Compression::Gzip => "gzip",
            Compression::Zstd => "zstd",
        }
    }
}

enum Bytes {
    /// Shared with the thread that checks it ([`Pending::check`]).
    Mapped(Arc<Mmap>),
    Owned(Vec<u8>),
    /// The buffer a [`Pending`] decoded into.
    Decoded,
}

impl Bytes {
    fn as_slice(&self) -> &[u8] {
        match self {
            Bytes::Mapped(m) => m,
            Bytes::Owned(v) => v,
            Bytes::Decoded => &[],
        }
    }
}

impl AsRef<[u8]> for Bytes {
    fn as_ref(&self) -> &[u8] {
        self.as_slice()
    }
}

/// The text of one trace input.
pub struct Source {
    /// The text, once it is all there.
    ready: OnceLock<Ready>,
    /// A compressed input still being decoded, with what decoding it again takes.
    pending: Option<Box<Background>>,
    /// A big plain file not checked yet: readers of its prefixes check what they lex.
    lexed: Option<Box<Lexed>>,
    compression: Compression,
    input_len: u64,
}

/// A mapped plain file handed to readers unchecked ([`Source::prefix_bytes`]): the
/// UTF-8 check is done by the lexer on the string bodies it steps over, and the
/// runs it read whole are recorded here ([`Source::checked_by`]); `text()` checks
/// only the bytes between them.
struct Lexed {
    map: Arc<Mmap>,
    /// This source's number among all (see `Prefix::origin`).
    origin: u64,
    /// Runs of the map (offsets) found to be UTF-8 by the readers.
    checked: Mutex<Vec<Range<usize>>>,
}

struct Background {
    decoding: Pending,
    input: Input,
    opts: SourceOptions,
}

impl Lexed {
    /// Whether the bytes outside the runs readers found to be UTF-8 are UTF-8 too,
    /// checked in parallel pieces (each let go once checked, when the file is too
    /// big to keep mapped). Every run starts at an ASCII byte (`{`) and ends before
    /// one or at `]`, so the text is UTF-8 exactly when the runs and the rest are.
    fn rest_is_utf8(&self) -> bool {
        let map = &self.map;
        let mut runs = std::mem::take(&mut *self.checked.lock().unwrap_or_else(|e| e.into_inner()));
        runs.sort_unstable_by_key(|r| r.start);
        let release = too_big_to_keep_mapped(map.len() as u64);
        let mut at = 0;
        let mut gaps = Vec::new();
        for r in runs.iter().chain(std::iter::once(&(map.len()..map.len()))) {
            if r.start > at {
                gaps.push(at..r.start);
            }
            at = at.max(r.end);
        }
        gaps.iter().all(|g| {
            is_utf8_in_chunks(&map[g.clone()], |r| {
                if release {
                    release_pages(map, g.start + r.start..g.start + r.end);
                }
            })
        })
    }
}

/// The text of a source and what was found producing it.
struct Ready {
    bytes: Bytes,
    /// A repaired copy when `bytes` are not valid UTF-8; `text` then points here.
    lossy: Option<String>,
    /// Length of the byte order mark skipped at the start of `bytes`.
    bom: usize,
    diagnostics: Diagnostics,
    /// The error the sequential decoder ended with, for an input decoded in the
    /// background (see [`Source::decode_error`]).
    error: Option<io::Error>,
}

const BOM: &[u8] = b"\xEF\xBB\xBF";

impl Source {
    /// Opens a trace file with the default [`SourceOptions`].
    pub fn open(path: impl AsRef<Path>) -> io::Result<Source> {
        Source::open_with(path, &SourceOptions::default())
    }

    /// Opens a trace file: maps it when plain, decompresses it when gzip or zstd.
    /// Errors: the file's own, [`RatioExceeded`] (see [`RatioExceeded::of`]), and a
    /// compressed stream of which not one byte decodes (the decoder's error).
    pub fn open_with(path: impl AsRef<Path>, opts: &SourceOptions) -> io::Result<Source> {
        let file = File::open(path)?;
        let input_len = file.metadata()?.len();
        if input_len == 0 {
            // Mapping zero bytes fails on some systems; an empty file is just empty text.
            return Ok(Source::build(
                Bytes::Owned(Vec::new()),
                Compression::None,
                0,
                None,
            ));
        }
        // SAFETY: the map is read-only. Like every mmap reader we rely on nobody
        // truncating or rewriting the file while it is open; that is documented to users.
        let map = Arc::new(unsafe { Mmap::map(&file)? });
        if input_len >= opts.pipeline_from && Compression::detect(&map) == Compression::None {
            return Ok(Source {
                ready: OnceLock::new(),
                pending: None,
                lexed: Some(Box::new(Lexed {
                    map,
                    origin: {
                        static NEXT: std::sync::atomic::AtomicU64 =
                            std::sync::atomic::AtomicU64::new(1);
                        NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
                    },
                    checked: Mutex::new(Vec::new()),
                })),
                compression: Compression::None,
                input_len,
            });
        }
        Source::from_input(Bytes::Mapped(map), input_len, opts)
    }

    /// Reads a trace held in memory (compressed or not), with the default options.
    pub fn from_bytes(bytes: Vec<u8>) -> io::Result<Source> {
        Source::from_bytes_with(bytes, &SourceOptions::default())
    }

    /// Reads a trace held in memory; errors as for [`Source::open_with`].
    pub fn from_bytes_with(bytes: Vec<u8>, opts: &SourceOptions) -> io::Result<Source> {
        let input_len = bytes.len() as u64;
        Source::from_input(Bytes::Owned(bytes), input_len, opts)
    }

    fn from_input(raw: Bytes, input_len: u64, opts: &SourceOptions) -> io::Result<Source> {
        let compression = Compression::detect(raw.as_slice());
        if compression == Compression::None {
            return Ok(Source::build(raw, compression, input_len, None));
        }
        let limit = Limit::new(compression.as_str(), input_len, opts);
        if let Some(size) = pipeline_size(raw.as_slice(), compression, &limit, opts) {
            let input: Input = std::sync::Arc::new(raw);
            match Pending::start(
                input.clone(),
                compression,
                size.expected,
                size.declared,
                limit,
            ) {
                Some(decoding) => {
                    return Ok(Source {
                        ready: OnceLock::new(),
                        pending: Some(Box::new(Background {
                            decoding,
                            input,
                            opts: *opts,
                        })),
                        lexed: None,
                        compression,
                        input_len,
                    })
                }
                None => {
                    let (bytes, cut_short) = decode_all((*input).as_ref(), compression, &limit)?;
                    return Ok(Source::build(bytes, compression, input_len, cut_short));
                }
            }
        }
        let (bytes, cut_short) = decode_all(raw.as_slice(), compression, &limit)?;
        Ok(Source::build(bytes, compression, input_len, cut_short))
    }

    fn build(
        bytes: Bytes,
        compression: Compression,
        input_len: u64,
        cut_short: Option<String>,
    ) -> Source {
        Source {
            ready: OnceLock::from(Ready::build(bytes, &[], cut_short, false)),
            pending: None,
            lexed: None,
            compression,
            input_len,
        }
    }

    /// The text and its diagnostics, waiting for a pending decoder first.
    fn ready(&self) -> &Ready {
        self.ready.get_or_init(|| {
            if let Some(lexed) = &self.lexed {
                // A mapped file: the bytes the readers did not vouch for are checked
                // now; if any is not UTF-8 the whole file is checked again (the lossy
                // copy and its diagnostic come from there).
                let clean = lexed.rest_is_utf8();
                return Ready::build(Bytes::Mapped(lexed.map.clone()), &[], None, clean);
            }
            let bg = self
                .pending
                .as_ref()
                .expect("a source without its text is being decoded");
            let decoded = bg.decoding.finish();
            if decoded.clean {
                return Ready::build(Bytes::Decoded, decoded.bytes(), None, true);
            }
            // Off the plain path: the sequential decoder's text and diagnostics are
            // the reference for damaged input.
            let limit = Limit::new(self.compression.as_str(), self.input_len, &bg.opts);
            match decode_all((*bg.input).as_ref(), self.compression, &limit) {
                Ok((bytes, cut_short)) => Ready::build(bytes, &[], cut_short, false),
                Err(e) => Ready {
                    error: Some(e),
                    ..Ready::build(Bytes::Owned(Vec::new()), &[], None, false)
                },
            }
        })
    }

    /// The bytes of the text, BOM included.
    fn raw<'s>(&'s self, ready: &'s Ready) -> &'s [u8] {
        match (&ready.bytes, &self.pending) {
            (Bytes::Decoded, Some(bg)) => bg.decoding.finish().bytes(),
            (bytes, _) => bytes.as_slice(),
        }
    }

    /// The start of the text while a compressed input is still being decoded: waits
    /// until `min` bytes of text are there (or all of them) and returns the text so
    /// far (shorter than `min` only at its end). Once decoded, the whole
    /// [`text`](Self::text). `None` when the prefix stopped short of the text
    /// (damaged input, decoded again sequentially: wait for `text` instead).
    pub fn prefix(&self, min: usize) -> Option<&str> {
        if self.lexed.is_some() {
            // Not checked ahead: the text, checked whole.
            return Some(self.text());
        }
        let bg = match (&self.pending, self.ready.get()) {
            (Some(bg), None) => bg,
            _ => return Some(self.text()),
        };
        let bytes = bg.decoding.prefix(min.saturating_add(BOM.len()))?;
        let bom = if bytes.starts_with(BOM) || BOM.starts_with(bytes) {
            bytes.len().min(BOM.len())
        } else {
            0
        };
        // SAFETY: the decoder publishes only bytes it checked as UTF-8, up to a
        // character boundary, and a BOM is a whole character.
        Some(unsafe { std::str::from_utf8_unchecked(&bytes[bom..]) })
    }

    /// Like [`prefix`](Self::prefix), but a big plain file's bytes come at once and
    /// unchecked ([`Prefix::unchecked`]) until its text is wanted: the reader checks
    /// what it lexes, and tells what it found ([`checked_by`](Self::checked_by)).
    pub fn prefix_bytes(&self, min: usize) -> Option<Prefix<'_>> {
        match (&self.lexed, self.ready.get()) {
            (Some(lexed), None) => {
                let bom = if lexed.map.starts_with(BOM) {
                    BOM.len()
                } else {
                    0
                };
                Some(Prefix::of_source(&lexed.map[bom..], lexed.origin))
            }
            _ => self.prefix(min).map(Prefix::from),
        }
    }

    /// Takes note of the bytes readers of [`prefix_bytes`](Self::prefix_bytes)
    /// found to be UTF-8, so that [`text`](Self::text) checks only the others
    /// (runs of other sources are ignored). Before `text` is first called, else a no-op.
    pub fn checked_by(&self, checked: &CheckedBytes) {
        let Some(lexed) = &self.lexed else {
            return;
        };
        if self.ready.get().is_some() {
            return;
        }
        let base = lexed.map.as_ptr() as usize;
        let end = base + lexed.map.len();
        let mut runs = lexed.checked.lock().unwrap_or_else(|e| e.into_inner());
        runs.extend(
            checked
                .runs
                .iter()
                .filter(|(origin, r)| {
                    *origin == lexed.origin && r.start >= base && r.end <= end && r.start <= r.end
                })
                .map(|(_, r)| r.start - base..r.end - base),
        );
    }

    /// The text's expected size while an input is being decoded in the background
    /// (see [`prefix`](Self::prefix)), or a big plain file is read unchecked: the
    /// size it declares, else a guess; a BOM makes it 3 bytes less.
    pub fn expected_len(&self) -> Option<usize> {
        if let (Some(lexed), None) = (&self.lexed, self.ready.get()) {
            return Some(lexed.map.len());
        }
        match (&self.pending, self.ready.get()) {
            (Some(bg), None) => Some(bg.decoding.expected_len()),
            _ => None,
        }
    }
}

impl Ready {
    /// `decoded` holds the bytes when `bytes` is [`Bytes::Decoded`]; `cut_short` is
    /// the error that ended decompression early, if any; `checked`: every byte was
    /// already found to be UTF-8 (by a background decode or check).
    fn build(bytes: Bytes, decoded: &[u8], cut_short: Option<String>, checked: bool) -> Ready {
        let mut diagnostics = Diagnostics::new();
        let all = match bytes {
            Bytes::Decoded => decoded,
            _ => bytes.as_slice(),
        };
        let bom = if all.starts_with(BOM) { BOM.len() } else { 0 };
        let body = &all[bom..];
        // A mapped file bigger than half the memory available has its pages released
        // as soon as they are checked: the check is a pass over the whole file, and
        // keeping its pages mapped until the parse reaches them would make a trace
        // bigger than memory thrash. A smaller one keeps them for the parse (faulting
        // them back in from the page cache cost a 1 GB load 0.4 s of CPU).
        let release = too_big_to_keep_mapped(all.len() as u64);
        let after_check = |r: Range<usize>| {
            if let (Bytes::Mapped(map), true) = (&bytes, release) {
                release_pages(map, r.start + bom..r.end + bom);
            }
        };
        let lossy = match checked || is_utf8_in_chunks(body, after_check) {
            true => None,
            false => {
                // The slower `compat` check says where the first bad byte is.
                let at = simdutf8::compat::from_utf8(body)
                    .err()
                    .map_or(0, |e| e.valid_up_to());
                diagnostics.add(DiagKind::InvalidUtf8, at as u64, || {
                    let end = (at + 8).min(body.len());
                    format!("bytes {:02x?} at offset {at}", &body[at..end])
                });
                Some(String::from_utf8_lossy(body).into_owned())
            }
        };
        if let Some(msg) = cut_short {
            let end = lossy.as_ref().map_or(body.len(), String::len);
            diagnostics.add(DiagKind::Truncated, end as u64, || msg);
        }
        Ready {
            bytes,
            lossy,
            bom,
            diagnostics,
            error: None,
        }
    }
}

/// A compressed input's decoded size as far as it is known before decoding.
struct DecodedSize {
    /// What to expect: the declared size, else a guess ([`GUESSED_RATIO`]).
    expected: usize,
    /// The size a zstd frame header declares or a plausible gzip trailer gives (the
    /// last member's size modulo 2^32: taken only when the text could fit).
    declared: Option<usize>,
}

/// Text bytes per compressed byte guessed when the input declares no size: JSON
/// traces compress 5 to 10 times. The guess only sets how much is read while
/// decoding goes on (and the progress bar's total); the text is whatever decodes.
const GUESSED_RATIO: u64 = 8;

/// The decoded size of a compressed input worth decoding in the background (at
/// least `pipeline_from`): one gzip stream (one member or several) or one zstd data
/// frame. Several zstd frames decode in parallel instead ([`crate::zstd_frames`]).
fn pipeline_size(
    raw: &[u8],
    compression: Compression,
    limit: &Limit,
    opts: &SourceOptions,
) -> Option<DecodedSize> {
    let declared = match compression {
        Compression::None => return None,
        Compression::Zstd => crate::zstd_frames::single_frame(raw)?,
        Compression::Gzip => {
            let tail: [u8; 4] = raw.get(raw.len().checked_sub(4)?..)?.try_into().ok()?;
            let size = u64::from(u32::from_le_bytes(tail));
            // JSON compresses well: a trailer that says otherwise is of another member.
            (size >= (raw.len() as u64).saturating_mul(2)).then_some(size)
        }
    };
    let declared = declared.filter(|&n| n <= limit.allowed_total());
    let guess = (raw.len() as u64).saturating_mul(GUESSED_RATIO);
    let expected = declared.unwrap_or(guess).min(limit.allowed_total());
    (expected >= opts.pipeline_from).then_some(DecodedSize {
        expected: usize::try_from(expected).ok()?,
        declared: declared.and_then(|n| usize::try_from(n).ok()),
    })
}

/// The largest zstd window (as a power of two) a decoder of this input may allocate:
/// what the input may decompress to (at least zstd's default of 128 MiB, at most the
/// 2 GiB of `zstd --long=31`), so a few bytes cannot ask for gigabytes.
pub(crate) fn window_log(limit: &Limit) -> u32 {
    let allowed = limit.allowed_total();
    (64 - allowed.saturating_sub(1).leading_zeros()).clamp(27, 31)
}

/// Decodes a whole compressed input (not plain) on this thread.
fn decode_all(
    input: &[u8],
    compression: Compression,
    limit: &Limit,
) -> io::Result<(Bytes, Option<String>)> {
    Ok(match compression {
        Compression::None => (Bytes::Owned(input.to_vec()), None),
        Compression::Gzip => {
            let dec = flate2::bufread::MultiGzDecoder::new(input);
            let (text, cut_short) = decompress(dec, |d| d.get_ref().len(), limit, 0)?;
            (Bytes::Owned(text), cut_short)
        }
        Compression::Zstd => {
            let mut dec = zstd::stream::read::Decoder::with_buffer(input)?;
            // The decoder allocates the frame's window up front.
            let allowed = limit.allowed_total();
            let log = window_log(limit);
            if let Some(text) = crate::zstd_frames::decode_parallel(input, limit, log) {
                return Ok((Bytes::Owned(text), None));
            }
            dec.window_log_max(log)?;
            // A single frame usually declares its size: decode into a buffer of
            // that size instead of doubling one (and copying it) as it grows.
            let declared = zstd::zstd_safe::get_frame_content_size(input);
            let hint = declared.ok().flatten().unwrap_or(0).min(allowed);
            let note = format!(
                " (windows up to 2^{log} bytes are allowed for this input: the limit grows \
                     with the input's size and the ratio, up to 2^31)"
            );
            let (text, cut_short) = decompress(dec, |d| d.get_ref().len(), limit, hint as usize)
                .map_err(|e| {
                    if RatioExceeded::of(&e).is_some() {
                        e
                    } else {
                        io::Error::new(e.kind(), format!("{e}{note}"))
                    }
                })?;
            (Bytes::Owned(text), cut_short)
        }
    })
}

impl Source {
    /// The trace as text (decompressed, BOM removed, repaired if it was not UTF-8).
    pub fn text(&self) -> &str {
        let ready = self.ready();
        match &ready.lossy {
            Some(s) => s,
            // SAFETY: `build` checked these exact bytes with simdutf8 and found them
            // valid, or was told they are (`checked`: by a background decode, or, for
            // a plain file read unchecked, by `Lexed::rest_is_utf8` for the bytes
            // outside the runs the lexer checked as it read them); they never change
            // afterwards (owned, or a read-only file map).
            None => unsafe { std::str::from_utf8_unchecked(&self.raw(ready)[ready.bom..]) },
        }
    }

    /// The error opening this input would have returned had it been decoded before
    /// [`open`](Self::open) returned ([`RatioExceeded`], or a stream of which not one
    /// byte decodes); its text is then empty. Only an input decoded in the background
    /// can have one, found once it is decoded (this waits for that): check it before
    /// reporting that its text holds no trace.
    pub fn decode_error(&self) -> Option<&io::Error> {
        self.ready().error.as_ref()
    }

    /// Bytes removed before [`text`](Self::text) (a UTF-8 BOM), to turn a text offset
    /// into an offset of the decompressed input.
    pub fn text_start(&self) -> usize {
        self.ready().bom
    }

    pub fn compression(&self) -> Compression {
        self.compression
    }

    /// Size of the input as given (bytes on disk, or of the compressed buffer).
    pub fn input_len(&self) -> u64 {
        self.input_len
    }

    /// Whether `text` is served straight from a file mapping (so `release` does work).
    pub fn is_mapped(&self) -> bool {
        let ready = self.ready();
        matches!(ready.bytes, Bytes::Mapped(_)) && ready.lossy.is_none()
    }

    /// Problems met while producing the text: `truncated` (a compressed stream that
    /// ended early or was corrupt; everything decoded before that is kept) and
    /// `invalid_utf8`.
    pub fn diagnostics(&self) -> &Diagnostics {
        &self.ready().diagnostics
    }

    /// Tells the kernel the mapped pages wholly inside `range` (offsets of `text`) are
    /// not needed now, so resident memory stays well below the file size while a big
    /// trace is parsed part by part. Reading them later just faults them back in from
    /// the page cache. A no-op for in-memory text.
    ///
    /// While a mapped file is read unchecked, parts read from its prefixes
    /// release their pages too (whatever the check finds: dropping pages of a file
    /// mapping never changes what is read).
    pub fn release(&self, range: Range<usize>) {
        let (map, bom) = match (self.ready.get(), &self.lexed) {
            (None, Some(lexed)) => {
                let map = &lexed.map;
                (map, if map.starts_with(BOM) { BOM.len() } else { 0 })
            }
            (None, None) => return,
            _ => match self.ready() {
                Ready {
                    bytes: Bytes::Mapped(map),
                    lossy: None,
                    bom,
                    ..
                } => (map, *bom),
                _ => return,
            },
        };
        let start = range.start.saturating_add(bom);
        release_pages(map, start..range.end.saturating_add(bom));
    }
}

/// Drops the mapped pages wholly inside `range` (offsets of the map) from the page
/// tables; only whole pages, so a neighbouring part still being read keeps its pages.
pub(crate) fn release_pages(map: &Mmap, range: Range<usize>) {
    const PAGE: usize = 4096;
    let start = range.start.div_ceil(PAGE) * PAGE;
    let end = range.end.min(map.len()) / PAGE * PAGE;
    if start >= end {
        return;
    }
    // SAFETY: the map is a read-only, never-written file mapping, so MADV_DONTNEED
    // only drops page-table entries: the addresses stay valid and later reads see
    // the same file bytes again. Failure only means memory is not returned early.
    let _ = unsafe {
        map.unchecked_advise_range(memmap2::UncheckedAdvice::DontNeed, start, end - start)
    };
}

/// Whether `len` bytes of mapped text are too many to keep resident while a pass
/// goes over them: over half the memory the system could give (all of them when
/// that is unknown). Passes over a smaller text keep its pages, since faulting them
/// back in later costs CPU; a bigger one (a trace near or past the machine's
/// memory) would thrash.
pub fn too_big_to_keep_mapped(len: u64) -> bool {
    len > available_memory().unwrap_or(0) / 2
}

/// The memory the system could give without swapping (`MemAvailable`), if known.
fn available_memory() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// Bytes per piece of the UTF-8 check ([`is_utf8_in_chunks`]).
const UTF8_CHUNK: usize = 64 << 20;

/// Whether `bytes` are UTF-8, checked in pieces of [`UTF8_CHUNK`] bytes in
/// parallel (see [`is_utf8_in_chunks_of`]).
pub(crate) fn is_utf8_in_chunks(bytes: &[u8], checked: impl Fn(Range<usize>) + Sync) -> bool {
    is_utf8_in_chunks_of(bytes, UTF8_CHUNK, checked)
}

/// Whether `bytes` are UTF-8, checked in pieces of about `chunk` bytes in parallel;
/// `checked` is told each piece's range once it is checked (valid or not).
///
/// Each piece after the first starts at a byte that is not a continuation byte
/// (`10xxxxxx`), moving at most 3 bytes past the cut, so the pieces of valid text
/// are valid text and valid pieces join into valid text: the answer is the same as
/// one check of the whole. (4 continuation bytes in a row are invalid anyway, and
/// the piece starting with the 4th says so.)
fn is_utf8_in_chunks_of(bytes: &[u8], chunk: usize, checked: impl Fn(Range<usize>) + Sync) -> bool {
    use rayon::prelude::*;
    // Pieces longer than the 3 bytes a cut may move keep the cuts in order.
    let chunk = chunk.max(4);
    let mut cuts = vec![0];
    let mut at = chunk;
    while at < bytes.len() {
        let mut cut = at;
        while cut < bytes.len() && cut < at + 3 && bytes[cut] & 0xC0 == 0x80 {
            cut += 1;
        }
        cuts.push(cut);
        at += chunk;
    }
    cuts.push(bytes.len());
    cuts.dedup();
    cuts.par_windows(2).all(|w| {
        let ok = simdutf8::basic::from_utf8(&bytes[w[0]..w[1]]).is_ok();
        checked(w[0]..w[1]);
        ok
    })
}

/// What a decompression may produce.
#[derive(Clone, Copy)]
pub(crate) struct Limit {
    pub(crate) compression: &'static str,
    pub(crate) input_len: u64,
    pub(crate) max_ratio: u64,
    pub(crate) always_allowed: u64,
}

impl Limit {
    pub(crate) fn new(compression: &'static str, input_len: u64, opts: &SourceOptions) -> Limit {
        Limit {
            compression,
            input_len,
            max_ratio: opts.max_ratio,
            always_allowed: opts.always_allowed,
        }
    }

    /// Whether `produced` text bytes are past the limit after `consumed` compressed
    /// bytes were read: the ratio is checked as the text grows, so a bomb stops early.
    pub(crate) fn exceeded(&self, produced: u64, consumed: u64) -> bool {
        let allowed = consumed
            .saturating_mul(self.max_ratio)
            .max(self.always_allowed);
        self.max_ratio > 0 && produced > allowed
    }

    /// The most the whole input may decompress to.
    pub(crate) fn allowed_total(&self) -> u64 {
        match self.max_ratio {
            0 => u64::MAX,
            r => self.input_len.saturating_mul(r).max(self.always_allowed),
        }
    }
}

/// Decodes a whole stream, stopping with [`RatioExceeded`] when the output grows past
/// the ratio times the compressed bytes consumed (`unread` says how many of the
/// input's bytes the decoder has not read yet). On a decoding error keeps every byte
/// decoded so far and returns the error's text for a `truncated` diagnostic; an error
/// before the first byte is the result. `size_hint`: the output's expected size, when
/// known, reserved up front (if the allocator grants it).
pub(crate) fn decompress<D: Read>(
    mut dec: D,
    unread: impl Fn(&D) -> usize,
    limit: &Limit,
    size_hint: usize,
) -> io::Result<(Vec<u8>, Option<String>)> {
    /// The ratio is checked after each step, so the output overshoots by at most this.
    const STEP: u64 = 1 << 20;
    let mut out = Vec::new();
    // One more step than the hint, so reading the end of the stream does not grow it.
    let _ = out.try_reserve_exact(size_hint.saturating_add(STEP as usize));
    let what = limit.compression;
    loop {
        let read = (&mut dec).take(STEP).read_to_end(&mut out);
        let produced = out.len() as u64;
        let consumed = limit.input_len - unread(&dec) as u64;
        if limit.exceeded(produced, consumed) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                RatioExceeded {
                    compression: what,
                    decompressed: produced,
                    consumed,
                    input_len: limit.input_len,
                    max_ratio: limit.max_ratio,
                },
            ));
        }
        match read {
            Ok(0) => return Ok((out, None)),
            Ok(_) => {}
            Err(e) if out.is_empty() => {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!("the {what} stream cannot be decoded: {e}"),
                ))
            }
            Err(e) => {
                let msg = format!("{what} stream ends early or is corrupt: {e}");
                return Ok((out, Some(msg)));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn available_memory_is_read_on_linux() {
        if cfg!(target_os = "linux") {
            let m = super::available_memory().expect("/proc/meminfo has MemAvailable");
            assert!(m > 1 << 20, "{m}");
        }
    }

    use super::*;
    use std::io::Write;

    fn gzip(data: &[u8]) -> Vec<u8> {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    /// A big mapped file read unchecked, its readers checking what they lex, gives
    /// the text, offsets and diagnostics of one checked first: with a BOM, and with a
    /// bad byte in a string, between events, or after the list (the text is then the
    /// same lossy copy). What readers of another source found is not taken.
    #[test]
    fn a_mapped_file_read_unchecked_reads_as_one_checked_first() {
        use crate::json::{read_early, ReadOptions};
        let dir = std::env::temp_dir().join(format!(
            "tracescope-source-unchecked-{}",
            std::process::id()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        let mut valid = BOM.to_vec();
        valid.extend(b"{\"traceEvents\":[\n");
        valid.extend((0..60_000u32).flat_map(|i| {
            format!("{{\"ph\":\"X\",\"name\":\"é{i}\",\"ts\":{i},\"args\":{{\"s\":\"€\"}}}},\n")
                .into_bytes()
        }));
        valid.extend(b"{}]}\n");
        let in_name = valid.len() / 2
            + (valid[valid.len() / 2..]
                .iter()
                .position(|&c| c == 0xC3)
                .unwrap());
        let between = valid.len() / 3
            + (valid[valid.len() / 3..]
                .iter()
                .position(|&c| c == b'\n')
                .unwrap());
        let mut files = vec![valid.clone()];
        for (at, byte) in [
            (in_name, 0xFF),
            (in_name + 1, 0x41),
            (between, 0x80),
            (valid.len() - 1, 0xFE),
        ] {
            let mut bad = valid.clone();
            bad[at] = byte;
            files.push(bad);
        }
        let lexed = SourceOptions {
            pipeline_from: 0,
            ..SourceOptions::default()
        };
        let first = SourceOptions {
            pipeline_from: u64::MAX,
            ..SourceOptions::default()
        };
        let opts = ReadOptions {
            threads: 2,
            chunk_bytes: 64 << 10,
        };
        let p = dir.join("valid.json");
        std::fs::write(&p, &valid).unwrap();
        let other = Source::open_with(&p, &lexed).unwrap();
        for (k, bytes) in files.iter().enumerate() {
            let p = dir.join(format!("{k}.json"));
            std::fs::write(&p, bytes).unwrap();
            let a = Source::open_with(&p, &first).unwrap();
            let b = Source::open_with(&p, &lexed).unwrap();
            assert_eq!(a.expected_len(), None);
            assert_eq!(b.expected_len(), Some(bytes.len()));
            let start = b.prefix_bytes(100).unwrap();
            assert!(!start.is_checked() && *start.as_bytes() == bytes[3..]);
            b.release(0..start.len() / 4);
            let early = read_early(
                |m| b.prefix_bytes(m),
                bytes.len(),
                &opts,
                |_, _| |_: crate::Event<'_>, _: &mut Diagnostics| {},
            );
            let runs: usize = early.checked().runs.iter().map(|r| r.1.len()).sum();
            assert!(runs > bytes.len() / 2, "file {k}: {runs} bytes vouched for");
            // Runs found on another source (the valid file) are not taken.
            let elsewhere = read_early(
                |m| other.prefix_bytes(m),
                valid.len(),
                &opts,
                |_, _| |_: crate::Event<'_>, _: &mut Diagnostics| {},
            );
            b.checked_by(elsewhere.checked());
            b.checked_by(early.checked());
            assert_eq!(
                (b.text(), b.text_start()),
                (a.text(), a.text_start()),
                "file {k}"
            );
            assert_eq!(b.is_mapped(), k == 0);
            assert_eq!(b.diagnostics().len(), a.diagnostics().len());
            let bad = (
                a.diagnostics().get(DiagKind::InvalidUtf8),
                b.diagnostics().get(DiagKind::InvalidUtf8),
            );
            assert_eq!(bad.0.map(|d| d.offset), bad.1.map(|d| d.offset));
            assert_eq!(bad.1.is_some(), k > 0, "file {k}");
            // Once the text is there, prefixes are the checked text.
            assert_eq!(b.prefix_bytes(10).unwrap().as_str(), Some(b.text()));
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn plain_bom_and_invalid_utf8() {
        let s = Source::from_bytes(b"\xEF\xBB\xBF[1]".to_vec()).unwrap();
        assert_eq!(
            (s.text(), s.text_start(), s.compression()),
            ("[1]", 3, Compression::None)
        );
        assert!(s.diagnostics().is_empty());
        let s = Source::from_bytes(b"[\"a\xFFb\"]".to_vec()).unwrap();
        assert_eq!(s.text(), "[\"a\u{FFFD}b\"]");
        let d = s.diagnostics().get(DiagKind::InvalidUtf8).unwrap();
        assert_eq!((d.count, d.offset), (1, 3));
    }

    #[test]
    fn gzip_multi_member_and_truncated() {
        let mut two = gzip(b"[{\"ph\":");
        two.extend(gzip(b"\"X\"}]"));
        let s = Source::from_bytes(two).unwrap();
        assert_eq!(
            (s.text(), s.compression()),
            ("[{\"ph\":\"X\"}]", Compression::Gzip)
        );
        assert!(s.diagnostics().is_empty());

        let body: Vec<u8> = (0..20_000u32)
            .flat_map(|i| format!("{i},").into_bytes())
            .collect();
        let z = gzip(&body);
        let s = Source::from_bytes(z[..z.len() / 2].to_vec()).unwrap();
        let d = s.diagnostics().get(DiagKind::Truncated).unwrap();
        assert!(!s.text().is_empty() && body.starts_with(s.text().as_bytes()));
        assert_eq!(d.offset, s.text().len() as u64);
    }

    #[test]
    fn zstd_and_truncated_zstd() {
        let z = zstd::encode_all(&b"\xEF\xBB\xBF[\"zstd\"]"[..], 3).unwrap();
        let s = Source::from_bytes(z.clone()).unwrap();
        assert_eq!(
            (s.text(), s.compression(), s.input_len()),
            ("[\"zstd\"]", Compression::Zstd, z.len() as u64)
        );
        let s = Source::from_bytes(z[..z.len() - 3].to_vec()).unwrap();
        assert_eq!(s.diagnostics().count(DiagKind::Truncated), 1);
    }

    #[test]
    fn open_maps_and_releases() {
        let dir = std::env::temp_dir().join(format!("tracescope-source-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let empty = dir.join("empty.json");
        std::fs::write(&empty, b"").unwrap();
        let s = Source::open(&empty).unwrap();
        assert_eq!((s.text(), s.input_len()), ("", 0));
        s.release(0..0);

        let big = dir.join("big.bin"); // any name: detection is by content
        let text = "[".to_string() + &"{\"ph\":\"X\"},".repeat(5000) + "]";
        std::fs::write(&big, gzip(text.as_bytes())).unwrap();
        let s = Source::open(&big).unwrap();
        assert_eq!(
            (s.compression(), s.is_mapped(), s.text().len()),
            (Compression::Gzip, false, text.len())
        );

        let plain = dir.join("plain.json");
        std::fs::write(&plain, &text).unwrap();
        let s = Source::open(&plain).unwrap();
        assert!(s.is_mapped());
        s.release(0..40_000);
        #[allow(clippy::reversed_empty_ranges)] // deliberately backwards: must be a no-op
        s.release(100..10);
        s.release(0..usize::MAX);
        assert_eq!(s.text(), text, "released pages fault back in unchanged");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn utf8_in_pieces_answers_as_one_check() {
        // Every cut position over text with 2, 3 and 4 byte characters, and with bad
        // bytes (a lone continuation byte, a cut-off sequence, 4 continuations, FF).
        let good = "aé€😀b€😀é".as_bytes();
        let bad: [&[u8]; 4] = [
            b"ab\x80cd",
            b"a\xE2\x82",
            b"\xF0\x9F\x98\x80\x80\x80x",
            b"\xFFab",
        ];
        let mut inputs = vec![good.to_vec(), good.repeat(5), Vec::new()];
        for b in bad {
            inputs.push(b.to_vec());
            inputs.push([good, b, good].concat());
        }
        for input in &inputs {
            let want = std::str::from_utf8(input).is_ok();
            for chunk in 0..input.len() + 2 {
                let seen = std::sync::Mutex::new(Vec::new());
                let got = is_utf8_in_chunks_of(input, chunk, |r| seen.lock().unwrap().push(r));
                assert_eq!(got, want, "{input:x?} in pieces of {chunk}");
                if want {
                    // Valid text: every byte is checked, each piece once.
                    let mut seen = seen.into_inner().unwrap();
                    seen.sort_by_key(|r| r.start);
                    let mut next = 0;
                    for r in seen {
                        assert_eq!(r.start, next, "{input:x?} in pieces of {chunk}");
                        next = r.end;
                    }
                    assert_eq!(next, input.len());
                }
            }
        }
    }

    #[test]
    fn missing_file_is_an_io_error() {
        assert!(Source::open("/nonexistent/tracescope/trace.json").is_err());
    }
}
