// CPU time used so far by a running process and its direct children (nginx
// workers), read from /proc. Stateless; safe from any thread.
#ifndef KMOCK_BENCH_DRIVER_PROC_CPU_H_
#define KMOCK_BENCH_DRIVER_PROC_CPU_H_

#include <sys/types.h>

namespace kmock::bench {

struct CpuTime {
  // utime + stime from /proc/<pid>/stat: every thread, exited ones included,
  // in clock ticks (10 ms here), so truncated.
  double stat_ms = 0;
  // Sum of /proc/<pid>/task/*/schedstat: nanosecond precision, but threads
  // that already exited are missing.
  double schedstat_ms = 0;
  // The better lower bound of the two.
  double best_ms() const {
    return stat_ms > schedstat_ms ? stat_ms : schedstat_ms;
  }
};

// CPU of pid plus its direct children. Zero for a process that is gone.
CpuTime ProcessTreeCpu(pid_t pid);

}  // namespace kmock::bench

#endif  // KMOCK_BENCH_DRIVER_PROC_CPU_H_
