/* tracescope.h: record Chrome Trace Event Format traces from C (and C++).
 *
 * Link against libtracescope_record.a (or .so), built with
 *     cargo build --release -p tracescope-record --features capi
 * and, for the static library: -lpthread -ldl -lm -lrt -lgcc_s.
 *
 *     tracescope_init("trace.json");
 *     {
 *         TRACE_EVENT1("io", "read_block", "block", 7);   // a slice to the end of the block
 *         TRACE_EVENT_INSTANT0("io", "cache_miss", TRACE_EVENT_SCOPE_THREAD);
 *         TRACE_COUNTER1("mem", "heap_bytes", 4096);
 *     }
 *     tracescope_shutdown();                             // ends the JSON array
 *
 * Categories, names and argument names must be string literals (or live as long
 * as the program). Argument values may be any integer, float, _Bool or string;
 * strings are copied. The scoped TRACE_EVENT* macros need GCC or Clang
 * (statement expressions and the cleanup attribute). A disabled trace point is
 * one load and one branch; its arguments are not evaluated.
 */
#ifndef TRACESCOPE_H
#define TRACESCOPE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Opaque call site; its first byte is 1 while the site records. */
typedef struct tracescope_site tracescope_site;

typedef struct tracescope_arg {
    int kind; /* TRACESCOPE_ARG_* */
    union {
        int64_t i;
        uint64_t u;
        double f;
        const char *s;
    } value;
} tracescope_arg;

enum {
    TRACESCOPE_ARG_I64 = 1,
    TRACESCOPE_ARG_U64 = 2,
    TRACESCOPE_ARG_F64 = 3,
    TRACESCOPE_ARG_BOOL = 4,
    TRACESCOPE_ARG_STR = 5
};

/* Event kinds for tracescope_emit (the same numbers as the Rust records). */
enum {
    TRACESCOPE_KIND_BEGIN = 1,
    TRACESCOPE_KIND_END = 2,
    TRACE_EVENT_SCOPE_THREAD = 3,  /* instant, thread scope */
    TRACE_EVENT_SCOPE_PROCESS = 4, /* instant, process scope */
    TRACE_EVENT_SCOPE_GLOBAL = 5,  /* instant, global scope */
    TRACESCOPE_KIND_COUNTER = 6,
    TRACESCOPE_KIND_ASYNC_BEGIN = 7,        /* nestable async: b */
    TRACESCOPE_KIND_ASYNC_INSTANT = 8,      /* n */
    TRACESCOPE_KIND_ASYNC_END = 9,          /* e */
    TRACESCOPE_KIND_FLOW_BEGIN = 10,        /* flow v1: s */
    TRACESCOPE_KIND_FLOW_STEP = 11,         /* t */
    TRACESCOPE_KIND_FLOW_END = 12,          /* f, bound to the enclosing slice */
    TRACESCOPE_KIND_OBJECT_CREATED = 13,    /* N */
    TRACESCOPE_KIND_OBJECT_SNAPSHOT = 14,   /* O: the args become args.snapshot */
    TRACESCOPE_KIND_OBJECT_DELETED = 15,    /* D */
    TRACESCOPE_KIND_LEGACY_ASYNC_BEGIN = 16,     /* S */
    TRACESCOPE_KIND_LEGACY_ASYNC_STEP_INTO = 17, /* T */
    TRACESCOPE_KIND_LEGACY_ASYNC_STEP_PAST = 18, /* p */
    TRACESCOPE_KIND_LEGACY_ASYNC_END = 19        /* F */
};

/* v2 flow flags of TRACE_EVENT_WITH_FLOW* (Chrome's values). */
#define TRACE_EVENT_FLAG_NONE 0
#define TRACE_EVENT_FLAG_FLOW_OUT (1 << 8) /* an arrow starts at this slice */
#define TRACE_EVENT_FLAG_FLOW_IN (1 << 9)  /* an arrow ends at this slice */

