//! The model's own text: raw JSON of events that did not come from JSON text (ETW,
//! the recorder, CTF traces not in tracescope's own layout), which [`TextRef`]s
//! with the arena bit point into. A CTF trace in tracescope's own layout writes
//! nothing here but stacks: its args stay encoded in its stream files
//! ([`TextRef::is_ctf`]).
//!
//! Parts write into blocks of their own ([`LocalArena`]), so a part never waits for
//! another and no single buffer is regrown and copied as the arena grows. Each block
//! is a region of the arena reserved when the block starts, so its texts' offsets
//! are final at once. Once the arena is larger than [`SPILL_AT`], full blocks are
//! written to an unlinked temporary file, which the finished model maps: like the
//! text of a JSON input, the args of a large binary trace then live in file pages
//! the kernel can drop and read again, not in the process's own memory (a trace
//! bigger than memory needs that). If the file cannot be made or written, the arena
//! stays in memory.

use std::fs::File;
use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};

use crate::args::TextRef;

/// Arena size past which blocks go to a temporary file.
pub const SPILL_AT: u64 = 64 << 20;
/// A part's first block; each next one is four times larger, up to [`MAX_BLOCK`].
const FIRST_BLOCK: usize = 16 << 10;
/// Largest block: bounds the unused tail a part leaves in its last block.
const MAX_BLOCK: usize = 1 << 20;

/// A block: texts written one after another at `start` of the arena, in a region of
/// `region` bytes.
#[derive(Debug, Clone, Default)]
struct Block {
    start: u64,
    region: usize,
    text: String,
}

impl Block {
    fn fits(&self, len: usize) -> bool {
        self.region - self.text.len() >= len
    }

    fn push(&mut self, text: &str) -> TextRef {
        let at = self.start + self.text.len() as u64;
        self.text.push_str(text);
        TextRef::in_arena(at, text.len().min(u32::MAX as usize) as u32)
    }
}

#[derive(Debug, Default)]
struct Stored {
    /// Blocks kept in memory.
    blocks: Vec<Block>,
    /// Regions written to the spill file.
    spilled: Vec<Range<u64>>,
}

/// The arena all parts of one load write into.
#[derive(Debug)]
pub struct SharedArena {
    /// Arena size past which full blocks go to the spill file.
    spill_at: u64,
    /// Bytes of the arena handed out as regions so far.
    reserved: AtomicU64,
    stored: Mutex<Stored>,
    /// The block of texts pushed outside any part (metadata, top-level values).
    loose: Mutex<Writer>,
    /// The spill file, made once the arena passes [`SPILL_AT`] (`None`: it could not
    /// be made, so everything stays in memory).
    spill: OnceLock<Option<File>>,
    /// The buffers of spilled blocks, for the next blocks: a fresh buffer's pages
    /// are faulted in and zeroed as it is written (a binary trace writes hundreds of MB
    /// of args here, a fault every 4 KiB), a reused one's are already there.
    free: Mutex<Vec<String>>,
}

/// Spilled blocks' buffers kept for reuse (parts write into one block each at once).
const FREE_BUFFERS: usize = 8;

impl Default for SharedArena {
    fn default() -> Self {
        SharedArena::spilling_at(SPILL_AT)
    }
}

impl SharedArena {
    /// An arena that goes to a file once it holds more than `spill_at` bytes.
    pub fn spilling_at(spill_at: u64) -> SharedArena {
        SharedArena {
            spill_at,
            reserved: AtomicU64::new(0),
            stored: Mutex::default(),
            loose: Mutex::default(),
            spill: OnceLock::new(),
            free: Mutex::default(),
        }
    }

    fn reserve(&self, len: usize) -> u64 {
        self.reserved.fetch_add(len as u64, Ordering::Relaxed)
    }

    fn block(&self, region: usize) -> Block {
        let reused = {
            let mut free = self.free.lock().unwrap_or_else(|e| e.into_inner());
            let fits = free.iter().position(|b| b.capacity() >= region);
            fits.map(|i| free.swap_remove(i))
        };
        Block {
            start: self.reserve(region),
            region,
            text: reused.unwrap_or_else(|| String::with_capacity(region)),
        }
    }

    /// Copies `text` into the arena (for texts outside any part; parts use a
    /// [`LocalArena`]).
    pub fn push(&self, text: &str) -> TextRef {
        let mut loose = self.loose.lock().unwrap_or_else(|e| e.into_inner());
        loose.push(self, text)
    }

