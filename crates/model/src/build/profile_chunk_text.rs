//! A `ProfileChunk`'s args read straight from the text into its record, without a
//! `Value` tree: `cpuProfile.nodes`, `cpuProfile.samples` and `timeDeltas`.
//!
//! Only the shape that needs no diagnostic is read here. Anything else (text that is
//! not JSON, a repeated key, a node without an integer id, a sample or time delta
//! that is not a number, a field of an unexpected type) gives `None`, and the tree
//! path of [`super::profile_chunk`] reads the chunk with all its diagnostics. What is
//! read here equals what the tree path reads from the same text.

use std::borrow::Cow;

use tracescope_format::json::{Cursor, Value};
use tracescope_format::time::micros_text_to_ns;

use super::profile_chunk::node_rec;
use super::records::{ChunkInts, ChunkRec};
use crate::strings::SharedStrings;

/// What a chunk's args hold, not yet interned (nothing is interned for a chunk the
/// tree path must read again).
#[derive(Default)]
pub struct ChunkText<'a> {
    nodes: Option<Vec<Node<'a>>>,
    samples: Option<ChunkInts>,
    /// `data.timeDeltas` wins over `cpuProfile.timeDeltas`.
    data_deltas: Option<ChunkInts>,
    profile_deltas: Option<ChunkInts>,
}

#[derive(Default)]
struct Frame<'a> {
    name: Option<Cow<'a, str>>,
    url: Option<Cow<'a, str>>,
    line: Option<i64>,
    column: Option<i64>,
}

struct Node<'a> {
    id: i64,
    parent: Option<i64>,
    children: Vec<i64>,
    frame: Frame<'a>,
}

/// Reads the args text of a chunk; `None` when the tree path must read it.
pub fn read(text: &str) -> Option<ChunkText<'_>> {
    let mut c = Cursor::new(text);
    let mut out = ChunkText::default();
    let mut seen = Seen::default();
    object(&mut c, |c, key| match key {
        "data" => {
            seen.first(0)?;
            data(c, &mut out)
        }
        _ => c.skip().ok(),
    })?;
    (seen.has(0) && c.at_end()).then_some(out)
}

impl ChunkText<'_> {
    /// Fills the chunk as the tree path would, interning the frames' strings.
    pub fn fill(self, chunk: &mut ChunkRec, strings: &SharedStrings) {
        if let Some(nodes) = self.nodes {
            chunk.nodes = nodes
                .into_iter()
                .map(|n| {
                    let f = n.frame;
                    node_rec(
                        n.id,
                        n.parent,
                        n.children,
                        f.name.as_deref(),
                        f.url.as_deref(),
                        f.line,
                        f.column,
                        strings,
                    )
                })
                .collect();
        }
        if let Some(samples) = self.samples {
            chunk.samples = samples;
        }
        if let Some(deltas) = self.data_deltas.or(self.profile_deltas) {
            chunk.deltas = deltas;
        }
    }
}

fn data<'a>(c: &mut Cursor<'a>, out: &mut ChunkText<'a>) -> Option<()> {
    let mut seen = Seen::default();
    object(c, |c, key| match key {
        "cpuProfile" => {
            seen.first(0)?;
            cpu_profile(c, out)
        }
        "timeDeltas" => {
            seen.first(1)?;
            out.data_deltas = Some(deltas(c)?);
            Some(())
        }
        _ => c.skip().ok(),
    })
}

fn cpu_profile<'a>(c: &mut Cursor<'a>, out: &mut ChunkText<'a>) -> Option<()> {
    let mut seen = Seen::default();
    object(c, |c, key| match key {
        "nodes" => {
            seen.first(0)?;
            let mut nodes = Vec::new();
            array(c, |c| {
                nodes.push(node(c)?);
                Some(())
            })?;
            out.nodes = Some(nodes);
            Some(())
        }
        "samples" => {
            seen.first(1)?;
            let mut samples = ChunkInts::default();
            let read = c.numbers(|n, v| v.or_else(|| int(n)).map(|i| samples.push(i)).is_some());
            read.ok()?.then_some(())?;
            samples.shrink_to_fit();
            out.samples = Some(samples);
            Some(())
        }
        "timeDeltas" => {
            seen.first(2)?;
            out.profile_deltas = Some(deltas(c)?);
            Some(())
        }
        _ => c.skip().ok(),
    })
}

/// Integers of µs up to 15 digits are nanoseconds without overflow.
const MICROS_FAST_LIMIT: u64 = 1_000_000_000_000_000;

