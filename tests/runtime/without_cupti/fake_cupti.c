/* A CUPTI that another tool already holds: every subscription is refused with
 * CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED, as libcupti does on drivers before r610
 * while Nsight Systems or compute-sanitizer is subscribed. It defines what libsyncwatch.so
 * links (its version node too); the rest it looks up and finds missing. */
#include <stddef.h>
#include <stdint.h>
#include <time.h>

enum { kSuccess = 0, kNotInitialized = 15, kMultipleSubscribers = 39 };

int cuptiSubscribe(void **Subscriber, void *Callback, void *Userdata) {
  (void)Subscriber, (void)Callback, (void)Userdata;
  return kMultipleSubscribers;
}
int cuptiSubscribe_v2(void **Subscriber, void *Callback, void *Userdata, void *Params) {
  (void)Params;
  return cuptiSubscribe(Subscriber, Callback, Userdata);
}
int cuptiGetResultString(int Result, const char **Text) {
  *Text = Result == kMultipleSubscribers ? "CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED" : "CUPTI_ERROR_NOT_INITIALIZED";
  return kSuccess;
}
int cuptiGetTimestamp(uint64_t *Now) {
  struct timespec T;
  clock_gettime(CLOCK_MONOTONIC, &T);
  *Now = (uint64_t)T.tv_sec * 1000000000u + (uint64_t)T.tv_nsec;
  return kSuccess;
}
int cuptiActivityFlushPeriod(uint32_t Ms) { (void)Ms; return kNotInitialized; }
int cuptiActivityGetNextRecord(uint8_t *B, size_t V, void **R) { (void)B, (void)V, (void)R; return kNotInitialized; }
int cuptiActivityGetNumDroppedRecords(void *C, uint32_t S, size_t *D) { (void)C, (void)S; *D = 0; return kNotInitialized; }
int cuptiActivitySetAttribute(int A, size_t *S, void *V) { (void)A, (void)S, (void)V; return kNotInitialized; }
int cuptiGetCallbackName(int D, uint32_t Id, const char **N) { (void)D, (void)Id; *N = ""; return kNotInitialized; }
int cuptiGetStreamIdEx(void *C, void *S, uint8_t P, uint32_t *Id) { (void)C, (void)S, (void)P, (void)Id; return kNotInitialized; }
