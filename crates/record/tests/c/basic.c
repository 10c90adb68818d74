/* Records one trace through the C ABI; tests/capi.rs checks the file. */
#include <pthread.h>
#include <stdio.h>
#include "tracescope.h"

static void work(int i) {
    TRACE_EVENT1("c", "work", "i", i);
    TRACE_EVENT_INSTANT2("c", "tick", TRACE_EVENT_SCOPE_THREAD, "half", i / 2.0, "odd", (_Bool)(i % 2));
}

/* Ids, async operations, flows and objects. */
static void extras(void) {
    TRACE_COUNTER_ID1("c", "queue", 3, 7);
    TRACE_COUNTER_ID2("c", "queue", 4, "depth", 1, "max", 2.5);
    TRACE_EVENT_NESTABLE_ASYNC_BEGIN1("c", "op", 0x10, "k", "v");
    TRACE_EVENT_NESTABLE_ASYNC_INSTANT0("c", "op_step", 0x10);
    TRACE_EVENT_NESTABLE_ASYNC_END1("c", "op", 0x10, "ok", (_Bool)1);
    TRACE_EVENT_ASYNC_BEGIN1("c", "legacy", 5, "n", 1);
    TRACE_EVENT_ASYNC_STEP_INTO0("c", "legacy", 5, "phase1");
    TRACE_EVENT_ASYNC_END0("c", "legacy", 5);
    {
        TRACE_EVENT_WITH_FLOW1("c", "producer", 77, TRACE_EVENT_FLAG_FLOW_OUT, "n", 1);
        TRACE_EVENT_FLOW_BEGIN0("c", "v1flow", 9);
    }
    {
        TRACE_EVENT_WITH_FLOW0("c", "consumer", 77, TRACE_EVENT_FLAG_FLOW_IN);
        TRACE_EVENT_FLOW_END0("c", "v1flow", 9);
    }
    TRACE_EVENT_OBJECT_CREATED_WITH_ID("c", "Obj", 0x1234);
    TRACE_EVENT_OBJECT_SNAPSHOT_WITH_ID1("c", "Obj", 0x1234, "size", 64);
    TRACE_EVENT_OBJECT_DELETED_WITH_ID("c", "Obj", 0x1234);
}

static void *worker(void *arg) {
    (void)arg;
    tracescope_set_thread_name("c-worker");
    TRACE_EVENT0("c", "worker");
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 2 || tracescope_init(argv[1]) != 0) return 2;
    tracescope_set_process_name("c-demo");
    tracescope_set_thread_name("c-main");
    TRACE_EVENT_BEGIN2("c", "main", "label", "demo \"quoted\"", "n", 2u);
    for (int i = 0; i < 2; i++) work(i);
    TRACE_COUNTER1("c", "bytes", 4096);
    TRACE_COUNTER2("c", "mem", "used", 1.5, "free", -3);
    TRACE_EVENT_INSTANT0("c", "marker", TRACE_EVENT_SCOPE_GLOBAL);
    TRACE_EVENT_INSTANT0("off", "never", TRACE_EVENT_SCOPE_THREAD);
    pthread_t t;
    pthread_create(&t, 0, worker, 0);
    pthread_join(t, 0);
    extras();
    TRACE_EVENT_END0("c", "main");
    if (!tracescope_flush()) return 3;
    tracescope_set_categories("c,-c"); /* everything off: nothing more records */
    TRACE_EVENT_INSTANT0("c", "after_off", TRACE_EVENT_SCOPE_THREAD);
    tracescope_shutdown();
    return 0;
}
