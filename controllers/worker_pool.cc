#include "controllers/worker_pool.h"

#include <cstdio>

#include "common/thread_name.h"

namespace kmock::controllers {

namespace {
// Failures logged per key before a key's errors go quiet.
constexpr int kLoggedFailures = 3;
}  // namespace

WorkerPool::WorkerPool(std::string name, WorkQueue* queue, int workers,
                       SyncFunc sync)
    : name_(std::move(name)), queue_(queue), sync_(std::move(sync)) {
  if (workers < 1) workers = 1;
  for (int i = 0; i < workers; ++i) threads_.emplace_back([this] { Run(); });
}

WorkerPool::~WorkerPool() { Stop(); }

void WorkerPool::Stop() {
  queue_->ShutDown();
  for (auto& t : threads_) {
    if (t.joinable()) t.join();
  }
  threads_.clear();
}

void WorkerPool::Run() {
  NameThisThread(name_);
  while (auto key = queue_->Get()) {
    Status st = sync_(*key);
    if (st.ok()) {
      queue_->Forget(*key);
    } else {
      // An object deleted or changed under a sync (NotFound, Conflict) is
      // the routine race of a level-triggered loop: retried, not logged,
      // as upstream controllers log it only at raised verbosity.
      const bool routine = st.code() == StatusCode::kNotFound ||
                           st.code() == StatusCode::kConflict;
      if (!routine && queue_->NumRequeues(*key) < kLoggedFailures) {
        std::fprintf(stderr, "%s: sync %s failed: %s\n", name_.c_str(),
                     key->c_str(), st.ToString().c_str());
      }
      queue_->AddRateLimited(*key);
    }
    queue_->Done(*key);
  }
}

}  // namespace kmock::controllers