/// Time deltas in µs to ns, exactly; every one must be a number.
fn deltas(c: &mut Cursor<'_>) -> Option<ChunkInts> {
    let mut out = ChunkInts::default();
    let read = c.numbers(|n, us| {
        let ns = match us {
            // What `micros_text_to_ns` gives an integer short of 16 digits.
            Some(us) if us.unsigned_abs() < MICROS_FAST_LIMIT => Some(us * 1000),
            _ => micros_text_to_ns(n),
        };
        ns.map(|ns| out.push(ns)).is_some()
    });
    read.ok()?.then_some(())?;
    out.shrink_to_fit();
    Some(out)
}

/// A node: `{id, callFrame: {functionName, url, lineNumber, columnNumber}, parent |
/// children}`, or the flat fields of the old form when there is no `callFrame`.
fn node<'a>(c: &mut Cursor<'a>) -> Option<Node<'a>> {
    let mut seen = Seen::default();
    let (mut id, mut parent, mut children) = (None, None, Vec::new());
    // `None` inside: a `callFrame` that is not an object (no fields at all).
    let mut call_frame: Option<Option<Frame<'a>>> = None;
    let mut flat = Frame::default();
    object(c, |c, key| match key {
        "id" => {
            seen.first(0)?;
            id = c.scalar().ok()?.as_ref().and_then(Value::as_i64);
            Some(())
        }
        "parent" => {
            seen.first(1)?;
            parent = c.scalar().ok()?.as_ref().and_then(Value::as_i64);
            Some(())
        }
        "children" => {
            seen.first(2)?;
            if c.peek() != Some(b'[') {
                return c.skip().ok();
            }
            array(c, |c| {
                // Items that are not integers are dropped, as by the tree path.
                children.extend(c.scalar().ok()?.as_ref().and_then(Value::as_i64));
                Some(())
            })
        }
        "callFrame" => {
            seen.first(3)?;
            if c.peek() != Some(b'{') {
                call_frame = Some(None);
                return c.skip().ok();
            }
            let mut f = Frame::default();
            let mut frame_seen = Seen::default();
            object(c, |c, key| frame_field(c, key, &mut f, &mut frame_seen))?;
            call_frame = Some(Some(f));
            Some(())
        }
        _ => frame_field(c, key, &mut flat, &mut seen),
    })?;
    let frame = match call_frame {
        Some(f) => f.unwrap_or_default(),
        None => flat,
    };
    Some(Node {
        id: id?,
        parent,
        children,
        frame,
    })
}

/// One member of a call frame (a node's own for the flat form); other keys are
/// stepped over. Bits 4-7 of `seen` mark the frame's keys.
fn frame_field<'a>(
    c: &mut Cursor<'a>,
    key: &str,
    f: &mut Frame<'a>,
    seen: &mut Seen,
) -> Option<()> {
    let bit = match key {
        "functionName" => 4,
        "url" => 5,
        "lineNumber" => 6,
        "columnNumber" => 7,
        _ => return c.skip().ok(),
    };
    seen.first(bit)?;
    let v = c.scalar().ok()?;
    let string = || match &v {
        Some(Value::String(s)) => Some(s.clone()),
        _ => None,
    };
    let position = || v.as_ref().and_then(Value::as_i64);
    match bit {
        4 => f.name = string(),
        5 => f.url = string(),
        6 => f.line = position(),
        _ => f.column = position(),
    }
    Some(())
}

/// A number's text as an integer, as [`Value::as_i64`] reads it; plain digits
/// without a parse call.
fn int(t: &str) -> Option<i64> {
    let b = t.as_bytes();
    let (neg, digits) = match b.first() {
        Some(b'-') => (true, &b[1..]),
        _ => (false, b),
    };
    if digits.is_empty() || digits.len() > 18 || !digits.iter().all(u8::is_ascii_digit) {
        return Value::Number(t).as_i64();
    }
    let n = digits
        .iter()
        .fold(0i64, |n, d| n * 10 + i64::from(d - b'0'));
    Some(if neg { -n } else { n })
}

/// Runs `member` on each member of the object that starts here, the cursor just
/// past the key's `:`. `None` when this is not an object or a member fails.
fn object<'a>(
    c: &mut Cursor<'a>,
    mut member: impl FnMut(&mut Cursor<'a>, &str) -> Option<()>,
) -> Option<()> {
    c.open(b'{').ok()?;
    while let Some(key) = c.key().ok()? {
        member(c, &key)?;
        if !c.next(b'}').ok()? {
            break;
        }
    }
    Some(())
}

/// Runs `item` on each item of the array that starts here.
fn array<'a>(
    c: &mut Cursor<'a>,
    mut item: impl FnMut(&mut Cursor<'a>) -> Option<()>,
) -> Option<()> {
    c.open(b'[').ok()?;
    while c.item().ok()? {
        item(c)?;
        if !c.next(b']').ok()? {
            break;
        }
    }
    Some(())
}

/// The keys of one object read so far: a repeated one gives `None` (the tree path
/// takes the last of repeated keys).
#[derive(Default)]
struct Seen(u8);