    /// A writer of its own for one part.
    pub fn local(&self) -> LocalArena<'_> {
        LocalArena {
            shared: self,
            writer: Writer::default(),
        }
    }

    /// Keeps a finished block: in the spill file once the arena is large, else in
    /// memory.
    fn store(&self, block: Block) {
        if block.text.is_empty() {
            return;
        }
        if self.reserved.load(Ordering::Relaxed) > self.spill_at {
            if let Some(file) = self.spill_file() {
                let at = block.start..block.start + block.text.len() as u64;
                if write_at(file, block.text.as_bytes(), at.start) {
                    self.lock().spilled.push(at);
                    let mut free = self.free.lock().unwrap_or_else(|e| e.into_inner());
                    if free.len() < FREE_BUFFERS {
                        let mut text = block.text;
                        text.clear();
                        free.push(text);
                    }
                    return;
                }
            }
        }
        self.lock().blocks.push(block);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Stored> {
        self.stored.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn spill_file(&self) -> Option<&File> {
        self.spill
            .get_or_init(|| tempfile::tempfile().ok())
            .as_ref()
    }

    fn flush_loose(&self) {
        let loose = self
            .loose
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .block
            .take();
        if let Some(b) = loose {
            self.store(b);
        }
    }

    /// A copy of the arena so far (a followed trace builds each version from one):
    /// in memory, whatever was spilled read back.
    pub(crate) fn copy(&self) -> SharedArena {
        self.flush_loose();
        let stored = self.lock();
        let mut blocks = stored.blocks.clone();
        if let Some(Some(file)) = self.spill.get() {
            for r in &stored.spilled {
                blocks.push(read_back(file, r.clone()));
            }
        }
        let copy = SharedArena::spilling_at(self.spill_at);
        copy.reserved
            .store(self.reserved.load(Ordering::Relaxed), Ordering::Relaxed);
        *copy.lock() = Stored {
            blocks,
            spilled: Vec::new(),
        };
        copy
    }

    /// The arena's text, once every part's [`LocalArena`] is dropped.
    pub(crate) fn take(&self) -> ArenaText {
        self.flush_loose();
        std::mem::take(&mut *self.free.lock().unwrap_or_else(|e| e.into_inner()));
        let stored = std::mem::take(&mut *self.lock());
        let end = stored
            .blocks
            .iter()
            .map(|b| b.start + b.text.len() as u64)
            .chain(stored.spilled.iter().map(|r| r.end))
            .max()
            .unwrap_or(0);
        if let Some(Some(file)) = self.spill.get() {
            if let Some(mapped) = finish_spill(file, &stored, end) {
                return mapped;
            }
        }
        ArenaText::Memory(assemble(
            stored,
            self.spill.get().and_then(Option::as_ref),
            end,
        ))
    }
}

/// Writes the blocks still in memory to the spill file and maps it.
fn finish_spill(file: &File, stored: &Stored, end: u64) -> Option<ArenaText> {
    for b in &stored.blocks {
        if !write_at(file, b.text.as_bytes(), b.start) {
            return None;
        }
    }
    file.set_len(end).ok()?;
    if end == 0 {
        return Some(ArenaText::Memory(String::new()));
    }
    // SAFETY: the file is unlinked and only this process wrote it; it holds the
    // bytes of `str`s at their offsets and zeros (holes) between them, all of it
    // UTF-8, and it is never written again once mapped.
    let map = unsafe { memmap2::Mmap::map(file) }.ok()?;
    Some(ArenaText::Mapped(map))
}

/// The arena in one string: each block at its offset, NULs in the unused tails of
/// regions. Blocks are freed as they are copied, so the peak stays near one arena.
fn assemble(stored: Stored, file: Option<&File>, end: u64) -> String {
    let mut blocks = stored.blocks;
    if let Some(file) = file {
        blocks.extend(stored.spilled.into_iter().map(|r| read_back(file, r)));
    }
    blocks.sort_unstable_by_key(|b| b.start);
    let mut out = String::with_capacity(end as usize);
    for b in blocks {
        let gap = (b.start as usize).saturating_sub(out.len());
        out.extend(std::iter::repeat_n('\0', gap));
        out.push_str(&b.text);
    }
    out
}

#[cfg(unix)]
fn write_at(file: &File, bytes: &[u8], at: u64) -> bool {
    use std::os::unix::fs::FileExt;
    file.write_all_at(bytes, at).is_ok()
}

#[cfg(not(unix))]
fn write_at(_: &File, _: &[u8], _: u64) -> bool {
    false
}

/// A spilled region read back (NULs if the file cannot be read: a counted loss
/// would need a diagnostic the arena cannot give, and reads of a file this process
/// just wrote do not fail in practice).
fn read_back(file: &File, r: Range<u64>) -> Block {
    let mut bytes = vec![0u8; (r.end - r.start) as usize];
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileExt;
        let _ = file.read_exact_at(&mut bytes, r.start);
    }
    #[cfg(not(unix))]
    let _ = file;
    let text = String::from_utf8(bytes).unwrap_or_else(|e| {
        let n = e.as_bytes().len();
        "\0".repeat(n)
    });
    Block {
        start: r.start,
        region: text.len(),
        text,
    }
}

/// One part's writer: texts go into its current block, which goes to the shared
/// arena when full and when the writer is dropped.
#[derive(Debug)]
pub struct LocalArena<'s> {
    shared: &'s SharedArena,
    writer: Writer,
}

