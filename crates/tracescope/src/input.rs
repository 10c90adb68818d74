//! What kind of trace a path holds: JSON (plain, .gz, .zst), a CTF directory, or an
//! ETW record file. Detected by content, not by name.

use std::path::Path;

use anyhow::{bail, Context, Result};
use tracescope_format::{ctf, etw, Diagnostics, Event, Source};

pub enum Input {
    Json(Source),
    /// Events decoded from a binary format, with the reader's diagnostics.
    Events {
        format: &'static str,
        events: Vec<Event<'static>>,
        diags: Diagnostics,
        bytes: u64,
    },
}

pub fn open(path: &Path) -> Result<Input> {
    if path.is_dir() {
        if !ctf::is_ctf_dir(path) {
            bail!(
                "{} is a directory but holds no CTF trace (no `metadata` file)",
                path.display()
            );
        }
        let (events, diags) =
            ctf::read_dir(path).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        let bytes = dir_size(path);
        return Ok(Input::Events {
            format: "ctf",
            events,
            diags,
            bytes,
        });
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
        let (events, diags) =
            etw::read_records(&bytes).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        return Ok(Input::Events {
            format: "etw-records",
            events,
            diags,
            bytes: bytes.len() as u64,
        });
    }
    Ok(Input::Json(Source::open(path).with_context(|| {
        format!("cannot open {}", path.display())
    })?))
}

fn dir_size(path: &Path) -> u64 {
    let Ok(rd) = std::fs::read_dir(path) else {
        return 0;
    };
    rd.flatten()
        .map(|e| {
            let p = e.path();
            if p.is_dir() {
                dir_size(&p)
            } else {
                e.metadata().map_or(0, |m| m.len())
            }
        })
        .sum()
}