/* Session: 0 on success, -1 on error (a session already runs, bad path). */
int tracescope_init(const char *path);
/* Starts recording to $TRACESCOPE_FILE if set: 1 started, 0 unset, -1 error. */
int tracescope_init_from_env(void);
/* Writes everything recorded so far to the file; 1 on success. */
int tracescope_flush(void);
/* Stops recording and ends the file with a well-formed `]`. */
void tracescope_shutdown(void);
/* Category list, syntax of TRACESCOPE_CATEGORIES ("*,-noisy,disabled-by-default-x"). */
void tracescope_set_categories(const char *spec);
void tracescope_set_thread_name(const char *name);
void tracescope_set_process_name(const char *name);

/* Used by the macros. */
const tracescope_site *tracescope_site_register(const char *cat, const char *name,
                                                const char *arg1, const char *arg2);
int tracescope_emit(const tracescope_site *site, int kind, int nargs, const tracescope_arg *args);
/* With an id (when has_id) and a v2 flow binding (TRACE_EVENT_FLAG_FLOW_* in flow_flags). */
int tracescope_emit_ex(const tracescope_site *site, int kind, int has_id, uint64_t id,
                       int flow_flags, uint64_t bind_id, int nargs, const tracescope_arg *args);

static inline tracescope_arg tracescope_arg_i64(int64_t v) {
    tracescope_arg a; a.kind = TRACESCOPE_ARG_I64; a.value.i = v; return a;
}
static inline tracescope_arg tracescope_arg_u64(uint64_t v) {
    tracescope_arg a; a.kind = TRACESCOPE_ARG_U64; a.value.u = v; return a;
}
static inline tracescope_arg tracescope_arg_f64(double v) {
    tracescope_arg a; a.kind = TRACESCOPE_ARG_F64; a.value.f = v; return a;
}
static inline tracescope_arg tracescope_arg_bool(int v) {
    tracescope_arg a; a.kind = TRACESCOPE_ARG_BOOL; a.value.u = v ? 1 : 0; return a;
}
static inline tracescope_arg tracescope_arg_str(const char *v) {
    tracescope_arg a; a.kind = TRACESCOPE_ARG_STR; a.value.s = v; return a;
}

#ifdef __cplusplus
} /* extern "C" */
static inline tracescope_arg tracescope_arg_of(bool v) { return tracescope_arg_bool(v); }
static inline tracescope_arg tracescope_arg_of(int v) { return tracescope_arg_i64(v); }
static inline tracescope_arg tracescope_arg_of(long v) { return tracescope_arg_i64(v); }
static inline tracescope_arg tracescope_arg_of(long long v) { return tracescope_arg_i64(v); }
static inline tracescope_arg tracescope_arg_of(unsigned v) { return tracescope_arg_u64(v); }
static inline tracescope_arg tracescope_arg_of(unsigned long v) { return tracescope_arg_u64(v); }
static inline tracescope_arg tracescope_arg_of(unsigned long long v) { return tracescope_arg_u64(v); }
static inline tracescope_arg tracescope_arg_of(double v) { return tracescope_arg_f64(v); }
static inline tracescope_arg tracescope_arg_of(const char *v) { return tracescope_arg_str(v); }
#define TRACESCOPE_ARG_(v) tracescope_arg_of(v)
#else
#define TRACESCOPE_ARG_(v) _Generic((v),                                              \
    _Bool: tracescope_arg_bool,                                                       \
    char: tracescope_arg_i64, signed char: tracescope_arg_i64, short: tracescope_arg_i64, \
    int: tracescope_arg_i64, long: tracescope_arg_i64, long long: tracescope_arg_i64, \
    unsigned char: tracescope_arg_u64, unsigned short: tracescope_arg_u64,            \
    unsigned int: tracescope_arg_u64, unsigned long: tracescope_arg_u64,              \
    unsigned long long: tracescope_arg_u64,                                           \
    float: tracescope_arg_f64, double: tracescope_arg_f64,                            \
    char *: tracescope_arg_str, const char *: tracescope_arg_str)(v)
#endif

/* ---- internals of the macros ---- */
#define TRACESCOPE_CAT2_(a, b) a##b
#define TRACESCOPE_CAT_(a, b) TRACESCOPE_CAT2_(a, b)
#define TRACESCOPE_UID_(x) TRACESCOPE_CAT_(x, __LINE__)

