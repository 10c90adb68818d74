//! Finding CTF traces on disk and reading their metadata stream, plain text or
//! packetized (packets with magic 0x75D11D57, CTF 1.8 section 7.1).

use std::collections::HashSet;
use std::fs;
use std::path::{Path, PathBuf};

use super::CtfError;

pub const METADATA_MAGIC: u32 = 0x75D1_1D57;
const PACKET_HEADER_LEN: usize = 37;

fn looks_like_metadata(head: &[u8]) -> bool {
    head.starts_with(b"/* CTF")
        || head.starts_with(&METADATA_MAGIC.to_le_bytes())
        || head.starts_with(&METADATA_MAGIC.to_be_bytes())
}

/// Whether `dir` is a trace directory: `Ok(true)` when its `metadata` file starts
/// like CTF metadata, `Ok(false)` when it has no `metadata` entry, and the reason
/// when it has one that is not CTF metadata (unreadable, empty, other bytes).
fn trace_dir_check(dir: &Path) -> Result<bool, String> {
    use std::io::Read;
    let path = dir.join("metadata");
    if fs::symlink_metadata(&path).is_err() {
        return Ok(false);
    }
    let mut head = [0u8; 8];
    let n = fs::File::open(&path)
        .and_then(|mut f| f.read(&mut head))
        .map_err(|e| format!("it cannot be read: {e}"))?;
    if looks_like_metadata(&head[..n]) {
        return Ok(true);
    }
    Err(if n == 0 {
        "it is empty".to_string()
    } else {
        format!(
            "it starts with the bytes {:02x?}, neither `/* CTF` (plain-text metadata) nor \
             the metadata packet magic {METADATA_MAGIC:#x}",
            &head[..n]
        )
    })
}

/// What a search for CTF traces found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Found {
    /// The trace directories, sorted.
    pub traces: Vec<PathBuf>,
    /// `metadata` files that are not CTF metadata, with the reason: what to tell a
    /// user who expected a trace there.
    pub rejected: Vec<(PathBuf, String)>,
}

/// The CTF trace directories at or under `path` (a trace is a directory holding a
/// `metadata` file), sorted, searching a few levels down like babeltrace2 does
/// for LTTng session directories.
pub fn find_traces(path: &Path) -> Vec<PathBuf> {
    search(path).traces
}

/// [`find_traces`], also naming the `metadata` files that are not CTF metadata.
/// Symbolic links are followed, but each real directory is visited once, so a link
/// to `.` or to a parent neither repeats a trace nor loops.
pub fn search(path: &Path) -> Found {
    fn walk(dir: &Path, depth: u32, seen: &mut HashSet<PathBuf>, out: &mut Found) {
        // A directory that cannot be resolved (a dangling or looping link) has
        // nothing to read.
        let Ok(real) = fs::canonicalize(dir) else {
            return;
        };
        if !seen.insert(real) {
            return;
        }
        match trace_dir_check(dir) {
            Ok(true) => {
                out.traces.push(dir.to_path_buf());
                return;
            }
            Ok(false) => {}
            Err(why) => out.rejected.push((dir.join("metadata"), why)),
        }
        if depth == 0 {
            return;
        }
        let Ok(rd) = fs::read_dir(dir) else { return };
        let mut subs: Vec<PathBuf> = rd
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.is_dir())
            .collect();
        subs.sort();
        for s in subs {
            walk(&s, depth - 1, seen, out);
        }
    }
    let mut out = Found::default();
    walk(path, 4, &mut HashSet::new(), &mut out);
    out
}

/// True when `path` is a CTF trace directory or holds some below it.
pub fn is_ctf_dir(path: &Path) -> bool {
    path.is_dir() && !find_traces(path).is_empty()
}

/// The metadata text of a trace: the file itself, or the concatenated text of its
/// packets when packetized.
pub fn metadata_text(bytes: &[u8]) -> Result<String, CtfError> {
    let le = bytes.starts_with(&METADATA_MAGIC.to_le_bytes());
    let be = bytes.starts_with(&METADATA_MAGIC.to_be_bytes());
    if !le && !be {
        return Ok(String::from_utf8_lossy(bytes).into_owned());
    }
    let u32_at = |i: usize| -> Option<u32> {
        let b: [u8; 4] = bytes.get(i..i + 4)?.try_into().ok()?;
        Some(if le {
            u32::from_le_bytes(b)
        } else {
            u32::from_be_bytes(b)
        })
    };
    let mut text = Vec::new();
    let mut pos = 0usize;
    while pos < bytes.len() {
        let bad = |m: &str| CtfError::Metadata {
            line: 0,
            message: format!("metadata packet at byte {pos}: {m}"),
        };
        if u32_at(pos) != Some(METADATA_MAGIC) {
            return Err(bad("bad magic"));
        }
        let content = u32_at(pos + 24).ok_or_else(|| bad("header cut off"))? as usize / 8;
        let size = u32_at(pos + 28).ok_or_else(|| bad("header cut off"))? as usize / 8;
        if bytes.get(pos + 32) != Some(&0) {
            return Err(bad("compressed metadata is not supported"));
        }
        if content < PACKET_HEADER_LEN || size < content {
            return Err(bad(&format!(
                "content size {content} / packet size {size} bytes are inconsistent"
            )));
        }
        let end = (pos + content).min(bytes.len());
        let body = bytes
            .get(pos + PACKET_HEADER_LEN..end)
            .ok_or_else(|| bad("metadata packet cut off inside its header"))?;
        text.extend_from_slice(body);
        pos += size;
    }
    Ok(String::from_utf8_lossy(&text).into_owned())
}
