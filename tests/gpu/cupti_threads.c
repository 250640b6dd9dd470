/* Diagnostic for the GPU machine: which CUPTI calls start threads? A preloaded library must
 * not add threads to a process that never uses CUDA (Python 3.12 warns at fork() in a
 * multi-threaded process). Prints the process's thread count after each step libsyncwatch
 * takes. Build: gcc -I/usr/local/cuda/include cupti_threads.c -L/usr/local/cuda/lib64 -lcupti */
#include <cupti.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int threads(void) {
  char line[256];
  int n = -1;
  FILE *f = fopen("/proc/self/status", "r");
  while (f && fgets(line, sizeof line, f))
    if (strncmp(line, "Threads:", 8) == 0)
      n = atoi(line + 8);
  if (f)
    fclose(f);
  return n;
}

static void CUPTIAPI onApi(void *u, CUpti_CallbackDomain d, CUpti_CallbackId id, const void *data) {}
static void CUPTIAPI requested(uint8_t **b, size_t *s, size_t *m) { *b = malloc(1 << 20); *s = 1 << 20; *m = 0; }
static void CUPTIAPI completed(CUcontext c, uint32_t s, uint8_t *b, size_t size, size_t valid) { free(b); }

int main(void) {
  CUpti_SubscriberHandle sub;
  printf("threads at start: %d\n", threads());
  printf("cuptiSubscribe: %d -> threads %d\n", cuptiSubscribe(&sub, onApi, NULL), threads());
  printf("cuptiEnableCallback(cuInit): %d -> threads %d\n",
         cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuInit), threads());
  printf("cuptiActivityRegisterCallbacks: %d -> threads %d\n", cuptiActivityRegisterCallbacks(requested, completed), threads());
  printf("cuptiActivityFlushPeriod: %d -> threads %d\n", cuptiActivityFlushPeriod(100), threads());
  printf("cuptiActivityEnable(MEMCPY): %d -> threads %d\n", cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY), threads());
  return 0;
}