impl Seen {
    fn first(&mut self, bit: u8) -> Option<()> {
        let m = 1 << bit;
        if self.0 & m != 0 {
            return None;
        }
        self.0 |= m;
        Some(())
    }

    fn has(&self, bit: u8) -> bool {
        self.0 & (1 << bit) != 0
    }
}

#[cfg(test)]
mod tests {
    use tracescope_format::json::Value;
    use tracescope_format::Diagnostics;

    use super::super::profile_chunk::parse_chunk;
    use super::super::records::ChunkRec;
    use crate::strings::SharedStrings;
    use crate::tables::{IdVal, ProcessId, ThreadId};

    fn empty() -> ChunkRec {
        ChunkRec {
            offset: 0,
            ts: 0,
            process: ProcessId::at(0),
            thread: ThreadId::at(0),
            key: Default::default(),
            id: IdVal::None,
            nodes: Vec::new(),
            samples: Default::default(),
            deltas: Default::default(),
        }
    }

    /// The chunk's fields with the strings resolved.
    fn show(c: &ChunkRec, strings: &SharedStrings) -> String {
        let nodes: Vec<_> = c
            .nodes
            .iter()
            .map(|n| {
                let url = (!n.url.is_none()).then(|| strings.get(n.url));
                let name = strings.get(n.name);
                (n.id, n.parent, &n.children, name, url, n.line, n.column)
            })
            .collect();
        let samples: Vec<i64> = c.samples.iter().collect();
        let deltas: Vec<i64> = c.deltas.iter().collect();
        format!("{nodes:?} {samples:?} {deltas:?}")
    }

    /// The chunk read straight from the text (`None` when that path declines).
    fn fast(text: &str) -> Option<String> {
        let strings = SharedStrings::default();
        let mut chunk = empty();
        super::read(text)?.fill(&mut chunk, &strings);
        Some(show(&chunk, &strings))
    }

    /// The chunk and its diagnostics through the `Value` tree, as before.
    fn tree(text: &str) -> (String, bool) {
        let strings = SharedStrings::default();
        let mut chunk = empty();
        let mut diags = Diagnostics::new();
        match Value::parse(text) {
            Ok(v) => parse_chunk(v.get("data"), &mut chunk, &strings, &mut diags, 0),
            Err(e) => return (format!("not JSON: {e}"), false),
        }
        (show(&chunk, &strings), diags.is_empty())
    }

    /// Whenever the text path reads a chunk, it reads what the tree path reads and
    /// the tree path has nothing to report; returns whether the text path read it.
    fn same(text: &str) -> bool {
        let (want, clean) = tree(text);
        match fast(text) {
            Some(got) => {
                assert_eq!(got, want, "{text}");
                assert!(clean, "{text}");
                true
            }
            None => false,
        }
    }

