//! A compressed input decoded on a thread of its own, into a buffer that never moves,
//! while readers already parse the prefix decoded so far ([`Source::prefix`]).
//!
//! The buffer is a reservation of address space as large as the input may decompress
//! to (the ratio limit): only the pages the decoder writes take memory, so the text's
//! size need not be known ahead. (A gzip trailer gives only the last member's size
//! modulo 2^32, and a zstd frame written by a streaming compressor gives none.) Where
//! no such reservation can be made, a buffer of the declared size is used instead, and
//! only when the size is declared.
//!
//! The decoder writes past the published length, readers see only the published,
//! UTF-8-checked prefix, and when decoding ends the same buffer becomes the source's
//! text. Whatever goes off the plain path (a decoding error, more output than the
//! ratio allows, invalid UTF-8) ends the prefixes; the source is then decoded again by
//! the sequential decoder, whose text and diagnostics are the reference, so a damaged
//! input reads exactly as it always did.
//!
//! (A big plain file is not checked here: its readers check what they lex, see
//! [`Source::prefix_bytes`].)
//!
//! [`Source::prefix`]: crate::Source::prefix
//! [`Source::prefix_bytes`]: crate::Source::prefix_bytes

use std::io::{self, Read};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock};
use std::thread::JoinHandle;

use memmap2::{MmapMut, MmapOptions};

use crate::source::Limit;
use crate::Compression;

/// Bytes decoded between two publications of the prefix.
const STEP: usize = 4 << 20;

/// The compressed input, shared with the decoding thread.
pub(crate) type Input = Arc<dyn AsRef<[u8]> + Send + Sync>;

struct Progress {
    /// Decoded bytes checked as UTF-8 and published: they never change again.
    valid: usize,
    /// No more prefixes will come (decoding ended, or left the plain path).
    ended: bool,
    /// Decoding left the plain path: the text comes from the sequential decoder.
    failed: bool,
}

struct Shared {
    progress: Mutex<Progress>,
    grown: Condvar,
}

impl Shared {
    fn new() -> Arc<Shared> {
        Arc::new(Shared {
            progress: Mutex::new(Progress {
                valid: 0,
                ended: false,
                failed: false,
            }),
            grown: Condvar::new(),
        })
    }

    fn lock(&self) -> MutexGuard<'_, Progress> {
        self.progress.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The decoder's output buffer, zero until written.
enum Buffer {
    /// Reserved address space, its pages taken only as they are written.
    Reserved(MmapMut),
    /// A heap buffer of the declared size (where no reservation could be made).
    Heap(Vec<u8>),
}

impl Buffer {
    /// A reservation of `cap` bytes, else a heap buffer of `declared` bytes.
    fn new(cap: usize, declared: Option<usize>) -> Option<Buffer> {
        let reserved = MmapOptions::new().len(cap).no_reserve_swap().map_anon();
        match (reserved, declared) {
            (Ok(map), _) => Some(Buffer::Reserved(map)),
            (Err(_), Some(len)) => zeroed(len).map(Buffer::Heap),
            (Err(_), None) => None,
        }
    }

    /// Where decoding writes.
    fn as_mut_ptr(&mut self) -> *mut u8 {
        match self {
            Buffer::Reserved(m) => m.as_mut_ptr(),
            Buffer::Heap(v) => v.as_mut_ptr(),
        }
    }

