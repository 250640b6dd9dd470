/* Issue 40's PyTorch loop: which part of CUPTI's activity floor costs what? A preload library
 * that does what syncwatch's SYNCWATCH_FLOOR=activity does, one piece at a time, chosen by
 * PROBE_KINDS (comma-separated):
 *   sub      cuptiSubscribe only, no callback enabled
 *   reg      sub, plus the activity buffer callbacks registered, no kind enabled
 *   memcpy, memset, stream, kernel (CONCURRENT_KERNEL), sync (SYNCHRONIZATION)
 *            reg, plus those activity kinds
 *   cbrt     every runtime API callback on, doing nothing: more than syncwatch enables (it
 *            leaves launches off until one can matter, and takes only the catalogued calls)
 * Buffers are handed back unread except for a count, printed at exit with PROBE_VERBOSE=1.
 * PROBE_TOGGLE=1: nothing at load; probe_set(1) subscribes and enables the kinds, probe_set(0)
 * disables them and unsubscribes, so that one process can time the same steps with and
 * without (tests/gpu/kinds_toggle.py): the spread between processes of one loop on the GPU
 * machines (20-50%) is far larger than the few percent being measured.
 * Build: gcc -shared -fPIC -I/usr/local/cuda/include cupti_kinds_preload.c
 *          -L/usr/local/cuda/lib64 -lcupti -o libkinds.so   (tests/gpu/issue40_kinds.sh) */
#include <cupti.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static CUpti_SubscriberHandle sub;
static size_t buffers, bytes;

static void CUPTIAPI onApi(void *u, CUpti_CallbackDomain d, CUpti_CallbackId id, const void *data) {
  (void)u, (void)d, (void)id, (void)data;
}
static void CUPTIAPI requested(uint8_t **b, size_t *s, size_t *m) {
  *s = 256 << 10; /* syncwatch's default host buffer */
  *b = aligned_alloc(8, *s);
  *m = 0;
}
static void CUPTIAPI completed(CUcontext c, uint32_t s, uint8_t *b, size_t size, size_t valid) {
  (void)c, (void)s, (void)size;
  buffers++;
  bytes += valid;
  free(b);
}

static int has(const char *list, const char *word) {
  size_t n = strlen(word);
  for (const char *p = list; (p = strstr(p, word)); p += n)
    if ((p == list || p[-1] == ',') && (p[n] == ',' || p[n] == 0))
      return 1;
  return 0;
}

static void enable(CUpti_ActivityKind kind, const char *name, int on) {
  CUptiResult r = on ? cuptiActivityEnable(kind) : cuptiActivityDisable(kind);
  if (r != CUPTI_SUCCESS)
    fprintf(stderr, "probe: cuptiActivity%s(%s) = %d\n", on ? "Enable" : "Disable", name, (int)r);
}

static int subscribed, registered;

/* 1: subscribe and enable PROBE_KINDS; 0: disable them and unsubscribe. "none": nothing at all
 * (the toggle's own control). */
void probe_set(int on) {
  const char *k = getenv("PROBE_KINDS");
  if (!k || !*k || has(k, "none"))
    return;
  if (on && !subscribed) {
    if (cuptiSubscribe(&sub, onApi, NULL) != CUPTI_SUCCESS) {
      fprintf(stderr, "probe: cuptiSubscribe failed\n");
      return;
    }
    subscribed = 1;
  }
  if (subscribed && has(k, "cbrt"))
    cuptiEnableDomain(on, sub, CUPTI_CB_DOMAIN_RUNTIME_API);
  if (!subscribed || has(k, "sub") || !strcmp(k, "cbrt"))
    goto done;
  if (!registered) {
    cuptiActivityRegisterCallbacks(requested, completed);
    registered = 1;
  }
  if (has(k, "memcpy"))
    enable(CUPTI_ACTIVITY_KIND_MEMCPY, "memcpy", on);
  if (has(k, "memset"))
    enable(CUPTI_ACTIVITY_KIND_MEMSET, "memset", on);
  if (has(k, "stream"))
    enable(CUPTI_ACTIVITY_KIND_STREAM, "stream", on);
  if (has(k, "kernel"))
    enable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, "kernel", on);
  if (has(k, "sync"))
    enable(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, "sync", on);
  if (!on)
    cuptiActivityFlushAll(1);
done:
  if (!on && subscribed) {
    cuptiUnsubscribe(sub);
    subscribed = 0;
  }
}

__attribute__((constructor)) static void start(void) {
  if (!getenv("PROBE_TOGGLE"))
    probe_set(1);
}

__attribute__((destructor)) static void stop(void) {
  const char *k = getenv("PROBE_KINDS");
  if (!k || !*k || has(k, "sub") || has(k, "none") || !strcmp(k, "cbrt") || !registered)
    return;
  cuptiActivityFlushAll(1);
  if (getenv("PROBE_VERBOSE"))
    fprintf(stderr, "probe %s: %zu buffers, %zu bytes of records\n", k, buffers, bytes);
}
