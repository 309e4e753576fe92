// Hands out pod addresses from one node's pod CIDR (an IPv4 block such as
// 10.244.2.0/24), as the host-local IPAM plug-in does: the network address
// and the first host address (the bridge gateway) and the broadcast
// address are never given; addresses are taken in order after the last one
// handed out, so a freed address is not reused at once, and never while in
// use.
//
// Thread safety: internally locked; safe from any thread.
#ifndef KMOCK_CONTROLLERS_IP_ALLOCATOR_H_
#define KMOCK_CONTROLLERS_IP_ALLOCATOR_H_

#include <cstdint>
#include <mutex>
#include <set>
#include <string>

#include "common/status.h"

namespace kmock::controllers {

class IpAllocator {
 public:
  // kInvalid if cidr is not "a.b.c.d/n" with 8 <= n <= 30.
  static Result<std::unique_ptr<IpAllocator>> Create(const std::string& cidr);

  // The next free address; kServiceUnavailable when the range is full.
  Result<std::string> Allocate();
  // Marks an address as taken (adopting pods after a restart). kInvalid if
  // it is outside the range.
  Status Reserve(const std::string& ip);
  void Release(const std::string& ip);
  bool InUse(const std::string& ip) const;
  bool Contains(const std::string& ip) const;
  size_t Used() const;

 private:
  IpAllocator(uint32_t network, uint32_t size)
      : network_(network), size_(size) {}

  uint32_t network_;
  uint32_t size_;  // addresses in the block
  mutable std::mutex mu_;
  std::set<uint32_t> used_;
  uint32_t last_ = 1;  // offset of the last address handed out
};

// Dotted-quad helpers. ParseIpv4 returns false on bad input.
bool ParseIpv4(const std::string& s, uint32_t* out);
std::string FormatIpv4(uint32_t ip);

}  // namespace kmock::controllers

#endif  // KMOCK_CONTROLLERS_IP_ALLOCATOR_H_
