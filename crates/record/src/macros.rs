//! The trace point macros.
//!
//! Every macro takes a category and a name first. A string literal name is
//! stored once in the call site; any other expression (`String`, `&str`,
//! `format!(..)`) is a dynamic name, copied into the record. Arguments follow as
//! `"key" => value` (integers, floats, bools, strings, [`display`](crate::display)
//! and [`debug`](crate::debug) values; up to 8). When the category is disabled
//! nothing after the category test is evaluated.

/// Internal: the v2 flow binding of an event: `(flags, bind id)`.
#[doc(hidden)]
#[macro_export]
macro_rules! __ts_flow {
    () => {
        (0u8, 0u64)
    };
    (flow_out = $f:expr) => {
        (
            $crate::__private::F_FLOW_OUT,
            $crate::__private::AsId::as_id(&$f),
        )
    };
    (flow_in = $f:expr) => {
        (
            $crate::__private::F_FLOW_IN,
            $crate::__private::AsId::as_id(&$f),
        )
    };
    (flow_step = $f:expr) => {
        (
            $crate::__private::F_FLOW_IN | $crate::__private::F_FLOW_OUT,
            $crate::__private::AsId::as_id(&$f),
        )
    };
}

/// Internal: one event of a static call site. `$site_name` is the name stored
/// in the call site, `$dyn_name` the `Option<&str>` name of the event.
#[doc(hidden)]
#[macro_export]
macro_rules! __ts_site_emit {
    ($kind:expr, $id:expr; $cat:expr, $site_name:expr, $dyn_name:expr; ($($flow:tt)*)
        $(, $k:literal => $v:expr)*) => {{
        static __TS_SITE: $crate::__private::Callsite =
            $crate::__private::Callsite::new($cat, $site_name, &[$($k),*]);
        if __TS_SITE.enabled() {
            $crate::__private::emit(&__TS_SITE, $kind, $id, $crate::__ts_flow!($($flow)*),
                $dyn_name, ($($crate::__private::ToArg::to_arg(&$v),)*));
        }
    }};
}

/// Internal: parses a trace point's arguments. A string literal name is stored
/// in the call site; any other expression is a dynamic name.
#[doc(hidden)]
#[macro_export]
macro_rules! __ts_emit {
    (@noid $kind:expr; $cat:expr, $name:literal $(, $flow:ident = $fid:expr)?
        $(, $k:literal => $v:expr)* $(,)?) => {
        $crate::__ts_site_emit!($kind, ::core::option::Option::None;
            $cat, $name, ::core::option::Option::None; ($($flow = $fid)?) $(, $k => $v)*)
    };
    (@noid $kind:expr; $cat:expr, $name:expr $(, $flow:ident = $fid:expr)?
        $(, $k:literal => $v:expr)* $(,)?) => {
        $crate::__ts_site_emit!($kind, ::core::option::Option::None;
            $cat, "", ::core::option::Option::Some(::core::convert::AsRef::<str>::as_ref(&$name));
            ($($flow = $fid)?) $(, $k => $v)*)
    };
    (@id $kind:expr; $cat:expr, $name:literal, $id:expr $(, $flow:ident = $fid:expr)?
        $(, $k:literal => $v:expr)* $(,)?) => {
        $crate::__ts_site_emit!($kind,
            ::core::option::Option::Some($crate::__private::AsId::as_id(&$id));
            $cat, $name, ::core::option::Option::None; ($($flow = $fid)?) $(, $k => $v)*)
    };
    (@id $kind:expr; $cat:expr, $name:expr, $id:expr $(, $flow:ident = $fid:expr)?
        $(, $k:literal => $v:expr)* $(,)?) => {
        $crate::__ts_site_emit!($kind,
            ::core::option::Option::Some($crate::__private::AsId::as_id(&$id));
            $cat, "", ::core::option::Option::Some(::core::convert::AsRef::<str>::as_ref(&$name));
            ($($flow = $fid)?) $(, $k => $v)*)
    };
}

/// Begins a slice and returns the [`ScopeGuard`](crate::ScopeGuard) that ends it
/// (`B` now, `E` when the guard drops).
///
/// After the name, one of `flow_out = id`, `flow_in = id` or `flow_step = id`
/// binds the slice to a v2 flow arrow: `flow_out` starts an arrow at this
/// slice, `flow_in` ends it here, `flow_step` does both (the same id keys one
/// arrow from slice to slice, on any thread).
///
/// ```
/// # use tracescope_record::trace_scope;
/// let _slice = trace_scope!("io", "read_block", "block" => 7, "path" => "/tmp/x");
/// let _post = trace_scope!("queue", "post", flow_out = 42u64);
/// ```
#[macro_export]
macro_rules! trace_scope {
    ($cat:expr, $name:literal $(, $flow:ident = $fid:expr)? $(, $k:literal => $v:expr)* $(,)?) => {
        $crate::__ts_scope!($cat, $name, ::core::option::Option::None; ($($flow = $fid)?)
            $(, $k => $v)*)
    };
    ($cat:expr, $name:expr $(, $flow:ident = $fid:expr)? $(, $k:literal => $v:expr)* $(,)?) => {
        $crate::__ts_scope!($cat, "",
            ::core::option::Option::Some(::core::convert::AsRef::<str>::as_ref(&$name));
            ($($flow = $fid)?) $(, $k => $v)*)
    };
}

