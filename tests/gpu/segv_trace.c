// A crash reporter for the GPU tests: LD_PRELOAD it beside libsyncwatch.so and a process
// that dies of SIGSEGV, SIGBUS, SIGILL, SIGFPE or SIGABRT prints its native stack (module,
// symbol, offset) on stderr before it dies as it would have. The GPU image has no gdb, and
// a crash at exit (after Python's faulthandler is gone) otherwise leaves only "rc 139".
// Build: cc -shared -fPIC -O1 -o segv_trace.so segv_trace.c -ldl
#define _GNU_SOURCE
#include <dlfcn.h>
#include <execinfo.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void say(const char *S) { (void)!write(2, S, strlen(S)); }

static void onCrash(int Sig, siginfo_t *Info, void *Ctx) {
  (void)Ctx;
  char Line[512];
  snprintf(Line, sizeof Line, "\nsegv_trace: signal %d (%s) at address %p, thread %ld\n", Sig, strsignal(Sig),
           Info ? Info->si_addr : NULL, (long)gettid());
  say(Line);
  void *Frames[64];
  int N = backtrace(Frames, 64);
  for (int I = 0; I < N; ++I) {
    Dl_info D;
    if (dladdr(Frames[I], &D) && D.dli_fname) {
      snprintf(Line, sizeof Line, "  #%d %p %s(%s+0x%lx) [module+0x%lx]\n", I, Frames[I], D.dli_fname,
               D.dli_sname ? D.dli_sname : "?",
               (unsigned long)((char *)Frames[I] - (char *)(D.dli_saddr ? D.dli_saddr : D.dli_fbase)),
               (unsigned long)((char *)Frames[I] - (char *)D.dli_fbase));
    } else {
      snprintf(Line, sizeof Line, "  #%d %p ?\n", I, Frames[I]);
    }
    say(Line);
  }
  signal(Sig, SIG_DFL);
  raise(Sig);
}

__attribute__((constructor)) static void installCrashTrace(void) {
  void *Warm[1];
  backtrace(Warm, 1);  // loads libgcc_s now, not inside the handler
  static char AltStack[64 * 1024];
  stack_t S = {.ss_sp = AltStack, .ss_size = sizeof AltStack, .ss_flags = 0};
  sigaltstack(&S, NULL);
  struct sigaction A;
  memset(&A, 0, sizeof A);
  A.sa_sigaction = onCrash;
  A.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&A.sa_mask);
  int Sigs[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};
  for (unsigned I = 0; I < sizeof Sigs / sizeof Sigs[0]; ++I)
    sigaction(Sigs[I], &A, NULL);
}
