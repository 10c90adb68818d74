//! Chrome's screenshots: `O` snapshots of objects named `Screenshot` whose
//! `args.snapshot` is a base64 JPEG or PNG. Per process they make a filmstrip track
//! (each screenshot lasting until the next one, the last until the trace ends);
//! their images are decoded on request. Objects named `Screenshot` are left out of
//! the process's objects track.

use base64::Engine;
use tracescope_format::json::value::Value;

use super::lod::Rows;
use crate::tables::{ProcessId, SnapshotId};
use crate::trace::Trace;

/// The object name Chrome gives screenshots.
pub const SCREENSHOT: &str = "Screenshot";

/// One screenshot: its snapshot row and when it was on screen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shot {
    pub snapshot: SnapshotId,
    pub process: ProcessId,
    pub ts: i64,
    /// The next screenshot's time in the process, or the trace's end.
    pub end: i64,
}

/// Every screenshot, by process then time, with a one-row LOD index per process
/// over positions in `shots`.
#[derive(Debug, Default)]
pub struct Screenshots {
    pub shots: Vec<Shot>,
    /// Indexed by process; empty rows for processes without screenshots.
    pub by_process: Vec<Rows>,
}

/// Whether object row `o` is a screenshot object.
pub fn is_screenshot_object(trace: &Trace, o: usize) -> bool {
    let objs = &trace.tables.objects;
    objs.get(o)
        .is_some_and(|ob| !ob.name.is_none() && trace.str(ob.name) == SCREENSHOT)
}

impl Screenshots {
    pub fn build(trace: &Trace) -> Screenshots {
        let t = &trace.tables;
        let end = trace.info.end_ns.unwrap_or(i64::MIN);
        let mut shots: Vec<Shot> = Vec::new();
        for (o, ob) in t.objects.iter().enumerate() {
            if !is_screenshot_object(trace, o) {
                continue;
            }
            for &sn in &ob.snapshots {
                let ts = t.snapshots[sn.index()].ts;
                shots.push(Shot {
                    snapshot: sn,
                    process: ob.process,
                    ts,
                    end: ts,
                });
            }
        }
        shots.sort_by_key(|s| (s.process, s.ts, s.snapshot));
        for k in 0..shots.len() {
            let next = shots
                .get(k + 1)
                .filter(|n| n.process == shots[k].process)
                .map_or(end, |n| n.ts);
            shots[k].end = next.max(shots[k].ts);
        }
        let mut by_process: Vec<Rows> = (0..t.processes.len()).map(|_| Rows::default()).collect();
        let mut k = 0;
        while k < shots.len() {
            let p = shots[k].process;
            let n = shots[k..].partition_point(|s| s.process == p);
            if let Some(slot) = by_process.get_mut(p.index()) {
                *slot = Rows::build((k as u32..(k + n) as u32).map(|i| (i, 0)), 1, |i| {
                    let s = &shots[i as usize];
                    (s.ts, s.end)
                });
            }
            k += n;
        }
        Screenshots { shots, by_process }
    }

    /// The LOD rows of a process's filmstrip, if it has screenshots.
    pub fn rows(&self, process: ProcessId) -> Option<&Rows> {
        self.by_process
            .get(process.index())
            .filter(|r| r.rows.first().is_some_and(|row| !row.ids.is_empty()))
    }

    pub fn count(&self, process: ProcessId) -> usize {
        self.rows(process)
            .and_then(|r| r.rows.first())
            .map_or(0, |row| row.ids.len())
    }

    pub fn heap_bytes(&self) -> usize {
        self.shots.capacity() * std::mem::size_of::<Shot>()
            + self
                .by_process
                .iter()
                .map(|r| r.heap_bytes())
                .sum::<usize>()
    }
}

/// An image's media type from its first bytes, if it is one browsers show.
pub fn image_type(bytes: &[u8]) -> Option<&'static str> {
    match bytes {
        [0xFF, 0xD8, 0xFF, ..] => Some("image/jpeg"),
        [0x89, b'P', b'N', b'G', ..] => Some("image/png"),
        [b'G', b'I', b'F', b'8', ..] => Some("image/gif"),
        [b'R', b'I', b'F', b'F', _, _, _, _, b'W', b'E', b'B', b'P', ..] => Some("image/webp"),
        _ => None,
    }
}