/// Internal: the body of [`trace_scope!`](crate::trace_scope).
#[doc(hidden)]
#[macro_export]
macro_rules! __ts_scope {
    ($cat:expr, $site_name:expr, $dyn_name:expr; ($($flow:tt)*) $(, $k:literal => $v:expr)*) => {{
        static __TS_SITE: $crate::__private::Callsite =
            $crate::__private::Callsite::new($cat, $site_name, &[$($k),*]);
        if __TS_SITE.enabled() {
            $crate::__private::scope(&__TS_SITE, $crate::__ts_flow!($($flow)*), $dyn_name,
                ($($crate::__private::ToArg::to_arg(&$v),)*))
        } else {
            $crate::ScopeGuard::disabled()
        }
    }};
}

/// A slice from here to the end of the enclosing block, like Chrome's
/// `TRACE_EVENT0("category", "name")`.
///
/// ```
/// # use tracescope_record::trace_event;
/// fn parse(input: &str) {
///     trace_event!("parser", "parse", "bytes" => input.len());
///     // ...
/// }
/// ```
#[macro_export]
macro_rules! trace_event {
    ($($t:tt)*) => {
        let __tracescope_scope = $crate::trace_scope!($($t)*);
    };
}

/// Begins a slice on this thread (`B`); end it with [`trace_end!`](crate::trace_end).
#[macro_export]
macro_rules! trace_begin {
    ($($t:tt)*) => { $crate::__ts_emit!(@noid $crate::__private::KIND_BEGIN; $($t)*) };
}

/// Ends the innermost open slice of this thread (`E`); arguments are merged
/// into the slice.
#[macro_export]
macro_rules! trace_end {
    ($($t:tt)*) => { $crate::__ts_emit!(@noid $crate::__private::KIND_END; $($t)*) };
}

/// An instant event (`i`). Thread scope by default; prefix with `process:` or
/// `global:` for a marker across the process or the whole trace.
///
/// ```
/// # use tracescope_record::trace_instant;
/// trace_instant!("net", "retry", "attempt" => 3);
/// trace_instant!(global: "app", "config_reloaded");
/// ```
#[macro_export]
macro_rules! trace_instant {
    (thread: $($t:tt)*) => { $crate::__ts_emit!(@noid $crate::__private::KIND_INSTANT_T; $($t)*) };
    (process: $($t:tt)*) => { $crate::__ts_emit!(@noid $crate::__private::KIND_INSTANT_P; $($t)*) };
    (global: $($t:tt)*) => { $crate::__ts_emit!(@noid $crate::__private::KIND_INSTANT_G; $($t)*) };
    ($($t:tt)*) => { $crate::__ts_emit!(@noid $crate::__private::KIND_INSTANT_T; $($t)*) };
}

/// A counter sample (`C`): each argument is one series.
///
/// ```
/// # use tracescope_record::trace_counter;
/// trace_counter!("mem", "heap", "used" => 1024u64, "free" => 512.5);
/// ```
#[macro_export]
macro_rules! trace_counter {
    ($($t:tt)*) => { $crate::__ts_emit!(@noid $crate::__private::KIND_COUNTER; $($t)*) };
}

/// Begins a nestable async operation (`b`) keyed by category and id.
///
/// ```
/// # use tracescope_record::{trace_async_begin, trace_async_step, trace_async_end};
/// let request_id = 42u64;
/// trace_async_begin!("net", "fetch", request_id, "url" => "https://x");
/// trace_async_step!("net", "headers", request_id);
/// trace_async_end!("net", "fetch", request_id, "status" => 200);
/// ```
#[macro_export]
macro_rules! trace_async_begin {
    ($($t:tt)*) => { $crate::__ts_emit!(@id $crate::__private::KIND_ASYNC_BEGIN; $($t)*) };
}

/// An instant inside a nestable async operation (`n`).
#[macro_export]
macro_rules! trace_async_step {
    ($($t:tt)*) => { $crate::__ts_emit!(@id $crate::__private::KIND_ASYNC_STEP; $($t)*) };
}

