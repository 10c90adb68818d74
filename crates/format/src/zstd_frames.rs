//! zstd inputs made of several frames (`pzstd`, concatenated `.zst` files, seekable zstd)
//! are decoded frame by frame on all cores: a frame depends on no other, so a trace
//! written by a parallel compressor also decompresses at the speed of the machine.
//!
//! This path only ever returns a complete, clean result. Whenever something is off (a
//! frame that does not walk, decodes short or long, or grows past its share of the
//! ratio limit), it gives up and the caller runs the sequential decoder, which reports
//! exactly what it always reported: the same text, diagnostics and errors.

use rayon::prelude::*;
use zstd::zstd_safe;

use super::source::{decompress, Limit};

/// One frame of a zstd input.
struct Frame<'a> {
    bytes: &'a [u8],
    /// Decompressed size when the frame header declares it.
    content_size: Option<u64>,
}

/// Whether a frame is a skippable one (magic `0x184D2A50..=0x184D2A5F`): metadata such
/// as `pzstd`'s frame sizes, with no trace bytes in it.
pub(crate) fn is_skippable(frame: &[u8]) -> bool {
    frame.len() >= 4 && frame[0] & 0xF0 == 0x50 && frame[1..4] == [0x2A, 0x4D, 0x18]
}

/// The data frames of `input` in order (skippable frames left out), or `None` when
/// the walk fails: a truncated or corrupt input is the sequential decoder's to report.
fn frames(input: &[u8]) -> Option<Vec<Frame<'_>>> {
    let mut out = Vec::new();
    let mut rest = input;
    while !rest.is_empty() {
        let len = zstd_safe::find_frame_compressed_size(rest).ok()?;
        if len == 0 || len > rest.len() {
            return None;
        }
        let (frame, tail) = rest.split_at(len);
        if !is_skippable(frame) {
            let content_size = zstd_safe::get_frame_content_size(frame).ok()?;
            out.push(Frame {
                bytes: frame,
                content_size,
            });
        }
        rest = tail;
    }
    Some(out)
}

/// For an input made of one data frame (skippable frames aside), the size it
/// declares, if any; `None` for any other input.
pub(crate) fn single_frame(input: &[u8]) -> Option<Option<u64>> {
    match frames(input)?.as_slice() {
        [one] => Some(one.content_size),
        _ => None,
    }
}

/// Decodes a zstd input of two or more data frames in parallel. `None` means "use the
/// sequential decoder" (one frame, or anything unusual, see the module's doc).
/// `window_log` bounds each frame's window as the sequential decoder's is bounded.
pub(crate) fn decode_parallel(input: &[u8], limit: &Limit, window_log: u32) -> Option<Vec<u8>> {
    let frames = frames(input)?;
    if frames.len() < 2 {
        return None;
    }
    let allowed = limit.allowed_total();
    let known: Option<Vec<u64>> = frames.iter().map(|f| f.content_size).collect();
    match known {
        Some(sizes) => {
            let total = sizes.iter().try_fold(0u64, |a, &s| a.checked_add(s))?;
            if total > allowed {
                return None;
            }
            into_one_buffer(&frames, &sizes, total, window_log)
        }
        None => equal_in_place(&frames, limit, window_log)
            .or_else(|| each_then_join(&frames, limit, window_log, allowed)),
    }
}

/// No frame declares its size, but a parallel compressor cuts its input into equal
/// chunks (`pzstd`: every frame but the last holds the same number of bytes): the
/// first frame's size places every other frame in one buffer, so nothing is decoded
/// into a buffer of its own and copied again. `None` when the frames are not so cut
/// (a frame longer than the first, or one before the last that is shorter).
fn equal_in_place(frames: &[Frame], limit: &Limit, window_log: u32) -> Option<Vec<u8>> {
    let decoder = || {
        let mut dctx = zstd_safe::DCtx::create();
        let window = zstd_safe::DParameter::WindowLogMax(window_log);
        dctx.set_parameter(window).ok().map(|_| dctx)
    };
    // The first frame's size is the chunk size.
    let (first, rest) = frames.split_first()?;
    let head = decode_frame(first, limit, frames.len(), window_log)?;
    let chunk = head.len();
    let total = (chunk as u64).checked_mul(frames.len() as u64)?;
    if chunk == 0 || total > limit.allowed_total() {
        return None;
    }
    let mut out = crate::pending::zeroed(total as usize)?;
    out[..chunk].copy_from_slice(&head);
    drop(head);
    let lens: Option<Vec<usize>> = out[chunk..]
        .par_chunks_mut(chunk)
        .zip(rest)
        .map(|(slot, frame)| decoder()?.decompress(slot, frame.bytes).ok())
        .collect();
    let lens = lens?;
    let (last, before) = lens.split_last()?;
    if before.iter().any(|&n| n != chunk) {
        return None;
    }
    out.truncate(total as usize - chunk + last);
    Some(out)
}

