//! Safe output: every command that writes a file or a directory goes through here.
//!
//! The output is written to a temporary beside the target (`.NAME.tracescope-tmp-PID`,
//! same directory, so same file system) and renamed into place only when complete:
//! a command that fails, is interrupted or is killed never leaves a partial result
//! at the target, and never touches an existing target before the new one is whole.
//! An output that is one of the inputs (same path, a hard link, a symbolic link, a
//! directory holding it) is refused before anything is written.
//!
//! ```ignore
//! let out = Output::file(target, &[input])?;   // checks, makes the temporary
//! let mut w = out.writer()?;                    // buffered, writes the temporary
//! w.write_all(b"...").map_err(|e| out.error(e))?;
//! w.flush().map_err(|e| out.error(e))?;
//! drop(w);
//! out.commit()?;                                // fsync, rename into place
//! ```
//!
//! A directory output (a CTF trace) is [`Output::dir`]: write the files into
//! [`Output::path`], then [`Output::commit`] swaps it with the target atomically
//! (an existing target is replaced only once the new one is complete).
//!
//! Dropping an `Output` without committing removes the temporary; so does Ctrl-C or
//! SIGTERM (see [`interrupt`]). SIGKILL cannot be caught: the temporary stays, named
//! as such, and is removed by the next command writing the same target.

mod checks;
pub mod interrupt;

use std::fs::File;
use std::io::{self, BufWriter};
use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Context, Result};

pub use checks::refuse_inputs;

/// A file or directory being written beside its target.
#[must_use = "an output not committed is removed"]
pub struct Output {
    /// Where the result goes (symbolic links followed).
    target: PathBuf,
    /// The target as the user named it, for messages.
    shown: PathBuf,
    /// The temporary written instead.
    temp: PathBuf,
    /// The temporary file, kept open to sync it at commit (`None` for a directory).
    file: Option<File>,
    committed: bool,
}

impl Output {
    /// A file at `target`, refused if it is one of `inputs`.
    pub fn file(target: &Path, inputs: &[&Path]) -> Result<Output> {
        if ends_with_separator(target) {
            bail!(
                "{} names a directory; give a file name for this output",
                target.display()
            );
        }
        let real = checks::resolve(target)?;
        if real.is_dir() {
            bail!("{} is a directory; give a file name", target.display());
        }
        refuse_inputs(&real, target, inputs)?;
        let (temp, file) = make_temp(&real, |p| {
            std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(p)
                .map(Some)
        })?;
        Ok(Output {
            target: real,
            shown: target.to_path_buf(),
            temp,
            file,
            committed: false,
        })
    }

    /// A directory at `target`, refused if it is or holds one of `inputs`. An existing
    /// `target` must be a directory that `is_replaceable` accepts (or an empty one):
    /// a command never replaces a directory of something else.
    pub fn dir(
        target: &Path,
        inputs: &[&Path],
        what: &str,
        is_replaceable: impl Fn(&Path) -> bool,
    ) -> Result<Output> {
        let real = checks::resolve(target)?;
        if real.exists() {
            if !real.is_dir() {
                bail!(
                    "{} exists and is not a directory; a {what} is a directory (remove it or choose another name)",
                    target.display()
                );
            }
            let empty = std::fs::read_dir(&real)
                .with_context(|| format!("cannot read {}", target.display()))?
                .next()
                .is_none();
            if !empty && !is_replaceable(&real) {
                bail!(
                    "{} exists and is not a {what}; refusing to replace it (remove it or choose another name)",
                    target.display()
                );
            }
        }
        refuse_inputs(&real, target, inputs)?;
        let (temp, file) = make_temp(&real, |p| std::fs::create_dir(p).map(|()| None))?;
        Ok(Output {
            target: real,
            shown: target.to_path_buf(),
            temp,
            file,
            committed: false,
        })
    }

    /// The temporary to write (a file, or the directory to fill).
    pub fn path(&self) -> &Path {
        &self.temp
    }