/* The call site, registered on first use and kept in a function-local static. */
#define TRACESCOPE_SITE_(cat, name, k1, k2) ({                                        \
    static const tracescope_site *tracescope_site_;                                   \
    const tracescope_site *tracescope_s_ =                                            \
        __atomic_load_n(&tracescope_site_, __ATOMIC_ACQUIRE);                         \
    if (!tracescope_s_) {                                                             \
        tracescope_s_ = tracescope_site_register((cat), (name), (k1), (k2));          \
        __atomic_store_n(&tracescope_site_, tracescope_s_, __ATOMIC_RELEASE);         \
    }                                                                                 \
    tracescope_s_; })
#define TRACESCOPE_ON_(s) (__atomic_load_n((const unsigned char *)(s), __ATOMIC_RELAXED) == 1)

#define TRACESCOPE_EMIT0_(s, kind) tracescope_emit((s), (kind), 0, 0)
#define TRACESCOPE_EMIT1_(s, kind, v1) ({                                             \
    tracescope_arg tracescope_a_[1] = { TRACESCOPE_ARG_(v1) };                        \
    tracescope_emit((s), (kind), 1, tracescope_a_); })
#define TRACESCOPE_EMIT2_(s, kind, v1, v2) ({                                         \
    tracescope_arg tracescope_a_[2] = { TRACESCOPE_ARG_(v1), TRACESCOPE_ARG_(v2) };   \
    tracescope_emit((s), (kind), 2, tracescope_a_); })

#define TRACESCOPE_EMITX0_(s, kind, hid, id, fl, bid) \
    tracescope_emit_ex((s), (kind), (hid), (uint64_t)(id), (fl), (uint64_t)(bid), 0, 0)
#define TRACESCOPE_EMITX1_(s, kind, hid, id, fl, bid, v1) ({                          \
    tracescope_arg tracescope_a_[1] = { TRACESCOPE_ARG_(v1) };                        \
    tracescope_emit_ex((s), (kind), (hid), (uint64_t)(id), (fl), (uint64_t)(bid), 1,  \
                       tracescope_a_); })
#define TRACESCOPE_EMITX2_(s, kind, hid, id, fl, bid, v1, v2) ({                      \
    tracescope_arg tracescope_a_[2] = { TRACESCOPE_ARG_(v1), TRACESCOPE_ARG_(v2) };   \
    tracescope_emit_ex((s), (kind), (hid), (uint64_t)(id), (fl), (uint64_t)(bid), 2,  \
                       tracescope_a_); })

/* An event of a fresh call site: evaluates the arguments only when enabled. */
#define TRACESCOPE_EVENT_(cat, name, k1, k2, kind, EMIT) ({                           \
    const tracescope_site *tracescope_e_ = TRACESCOPE_SITE_(cat, name, k1, k2);       \
    TRACESCOPE_ON_(tracescope_e_) && EMIT ? tracescope_e_ : (const tracescope_site *)0; })

static inline void tracescope_scope_end_(const tracescope_site **site) {
    if (*site) tracescope_emit(*site, TRACESCOPE_KIND_END, 0, 0);
}
#define TRACESCOPE_SCOPE_(cat, name, k1, k2, EMIT)                                    \
    const tracescope_site *TRACESCOPE_UID_(tracescope_scope_)                         \
        __attribute__((cleanup(tracescope_scope_end_), unused)) =                     \
            TRACESCOPE_EVENT_(cat, name, k1, k2, TRACESCOPE_KIND_BEGIN, EMIT)

/* ---- trace points ---- */

/* A slice from here to the end of the enclosing block. */
#define TRACE_EVENT0(cat, name) \
    TRACESCOPE_SCOPE_(cat, name, 0, 0, TRACESCOPE_EMIT0_(tracescope_e_, TRACESCOPE_KIND_BEGIN))
#define TRACE_EVENT1(cat, name, k1, v1) \
    TRACESCOPE_SCOPE_(cat, name, k1, 0, TRACESCOPE_EMIT1_(tracescope_e_, TRACESCOPE_KIND_BEGIN, v1))
#define TRACE_EVENT2(cat, name, k1, v1, k2, v2) \
    TRACESCOPE_SCOPE_(cat, name, k1, k2, \
                      TRACESCOPE_EMIT2_(tracescope_e_, TRACESCOPE_KIND_BEGIN, v1, v2))

