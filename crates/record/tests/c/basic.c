/* Records one trace through the C ABI; tests/capi.rs checks the file. */
#include <pthread.h>
#include <stdio.h>
#include "tracescope.h"

static void work(int i) {
    TRACE_EVENT1("c", "work", "i", i);
    TRACE_EVENT_INSTANT2("c", "tick", TRACE_EVENT_SCOPE_THREAD, "half", i / 2.0, "odd", (_Bool)(i % 2));
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
    TRACE_EVENT_END0("c", "main");
    if (!tracescope_flush()) return 3;
    tracescope_set_categories("c,-c"); /* everything off: nothing more records */
    TRACE_EVENT_INSTANT0("c", "after_off", TRACE_EVENT_SCOPE_THREAD);
    tracescope_shutdown();
    return 0;
}