    /// The target as the user named it (for messages).
    pub fn shown(&self) -> &Path {
        &self.shown
    }

    /// A buffered writer of the temporary file.
    pub fn writer(&self) -> Result<BufWriter<File>> {
        let f = self
            .file
            .as_ref()
            .ok_or_else(|| anyhow!("internal: {} is a directory output", self.shown.display()))?
            .try_clone()
            .map_err(|e| self.error(e))?;
        Ok(BufWriter::with_capacity(1 << 20, f))
    }

    /// A write error, naming the target; a full disk says so and that the target is
    /// untouched.
    pub fn error(&self, e: io::Error) -> anyhow::Error {
        write_error(&self.shown, e)
    }

    /// Makes the output durable and renames it into place: the target is then either
    /// the whole new output or, on error, what it was before.
    pub fn commit(mut self) -> Result<()> {
        match &self.file {
            Some(f) => f.sync_all().map_err(|e| self.error(e))?,
            None => sync_dir_files(&self.temp).map_err(|e| self.error(e))?,
        }
        // Under the interrupt lock: a Ctrl-C now either removes the temporary before
        // the rename or finds it already renamed, never half of each.
        interrupt::while_locked(|temps| {
            let r = if self.file.is_some() {
                std::fs::rename(&self.temp, &self.target)
            } else {
                replace_dir(&self.temp, &self.target)
            };
            r.map_err(|e| self.error(e))?;
            temps.retain(|t| *t != self.temp);
            self.committed = true;
            Ok::<(), anyhow::Error>(())
        })?;
        if let Some(parent) = self.target.parent() {
            // The rename itself durable; not every file system can sync a directory.
            let _ = File::open(parent).and_then(|d| d.sync_all());
        }
        Ok(())
    }
}

impl Drop for Output {
    fn drop(&mut self) {
        if !self.committed {
            interrupt::while_locked(|temps| {
                remove_temp(&self.temp);
                temps.retain(|t| *t != self.temp);
            });
        }
    }
}

/// The error of a failed write to `target`.
pub fn write_error(target: &Path, e: io::Error) -> anyhow::Error {
    if is_disk_full(&e) {
        anyhow!(
            "cannot write {}: the disk is full ({e}); nothing was written there (free some space and run again)",
            target.display()
        )
    } else {
        anyhow!("cannot write {}: {e}", target.display())
    }
}

fn is_disk_full(e: &io::Error) -> bool {
    e.kind() == io::ErrorKind::StorageFull
        || matches!(e.raw_os_error(), Some(c) if c == libc::ENOSPC || c == libc::EDQUOT)
}

fn ends_with_separator(p: &Path) -> bool {
    p.as_os_str()
        .to_string_lossy()
        .ends_with(std::path::MAIN_SEPARATOR)
        || p.as_os_str().to_string_lossy().ends_with('/')
}

