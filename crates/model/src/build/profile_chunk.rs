//! Reading the JSON of CPU profiles: `ProfileChunk` args and raw `.cpuprofile` nodes.

use tracescope_format::json::{ReadError, Value};
use tracescope_format::time::micros_text_to_ns;
use tracescope_format::{DiagKind, Diagnostics};

use super::records::{ChunkInts, ChunkRec, NodeRec};
use crate::strings::{SharedStrings, StrId};

/// Reads the args text of a `ProfileChunk` into its record: straight from the text
/// when it needs no diagnostic, else through a `Value` tree. `Err` when the text is
/// not JSON (nothing is read then).
pub fn read_chunk(
    text: &str,
    chunk: &mut ChunkRec,
    strings: &SharedStrings,
    diags: &mut Diagnostics,
    offset: u64,
) -> Result<(), ReadError> {
    if let Some(read) = super::profile_chunk_text::read(text) {
        read.fill(chunk, strings);
        return Ok(());
    }
    let v = Value::parse(text)?;
    parse_chunk(v.get("data"), chunk, strings, diags, offset);
    Ok(())
}

/// Reads `args.data` of a `ProfileChunk`: `cpuProfile.nodes`, `cpuProfile.samples`
/// and `timeDeltas` (under `data` or under `cpuProfile`).
pub fn parse_chunk(
    data: Option<&Value<'_>>,
    chunk: &mut ChunkRec,
    strings: &SharedStrings,
    diags: &mut Diagnostics,
    offset: u64,
) {
    let Some(data) = data else {
        diags.add(DiagKind::BadProfile, offset, || {
            "ProfileChunk without args.data".into()
        });
        return;
    };
    let profile = data.get("cpuProfile");
    if let Some(nodes) = profile
        .and_then(|p| p.get("nodes"))
        .and_then(Value::as_array)
    {
        chunk.nodes = parse_nodes(nodes, strings, diags, offset);
    }
    if let Some(samples) = profile
        .and_then(|p| p.get("samples"))
        .and_then(Value::as_array)
    {
        chunk.samples = samples.iter().filter_map(Value::as_i64).collect();
        if chunk.samples.len() != samples.len() {
            diags.add(DiagKind::BadProfile, offset, || {
                "a sample that is not a node id".into()
            });
        }
    }
    let deltas = data
        .get("timeDeltas")
        .or_else(|| profile.and_then(|p| p.get("timeDeltas")));
    if let Some(deltas) = deltas.and_then(Value::as_array) {
        chunk.deltas = time_deltas(deltas, diags, offset);
    }
}

/// Time deltas in µs to ns, exactly.
pub fn time_deltas(deltas: &[Value<'_>], diags: &mut Diagnostics, offset: u64) -> ChunkInts {
    let out: ChunkInts = deltas
        .iter()
        .filter_map(|d| match d {
            Value::Number(n) => micros_text_to_ns(n),
            _ => None,
        })
        .collect();
    if out.len() != deltas.len() {
        diags.add(DiagKind::BadProfile, offset, || {
            "a time delta that is not a number".into()
        });
    }
    out
}

/// Profile nodes: `{id, callFrame: {functionName, url, lineNumber, columnNumber},
/// parent | children}`; also the flat fields of the old `head` form.
pub fn parse_nodes(
    nodes: &[Value<'_>],
    strings: &SharedStrings,
    diags: &mut Diagnostics,
    offset: u64,
) -> Vec<NodeRec> {
    let mut out = Vec::with_capacity(nodes.len());
    for n in nodes {
        let Some(id) = n.get("id").and_then(Value::as_i64) else {
            diags.add(DiagKind::BadProfile, offset, || {
                "a profile node without id".into()
            });
            continue;
        };
        out.push(node(n, id, strings));
    }
    out
}

pub fn node(n: &Value<'_>, id: i64, strings: &SharedStrings) -> NodeRec {
    let frame = n.get("callFrame").unwrap_or(n);
    let position = |k| frame.get(k).and_then(Value::as_i64);
    node_rec(
        id,
        n.get("parent").and_then(Value::as_i64),
        n.get("children")
            .and_then(Value::as_array)
            .map_or(Vec::new(), |c| c.iter().filter_map(Value::as_i64).collect()),
        frame.get("functionName").and_then(Value::as_str),
        frame.get("url").and_then(Value::as_str),
        position("lineNumber"),
        position("columnNumber"),
        strings,
    )
}

/// A node's record from its fields as read: an empty or absent name is
/// `(anonymous)`; V8 writes -1 for an unknown line or column.
#[allow(clippy::too_many_arguments)]
pub fn node_rec(
    id: i64,
    parent: Option<i64>,
    children: Vec<i64>,
    name: Option<&str>,
    url: Option<&str>,
    line: Option<i64>,
    column: Option<i64>,
    strings: &SharedStrings,
) -> NodeRec {
    let name = match name {
        Some(s) if !s.is_empty() => strings.intern(s),
        _ => strings.intern("(anonymous)"),
    };
    NodeRec {
        id,
        parent,
        children,
        name,
        url: url.map_or(StrId::NONE, |u| strings.intern(u)),
        line: line.filter(|&l| l >= 0),
        column: column.filter(|&c| c >= 0),
    }
}
