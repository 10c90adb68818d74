//! What kind of trace a path holds: JSON (plain, .gz, .zst), a CTF directory, or an
//! ETW record file. Detected by content, not by name.

use std::path::Path;

use std::sync::atomic::{AtomicU64, Ordering};

use anyhow::{Context, Result};
use tracescope_format::source::DEFAULT_MAX_RATIO;
use tracescope_format::{ctf, etw, Diagnostics, Event, RatioExceeded, Source, SourceOptions};

pub enum Input {
    Json(Source),
    Binary(Binary),
}

/// A binary input, opened; its events borrow their strings from it.
pub enum Binary {
    /// A CTF trace directory (large stream files mapped).
    Ctf(ctf::CtfFiles),
    /// The bytes of an ETW record file.
    Etw(Vec<u8>),
}

/// The events decoded from a binary input, with the reader's diagnostics.
pub struct Decoded<'a> {
    pub format: &'static str,
    pub events: Vec<Event<'a>>,
    pub diags: Diagnostics,
    /// The input's size.
    pub bytes: u64,
}

impl Binary {
    /// Decodes the input; `path` names it in errors.
    pub fn decode(&self, path: &Path) -> Result<Decoded<'_>> {
        let err = |e: &dyn std::fmt::Display| anyhow::anyhow!("{}: {e}", path.display());
        let (format, (events, diags), bytes) = match self {
            Binary::Ctf(files) => ("ctf", files.events().map_err(|e| err(&e))?, files.bytes()),
            Binary::Etw(bytes) => (
                "etw-records",
                etw::read_records(bytes).map_err(|e| err(&e))?,
                bytes.len() as u64,
            ),
        };
        Ok(Decoded {
            format,
            events,
            diags,
            bytes,
        })
    }
}

/// `--max-ratio`: how many times its compressed size a `.gz` or `.zst` input may
/// grow (see `tracescope_format::source`). Set once, by `main`, before any input
/// is opened.
static MAX_RATIO: AtomicU64 = AtomicU64::new(DEFAULT_MAX_RATIO);

pub fn set_max_ratio(ratio: u64) {
    MAX_RATIO.store(ratio, Ordering::Relaxed);
}

pub fn open(path: &Path) -> Result<Input> {
    if path.is_dir() {
        let files = ctf::open_dir(path).map_err(|e| match e {
            ctf::CtfError::NotCtf(_) => anyhow::anyhow!(
                "{} is a directory but holds no CTF trace (no `metadata` file at or below it)",
                path.display()
            ),
            ctf::CtfError::NotMetadata { .. } => anyhow::anyhow!("{e}"),
            e => anyhow::anyhow!("{}: {e}", path.display()),
        })?;
        return Ok(Input::Binary(Binary::Ctf(files)));
    }
    let mut head = [0u8; 16];
    let n = {
        use std::io::Read;
        let mut f =
            std::fs::File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
        f.read(&mut head).unwrap_or(0)
    };
    if etw::is_record_file(&head[..n]) {
        let bytes =
            std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
        return Ok(Input::Binary(Binary::Etw(bytes)));
    }
    let opts = SourceOptions {
        max_ratio: MAX_RATIO.load(Ordering::Relaxed),
        ..SourceOptions::default()
    };
    Source::open_with(path, &opts)
        .map(Input::Json)
        .map_err(|e| read_error(path, &e))
}

/// The error of an input decoded in the background, found once it is decoded: the
/// one [`open`] would have returned (checked before a trace is reported empty).
pub fn check_decoded(path: &Path, source: &Source) -> Result<()> {
    match source.decode_error() {
        Some(e) => Err(read_error(path, e)),
        None => Ok(()),
    }
}

fn read_error(path: &Path, e: &std::io::Error) -> anyhow::Error {
    if let Some(r) = RatioExceeded::of(e) {
        anyhow::anyhow!(
            "{}: {r}. If it is a real trace, raise the limit with `--max-ratio {}` \
             (0: no limit)",
            path.display(),
            r.max_ratio.saturating_mul(10)
        )
    } else {
        anyhow::anyhow!("cannot read {}: {e}", path.display())
    }
}