    const STREAMED: &str =
        r#"{"data":{"cpuProfile":{"samples":[2,3,3,7]},"timeDeltas":[100,125.5,-3,0.001]}}"#;
    const NODES: &str = r#"{"data": {"cpuProfile": {"nodes": [
        {"callFrame": {"functionName": "(root)", "scriptId": "0", "url": "", "lineNumber": -1, "columnNumber": -1}, "id": 1},
        {"id": 3, "parent": 2, "callFrame": {"codeType": "JS", "functionName": "q\"uo\u00e9\ud83d\ude00", "url": "https://a.b/c.js", "lineNumber": 10, "columnNumber": 4}},
        {"callFrame": {"functionName": "", "url": "u", "lineNumber": 0}, "id": 2, "parent": 1, "positionTicks": [{"line": 1, "ticks": 2}]},
        {"id": 4, "children": [5, "6", 7.0, {"x": 1}], "callFrame": "weird"},
        {"id": 5, "functionName": "flat", "url": "f.js", "lineNumber": 3, "parent": null}
      ], "samples": [1, 3, 2, 4, 5, 1e1, 3], "startTime": 1},
      "lines": [0, 1, 2],
      "timeDeltas": [1, 2, 3, 4, 5, 6, 7]}, "other": [true, false, null, {"a": []}]}"#;

    /// Common shapes are read from the text, equal to the tree path's reading.
    #[test]
    fn common_chunks_read_from_the_text() {
        for text in [
            STREAMED,
            NODES,
            // timeDeltas under cpuProfile; under both, data's wins.
            r#"{"data":{"cpuProfile":{"samples":[1],"timeDeltas":[5]}}}"#,
            r#"{"data":{"cpuProfile":{"samples":[1],"timeDeltas":[5]},"timeDeltas":[9]}}"#,
            r#"{"data":{"timeDeltas":[9],"cpuProfile":{"timeDeltas":[5]}}}"#,
            // Comments, trailing commas, space everywhere.
            "{ /* c */ \"data\" : { \"cpuProfile\" : { \"samples\" : [ 1 , 2 , ] , } , } , } // end\n",
            r#"{"data":{}}"#,
            r#"{"data":{"cpuProfile":{}}}"#,
            r#"{"data":{"cpuProfile":{"nodes":[]}}}"#,
            r#"{"data":{"cpuProfile":{"nodes":[{"id":1}]}}}"#,
            r#"{"data":{"cpuProfile":{"samples":[-0,007,-9]}}}"#,
            // Escaped keys are the keys they spell.
            r#"{"d\u0061ta":{"cpuProfile":{"nodes":[{"\u0069d":1,"callFrame":{"functionName":"f"}}]}}}"#,
        ] {
            assert!(same(text), "not read from the text: {text}");
        }
        assert_eq!(fast(NODES).unwrap(), NODES_READ);
    }

    const NODES_READ: &str = r#"[(1, None, [], "(root)", None, None, None), (3, Some(2), [], "q\"uoé😀", Some("https://a.b/c.js"), Some(10), Some(4)), (2, Some(1), [], "(anonymous)", Some("u"), Some(0), None), (4, None, [5, 7], "(anonymous)", None, None, None), (5, None, [], "flat", Some("f.js"), Some(3), None)] [1, 3, 2, 4, 5, 10, 3] [1000, 2000, 3000, 4000, 5000, 6000, 7000]"#;

    /// Chunks the tree path reports on (or that are not JSON) are left to it.
    #[test]
    fn malformed_chunks_left_to_the_tree_path() {
        for text in [
            // Truncated, not JSON, not an object, no data.
            r#"{"data":{"cpuProfile":{"samples":[1,2"#,
            r#"{"data":{"cpuProfile":{"samples":[1,,2]}}}"#,
            r#"{"data":{"cpuProfile":{"samples":[1]}}} x"#,
            r#"[1,2]"#,
            r#""str""#,
            r#"{}"#,
            r#"{"dat":{}}"#,
            // Wrong types.
            r#"{"data":[]}"#,
            r#"{"data":{"cpuProfile":[]}}"#,
            r#"{"data":{"cpuProfile":{"samples":"1"}}}"#,
            r#"{"data":{"cpuProfile":{"samples":[1,"2"]}}}"#,
            r#"{"data":{"cpuProfile":{"samples":[1.5]}}}"#,
            r#"{"data":{"cpuProfile":{"samples":[12345678901234567890]}}}"#,
            r#"{"data":{"cpuProfile":{"nodes":{}}}}"#,
            r#"{"data":{"timeDeltas":[1,null]}}"#,
            r#"{"data":{"timeDeltas":"1"}}"#,
            // Missing fields.
            r#"{"data":{"cpuProfile":{"nodes":[{"callFrame":{}}]}}}"#,
            r#"{"data":{"cpuProfile":{"nodes":[{"id":"1"}]}}}"#,
            r#"{"data":{"cpuProfile":{"nodes":[{"id":1.5}]}}}"#,
            // Repeated keys (the tree path takes the last).
            r#"{"data":{},"data":{"cpuProfile":{"samples":[1]}}}"#,
            r#"{"data":{"cpuProfile":{"samples":[1],"samples":[2]}}}"#,
            r#"{"data":{"cpuProfile":{"nodes":[{"id":1,"id":2}]}}}"#,
            r#"{"data":{"cpuProfile":{"nodes":[{"id":1,"callFrame":{"url":"a","url":"b"}}]}}}"#,
            // Nested past the limit.
            &format!(
                r#"{{"data":{{"x":{}1{}}}}}"#,
                "[".repeat(600),
                "]".repeat(600)
            ),
        ] {
            assert!(!same(text), "read from the text: {text}");
        }
    }

    /// Every prefix of a chunk, and every one-byte change to it, reads the same
    /// through both paths (the text path declining where the tree path reports).
    #[test]
    fn cut_and_changed_chunks_read_as_by_the_tree() {
        for text in [STREAMED, NODES] {
            let mut read = 0;
            for end in 0..=text.len() {
                if text.is_char_boundary(end) {
                    read += usize::from(same(&text[..end]));
                }
            }
            // No prefix but the whole text is JSON.
            assert_eq!(read, 1, "{text}");
            let mut changed_read = 0;
            for at in 0..text.len() {
                for b in [
                    b'"', b',', b']', b'}', b'[', b'{', b'x', b'1', b'-', b'.', b'\\', b' ',
                ] {
                    let mut t = text.as_bytes().to_vec();
                    t[at] = b;
                    if let Ok(t) = std::str::from_utf8(&t) {
                        changed_read += usize::from(same(t));
                    }
                }
            }
            // Changed digits and space still read from the text.
            assert!(changed_read > 10, "{changed_read} {text}");
        }
    }
}