/* Begin and end of a slice on this thread. */
#define TRACE_EVENT_BEGIN0(cat, name) (void)TRACESCOPE_EVENT_(cat, name, 0, 0, 0, \
    TRACESCOPE_EMIT0_(tracescope_e_, TRACESCOPE_KIND_BEGIN))
#define TRACE_EVENT_BEGIN1(cat, name, k1, v1) (void)TRACESCOPE_EVENT_(cat, name, k1, 0, 0, \
    TRACESCOPE_EMIT1_(tracescope_e_, TRACESCOPE_KIND_BEGIN, v1))
#define TRACE_EVENT_BEGIN2(cat, name, k1, v1, k2, v2) (void)TRACESCOPE_EVENT_(cat, name, k1, k2, 0, \
    TRACESCOPE_EMIT2_(tracescope_e_, TRACESCOPE_KIND_BEGIN, v1, v2))
#define TRACE_EVENT_END0(cat, name) (void)TRACESCOPE_EVENT_(cat, name, 0, 0, 0, \
    TRACESCOPE_EMIT0_(tracescope_e_, TRACESCOPE_KIND_END))
#define TRACE_EVENT_END1(cat, name, k1, v1) (void)TRACESCOPE_EVENT_(cat, name, k1, 0, 0, \
    TRACESCOPE_EMIT1_(tracescope_e_, TRACESCOPE_KIND_END, v1))

/* Instants; scope is TRACE_EVENT_SCOPE_THREAD, _PROCESS or _GLOBAL. */
#define TRACE_EVENT_INSTANT0(cat, name, scope) (void)TRACESCOPE_EVENT_(cat, name, 0, 0, 0, \
    TRACESCOPE_EMIT0_(tracescope_e_, (scope)))
#define TRACE_EVENT_INSTANT1(cat, name, scope, k1, v1) (void)TRACESCOPE_EVENT_(cat, name, k1, 0, 0, \
    TRACESCOPE_EMIT1_(tracescope_e_, (scope), v1))
#define TRACE_EVENT_INSTANT2(cat, name, scope, k1, v1, k2, v2) \
    (void)TRACESCOPE_EVENT_(cat, name, k1, k2, 0, TRACESCOPE_EMIT2_(tracescope_e_, (scope), v1, v2))

/* Counters: TRACE_COUNTER1 records the series "value". */
#define TRACE_COUNTER1(cat, name, value) (void)TRACESCOPE_EVENT_(cat, name, "value", 0, 0, \
    TRACESCOPE_EMIT1_(tracescope_e_, TRACESCOPE_KIND_COUNTER, value))
#define TRACE_COUNTER2(cat, name, k1, v1, k2, v2) (void)TRACESCOPE_EVENT_(cat, name, k1, k2, 0, \
    TRACESCOPE_EMIT2_(tracescope_e_, TRACESCOPE_KIND_COUNTER, v1, v2))

/* Counters of one instance: shown as name[id], one counter per id. */
#define TRACE_COUNTER_ID1(cat, name, id, value) (void)TRACESCOPE_EVENT_(cat, name, "value", 0, 0, \
    TRACESCOPE_EMITX1_(tracescope_e_, TRACESCOPE_KIND_COUNTER, 1, id, 0, 0, value))
#define TRACE_COUNTER_ID2(cat, name, id, k1, v1, k2, v2) (void)TRACESCOPE_EVENT_(cat, name, k1, k2, 0, \
    TRACESCOPE_EMITX2_(tracescope_e_, TRACESCOPE_KIND_COUNTER, 1, id, 0, 0, v1, v2))

/* A slice to the end of the block bound to a v2 flow arrow: flow_flags is
 * TRACE_EVENT_FLAG_FLOW_OUT (starts an arrow keyed by bind_id), _FLOW_IN (ends
 * it here) or both (a step). */
#define TRACE_EVENT_WITH_FLOW0(cat, name, bind_id, flow_flags) \
    TRACESCOPE_SCOPE_(cat, name, 0, 0, TRACESCOPE_EMITX0_(tracescope_e_, TRACESCOPE_KIND_BEGIN, \
                      0, 0, (flow_flags), (bind_id)))
