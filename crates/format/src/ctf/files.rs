//! Stream files of a trace directory, read or mapped.

use std::fs;
use std::path::Path;
use std::sync::Arc;

/// A stream file's bytes: mapped when large (no copy, no zeroed pages), else read.
pub(crate) enum FileBytes {
    Read(Vec<u8>),
    /// The file too: a pass that reads every byte once reads it into buffers of
    /// its own (no page faults, and nothing mapped to drop afterwards).
    Mapped(memmap2::Mmap, fs::File),
}

impl FileBytes {
    pub(crate) fn open(path: &Path) -> std::io::Result<FileBytes> {
        let file = fs::File::open(path)?;
        if file.metadata()?.len() < 1 << 20 {
            let mut v = Vec::new();
            std::io::Read::read_to_end(&mut &file, &mut v)?;
            return Ok(FileBytes::Read(v));
        }
        // SAFETY: the map is read-only and lives only while this read decodes it;
        // as for the JSON reader's inputs, the file must not be truncated meanwhile.
        let map = unsafe { memmap2::Mmap::map(&file)? };
        Ok(FileBytes::Mapped(map, file))
    }

    /// Whether the bytes are a file mapping, whose pages can be dropped once read
    /// (they come back from the file if read again).
    /// The mapped file, for reads that bypass the mapping (`pread`); `None` when
    /// read, and off unix (the mapping is then read, and its pages never dropped).
    pub(crate) fn mapped_file(&self) -> Option<&fs::File> {
        match self {
            FileBytes::Mapped(_, f) if cfg!(unix) => Some(f),
            _ => None,
        }
    }

    pub(crate) fn bytes(&self) -> &[u8] {
        match self {
            FileBytes::Read(v) => v,
            FileBytes::Mapped(m, _) => m,
        }
    }
}

/// A stream file of a trace, shared: whoever reads from it after the decoding (the
/// model resolves [`crate::EncodedArgs`] from it) keeps it, and its mapping, past
/// the [`super::CtfFiles`] it came from.
#[derive(Clone)]
pub struct StreamFile(pub(crate) Arc<FileBytes>);

impl StreamFile {
    /// The file's bytes.
    pub fn bytes(&self) -> &[u8] {
        self.0.bytes()
    }

    /// Lets the pages of `range` go from memory when the file is mapped (they come
    /// back from the file when read again); nothing otherwise.
    pub fn release(&self, range: std::ops::Range<usize>) {
        if self.0.mapped_file().is_some() {
            super::runs::release(self.bytes(), range);
        }
    }
}
