//! The C ABI behind `include/tracescope.h` (feature `capi`).
//!
//! C trace points keep a pointer to a Rust [`Callsite`] in a function-local
//! static, registered on first use; the macros test its first byte (the
//! enabled state) inline, so a disabled C trace point is a load and a branch
//! as in Rust. Strings given at registration (category, name, argument names)
//! are copied once per call site; string argument values are copied per event.

use std::ffi::{c_char, c_int, CStr};
use std::sync::Mutex;

use crate::args::{DynArg, DynArgs};
use crate::callsite::Callsite;
use crate::record::{write, F_FLOW_IN, F_FLOW_OUT, KIND_BEGIN, KIND_LEGACY_ASYNC_END};
use crate::session::{self, Builder, Guard};

/// Argument kinds of `tracescope_arg` (see the header).
const ARG_I64: c_int = 1;
const ARG_U64: c_int = 2;
const ARG_F64: c_int = 3;
const ARG_BOOL: c_int = 4;
const ARG_STR: c_int = 5;

#[repr(C)]
#[derive(Clone, Copy)]
pub union TracescopeArgValue {
    pub i: i64,
    pub u: u64,
    pub f: f64,
    pub s: *const c_char,
}

/// `tracescope_arg`: a typed argument value.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct TracescopeArg {
    pub kind: c_int,
    pub value: TracescopeArgValue,
}

static GUARD: Mutex<Option<Guard>> = Mutex::new(None);

fn guard() -> std::sync::MutexGuard<'static, Option<Guard>> {
    GUARD.lock().unwrap_or_else(|e| e.into_inner())
}

/// # Safety
/// `s` is null or a NUL-terminated string.
unsafe fn text<'a>(s: *const c_char) -> Option<std::borrow::Cow<'a, str>> {
    (!s.is_null()).then(|| String::from_utf8_lossy(CStr::from_ptr(s).to_bytes()))
}

/// Starts recording to `path`. 0 on success, -1 if a session runs or the file
/// cannot be created.
///
/// # Safety
/// `path` is a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn tracescope_init(path: *const c_char) -> c_int {
    let Some(path) = text(path) else { return -1 };
    match Builder::new().to_file(&*path) {
        Ok(g) => {
            *guard() = Some(g);
            0
        }
        Err(_) => -1,
    }
}

/// Starts recording to `$TRACESCOPE_FILE` if set: 1 started, 0 not set, -1 error.
#[no_mangle]
pub extern "C" fn tracescope_init_from_env() -> c_int {
    match session::init_from_env() {
        Ok(Some(g)) => {
            *guard() = Some(g);
            1
        }
        Ok(None) => 0,
        Err(_) => -1,
    }
}

/// Writes everything recorded so far; 1 on success.
#[no_mangle]
pub extern "C" fn tracescope_flush() -> c_int {
    c_int::from(session::flush())
}

/// Stops recording and ends the trace file.
#[no_mangle]
pub extern "C" fn tracescope_shutdown() {
    let g = guard().take();
    drop(g);
}

/// # Safety
/// `spec` is a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn tracescope_set_categories(spec: *const c_char) {
    if let Some(spec) = text(spec) {
        crate::set_categories(&spec);
    }
}

/// # Safety
/// `name` is a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn tracescope_set_thread_name(name: *const c_char) {
    if let Some(name) = text(name) {
        crate::set_thread_name(&name);
    }
}

/// # Safety
/// `name` is a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn tracescope_set_process_name(name: *const c_char) {
    if let Some(name) = text(name) {
        crate::set_process_name(&name);
    }
}

/// Registers a call site (once per site; the macros cache the result).
/// Returns a pointer whose first byte is 1 while the site records.
///
/// # Safety
/// Every pointer is null or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn tracescope_site_register(
    cat: *const c_char,
    name: *const c_char,
    arg1: *const c_char,
    arg2: *const c_char,
) -> *const Callsite {
    let leak = |s: *const c_char| -> &'static str {
        Box::leak(text(s).unwrap_or_default().into_owned().into_boxed_str())
    };
    let mut names = Vec::new();
    for a in [arg1, arg2] {
        if !a.is_null() {
            names.push(leak(a));
        }
    }
    let site: &'static Callsite = Box::leak(Box::new(Callsite::new(
        leak(cat),
        leak(name),
        Box::leak(names.into_boxed_slice()),
    )));
    site.enabled(); // registers it, which sets the state byte
    site
}