    fn capacity(&self) -> usize {
        match self {
            Buffer::Reserved(m) => m.len(),
            Buffer::Heap(v) => v.len(),
        }
    }
}

/// How decoding ended.
pub(crate) struct Decoded {
    buffer: Buffer,
    /// Bytes decoded and published.
    len: usize,
    /// Every byte decoded cleanly, within the ratio limit, and was valid UTF-8.
    pub clean: bool,
}

impl Decoded {
    /// The decoded bytes.
    pub(crate) fn bytes(&self) -> &[u8] {
        match &self.buffer {
            Buffer::Reserved(m) => &m[..self.len],
            Buffer::Heap(v) => &v[..self.len],
        }
    }
}

pub(crate) struct Pending {
    shared: Arc<Shared>,
    base: usize,
    /// The decoded length expected (a guess unless the input declared it).
    expected: usize,
    worker: Mutex<Option<JoinHandle<Decoded>>>,
    /// The buffer once decoding ended (kept even when not used as the text: parts
    /// read from its prefixes may still point into it).
    done: OnceLock<Decoded>,
}

// SAFETY: `base` is only read through `prefix`, which hands out the published bytes
// that no one writes again; the buffer itself moves to the decoding thread and back.
unsafe impl Sync for Pending {}
unsafe impl Send for Pending {}

/// The most address space reserved for one text (1 TiB; a machine with more memory
/// than this still decodes bigger inputs, sequentially).
const MOST_RESERVED: u64 = 1 << 40;

impl Pending {
    /// Starts decoding `input` on a new thread. `expected` is the decoded size, as
    /// `declared` by the input or guessed; `None` if no buffer or thread can be had
    /// (the caller decodes sequentially).
    pub(crate) fn start(
        input: Input,
        compression: Compression,
        expected: usize,
        declared: Option<usize>,
        limit: Limit,
    ) -> Option<Pending> {
        let cap = usize::try_from(limit.allowed_total().min(MOST_RESERVED)).ok()?;
        let mut buffer = Buffer::new(cap, declared)?;
        let base = buffer.as_mut_ptr() as usize;
        Pending::spawn("tracescope-decode", base, expected, move |shared| {
            decode(&*input, compression, buffer, &limit, shared)
        })
    }

    /// Runs `work` on a new thread named `name`, publishing the text at `base`.
    fn spawn(
        name: &str,
        base: usize,
        expected: usize,
        work: impl FnOnce(&Shared) -> Decoded + Send + 'static,
    ) -> Option<Pending> {
        let shared = Shared::new();
        let worker = {
            let shared = shared.clone();
            std::thread::Builder::new()
                .name(name.into())
                .spawn(move || work(&shared))
                .ok()?
        };
        Some(Pending {
            shared,
            base,
            expected,
            worker: Mutex::new(Some(worker)),
            done: OnceLock::new(),
        })
    }

    /// The decoded size expected (a guess unless the input declared it).
    pub(crate) fn expected_len(&self) -> usize {
        self.expected
    }

    /// Waits until `min` bytes are decoded (or decoding ends) and returns the bytes
    /// decoded so far, all valid UTF-8; `None` once decoding left the plain path.
    pub(crate) fn prefix(&self, min: usize) -> Option<&[u8]> {
        let mut p = self.shared.lock();
        while p.valid < min && !p.ended {
            p = self.shared.grown.wait(p).unwrap_or_else(|e| e.into_inner());
        }
        if p.failed {
            return None;
        }
        // SAFETY: the first `valid` bytes of the buffer were written before they were
        // published under the lock and are never written again; the buffer lives
        // until `self` is dropped (in `done`, or owned by the thread until then).
        Some(unsafe { std::slice::from_raw_parts(self.base as *const u8, p.valid) })
    }

