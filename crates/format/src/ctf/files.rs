//! Stream files of a trace directory, read or mapped.

use std::fs;
use std::path::Path;

/// A stream file's bytes: mapped when large (no copy, no zeroed pages), else read.
pub(crate) enum FileBytes {
    Read(Vec<u8>),
    Mapped(memmap2::Mmap),
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
        Ok(FileBytes::Mapped(unsafe { memmap2::Mmap::map(&file)? }))
    }

    /// Whether the bytes are a file mapping, whose pages can be dropped once read
    /// (they come back from the file if read again).
    pub(crate) fn is_mapped(&self) -> bool {
        matches!(self, FileBytes::Mapped(_))
    }

    pub(crate) fn bytes(&self) -> &[u8] {
        match self {
            FileBytes::Read(v) => v,
            FileBytes::Mapped(m) => m,
        }
    }
}