/// Why a screenshot's image cannot be given.
#[derive(Debug, PartialEq, Eq)]
pub enum ImageError {
    /// No such snapshot, or not one of a `Screenshot` object.
    NotAScreenshot,
    /// Its `args.snapshot` is missing, not base64, or not an image.
    Unreadable(&'static str),
}

/// The image of snapshot row `snapshot` (an index, as the API gives it): its
/// media type and bytes.
pub fn screenshot_image(
    trace: &Trace,
    snapshot: u32,
) -> Result<(&'static str, Vec<u8>), ImageError> {
    let t = &trace.tables;
    let sn = t
        .snapshots
        .get(snapshot as usize)
        .ok_or(ImageError::NotAScreenshot)?;
    if !is_screenshot_object(trace, sn.object.index()) {
        return Err(ImageError::NotAScreenshot);
    }
    let raw = trace.raw(sn.args);
    let args = Value::parse(&raw).map_err(|_| ImageError::Unreadable("its args are not JSON"))?;
    let text = args
        .get("snapshot")
        .and_then(|v| v.as_str())
        .ok_or(ImageError::Unreadable("it has no args.snapshot string"))?;
    // Some writers give a data URL rather than bare base64.
    let b64 = text.split_once(";base64,").map_or(text, |(_, b)| b).trim();
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(b64)
        .map_err(|_| ImageError::Unreadable("args.snapshot is not base64"))?;
    let ty = image_type(&bytes).ok_or(ImageError::Unreadable(
        "args.snapshot is not a JPEG, PNG, GIF or WebP image",
    ))?;
    Ok((ty, bytes))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::LoadOptions;

    /// A 1x1 PNG, base64.
    pub const PNG_1X1: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

    fn trace() -> Trace {
        let json = format!(
            r#"[{{"ph":"O","name":"Screenshot","id":"0x1","pid":1,"tid":1,"ts":10,"cat":"disabled-by-default-devtools.screenshot","args":{{"snapshot":"{PNG_1X1}"}}}},
               {{"ph":"O","name":"Screenshot","id":"0x1","pid":1,"tid":1,"ts":30,"args":{{"snapshot":"data:image/png;base64,{PNG_1X1}"}}}},
               {{"ph":"O","name":"Screenshot","id":"0x1","pid":1,"tid":1,"ts":40,"args":{{"snapshot":"not base64!"}}}},
               {{"ph":"O","name":"Screenshot","id":"0x9","pid":2,"tid":2,"ts":20,"args":{{"snapshot":"aGVsbG8="}}}},
               {{"ph":"O","name":"LayerTree","id":"0x2","pid":1,"tid":1,"ts":15,"args":{{"snapshot":{{"layers":1}}}}}},
               {{"ph":"X","name":"work","pid":1,"tid":1,"ts":0,"dur":100}}]"#
        );
        Trace::from_json(Box::new(json), 0, &LoadOptions::default()).unwrap()
    }

    #[test]
    fn filmstrips_per_process_each_shot_until_the_next() {
        let t = trace();
        let s = Screenshots::build(&t);
        let p1 = t.tables.objects[t.tables.snapshots[s.shots[0].snapshot.index()]
            .object
            .index()]
        .process;
        let spans: Vec<_> = s
            .shots
            .iter()
            .map(|x| (x.process == p1, x.ts, x.end))
            .collect();
        assert_eq!(
            spans,
            [
                (true, 10_000, 30_000),
                (true, 30_000, 40_000),
                (true, 40_000, 100_000),
                (false, 20_000, 100_000)
            ]
        );
        assert_eq!(s.count(p1), 3);
        assert_eq!(s.count(ProcessId::new(99)), 0);
    }

    #[test]
    fn images_decode_from_base64_or_data_urls() {
        let t = trace();
        let s = Screenshots::build(&t);
        let (ty, bytes) = screenshot_image(&t, s.shots[0].snapshot.raw()).unwrap();
        assert_eq!(ty, "image/png");
        assert_eq!(bytes.len(), 70);
        assert_eq!(
            screenshot_image(&t, s.shots[1].snapshot.raw()).unwrap().1,
            bytes
        );
        assert_eq!(
            screenshot_image(&t, s.shots[2].snapshot.raw()),
            Err(ImageError::Unreadable("args.snapshot is not base64"))
        );
        assert_eq!(
            screenshot_image(&t, s.shots[3].snapshot.raw()),
            Err(ImageError::Unreadable(
                "args.snapshot is not a JPEG, PNG, GIF or WebP image"
            ))
        );
        let layer = (0..t.tables.snapshots.len() as u32)
            .find(|&k| !s.shots.iter().any(|x| x.snapshot.raw() == k))
            .unwrap();
        assert_eq!(screenshot_image(&t, layer), Err(ImageError::NotAScreenshot));
        assert_eq!(screenshot_image(&t, 999), Err(ImageError::NotAScreenshot));
    }

    #[test]
    fn image_types_by_magic() {
        assert_eq!(image_type(&[0xFF, 0xD8, 0xFF, 0xE0]), Some("image/jpeg"));
        assert_eq!(image_type(b"RIFF\0\0\0\0WEBPVP8 "), Some("image/webp"));
        assert_eq!(image_type(b"hello"), None);
    }
}