/// Ends a nestable async operation (`e`).
#[macro_export]
macro_rules! trace_async_end {
    ($($t:tt)*) => { $crate::__ts_emit!(@id $crate::__private::KIND_ASYNC_END; $($t)*) };
}

/// Starts a flow arrow (`s`) from the slice enclosing this point.
///
/// ```
/// # use tracescope_record::{trace_event, trace_flow_start, trace_flow_end};
/// {
///     trace_event!("queue", "post");
///     trace_flow_start!("queue", "job", 9u64);
/// }
/// {
///     trace_event!("queue", "run");
///     trace_flow_end!("queue", "job", 9u64);
/// }
/// ```
#[macro_export]
macro_rules! trace_flow_start {
    ($($t:tt)*) => { $crate::__ts_emit!(@id $crate::__private::KIND_FLOW_START; $($t)*) };
}

/// A step of a flow arrow (`t`) in the slice enclosing this point.
#[macro_export]
macro_rules! trace_flow_step {
    ($($t:tt)*) => { $crate::__ts_emit!(@id $crate::__private::KIND_FLOW_STEP; $($t)*) };
}

/// Ends a flow arrow (`f`, bound to the slice enclosing this point).
#[macro_export]
macro_rules! trace_flow_end {
    ($($t:tt)*) => { $crate::__ts_emit!(@id $crate::__private::KIND_FLOW_END; $($t)*) };
}

/// An object was created (`N`).
#[macro_export]
macro_rules! trace_object_new {
    ($($t:tt)*) => { $crate::__ts_emit!(@id $crate::__private::KIND_OBJECT_NEW; $($t)*) };
}

/// A snapshot of an object (`O`); the arguments become `args.snapshot`.
#[macro_export]
macro_rules! trace_object_snapshot {
    ($($t:tt)*) => { $crate::__ts_emit!(@id $crate::__private::KIND_OBJECT_SNAPSHOT; $($t)*) };
}

/// An object was destroyed (`D`).
#[macro_export]
macro_rules! trace_object_delete {
    ($($t:tt)*) => { $crate::__ts_emit!(@id $crate::__private::KIND_OBJECT_DELETE; $($t)*) };
}

/// A counter sample of one instance (`C` with an `id`): readers show the
/// counter as `name[id]`, one track per id.
///
/// ```
/// # use tracescope_record::trace_counter_id;
/// let queue = 3u32;
/// trace_counter_id!("net", "queue_depth", queue, "depth" => 12);
/// ```
#[macro_export]
macro_rules! trace_counter_id {
    ($($t:tt)*) => { $crate::__ts_emit!(@id $crate::__private::KIND_COUNTER; $($t)*) };
}

/// Begins a legacy async operation (`S`), keyed by name and id. Prefer the
/// nestable [`trace_async_begin!`](crate::trace_async_begin); these exist for tools that expect `S`/`T`/`F`.
///
/// ```
/// # use tracescope_record::*;
/// let id = 7u64;
/// trace_legacy_async_begin!("net", "download", id, "url" => "https://x");
/// trace_legacy_async_step_into!("net", "download", id, "connect");
/// trace_legacy_async_step_past!("net", "download", id, "resolved");
/// trace_legacy_async_end!("net", "download", id);
/// ```
#[macro_export]
macro_rules! trace_legacy_async_begin {
    ($($t:tt)*) => { $crate::__ts_emit!(@id $crate::__private::KIND_LEGACY_ASYNC_BEGIN; $($t)*) };
}

/// A step of a legacy async operation (`T`, "step into"): the step named
/// `step` runs from here to the next step or the end.
#[macro_export]
macro_rules! trace_legacy_async_step_into {
    ($cat:expr, $name:expr, $id:expr, $step:expr $(, $k:literal => $v:expr)* $(,)?) => {
        $crate::__ts_emit!(@id $crate::__private::KIND_LEGACY_ASYNC_STEP_INTO;
            $cat, $name, $id, "step" => $step $(, $k => $v)*)
    };
}

/// A step of a legacy async operation (`p`, "step past"): the step named
/// `step` ran from the previous step (or the begin) to here.
#[macro_export]
macro_rules! trace_legacy_async_step_past {
    ($cat:expr, $name:expr, $id:expr, $step:expr $(, $k:literal => $v:expr)* $(,)?) => {
        $crate::__ts_emit!(@id $crate::__private::KIND_LEGACY_ASYNC_STEP_PAST;
            $cat, $name, $id, "step" => $step $(, $k => $v)*)
    };
}

/// Ends a legacy async operation (`F`).
#[macro_export]
macro_rules! trace_legacy_async_end {
    ($($t:tt)*) => { $crate::__ts_emit!(@id $crate::__private::KIND_LEGACY_ASYNC_END; $($t)*) };
}
