// Runs N worker threads over a WorkQueue, each calling a sync function for
// the keys it takes: the processNextWorkItem loop of an upstream controller.
//
// A sync that returns an error puts the key back with AddRateLimited (and
// logs it, unless it is the routine NotFound or Conflict of an object that
// changed under the sync); a sync that succeeds makes the queue forget the
// key's failures. A sync that wants
// to be called again later (a delayed lifecycle stage) calls AddAfter itself.
//
// The destructor shuts the queue down and joins the workers (RAII).
//
// Thread safety: construct and destroy from one thread; the sync function
// runs on the worker threads, at most once at a time per key.
#ifndef KMOCK_CONTROLLERS_WORKER_POOL_H_
#define KMOCK_CONTROLLERS_WORKER_POOL_H_

#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "common/status.h"
#include "controllers/work_queue.h"

namespace kmock::controllers {

using SyncFunc = std::function<Status(const std::string& key)>;

class WorkerPool {
 public:
  // Starts `workers` threads at once. `name` appears in error logs.
  WorkerPool(std::string name, WorkQueue* queue, int workers, SyncFunc sync);
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  // Shuts the queue down and waits for every worker. Idempotent.
  void Stop();

 private:
  void Run();

  std::string name_;
  WorkQueue* queue_;
  SyncFunc sync_;
  std::vector<std::thread> threads_;
};

}  // namespace kmock::controllers

#endif  // KMOCK_CONTROLLERS_WORKER_POOL_H_