#define TRACE_EVENT_WITH_FLOW1(cat, name, bind_id, flow_flags, k1, v1) \
    TRACESCOPE_SCOPE_(cat, name, k1, 0, TRACESCOPE_EMITX1_(tracescope_e_, TRACESCOPE_KIND_BEGIN, \
                      0, 0, (flow_flags), (bind_id), v1))
#define TRACE_EVENT_WITH_FLOW2(cat, name, bind_id, flow_flags, k1, v1, k2, v2) \
    TRACESCOPE_SCOPE_(cat, name, k1, k2, TRACESCOPE_EMITX2_(tracescope_e_, \
                      TRACESCOPE_KIND_BEGIN, 0, 0, (flow_flags), (bind_id), v1, v2))

/* Events keyed by an id: internal helper for the macros below. */
#define TRACESCOPE_ID0_(kind, cat, name, id) (void)TRACESCOPE_EVENT_(cat, name, 0, 0, 0, \
    TRACESCOPE_EMITX0_(tracescope_e_, (kind), 1, id, 0, 0))
#define TRACESCOPE_ID1_(kind, cat, name, id, k1, v1) (void)TRACESCOPE_EVENT_(cat, name, k1, 0, 0, \
    TRACESCOPE_EMITX1_(tracescope_e_, (kind), 1, id, 0, 0, v1))
#define TRACESCOPE_ID2_(kind, cat, name, id, k1, v1, k2, v2) \
    (void)TRACESCOPE_EVENT_(cat, name, k1, k2, 0, \
    TRACESCOPE_EMITX2_(tracescope_e_, (kind), 1, id, 0, 0, v1, v2))

/* Nestable async operations (b / n / e), keyed by category and id. */
#define TRACE_EVENT_NESTABLE_ASYNC_BEGIN0(cat, name, id) \
    TRACESCOPE_ID0_(TRACESCOPE_KIND_ASYNC_BEGIN, cat, name, id)
#define TRACE_EVENT_NESTABLE_ASYNC_BEGIN1(cat, name, id, k1, v1) \
    TRACESCOPE_ID1_(TRACESCOPE_KIND_ASYNC_BEGIN, cat, name, id, k1, v1)
#define TRACE_EVENT_NESTABLE_ASYNC_BEGIN2(cat, name, id, k1, v1, k2, v2) \
    TRACESCOPE_ID2_(TRACESCOPE_KIND_ASYNC_BEGIN, cat, name, id, k1, v1, k2, v2)
#define TRACE_EVENT_NESTABLE_ASYNC_INSTANT0(cat, name, id) \
    TRACESCOPE_ID0_(TRACESCOPE_KIND_ASYNC_INSTANT, cat, name, id)
#define TRACE_EVENT_NESTABLE_ASYNC_INSTANT1(cat, name, id, k1, v1) \
    TRACESCOPE_ID1_(TRACESCOPE_KIND_ASYNC_INSTANT, cat, name, id, k1, v1)
#define TRACE_EVENT_NESTABLE_ASYNC_END0(cat, name, id) \
    TRACESCOPE_ID0_(TRACESCOPE_KIND_ASYNC_END, cat, name, id)
#define TRACE_EVENT_NESTABLE_ASYNC_END1(cat, name, id, k1, v1) \
    TRACESCOPE_ID1_(TRACESCOPE_KIND_ASYNC_END, cat, name, id, k1, v1)
#define TRACE_EVENT_NESTABLE_ASYNC_END2(cat, name, id, k1, v1, k2, v2) \
    TRACESCOPE_ID2_(TRACESCOPE_KIND_ASYNC_END, cat, name, id, k1, v1, k2, v2)

/* Legacy async operations (S / T / p / F), keyed by name and id; each step is
 * named by `step` (a string). */
#define TRACE_EVENT_ASYNC_BEGIN0(cat, name, id) \
    TRACESCOPE_ID0_(TRACESCOPE_KIND_LEGACY_ASYNC_BEGIN, cat, name, id)
#define TRACE_EVENT_ASYNC_BEGIN1(cat, name, id, k1, v1) \
    TRACESCOPE_ID1_(TRACESCOPE_KIND_LEGACY_ASYNC_BEGIN, cat, name, id, k1, v1)