/// Every frame declares its size: each decodes straight into its place in one buffer.
fn into_one_buffer(
    frames: &[Frame],
    sizes: &[u64],
    total: u64,
    window_log: u32,
) -> Option<Vec<u8>> {
    let total = usize::try_from(total).ok()?;
    // Zeroed pages come fresh from the kernel: no pass over them before decoding.
    let mut out = crate::pending::zeroed(total)?;
    let mut slots = Vec::with_capacity(frames.len());
    let mut rest = out.as_mut_slice();
    for &size in sizes {
        let (slot, tail) = rest.split_at_mut(size as usize);
        slots.push(slot);
        rest = tail;
    }
    let ok = frames.par_iter().zip(slots).all(|(frame, slot)| {
        let mut dctx = zstd_safe::DCtx::create();
        let window = zstd_safe::DParameter::WindowLogMax(window_log);
        dctx.set_parameter(window).is_ok()
            && matches!(dctx.decompress(slot, frame.bytes), Ok(n) if n == slot.len())
    });
    ok.then_some(out)
}

/// One frame of `of` into a buffer of its own, under its share of the ratio limit.
fn decode_frame(frame: &Frame, limit: &Limit, of: usize, window_log: u32) -> Option<Vec<u8>> {
    let mut dec = zstd::stream::read::Decoder::with_buffer(frame.bytes).ok()?;
    dec.window_log_max(window_log).ok()?;
    let own = Limit {
        input_len: frame.bytes.len() as u64,
        always_allowed: limit.always_allowed / of as u64,
        ..*limit
    };
    let hint = frame.content_size.unwrap_or(0) as usize;
    match decompress(dec, |d| d.get_ref().len(), &own, hint) {
        Ok((bytes, None)) => Some(bytes),
        _ => None,
    }
}