/// Records one event of `site`: `kind` is one of `TRACESCOPE_KIND_*` (or a
/// `TRACE_EVENT_SCOPE_*` instant). Returns 1 if it was recorded.
///
/// # Safety
/// `site` comes from `tracescope_site_register`; `args` points to `nargs`
/// arguments whose strings are NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn tracescope_emit(
    site: *const Callsite,
    kind: c_int,
    nargs: c_int,
    args: *const TracescopeArg,
) -> c_int {
    emit(site, kind, None, 0, 0, nargs, args)
}

/// `TRACE_EVENT_FLAG_FLOW_OUT` and `TRACE_EVENT_FLAG_FLOW_IN`, as in Chrome.
const FLAG_FLOW_OUT: c_int = 1 << 8;
const FLAG_FLOW_IN: c_int = 1 << 9;

/// Like `tracescope_emit`, with an id (async operations, flows, objects,
/// counters with an id) when `has_id` is nonzero, and a v2 flow binding when
/// `flow_flags` holds `TRACE_EVENT_FLAG_FLOW_OUT` and/or `TRACE_EVENT_FLAG_FLOW_IN`.
///
/// # Safety
/// As for `tracescope_emit`.
#[no_mangle]
#[allow(clippy::too_many_arguments)] // mirrors the C declaration
pub unsafe extern "C" fn tracescope_emit_ex(
    site: *const Callsite,
    kind: c_int,
    has_id: c_int,
    id: u64,
    flow_flags: c_int,
    bind_id: u64,
    nargs: c_int,
    args: *const TracescopeArg,
) -> c_int {
    let mut flags = 0;
    if flow_flags & FLAG_FLOW_IN != 0 {
        flags |= F_FLOW_IN;
    }
    if flow_flags & FLAG_FLOW_OUT != 0 {
        flags |= F_FLOW_OUT;
    }
    emit(
        site,
        kind,
        (has_id != 0).then_some(id),
        flags,
        bind_id,
        nargs,
        args,
    )
}

/// # Safety
/// As for `tracescope_emit`.
unsafe fn emit(
    site: *const Callsite,
    kind: c_int,
    id: Option<u64>,
    flags: u8,
    bind_id: u64,
    nargs: c_int,
    args: *const TracescopeArg,
) -> c_int {
    if site.is_null() {
        return 0;
    }
    let site: &'static Callsite = &*site;
    let kind = match u8::try_from(kind) {
        Ok(k @ KIND_BEGIN..=KIND_LEGACY_ASYNC_END) => k,
        _ => return 0,
    };
    let raw: &[TracescopeArg] = if args.is_null() || nargs <= 0 {
        &[]
    } else {
        std::slice::from_raw_parts(args, nargs.min(8) as usize)
    };
    let mut texts: [Option<std::borrow::Cow<'_, str>>; 8] = Default::default();
    for (i, a) in raw.iter().enumerate() {
        if a.kind == ARG_STR {
            texts[i] = Some(text(a.value.s).unwrap_or_default());
        }
    }
    let mut dyn_args: [DynArg<'_>; 8] = std::array::from_fn(|_| DynArg::Bool(false));
    let mut n = 0;
    for (i, a) in raw.iter().enumerate() {
        dyn_args[n] = match a.kind {
            ARG_I64 => DynArg::I64(a.value.i),
            ARG_U64 => DynArg::U64(a.value.u),
            ARG_F64 => DynArg::F64(a.value.f),
            ARG_BOOL => DynArg::Bool(a.value.u != 0),
            ARG_STR => DynArg::Str(texts[i].as_deref().unwrap_or("")),
            _ => continue,
        };
        n += 1;
    }
    let site_addr = site as *const Callsite as usize;
    c_int::from(write(
        kind,
        flags,
        None,
        site_addr,
        id,
        Some(bind_id),
        None,
        &DynArgs(&dyn_args[..n]),
    ))
}
