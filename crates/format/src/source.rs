//! [`Source`]: the bytes of a trace file as UTF-8 text, mapped or decompressed once.
//!
//! Plain files are memory-mapped, so a multi-gigabyte trace costs page cache, not heap,
//! and [`Source::release`] can hand parsed pages back to the kernel. Gzip (also
//! multi-member) and zstd inputs are recognised by their magic bytes, never by the file
//! name, and decompressed into memory.
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

use memmap2::Mmap;

use crate::{DiagKind, Diagnostics};

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
        } else if bytes.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
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
    Mapped(Mmap),
    Owned(Vec<u8>),
}

impl Bytes {
    fn as_slice(&self) -> &[u8] {
        match self {
            Bytes::Mapped(m) => m,
            Bytes::Owned(v) => v,
        }
    }
}

/// The text of one trace input.
pub struct Source {
    bytes: Bytes,
    /// A repaired copy when `bytes` are not valid UTF-8; `text` then points here.
    lossy: Option<String>,
    /// Length of the byte order mark skipped at the start of `bytes`.
    bom: usize,
    compression: Compression,
    input_len: u64,
    diagnostics: Diagnostics,
}

const BOM: &[u8] = b"\xEF\xBB\xBF";

impl Source {
    /// Opens a trace file: maps it when plain, decompresses it when gzip or zstd.
    pub fn open(path: impl AsRef<Path>) -> io::Result<Source> {
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
        let map = unsafe { Mmap::map(&file)? };
        Ok(Source::from_input(Bytes::Mapped(map), input_len))
    }

    /// Reads a trace held in memory (compressed or not).
    pub fn from_bytes(bytes: Vec<u8>) -> Source {
        let input_len = bytes.len() as u64;
        Source::from_input(Bytes::Owned(bytes), input_len)
    }

    fn from_input(raw: Bytes, input_len: u64) -> Source {
        let compression = Compression::detect(raw.as_slice());
        let (bytes, cut_short) = match compression {
            Compression::None => (raw, None),
            Compression::Gzip => {
                decompress(flate2::read::MultiGzDecoder::new(raw.as_slice()), "gzip")
            }
            Compression::Zstd => match zstd::stream::read::Decoder::new(raw.as_slice()) {
                Ok(dec) => decompress(dec, "zstd"),
                Err(e) => (
                    Bytes::Owned(Vec::new()),
                    Some(format!("zstd stream unreadable: {e}")),
                ),
            },
        };
        Source::build(bytes, compression, input_len, cut_short)
    }

    /// `cut_short` is the error that ended decompression early, if any.
    fn build(
        bytes: Bytes,
        compression: Compression,
        input_len: u64,
        cut_short: Option<String>,
    ) -> Source {
        let mut diagnostics = Diagnostics::new();
        let all = bytes.as_slice();
        let bom = if all.starts_with(BOM) { BOM.len() } else { 0 };
        let body = &all[bom..];
        let lossy = match simdutf8::basic::from_utf8(body) {
            Ok(_) => None,
            Err(_) => {
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
        Source {
            bytes,
            lossy,
            bom,
            compression,
            input_len,
            diagnostics,
        }
    }

    /// The trace as text (decompressed, BOM removed, repaired if it was not UTF-8).
    pub fn text(&self) -> &str {
        match &self.lossy {
            Some(s) => s,
            // SAFETY: `build` checked these exact bytes with simdutf8 and found them
            // valid; they never change afterwards (owned, or a read-only file map).
            None => unsafe { std::str::from_utf8_unchecked(&self.bytes.as_slice()[self.bom..]) },
        }
    }

    /// Bytes removed before [`text`](Self::text) (a UTF-8 BOM), to turn a text offset
    /// into an offset of the decompressed input.
    pub fn text_start(&self) -> usize {
        self.bom
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
        matches!(self.bytes, Bytes::Mapped(_)) && self.lossy.is_none()
    }

    /// Problems met while producing the text: `truncated` (a compressed stream that
    /// ended early or was corrupt; everything decoded before that is kept) and
    /// `invalid_utf8`.
    pub fn diagnostics(&self) -> &Diagnostics {
        &self.diagnostics
    }

    /// Tells the kernel the mapped pages wholly inside `range` (offsets of `text`) are
    /// not needed now, so resident memory stays well below the file size while a big
    /// trace is parsed part by part. Reading them later just faults them back in from
    /// the page cache. A no-op for in-memory text.
    pub fn release(&self, range: Range<usize>) {
        let Bytes::Mapped(map) = &self.bytes else {
            return;
        };
        if self.lossy.is_some() {
            return;
        }
        const PAGE: usize = 4096;
        let start = range.start.saturating_add(self.bom);
        let end = range.end.saturating_add(self.bom).min(map.len());
        // Only whole pages, so a neighbouring part still being parsed keeps its pages.
        let start = start.div_ceil(PAGE) * PAGE;
        let end = end / PAGE * PAGE;
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
}

/// Decodes a whole stream. On an error (truncated or corrupt input) keeps every byte
/// decoded so far and returns the error's text for a `truncated` diagnostic.
fn decompress(mut dec: impl Read, what: &str) -> (Bytes, Option<String>) {
    let mut out = Vec::new();
    let err = dec
        .read_to_end(&mut out)
        .err()
        .map(|e| format!("{what} stream ends early or is corrupt: {e}"));
    (Bytes::Owned(out), err)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn gzip(data: &[u8]) -> Vec<u8> {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    #[test]
    fn plain_bom_and_invalid_utf8() {
        let s = Source::from_bytes(b"\xEF\xBB\xBF[1]".to_vec());
        assert_eq!(
            (s.text(), s.text_start(), s.compression()),
            ("[1]", 3, Compression::None)
        );
        assert!(s.diagnostics().is_empty());
        let s = Source::from_bytes(b"[\"a\xFFb\"]".to_vec());
        assert_eq!(s.text(), "[\"a\u{FFFD}b\"]");
        let d = s.diagnostics().get(DiagKind::InvalidUtf8).unwrap();
        assert_eq!((d.count, d.offset), (1, 3));
    }

    #[test]
    fn gzip_multi_member_and_truncated() {
        let mut two = gzip(b"[{\"ph\":");
        two.extend(gzip(b"\"X\"}]"));
        let s = Source::from_bytes(two);
        assert_eq!(
            (s.text(), s.compression()),
            ("[{\"ph\":\"X\"}]", Compression::Gzip)
        );
        assert!(s.diagnostics().is_empty());

        let body: Vec<u8> = (0..20_000u32)
            .flat_map(|i| format!("{i},").into_bytes())
            .collect();
        let z = gzip(&body);
        let s = Source::from_bytes(z[..z.len() / 2].to_vec());
        let d = s.diagnostics().get(DiagKind::Truncated).unwrap();
        assert!(!s.text().is_empty() && body.starts_with(s.text().as_bytes()));
        assert_eq!(d.offset, s.text().len() as u64);
    }

    #[test]
    fn zstd_and_truncated_zstd() {
        let z = zstd::encode_all(&b"\xEF\xBB\xBF[\"zstd\"]"[..], 3).unwrap();
        let s = Source::from_bytes(z.clone());
        assert_eq!(
            (s.text(), s.compression(), s.input_len()),
            ("[\"zstd\"]", Compression::Zstd, z.len() as u64)
        );
        let s = Source::from_bytes(z[..z.len() - 3].to_vec());
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
    fn missing_file_is_an_io_error() {
        assert!(Source::open("/nonexistent/tracescope/trace.json").is_err());
    }
}
