//! Where an output really goes, and whether that is one of the command's inputs.

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

/// The target with its directory made absolute and a symbolic link at the target
/// followed (the link keeps pointing at the new output). The directory must exist.
pub fn resolve(target: &Path) -> Result<PathBuf> {
    if let Ok(real) = std::fs::canonicalize(target) {
        return Ok(real);
    }
    let name = target
        .file_name()
        .with_context(|| format!("{} names no file", target.display()))?;
    let parent = match target.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let dir = std::fs::canonicalize(parent).with_context(|| {
        format!(
            "cannot write {}: its directory {} does not exist",
            target.display(),
            parent.display()
        )
    })?;
    if std::fs::symlink_metadata(dir.join(name)).is_ok() {
        // A dangling symbolic link: writing through it would create a file
        // somewhere the user did not name.
        bail!(
            "{} is a symbolic link to nothing; remove it or name another output",
            target.display()
        );
    }
    Ok(dir.join(name))
}

/// A file's identity: device and inode (a hard link has its target's).
fn identity(p: &Path) -> Option<(u64, u64)> {
    std::fs::metadata(p).ok().map(|m| (m.dev(), m.ino()))
}

/// Refuses an output (`real`, resolved from what the user wrote, `shown`) that would
/// overwrite or remove an input: the same file by path or identity (hard and
/// symbolic links), a file of an input directory, or a directory holding an input.
pub fn refuse_inputs(real: &Path, shown: &Path, inputs: &[&Path]) -> Result<()> {
    let target_id = identity(real);
    for input in inputs {
        let Ok(input_real) = std::fs::canonicalize(input) else {
            continue;
        };
        let refuse = |why: &str| {
            bail!(
                "refusing to write {}: {why} {}; choose another output name (the input is untouched)",
                shown.display(),
                input.display()
            )
        };
        if input_real == *real || (target_id.is_some() && identity(&input_real) == target_id) {
            return refuse("it is the input");
        }
        if input_real.starts_with(real) {
            return refuse("replacing it would remove the input");
        }
        if input_real.is_dir() && target_id.is_some() {
            // A file of the input directory, by identity (also a hard link to one of
            // its stream files); any other file, even inside the directory, is not.
            let of_input = std::fs::read_dir(&input_real)
                .into_iter()
                .flatten()
                .flatten()
                .any(|e| identity(&e.path()) == target_id);
            if of_input {
                return refuse("it is a file of the input");
            }
        }
    }
    Ok(())
}