    /// Waits for the decoding thread and returns its buffer.
    pub(crate) fn finish(&self) -> &Decoded {
        self.done.get_or_init(|| {
            let worker = self.worker.lock().unwrap_or_else(|e| e.into_inner()).take();
            match worker.map(JoinHandle::join) {
                Some(Ok(decoded)) => decoded,
                // The thread panicked (it should not): the sequential decoder decides.
                _ => Decoded {
                    buffer: Buffer::Heap(Vec::new()),
                    len: 0,
                    clean: false,
                },
            }
        })
    }
}

/// `len` zero bytes, or `None` if the allocator cannot give them. A zeroed
/// allocation of this size comes straight from the kernel, its pages touched first by
/// the decoder (no pass writing zeros over them). Not in huge pages: MADV_HUGEPAGE
/// halved the faults of a 1 GB text but doubled the kernel time (compaction).
pub(crate) fn zeroed(len: usize) -> Option<Vec<u8>> {
    if len == 0 {
        return Some(Vec::new());
    }
    let layout = std::alloc::Layout::array::<u8>(len).ok()?;
    // SAFETY: `layout` has a non-zero size; a non-null result is `len` initialised
    // (zero) bytes allocated by the global allocator with u8's alignment, which is
    // what `Vec::from_raw_parts` asks for.
    unsafe {
        let ptr = std::alloc::alloc_zeroed(layout);
        (!ptr.is_null()).then(|| Vec::from_raw_parts(ptr, len, len))
    }
}

/// The decoding thread: fills the buffer step by step, publishing each step.
fn decode(
    input: &dyn AsRef<[u8]>,
    compression: Compression,
    mut buffer: Buffer,
    limit: &Limit,
    shared: &Shared,
) -> Decoded {
    let input = input.as_ref();
    let unread = |rest: &&[u8]| rest.len();
    let clean = match compression {
        Compression::Gzip => fill(
            flate2::bufread::MultiGzDecoder::new(input),
            |d| unread(d.get_ref()),
            &mut buffer,
            limit,
            shared,
        ),
        Compression::Zstd => fill_zstd(input, &mut buffer, limit, shared),
        Compression::None => Err(()),
    };
    let (len, clean) = {
        let mut p = shared.lock();
        p.ended = true;
        p.failed |= clean.is_err();
        (p.valid, !p.failed)
    };
    shared.grown.notify_all();
    Decoded { buffer, len, clean }
}

/// Decodes into the buffer; `Err` when the stream fails, outgrows the ratio limit
/// (checked as [`decompress`](crate::source::decompress) checks it, against the
/// compressed bytes `unread` says were consumed) or is not UTF-8 (the prefix then
/// stops; the caller records the failure).
fn fill<R: Read>(
    mut dec: R,
    unread: impl Fn(&R) -> usize,
    buffer: &mut Buffer,
    limit: &Limit,
    shared: &Shared,
) -> Result<(), ()> {
    let cap = buffer.capacity();
    // Raw access only: a `&mut` to the whole buffer would cover the published prefix
    // that readers hold.
    let ptr = buffer.as_mut_ptr();
    let mut written = 0;
    let mut checked = 0;
    loop {
        if written == cap {
            // Full: the stream must end here.
            let mut probe = [0u8; 1];
            return match dec.read(&mut probe) {
                Ok(0) if checked == written => Ok(()),
                _ => Err(()),
            };
        }
        let end = (written + STEP).min(cap);
        // Only the bytes past the published prefix are written: readers never see them.
        // SAFETY: `written..end` lies inside the buffer and past the published
        // prefix, so this is the only reference to those bytes.
        let dst = unsafe { std::slice::from_raw_parts_mut(ptr.add(written), end - written) };
        let n = match dec.read(dst) {
            Ok(0) => return if checked == written { Ok(()) } else { Err(()) },
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(_) => return Err(()),
        };
        written += n;
        let consumed = limit.input_len - unread(&dec) as u64;
        if limit.exceeded(written as u64, consumed) {
            return Err(());
        }
        // SAFETY: `checked..written` was decoded into the buffer by this thread.
        checked = unsafe { publish(ptr, checked, written, shared)? };
    }
}

/// Checks the bytes decoded since the last step (`base[checked..written]`) as UTF-8
/// and publishes them, but a character cut at their end (it comes with the next
/// step); gives the new checked length, or `Err` at invalid UTF-8.
///
/// # Safety
/// `base..base + written` lies inside the buffer, and `checked..written` was written
/// by the calling (decoding) thread, which alone writes the buffer.
unsafe fn publish(
    base: *const u8,
    checked: usize,
    written: usize,
    shared: &Shared,
) -> Result<usize, ()> {
    // SAFETY: as the caller promises.
    let fresh = unsafe { std::slice::from_raw_parts(base.add(checked), written - checked) };
    let checked = match simdutf8::compat::from_utf8(fresh) {
        Ok(_) => written,
        Err(e) if e.error_len().is_none() => checked + e.valid_up_to(),
        Err(_) => return Err(()),
    };
    shared.lock().valid = checked;
    shared.grown.notify_all();
    Ok(checked)
}

/// The most text one byte of a zstd stream decodes to: a block of 128 KiB from an
/// RLE block of four bytes (its header and the byte).
const ZSTD_MOST_PER_BYTE: usize = (128 << 10) / 4;

/// The most compressed bytes one decoding call gets: a few steps of text.
const ZSTD_CALL_INPUT: usize = 1 << 20;

/// [`fill`] for zstd, decoded straight into the buffer. With a stable output buffer
/// the decoder takes the text already written as its window, so no text is copied
/// out of a window of its own (the copy was a fifth of the decoding thread's time).
/// Each call gets a slice of the input small enough that the text it can make stays
/// within a step of the ratio limit, so a bomb stops as early as through [`fill`].
fn fill_zstd(input: &[u8], buffer: &mut Buffer, limit: &Limit, shared: &Shared) -> Result<(), ()> {
    use zstd::zstd_safe::{DCtx, DParameter, InBuffer, OutBuffer};
    let mut dctx = DCtx::try_create().ok_or(())?;
    let _ = dctx.set_parameter(DParameter::WindowLogMax(crate::source::window_log(limit)));
    dctx.set_parameter(DParameter::StableOutBuffer(true))
        .map_err(|_| ())?;
    let mut text = Unpublished {
        ptr: buffer.as_mut_ptr(),
        cap: buffer.capacity(),
        written: 0,
    };
    let base = text.ptr.cast_const();
    let mut output = OutBuffer::around(&mut text);
    let (mut consumed, mut checked) = (0, 0);
    // What the last call said is left of its frame: 0 when every frame ended.
    let mut left = 0;
    while consumed < input.len() {
        let allowed = (consumed as u64)
            .saturating_mul(limit.max_ratio)
            .max(limit.always_allowed);
        let room =
            usize::try_from(allowed.saturating_sub(output.pos() as u64)).unwrap_or(usize::MAX);
        let take = (room.saturating_add(STEP) / ZSTD_MOST_PER_BYTE)
            .clamp(64, ZSTD_CALL_INPUT)
            .min(input.len() - consumed);
        let mut slice = InBuffer::around(&input[consumed..consumed + take]);
        let before = output.pos();
        left = dctx
            .decompress_stream(&mut output, &mut slice)
            .map_err(|_| ())?;
        consumed += slice.pos();
        let written = output.pos();
        if limit.exceeded(written as u64, consumed as u64) {
            return Err(());
        }
        if slice.pos() == 0 && written == before {
            // No progress: the buffer is full and input is left.
            return Err(());
        }
        // SAFETY: `checked..written` was decoded into the buffer by this thread.
        checked = unsafe { publish(base, checked, written, shared)? };
    }
    // A frame cut short, or a character cut at the very end.
    if left == 0 && checked == output.pos() {
        Ok(())
    } else {
        Err(())
    }
}

/// The decoder's view of the buffer: a raw pointer, so no `&mut` covers the published
/// prefix that readers hold (the decoder only writes past what it reported).
struct Unpublished {
    ptr: *mut u8,
    cap: usize,
    written: usize,
}

// SAFETY: `ptr` is valid for `cap` bytes (the buffer's whole reservation or
// allocation, alive as long as this), its first `written` bytes were written by the
// decoder, and `as_slice` covers only those.
unsafe impl zstd::zstd_safe::WriteBuf for Unpublished {
    fn as_slice(&self) -> &[u8] {
        // SAFETY: see the impl: the written bytes of a live buffer, only read.
        unsafe { std::slice::from_raw_parts(self.ptr, self.written) }
    }