/// The temporary beside `target`, `.NAME.tracescope-tmp-PID` (`-N` after it if that
/// exists), made by `make` and registered for removal on interrupt. Leftovers of
/// killed runs for the same target are removed first.
fn make_temp(
    target: &Path,
    make: impl Fn(&Path) -> io::Result<Option<File>>,
) -> Result<(PathBuf, Option<File>)> {
    let parent = target.parent().unwrap_or(Path::new("."));
    let name = target
        .file_name()
        .ok_or_else(|| anyhow!("{} has no file name", target.display()))?
        .to_string_lossy()
        .into_owned();
    remove_stale_temps(parent, &name);
    interrupt::install();
    let pid = std::process::id();
    for n in 0..100 {
        let suffix = if n == 0 {
            String::new()
        } else {
            format!("-{n}")
        };
        let temp = parent.join(format!(".{name}.{TEMP_TAG}{pid}{suffix}"));
        let made = interrupt::while_locked(|temps| {
            let r = make(&temp);
            if r.is_ok() {
                temps.push(temp.clone());
            }
            r
        });
        match made {
            Ok(file) => return Ok((temp, file)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(write_error(target, e)),
        }
    }
    bail!(
        "cannot write {}: too many temporaries beside it",
        target.display()
    )
}

/// What marks a temporary's name, before the pid of the process writing it.
pub const TEMP_TAG: &str = "tracescope-tmp-";

/// Removes `.NAME.tracescope-tmp-PID*` beside the target whose process is gone (a
/// run killed with SIGKILL). Linux only: elsewhere nothing tells a live pid.
fn remove_stale_temps(parent: &Path, name: &str) {
    if !cfg!(target_os = "linux") {
        return;
    }
    let prefix = format!(".{name}.{TEMP_TAG}");
    let Ok(entries) = std::fs::read_dir(parent) else {
        return;
    };
    for entry in entries.flatten() {
        let file_name = entry.file_name();
        let Some(rest) = file_name.to_str().and_then(|n| n.strip_prefix(&prefix)) else {
            continue;
        };
        let pid = rest.split('-').next().unwrap_or("");
        let Ok(pid) = pid.parse::<u32>() else {
            continue;
        };
        if pid != std::process::id() && !Path::new(&format!("/proc/{pid}")).exists() {
            remove_temp(&entry.path());
        }
    }
}

fn remove_temp(p: &Path) {
    // symlink_metadata: a temporary is never followed out of its directory.
    match std::fs::symlink_metadata(p) {
        Ok(m) if m.is_dir() => drop(std::fs::remove_dir_all(p)),
        Ok(_) => drop(std::fs::remove_file(p)),
        Err(_) => {}
    }
}

/// Syncs every file of a directory output, then the directory.
fn sync_dir_files(dir: &Path) -> io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        if entry.file_type()?.is_file() {
            File::open(entry.path())?.sync_all()?;
        }
    }
    let _ = File::open(dir).and_then(|d| d.sync_all());
    Ok(())
}

/// Puts the directory `new` at `target`: a plain rename when there is none, else an
/// atomic exchange (Linux), then the old one is removed. Where the file system cannot
/// exchange, the old one is moved aside first and moved back if the rename fails.
fn replace_dir(new: &Path, target: &Path) -> io::Result<()> {
    if std::fs::symlink_metadata(target).is_err() {
        return std::fs::rename(new, target);
    }
    if exchange(new, target)? {
        // `new` now names the old directory.
        return std::fs::remove_dir_all(new);
    }
    let aside = new.with_file_name(format!(
        "{}.old",
        new.file_name().unwrap_or_default().to_string_lossy()
    ));
    std::fs::rename(target, &aside)?;
    if let Err(e) = std::fs::rename(new, target) {
        let _ = std::fs::rename(&aside, target);
        return Err(e);
    }
    std::fs::remove_dir_all(&aside)
}

/// Swaps two paths atomically; `Ok(false)` when the file system cannot.
#[cfg(target_os = "linux")]
fn exchange(a: &Path, b: &Path) -> io::Result<bool> {
    use std::ffi::CString;
    use std::os::unix::ffi::OsStrExt;
    let c = |p: &Path| {
        CString::new(p.as_os_str().as_bytes())
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "NUL in a path"))
    };
    let (ca, cb) = (c(a)?, c(b)?);
    // SAFETY: two valid NUL-terminated paths; renameat2 reads them only.
    let r = unsafe {
        libc::renameat2(
            libc::AT_FDCWD,
            ca.as_ptr(),
            libc::AT_FDCWD,
            cb.as_ptr(),
            libc::RENAME_EXCHANGE,
        )
    };
    if r == 0 {
        return Ok(true);
    }
    let e = io::Error::last_os_error();
    match e.raw_os_error() {
        Some(libc::EINVAL) | Some(libc::ENOSYS) | Some(libc::ENOTSUP) => Ok(false),
        _ => Err(e),
    }
}

#[cfg(not(target_os = "linux"))]
fn exchange(_: &Path, _: &Path) -> io::Result<bool> {
    Ok(false)
}

#[cfg(test)]
mod tests;
