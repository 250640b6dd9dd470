// Preload test program: a C program that forks and execs, and forks a child that exits
// through atexit without exec (the path a preloaded library's exit handler takes in a
// child that inherited its state).
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static void bye(void) { printf("atexit in %s\n", getenv("FORK_EXEC_ROLE") ? getenv("FORK_EXEC_ROLE") : "parent"); }

int main(void) {
  atexit(bye);
  fflush(stdout);
  pid_t p = fork();
  if (p == 0) {
    execl("/bin/echo", "echo", "child via exec", (char *)0);
    _exit(127);
  }
  int st = 0;
  waitpid(p, &st, 0);
  printf("exec child exited %d\n", WEXITSTATUS(st));
  fflush(stdout);
  p = fork();
  if (p == 0) {
    setenv("FORK_EXEC_ROLE", "forked child", 1);
    printf("forked child runs\n");
    exit(4);
  }
  waitpid(p, &st, 0);
  printf("forked child exited %d\n", WEXITSTATUS(st));
  return 5;
}
