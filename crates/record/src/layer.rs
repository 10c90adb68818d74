//! A `tracing_subscriber::Layer` that records spans and events (feature `tracing`).
//!
//! - A span entered once becomes a slice (`B`/`E`) on the thread that entered it.
//! - A span entered again (across an `.await`, or on another thread) is also a
//!   nestable async operation: at its second entry a `b` is written with the
//!   time of its first entry and an id unique to the span, and an `e` when it
//!   closes. Every entry is still a slice on the thread where it ran, so the
//!   async track shows the operation and the thread tracks show when it ran.
//! - An event becomes a thread instant named by its message (or its metadata
//!   name), with the level and the other fields as args.
//! - Span fields become the args of its first `B` (and of the `b`); fields
//!   recorded later go on the next `E`.
//!
//! The category is the target (the module path by default). Filtering is
//! `tracing`'s own (`EnvFilter`, per-layer filters); the layer records only while
//! a tracescope-record session runs.

use std::cell::RefCell;
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};

use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Metadata, Subscriber};
use tracing_subscriber::layer::Context;
use tracing_subscriber::registry::LookupSpan;
use tracing_subscriber::Layer;

use crate::args::JsonArgs;
use crate::format::SiteJson;
use crate::record::{
    write, F_JSON_ARGS, F_TRACING, KIND_ASYNC_BEGIN, KIND_ASYNC_END, KIND_BEGIN, KIND_END,
    KIND_INSTANT_T, MAX_STR,
};
use crate::span_table::SpanTable;
use crate::{clock, json, session};

/// Longest JSON args body written for one span or event.
const MAX_ARGS: usize = 4 * MAX_STR;

static NEXT_ASYNC_ID: AtomicU64 = AtomicU64::new(1);

/// Records `tracing` spans and events into the running tracescope-record session.
///
/// ```no_run
/// use tracing_subscriber::layer::SubscriberExt;
/// let _trace = tracescope_record::Builder::new().to_file("trace.json")?;
/// let subscriber = tracing_subscriber::registry().with(tracescope_record::TracescopeLayer::new());
/// tracing::subscriber::set_global_default(subscriber).unwrap();
/// # Ok::<(), std::io::Error>(())
/// ```
pub struct TracescopeLayer {
    /// State of the live spans created while a session ran. Span ids are only
    /// unique within one subscriber, so each layer has its own table.
    spans: SpanTable<SpanState>,
}

impl TracescopeLayer {
    pub fn new() -> TracescopeLayer {
        TracescopeLayer {
            spans: SpanTable::new(),
        }
    }
}

impl Default for TracescopeLayer {
    fn default() -> TracescopeLayer {
        TracescopeLayer::new()
    }
}

impl fmt::Debug for TracescopeLayer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TracescopeLayer").finish_non_exhaustive()
    }
}

/// Per-span state.
struct SpanState {
    /// Address of the span's `&'static Metadata`.
    site: usize,
    /// JSON body of the fields given at creation.
    args: Vec<u8>,
    /// JSON body of fields recorded since the last `B`.
    pending: Vec<u8>,
    first_ticks: u64,
    entries: u32,
    /// Nonzero once the span is an async operation.
    async_id: u64,
}

