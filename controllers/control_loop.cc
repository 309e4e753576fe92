#include "controllers/control_loop.h"

namespace kmock::controllers {

ControlLoop::ControlLoop(std::string name, WorkQueue* queue, int workers,
                         SyncFunc sync)
    : name_(std::move(name)),
      queue_(queue),
      workers_(workers),
      sync_(std::move(sync)) {}

ControlLoop::~ControlLoop() { Stop(); }

void ControlLoop::Start(std::vector<Informer*> informers) {
  if (started_) return;
  started_ = true;
  for (Informer* inf : informers) {
    if (inf == nullptr) continue;
    inf->Start();
    informers_.push_back(inf);
  }
  pool_ = std::make_unique<WorkerPool>(name_, queue_, workers_, sync_);
}

void ControlLoop::Stop() {
  if (!started_ || stopped_) return;
  stopped_ = true;
  if (pool_) pool_->Stop();
  for (auto it = informers_.rbegin(); it != informers_.rend(); ++it) {
    (*it)->Stop();
  }
}

Status WaitForInformers(std::initializer_list<Informer*> informers,
                        std::chrono::milliseconds timeout) {
  for (Informer* inf : informers) {
    if (inf != nullptr && !inf->WaitForSync(timeout)) {
      return Status(StatusCode::kServiceUnavailable,
                    "timed out waiting for caches to sync");
    }
  }
  return Status::Ok();
}

}  // namespace kmock::controllers
