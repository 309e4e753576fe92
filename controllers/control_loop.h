// The running part that every queue-driven controller shares: its own
// informers, started before its workers and stopped after them, and a pool
// of workers over its queue (worker_pool.h); plus the wait for caches a
// sync does first. A controller keeps one ControlLoop and forwards its
// Start and Stop to it.
//
// Thread safety: Start/Stop from one thread (the controller manager's);
// WaitForInformers from any thread.
#ifndef KMOCK_CONTROLLERS_CONTROL_LOOP_H_
#define KMOCK_CONTROLLERS_CONTROL_LOOP_H_

#include <chrono>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include "controllers/informer.h"
#include "controllers/work_queue.h"
#include "controllers/worker_pool.h"

namespace kmock::controllers {

class ControlLoop {
 public:
  // `name` names the workers in logs; `sync` is called for each key.
  ControlLoop(std::string name, WorkQueue* queue, int workers, SyncFunc sync);
  ~ControlLoop();
  ControlLoop(const ControlLoop&) = delete;
  ControlLoop& operator=(const ControlLoop&) = delete;

  // Starts `informers` in order (null entries are skipped), then the
  // workers. Only the first call does anything.
  void Start(std::vector<Informer*> informers);
  // Stops the workers, then the informers in reverse. Idempotent; a loop
  // never started stops nothing.
  void Stop();

 private:
  std::string name_;
  WorkQueue* queue_;
  int workers_;
  SyncFunc sync_;
  std::vector<Informer*> informers_;
  std::unique_ptr<WorkerPool> pool_;
  bool started_ = false;
  bool stopped_ = false;
};

// kServiceUnavailable ("timed out waiting for caches to sync") unless every
// informer has listed within `timeout`: what a sync checks first.
Status WaitForInformers(
    std::initializer_list<Informer*> informers,
    std::chrono::milliseconds timeout = std::chrono::seconds(5));

}  // namespace kmock::controllers

#endif  // KMOCK_CONTROLLERS_CONTROL_LOOP_H_