impl<S> Layer<S> for TracescopeLayer
where
    S: Subscriber + for<'a> LookupSpan<'a>,
{
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, _ctx: Context<'_, S>) {
        if !session::is_active() {
            return;
        }
        let args = if attrs.values().is_empty() {
            // Most spans have no fields: no visitor, and the empty vector is
            // built in place (going through the visitor made the compiler
            // spill and reload it, a store-forwarding stall).
            Vec::new()
        } else {
            let mut args = Vec::new();
            attrs.record(&mut JsonVisitor::new(&mut args, None));
            args
        };
        // An id is unique among live spans: an entry left by a span closed
        // while no session ran is replaced here.
        self.spans.insert(
            id.into_u64(),
            SpanState {
                site: attrs.metadata() as *const Metadata<'static> as usize,
                args,
                pending: Vec::new(),
                first_ticks: 0,
                entries: 0,
                async_id: 0,
            },
        );
    }

    fn on_record(&self, id: &Id, values: &Record<'_>, _ctx: Context<'_, S>) {
        // Formatted before taking the table's lock: a field's `Debug` may
        // itself create spans.
        let mut fields = Vec::new();
        values.record(&mut JsonVisitor::new(&mut fields, None));
        if fields.is_empty() {
            return;
        }
        self.spans.with(id.into_u64(), |state| {
            if !state.pending.is_empty() {
                state.pending.push(b',');
            }
            state.pending.extend_from_slice(&fields);
        });
    }

    fn on_enter(&self, id: &Id, _ctx: Context<'_, S>) {
        self.spans.with(id.into_u64(), |state| {
            let now = clock::ticks();
            if state.entries == 0 {
                state.first_ticks = now;
                emit(KIND_BEGIN, Some(now), state.site, None, &state.args);
            } else {
                if state.async_id == 0 {
                    state.async_id = NEXT_ASYNC_ID.fetch_add(1, Ordering::Relaxed);
                    let first = Some(state.first_ticks);
                    emit(
                        KIND_ASYNC_BEGIN,
                        first,
                        state.site,
                        Some(state.async_id),
                        &state.args,
                    );
                }
                emit(KIND_BEGIN, Some(now), state.site, None, &[]);
            }
            state.entries = state.entries.saturating_add(1);
        });
    }

    fn on_exit(&self, id: &Id, _ctx: Context<'_, S>) {
        self.spans.with(id.into_u64(), |state| {
            emit(KIND_END, None, state.site, None, &state.pending);
            state.pending.clear();
        });
    }

    fn on_close(&self, id: Id, _ctx: Context<'_, S>) {
        if let Some(state) = self.spans.remove(id.into_u64()) {
            if state.async_id != 0 {
                emit(KIND_ASYNC_END, None, state.site, Some(state.async_id), &[]);
            }
        }
    }

    fn on_event(&self, event: &Event<'_>, _ctx: Context<'_, S>) {
        if !session::is_active() {
            return;
        }
        thread_local! {
            static SCRATCH: RefCell<(Vec<u8>, String)> = const { RefCell::new((Vec::new(), String::new())) };
        }
        let record = |args: &mut Vec<u8>, message: &mut String| {
            args.clear();
            message.clear();
            args.extend_from_slice(b"\"level\":");
            json::string(args, event.metadata().level().as_str().as_bytes());
            event.record(&mut JsonVisitor::new(args, Some(message)));
            let site = event.metadata() as *const Metadata<'static> as usize;
            let name = (!message.is_empty()).then_some(message.as_str());
            let body = clip_args(args);
            write(
                KIND_INSTANT_T,
                F_TRACING | F_JSON_ARGS,
                None,
                site,
                None,
                None,
                name,
                &JsonArgs(body),
            );
        };
        // A `Debug` impl that itself logs re-enters here: it gets fresh buffers.
        let reused = SCRATCH.try_with(|s| match s.try_borrow_mut() {
            Ok(mut s) => {
                let (args, message) = &mut *s;
                record(args, message);
                true
            }
            Err(_) => false,
        });
        if reused != Ok(true) {
            record(&mut Vec::new(), &mut String::new());
        }
    }
}

fn emit(kind: u8, ticks: Option<u64>, site: usize, id: Option<u64>, args: &[u8]) {
    write(
        kind,
        F_TRACING | F_JSON_ARGS,
        ticks,
        site,
        id,
        None,
        None,
        &JsonArgs(clip_args(args)),
    );
}

/// An args body too long for one record is replaced by a note of its length.
fn clip_args(args: &[u8]) -> &[u8] {
    if args.len() <= MAX_ARGS {
        args
    } else {
        b"\"tracescope_args_too_long\":true"
    }
}

/// `"cat":"<target>","name":"<name>"` of a `tracing` call site.
pub(crate) fn site_json(site: usize) -> SiteJson {
    // SAFETY: the layer only records addresses of `&'static Metadata<'static>`.
    let meta: &'static Metadata<'static> = unsafe { &*(site as *const Metadata<'static>) };
    SiteJson::new(meta.target(), meta.name(), &[])
}

/// Writes fields as a JSON object body; the `message` field goes to `message`
/// when one is given.
struct JsonVisitor<'a> {
    out: &'a mut Vec<u8>,
    message: Option<&'a mut String>,
}

impl<'a> JsonVisitor<'a> {
    fn new(out: &'a mut Vec<u8>, message: Option<&'a mut String>) -> JsonVisitor<'a> {
        JsonVisitor { out, message }
    }

    fn key(&mut self, field: &Field) {
        if !self.out.is_empty() {
            self.out.push(b',');
        }
        json::string(self.out, field.name().as_bytes());
        self.out.push(b':');
    }
}

impl Visit for JsonVisitor<'_> {
    fn record_i64(&mut self, field: &Field, value: i64) {
        self.key(field);
        json::int(self.out, value);
    }
    fn record_u64(&mut self, field: &Field, value: u64) {
        self.key(field);
        json::int(self.out, value);
    }
    fn record_f64(&mut self, field: &Field, value: f64) {
        self.key(field);
        json::float(self.out, value);
    }
    fn record_bool(&mut self, field: &Field, value: bool) {
        self.key(field);
        self.out
            .extend_from_slice(if value { b"true" } else { b"false" });
    }
    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == "message" {
            if let Some(m) = self.message.as_deref_mut() {
                m.push_str(value);
                return;
            }
        }
        self.key(field);
        json::string(self.out, value.as_bytes());
    }
    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        if field.name() == "message" {
            if let Some(m) = self.message.as_deref_mut() {
                use fmt::Write;
                let _ = write!(m, "{value:?}");
                return;
            }
        }
        self.key(field);
        self.out.push(b'"');
        let _ = fmt::write(&mut Escape(self.out), format_args!("{value:?}"));
        self.out.push(b'"');
    }
}

/// Formats straight into JSON string contents, without a temporary `String`.
struct Escape<'a>(&'a mut Vec<u8>);

impl fmt::Write for Escape<'_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        json::escaped(self.0, s.as_bytes());
        Ok(())
    }
}