    fn capacity(&self) -> usize {
        self.cap
    }

    fn as_mut_ptr(&mut self) -> *mut u8 {
        self.ptr
    }

    unsafe fn filled_until(&mut self, n: usize) {
        self.written = n;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn zstd_limit(input: &[u8], max_ratio: u64, always_allowed: u64) -> Limit {
        Limit {
            compression: "zstd",
            input_len: input.len() as u64,
            max_ratio,
            always_allowed,
        }
    }

    fn decode_zstd(input: Vec<u8>, max_ratio: u64, always_allowed: u64) -> Decoded {
        let limit = zstd_limit(&input, max_ratio, always_allowed);
        let cap = usize::try_from(limit.allowed_total().min(1 << 34)).unwrap();
        let buffer = Buffer::new(cap, None).unwrap();
        decode(&input, Compression::Zstd, buffer, &limit, &Shared::new())
    }

    /// Decoded straight into the buffer: frames one after another, with and without
    /// a declared size, a skippable frame between them, and a character across two
    /// decoding calls all give the text; a stream cut short or invalid UTF-8 does not.
    #[test]
    fn zstd_decodes_straight_into_the_buffer() {
        let a: Vec<u8> = (0..3_000_000u32)
            .flat_map(|i| format!("{{\"ts\":{i},\"name\":\"é{}\"}},", i % 97).into_bytes())
            .collect();
        let b = "[\"€ end\"]".repeat(50_000).into_bytes();
        let mut input = zstd::encode_all(&a[..], 1).unwrap();
        // A skippable frame (magic 0x184D2A50, 4 bytes of length, the bytes).
        input.extend([0x50, 0x2A, 0x4D, 0x18, 3, 0, 0, 0, 1, 2, 3]);
        let mut streamed = zstd::stream::write::Encoder::new(Vec::new(), 3).unwrap();
        std::io::Write::write_all(&mut streamed, &b).unwrap();
        input.extend(streamed.finish().unwrap());
        let done = decode_zstd(input.clone(), 100, 1 << 20);
        assert!(done.clean);
        assert_eq!(done.bytes().len(), a.len() + b.len());
        assert!(done.bytes() == [&a[..], &b[..]].concat());

        let cut = decode_zstd(input[..input.len() - 5].to_vec(), 100, 1 << 20);
        assert!(!cut.clean, "a frame cut short is not clean");

        let bad = zstd::encode_all(&b"[\"\xFF\"]"[..], 3).unwrap();
        assert!(!decode_zstd(bad, 100, 1 << 20).clean);
    }

    /// A bomb stops within a step (and a block) of the ratio limit, as through
    /// `fill`, though each call decodes as much as its input makes: here the bomb
    /// follows text that barely compresses, so the limit at the end of the input
    /// (what the buffer holds room for) is far above the limit where the bomb starts.
    #[test]
    fn a_zstd_bomb_stops_near_the_limit() {
        let mut seed = 7u64;
        let noise: Vec<u8> = (0..1 << 20)
            .map(|_| {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                b'!' + (seed >> 58) as u8
            })
            .collect();
        let mut input = zstd::encode_all(&noise[..], 1).unwrap();
        let before_bomb = input.len();
        let frame = zstd::encode_all(&vec![b' '; 64 << 20][..], 19).unwrap();
        input.extend(frame.repeat(2000));
        let (ratio, always) = (100, 4 << 20);
        let done = decode_zstd(input.clone(), ratio, always);
        assert!(!done.clean);
        let most = zstd_limit(&input, ratio, always).allowed_total() as usize;
        // Where the bomb starts, the limit is a few times the noise.
        let near = before_bomb * ratio as usize;
        assert!(near * 3 < most, "{near} {most}");
        // The pages the decoder wrote, published or not.
        let Buffer::Reserved(map) = &done.buffer else {
            panic!("a reservation")
        };
        let page = 4096;
        let mut resident = vec![0u8; map.len().div_ceil(page)];
        // SAFETY: the mapping is alive and page-aligned; `resident` has a byte a page.
        let r = unsafe {
            libc::mincore(
                map.as_ptr() as *mut libc::c_void,
                map.len(),
                resident.as_mut_ptr(),
            )
        };
        assert_eq!(r, 0);
        let written = resident.iter().filter(|&&p| p & 1 == 1).count() * page;
        assert!(done.len <= near);
        assert!(
            written <= near + 2 * STEP,
            "{written} written, the limit near {near}"
        );
    }
}