/// The block texts go into, and the size of the next one.
#[derive(Debug)]
struct Writer {
    block: Option<Block>,
    next: usize,
}

impl Default for Writer {
    fn default() -> Self {
        Writer {
            block: None,
            next: FIRST_BLOCK,
        }
    }
}

impl Writer {
    /// Appends `text` to the current block, first storing it in `shared` and
    /// starting a larger one when the text does not fit.
    fn push(&mut self, shared: &SharedArena, text: &str) -> TextRef {
        if text.is_empty() {
            return TextRef::NONE;
        }
        if !self.block.as_ref().is_some_and(|b| b.fits(text.len())) {
            if let Some(full) = self.block.take() {
                shared.store(full);
            }
            self.block = Some(shared.block(text.len().max(self.next)));
            self.next = (self.next * 4).min(MAX_BLOCK);
        }
        self.block.as_mut().expect("a block").push(text)
    }
}

impl LocalArena<'_> {
    pub fn push(&mut self, text: &str) -> TextRef {
        self.writer.push(self.shared, text)
    }
}

impl Drop for LocalArena<'_> {
    fn drop(&mut self) {
        if let Some(b) = self.writer.block.take() {
            self.shared.store(b);
        }
    }
}

/// The finished arena: a string, or the mapped spill file.
#[derive(Debug)]
pub enum ArenaText {
    Memory(String),
    Mapped(memmap2::Mmap),
}

impl Default for ArenaText {
    fn default() -> Self {
        ArenaText::Memory(String::new())
    }
}

impl ArenaText {
    pub fn as_str(&self) -> &str {
        match self {
            ArenaText::Memory(s) => s,
            // SAFETY: see `finish_spill`: the mapped file is UTF-8 by construction.
            ArenaText::Mapped(m) => unsafe { std::str::from_utf8_unchecked(m) },
        }
    }

    /// Whether the text lives in a mapped file rather than the heap.
    pub fn is_mapped(&self) -> bool {
        matches!(self, ArenaText::Mapped(_))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::args::resolve;

    /// Texts of several sizes from four parts at once plus loose pushes, as a CTF
    /// load makes them; every [`TextRef`] must give back its text.
    fn fill(arena: &SharedArena) -> Vec<(TextRef, String)> {
        let mut all: Vec<(TextRef, String)> = std::thread::scope(|s| {
            let parts: Vec<_> = (0..4)
                .map(|p| {
                    s.spawn(move || {
                        let mut local = arena.local();
                        (0..3000)
                            .map(|i| {
                                // Up to 2.5 MB, so some texts are larger than a block.
                                let n = if i % 997 == 0 { 2_500_000 } else { i % 300 };
                                let t: String = format!("{{\"p{p}\":\"é{i}\"}}")
                                    .chars()
                                    .cycle()
                                    .take(n)
                                    .collect();
                                (local.push(&t), t)
                            })
                            .collect::<Vec<_>>()
                    })
                })
                .collect();
            parts.into_iter().flat_map(|h| h.join().unwrap()).collect()
        });
        for i in 0..50 {
            let t = format!("loose {i}");
            all.push((arena.push(&t), t));
        }
        all
    }

    fn check(text: &ArenaText, all: &[(TextRef, String)]) {
        for (r, t) in all {
            assert_eq!(r.is_none(), t.is_empty());
            assert_eq!(resolve("", text.as_str(), *r), t);
        }
    }

    #[test]
    fn texts_read_back_in_memory() {
        let arena = SharedArena::spilling_at(u64::MAX);
        let all = fill(&arena);
        let text = arena.take();
        assert!(!text.is_mapped());
        check(&text, &all);
    }

    #[test]
    fn texts_read_back_from_the_spill_file() {
        let arena = SharedArena::spilling_at(0);
        let all = fill(&arena);
        let copy = arena.copy();
        let text = arena.take();
        assert!(text.is_mapped(), "written to the file and mapped");
        check(&text, &all);
        // A followed trace copies the arena: the copy holds the same texts, in memory
        // until it passes its own threshold.
        let copied = copy.take();
        check(&copied, &all);
    }

    /// Blocks stored after the arena crossed the threshold went to the file; those
    /// before it are written there at the end, so one mapping holds all.
    #[test]
    fn an_arena_crossing_the_threshold_maps_both_halves() {
        let arena = SharedArena::spilling_at(200_000);
        let mut local = arena.local();
        let all: Vec<(TextRef, String)> = (0..10_000)
            .map(|i| {
                let t = format!("{i:0>100}");
                (local.push(&t), t)
            })
            .collect();
        drop(local);
        assert!(!arena.lock().spilled.is_empty());
        assert!(!arena.lock().blocks.is_empty());
        let text = arena.take();
        assert!(text.is_mapped());
        check(&text, &all);
    }

    #[test]
    fn an_empty_arena_is_an_empty_string() {
        let arena = SharedArena::spilling_at(0);
        assert!(arena.push("").is_none());
        assert_eq!(arena.take().as_str(), "");
    }
}
