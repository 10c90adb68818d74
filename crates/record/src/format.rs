//! Formatting one binary record as one line of JSON (the writer thread's work).
//!
//! Most of an event's bytes do not change from one event of a call site to the
//! next: `{"ph":"i",` depends on the kind only, and `"cat":"..","name":"..","ts":`
//! plus the escaped `"key":` of each argument on the call site only. Those are
//! built once per call site ([`SiteJson`]) and copied; only the timestamp, ids and
//! argument values are formatted per event.

#[cfg(feature = "tracing")]
use std::collections::HashMap;

use crate::args::{TAG_BOOL, TAG_F64, TAG_I64, TAG_STR, TAG_U64};
use crate::callsite::Callsite;
use crate::clock::Timebase;
use crate::json;
use crate::raw_out::RawOut;
use crate::record::*;

/// The constant JSON of one call site.
pub(crate) struct SiteJson {
    /// `"cat":"..","name":"..","ts":`
    named: Box<[u8]>,
    /// Length of the `"cat":".."` part of `named`.
    cat_len: usize,
    /// `"key":` of each argument name.
    keys: Box<[Box<[u8]>]>,
    /// Total length of `keys`.
    keys_len: usize,
}

impl SiteJson {
    pub fn new(cat: &str, name: &str, arg_names: &[&str]) -> SiteJson {
        let mut v = b"\"cat\":".to_vec();
        json::string(&mut v, cat.as_bytes());
        let cat_len = v.len();
        v.extend_from_slice(b",\"name\":");
        json::string(&mut v, name.as_bytes());
        v.extend_from_slice(b",\"ts\":");
        let keys = arg_names
            .iter()
            .map(|k| {
                let mut key = Vec::with_capacity(k.len() + 3);
                json::string(&mut key, k.as_bytes());
                key.push(b':');
                key.into_boxed_slice()
            })
            .collect::<Box<[Box<[u8]>]>>();
        SiteJson {
            named: v.into_boxed_slice(),
            cat_len,
            keys_len: keys.iter().map(|k| k.len()).sum::<usize>() + 8 * 6,
            keys,
        }
    }

    /// The `"key":` of argument `n`; `"arg":` past the names (C sites).
    fn key(&self, n: usize) -> &[u8] {
        self.keys.get(n).map_or(b"\"arg\":", |k| k)
    }
}

/// `{"ph":"?",` of each record kind; empty for kinds that are not events.
const PH: [&[u8]; 20] = [
    b"",
    b"{\"ph\":\"B\",",
    b"{\"ph\":\"E\",",
    b"{\"ph\":\"i\",",
    b"{\"ph\":\"i\",",
    b"{\"ph\":\"i\",",
    b"{\"ph\":\"C\",",
    b"{\"ph\":\"b\",",
    b"{\"ph\":\"n\",",
    b"{\"ph\":\"e\",",
    b"{\"ph\":\"s\",",
    b"{\"ph\":\"t\",",
    b"{\"ph\":\"f\",",
    b"{\"ph\":\"N\",",
    b"{\"ph\":\"O\",",
    b"{\"ph\":\"D\",",
    b"{\"ph\":\"S\",",
    b"{\"ph\":\"T\",",
    b"{\"ph\":\"p\",",
    b"{\"ph\":\"F\",",
];

/// What the formatter keeps between events.
#[derive(Default)]
pub(crate) struct Formatter {
    pub ts: json::TsFormatter,
    /// Names of `tracing` call sites, keyed by their `Metadata` address.
    tracing_sites: TracingSites,
}

#[cfg(feature = "tracing")]
type TracingSites = HashMap<usize, SiteJson>;
#[cfg(not(feature = "tracing"))]
type TracingSites = ();

impl Formatter {
    /// Appends one record as a line; false (and nothing appended) if it is malformed.
    #[inline]
    pub fn event(&mut self, out: &mut Vec<u8>, rec: &[u64], ids: &[u8], tb: &Timebase) -> bool {
        self.try_event(out, rec, ids, tb).is_some()
    }

