#include "controllers/ip_allocator.h"

#include <cstdio>
#include <memory>

namespace kmock::controllers {

bool ParseIpv4(const std::string& s, uint32_t* out) {
  unsigned a, b, c, d;
  char tail;
  if (std::sscanf(s.c_str(), "%u.%u.%u.%u%c", &a, &b, &c, &d, &tail) != 4) {
    return false;
  }
  if (a > 255 || b > 255 || c > 255 || d > 255) return false;
  *out = (a << 24) | (b << 16) | (c << 8) | d;
  return true;
}

std::string FormatIpv4(uint32_t ip) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "%u.%u.%u.%u", ip >> 24, (ip >> 16) & 255,
                (ip >> 8) & 255, ip & 255);
  return buf;
}

Result<std::unique_ptr<IpAllocator>> IpAllocator::Create(
    const std::string& cidr) {
  auto slash = cidr.find('/');
  uint32_t ip;
  int bits = -1;
  if (slash != std::string::npos) {
    char* end = nullptr;
    bits = static_cast<int>(std::strtol(cidr.c_str() + slash + 1, &end, 10));
    if (end == nullptr || *end != '\0') bits = -1;
  }
  if (slash == std::string::npos || !ParseIpv4(cidr.substr(0, slash), &ip) ||
      bits < 8 || bits > 30) {
    return Status(StatusCode::kInvalid,
                  "invalid pod CIDR \"" + cidr +
                      "\": want an IPv4 block such as 10.244.1.0/24");
  }
  uint32_t size = 1u << (32 - bits);
  uint32_t network = ip & ~(size - 1);
  return std::unique_ptr<IpAllocator>(new IpAllocator(network, size));
}

Result<std::string> IpAllocator::Allocate() {
  std::lock_guard<std::mutex> l(mu_);
  // Usable offsets: 2 .. size-2 (0 network, 1 gateway, size-1 broadcast).
  uint32_t usable = size_ - 3;
  for (uint32_t i = 0; i < usable; ++i) {
    uint32_t off = last_ + 1 + i;
    off = 2 + (off - 2) % usable;
    if (!used_.count(off)) {
      used_.insert(off);
      last_ = off;
      return FormatIpv4(network_ + off);
    }
  }
  return Status(
      StatusCode::kServiceUnavailable,
      "no IP addresses available in range set: " + FormatIpv4(network_ + 2) +
          "-" + FormatIpv4(network_ + size_ - 2));
}

bool IpAllocator::Contains(const std::string& ip) const {
  uint32_t v;
  return ParseIpv4(ip, &v) && v >= network_ && v < network_ + size_;
}

Status IpAllocator::Reserve(const std::string& ip) {
  uint32_t v;
  if (!ParseIpv4(ip, &v) || v < network_ || v >= network_ + size_) {
    return Status(StatusCode::kInvalid, ip + " is outside the pod CIDR");
  }
  std::lock_guard<std::mutex> l(mu_);
  used_.insert(v - network_);
  if (v - network_ > last_) last_ = v - network_;
  return Status::Ok();
}

void IpAllocator::Release(const std::string& ip) {
  uint32_t v;
  if (!ParseIpv4(ip, &v) || v < network_) return;
  std::lock_guard<std::mutex> l(mu_);
  used_.erase(v - network_);
}

bool IpAllocator::InUse(const std::string& ip) const {
  uint32_t v;
  if (!ParseIpv4(ip, &v) || v < network_) return false;
  std::lock_guard<std::mutex> l(mu_);
  return used_.count(v - network_) > 0;
}

size_t IpAllocator::Used() const {
  std::lock_guard<std::mutex> l(mu_);
  return used_.size();
}

}  // namespace kmock::controllers