#define TRACE_EVENT_ASYNC_BEGIN2(cat, name, id, k1, v1, k2, v2) \
    TRACESCOPE_ID2_(TRACESCOPE_KIND_LEGACY_ASYNC_BEGIN, cat, name, id, k1, v1, k2, v2)
#define TRACE_EVENT_ASYNC_STEP_INTO0(cat, name, id, step) \
    TRACESCOPE_ID1_(TRACESCOPE_KIND_LEGACY_ASYNC_STEP_INTO, cat, name, id, "step", step)
#define TRACE_EVENT_ASYNC_STEP_INTO1(cat, name, id, step, k1, v1) \
    TRACESCOPE_ID2_(TRACESCOPE_KIND_LEGACY_ASYNC_STEP_INTO, cat, name, id, "step", step, k1, v1)
#define TRACE_EVENT_ASYNC_STEP_PAST0(cat, name, id, step) \
    TRACESCOPE_ID1_(TRACESCOPE_KIND_LEGACY_ASYNC_STEP_PAST, cat, name, id, "step", step)
#define TRACE_EVENT_ASYNC_STEP_PAST1(cat, name, id, step, k1, v1) \
    TRACESCOPE_ID2_(TRACESCOPE_KIND_LEGACY_ASYNC_STEP_PAST, cat, name, id, "step", step, k1, v1)
#define TRACE_EVENT_ASYNC_END0(cat, name, id) \
    TRACESCOPE_ID0_(TRACESCOPE_KIND_LEGACY_ASYNC_END, cat, name, id)
#define TRACE_EVENT_ASYNC_END1(cat, name, id, k1, v1) \
    TRACESCOPE_ID1_(TRACESCOPE_KIND_LEGACY_ASYNC_END, cat, name, id, k1, v1)
#define TRACE_EVENT_ASYNC_END2(cat, name, id, k1, v1, k2, v2) \
    TRACESCOPE_ID2_(TRACESCOPE_KIND_LEGACY_ASYNC_END, cat, name, id, k1, v1, k2, v2)

/* Flow arrows v1 (s / t / f) between the slices enclosing these points. */
#define TRACE_EVENT_FLOW_BEGIN0(cat, name, id) \
    TRACESCOPE_ID0_(TRACESCOPE_KIND_FLOW_BEGIN, cat, name, id)
#define TRACE_EVENT_FLOW_BEGIN1(cat, name, id, k1, v1) \
    TRACESCOPE_ID1_(TRACESCOPE_KIND_FLOW_BEGIN, cat, name, id, k1, v1)
#define TRACE_EVENT_FLOW_STEP0(cat, name, id) \
    TRACESCOPE_ID0_(TRACESCOPE_KIND_FLOW_STEP, cat, name, id)
#define TRACE_EVENT_FLOW_END0(cat, name, id) \
    TRACESCOPE_ID0_(TRACESCOPE_KIND_FLOW_END, cat, name, id)
#define TRACE_EVENT_FLOW_END1(cat, name, id, k1, v1) \
    TRACESCOPE_ID1_(TRACESCOPE_KIND_FLOW_END, cat, name, id, k1, v1)

/* Objects: created (N), a snapshot (O; its args are under args.snapshot), deleted (D). */
#define TRACE_EVENT_OBJECT_CREATED_WITH_ID(cat, name, id) \
    TRACESCOPE_ID0_(TRACESCOPE_KIND_OBJECT_CREATED, cat, name, id)
#define TRACE_EVENT_OBJECT_SNAPSHOT_WITH_ID1(cat, name, id, k1, v1) \
    TRACESCOPE_ID1_(TRACESCOPE_KIND_OBJECT_SNAPSHOT, cat, name, id, k1, v1)
#define TRACE_EVENT_OBJECT_SNAPSHOT_WITH_ID2(cat, name, id, k1, v1, k2, v2) \
    TRACESCOPE_ID2_(TRACESCOPE_KIND_OBJECT_SNAPSHOT, cat, name, id, k1, v1, k2, v2)
#define TRACE_EVENT_OBJECT_DELETED_WITH_ID(cat, name, id) \
    TRACESCOPE_ID0_(TRACESCOPE_KIND_OBJECT_DELETED, cat, name, id)

#endif /* TRACESCOPE_H */