    fn try_event(
        &mut self,
        out: &mut Vec<u8>,
        rec: &[u64],
        ids: &[u8],
        tb: &Timebase,
    ) -> Option<()> {
        let h = rec[0];
        let (kind, flags, tags) = (header_kind(h), header_flags(h), header_tags(h));
        let ph = *PH.get(kind as usize)?;
        if ph.is_empty() {
            return None;
        }
        let ticks = *rec.get(1)?;
        let site = site_json(&mut self.tracing_sites, *rec.get(2)? as usize, flags)?;
        let mut cur = Cursor { rec, i: 3 };
        let id = if flags & F_ID != 0 {
            Some(cur.word()?)
        } else {
            None
        };
        let bind = if flags & (F_FLOW_IN | F_FLOW_OUT) != 0 {
            Some(cur.word()?)
        } else {
            None
        };
        // Everything written below fits in this bound: fixed pieces, the site's
        // strings, and the record's bytes (strings in it escape to at most 6x).
        let bound = 256 + site.named.len() + site.keys_len + ids.len() + 6 * 8 * rec.len();
        out.reserve(bound);
        // SAFETY: each write below stays within `bound`; the length is only
        // set (by `commit`) once the event is complete.
        unsafe {
            let mut w = RawOut::at_end(out);
            w.put(ph);
            if flags & (F_DYN_NAME | F_NO_NAME) == 0 {
                w.put(&site.named);
            } else {
                w.put(&site.named[..site.cat_len]);
                if flags & F_DYN_NAME != 0 {
                    w.put(b",\"name\":");
                    w.string(cur.bytes()?);
                }
                w.put(b",\"ts\":");
            }
            w.ts(&mut self.ts, tb.ns(ticks));
            match kind {
                // Thread scope is what a missing `s` means: no bytes spent on it.
                KIND_INSTANT_P => w.put(b",\"s\":\"p\""),
                KIND_INSTANT_G => w.put(b",\"s\":\"g\""),
                // A flow end binds to the slice around it, like its start.
                KIND_FLOW_END => w.put(b",\"bp\":\"e\""),
                _ => {}
            }
            if let Some(id) = id {
                w.put(b",\"id\":");
                w.hex_id(id);
            }
            if let Some(bind) = bind {
                w.put(b",\"bind_id\":");
                w.hex_id(bind);
                if flags & F_FLOW_IN != 0 {
                    w.put(b",\"flow_in\":true");
                }
                if flags & F_FLOW_OUT != 0 {
                    w.put(b",\"flow_out\":true");
                }
            }
            w.put(ids);
            if flags & F_JSON_ARGS != 0 {
                let body = cur.bytes()?;
                if !body.is_empty() {
                    w.put(b",\"args\":{");
                    w.put(body);
                    w.byte(b'}');
                }
            } else if tags != 0 {
                let snapshot = kind == KIND_OBJECT_SNAPSHOT;
                w.put(if snapshot {
                    b",\"args\":{\"snapshot\":{"
                } else {
                    b",\"args\":{"
                });
                let mut n = 0;
                while n < 8 && (tags >> (4 * n)) & 15 != 0 {
                    if n > 0 {
                        w.byte(b',');
                    }
                    w.put(site.key(n));
                    match u64::from((tags >> (4 * n)) & 15) {
                        TAG_I64 => w.int(cur.word()? as i64),
                        TAG_U64 => w.uint(cur.word()?),
                        TAG_F64 => w.float(f64::from_bits(cur.word()?)),
                        TAG_BOOL => w.put(if cur.word()? != 0 { b"true" } else { b"false" }),
                        TAG_STR => w.string(cur.bytes()?),
                        _ => return None,
                    }
                    n += 1;
                }
                w.put(if snapshot { b"}}" } else { b"}" });
            }
            w.put(b"},\n");
            w.commit(out);
        }
        Some(())
    }
}

/// The constant JSON of the site a record names.
#[cfg_attr(not(feature = "tracing"), allow(unused_variables))]
fn site_json(tracing_sites: &mut TracingSites, site: usize, flags: u8) -> Option<&SiteJson> {
    if flags & F_TRACING != 0 {
        #[cfg(feature = "tracing")]
        return Some(
            tracing_sites
                .entry(site)
                .or_insert_with(|| crate::layer::site_json(site)),
        );
        #[cfg(not(feature = "tracing"))]
        return None;
    }
    // SAFETY: without F_TRACING, `site` is the address of a `'static Callsite`.
    let site: &'static Callsite = unsafe { &*(site as *const Callsite) };
    Some(
        site.json
            .get_or_init(|| SiteJson::new(site.cat, site.name, site.arg_names)),
    )
}

/// Reads the words of one record.
struct Cursor<'a> {
    rec: &'a [u64],
    i: usize,
}

impl<'a> Cursor<'a> {
    fn word(&mut self) -> Option<u64> {
        let w = *self.rec.get(self.i)?;
        self.i += 1;
        Some(w)
    }

    fn bytes(&mut self) -> Option<&'a [u8]> {
        let len = self.word()? as usize;
        let words = len.div_ceil(8);
        if self.rec.len() - self.i < words {
            return None;
        }
        // SAFETY: the words `i..i + words` are in `rec`, and cover `len` bytes.
        let bytes =
            unsafe { std::slice::from_raw_parts(self.rec.as_ptr().add(self.i).cast::<u8>(), len) };
        self.i += words;
        Some(bytes)
    }
}
