/* Does the driver name a device's UUID at exit? (issue 14's GPU naming) cuDeviceGetUuid_v2
 * in main, and again from an atexit handler registered before and after cudart starts.
 * Build: gcc uuid_at_exit.c -ldl; run with a CUDA program's libraries loaded. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

typedef int (*init_fn)(unsigned);
typedef int (*get_fn)(int *, int);
typedef int (*uuid_fn)(unsigned char *, int);
static void *lib;

static void show(const char *when) {
  get_fn get = (get_fn)dlsym(lib, "cuDeviceGet");
  uuid_fn uuid = (uuid_fn)dlsym(lib, "cuDeviceGetUuid_v2");
  int dev = -1;
  unsigned char b[16] = {0};
  int rg = get ? get(&dev, 0) : -100, ru = uuid ? uuid(b, dev) : -100;
  printf("%s: cuDeviceGet=%d cuDeviceGetUuid_v2=%d uuid=%02x%02x%02x%02x\n", when, rg, ru, b[0], b[1], b[2], b[3]);
}
static void at_exit(void) { show("atexit"); }

int main(void) {
  lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) { printf("no libcuda\n"); return 1; }
  show("before cuInit");
  ((init_fn)dlsym(lib, "cuInit"))(0);
  show("after cuInit");
  atexit(at_exit);
  return 0;
}
