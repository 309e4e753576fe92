#include "common/thread_name.h"

#include <pthread.h>

namespace kmock {

namespace {
constexpr size_t kMaxNameBytes = 15;  // the kernel's limit, without the NUL
}  // namespace

void NameThisThread(std::string_view name) {
  std::string n(name.substr(0, kMaxNameBytes));
  pthread_setname_np(pthread_self(), n.c_str());
}

std::string ThisThreadName() {
  char buf[kMaxNameBytes + 1] = {};
  if (pthread_getname_np(pthread_self(), buf, sizeof buf) != 0) return "";
  return buf;
}

}  // namespace kmock