/// Some frame does not declare its size: each decodes into its own buffer under its
/// share of the ratio limit, then the buffers are joined in order.
fn each_then_join(
    frames: &[Frame],
    limit: &Limit,
    window_log: u32,
    allowed: u64,
) -> Option<Vec<u8>> {
    let parts: Option<Vec<Vec<u8>>> = frames
        .par_iter()
        .map(|frame| decode_frame(frame, limit, frames.len(), window_log))
        .collect();
    let parts = parts?;
    let total: usize = parts.iter().map(Vec::len).sum();
    if total as u64 > allowed {
        return None;
    }
    let mut out = crate::pending::zeroed(total)?;
    let mut slots = Vec::with_capacity(parts.len());
    let mut rest = out.as_mut_slice();
    for part in &parts {
        let (slot, tail) = rest.split_at_mut(part.len());
        slots.push(slot);
        rest = tail;
    }
    parts
        .into_par_iter()
        .zip(slots)
        .for_each(|(part, slot)| slot.copy_from_slice(&part));
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Compression, DiagKind, Source, SourceOptions};

    fn text(n: usize, seed: u32) -> Vec<u8> {
        (0..n as u32)
            .flat_map(|i| {
                format!("{{\"ph\":\"i\",\"ts\":{},\"name\":\"e{}\"}},", i, i ^ seed).into_bytes()
            })
            .collect()
    }

    /// `pzstd`'s layout: a skippable frame holding the next frame's size before each
    /// frame, frames without a declared content size.
    fn pzstd_like(chunks: &[&[u8]]) -> Vec<u8> {
        let mut out = Vec::new();
        for chunk in chunks {
            let mut enc = zstd::stream::write::Encoder::new(Vec::new(), 3).unwrap();
            enc.include_contentsize(false).unwrap();
            std::io::Write::write_all(&mut enc, chunk).unwrap();
            let frame = enc.finish().unwrap();
            out.extend_from_slice(&[0x50, 0x2A, 0x4D, 0x18, 4, 0, 0, 0]);
            out.extend_from_slice(&(frame.len() as u32).to_le_bytes());
            out.extend_from_slice(&frame);
        }
        out
    }

    #[test]
    fn frames_with_and_without_sizes_decode_in_order() {
        let (a, b, c) = (text(3000, 1), text(5000, 2), text(10, 3));
        let whole: Vec<u8> = [&a[..], &b, &c].concat();
        // Declared sizes (`zstd` writes them): straight into one buffer.
        let mut sized = zstd::encode_all(&a[..], 3).unwrap();
        sized.extend(zstd::encode_all(&b[..], 1).unwrap());
        sized.extend(zstd::encode_all(&c[..], 19).unwrap());
        let limit = Limit::new("zstd", sized.len() as u64, &SourceOptions::default());
        assert_eq!(frames(&sized).unwrap().len(), 3);
        assert_eq!(
            decode_parallel(&sized, &limit, 27).as_deref(),
            Some(&whole[..])
        );
        // No sizes, skippable frames between, frames of unequal sizes: each
        // decoded, then joined.
        let pz = pzstd_like(&[&a, &b, &c]);
        assert!(is_skippable(&pz));
        let limit = Limit::new("zstd", pz.len() as u64, &SourceOptions::default());
        assert_eq!(frames(&pz).unwrap().len(), 3);
        assert_eq!(
            decode_parallel(&pz, &limit, 27).as_deref(),
            Some(&whole[..])
        );
        // And through `Source`, which recognises a skippable frame first as zstd.
        let s = Source::from_bytes(pz).unwrap();
        assert_eq!(s.compression(), Compression::Zstd);
        assert_eq!(s.text().as_bytes(), &whole[..]);
        assert!(s.diagnostics().is_empty());
    }

    /// `pzstd` cuts its input into equal chunks: every frame is decoded in its
    /// place; frames that are not so cut still decode right, the other way.
    #[test]
    fn equal_frames_decode_in_place() {
        let whole = text(20_000, 4);
        let limit = |pz: &[u8]| Limit::new("zstd", pz.len() as u64, &SourceOptions::default());
        for (chunk, last) in [(4096, 1), (4096, 4096), (100_000, 17), (whole.len(), 0)] {
            let all = &whole[..whole.len() - whole.len() % chunk + last.min(whole.len() % chunk)];
            let chunks: Vec<&[u8]> = all.chunks(chunk).collect();
            let pz = pzstd_like(&chunks);
            let frames = frames(&pz).unwrap();
            let direct = equal_in_place(&frames, &limit(&pz), 27);
            if chunks.len() > 1 {
                assert_eq!(direct.as_deref(), Some(all), "chunk {chunk}");
            }
            assert_eq!(
                decode_parallel(&pz, &limit(&pz), 27)
                    .as_deref()
                    .map(<[u8]>::len),
                (chunks.len() > 1).then_some(all.len())
            );
        }
        // A frame before the last that is shorter, or one longer than the first:
        // not equal chunks.
        let (a, b) = (&whole[..5000], &whole[5000..7000]);
        for order in [[a, b, a], [b, a, b]] {
            let pz = pzstd_like(&order);
            let frames = frames(&pz).unwrap();
            assert!(equal_in_place(&frames, &limit(&pz), 27).is_none());
            assert_eq!(
                decode_parallel(&pz, &limit(&pz), 27).unwrap(),
                order.concat()
            );
        }
    }

    #[test]
    fn anything_unusual_goes_the_sequential_way() {
        let a = text(2000, 1);
        let one = zstd::encode_all(&a[..], 3).unwrap();
        let limit = Limit::new("zstd", one.len() as u64, &SourceOptions::default());
        assert!(decode_parallel(&one, &limit, 27).is_none(), "one frame");
        let mut two = one.clone();
        two.extend(zstd::encode_all(&a[..], 3).unwrap());
        let cut = &two[..two.len() - 5];
        assert!(decode_parallel(cut, &limit, 27).is_none(), "truncated");
        // The sequential decoder then keeps what decodes and says it was cut.
        let s = Source::from_bytes(cut.to_vec()).unwrap();
        assert_eq!(s.diagnostics().count(DiagKind::Truncated), 1);
        assert!(s.text().as_bytes().starts_with(&a));
    }

    #[test]
    fn a_multi_frame_bomb_meets_the_same_limit() {
        let zeros = vec![b' '; 8 << 20];
        let mut bomb = Vec::new();
        for _ in 0..4 {
            bomb.extend(zstd::encode_all(&zeros[..], 19).unwrap());
        }
        let opts = SourceOptions {
            max_ratio: 100,
            always_allowed: 1 << 20,
            ..SourceOptions::default()
        };
        let limit = Limit::new("zstd", bomb.len() as u64, &opts);
        assert!(decode_parallel(&bomb, &limit, 27).is_none());
        let err = Source::from_bytes_with(bomb, &opts).err().unwrap();
        assert!(crate::RatioExceeded::of(&err).is_some(), "{err}");
    }
}
