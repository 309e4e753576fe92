#include "common/clock.h"

#include <cstdio>
#include <ctime>

namespace kmock {

namespace {
std::tm ToUtc(TimePoint t) {
  std::time_t tt = std::chrono::system_clock::to_time_t(t);
  std::tm tm{};
  gmtime_r(&tt, &tm);
  return tm;
}
}  // namespace

std::string FormatRfc3339(TimePoint t) {
  std::tm tm = ToUtc(t);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string FormatRfc3339Micro(TimePoint t) {
  std::tm tm = ToUtc(t);
  auto us = std::chrono::duration_cast<std::chrono::microseconds>(
                t.time_since_epoch())
                .count() %
            1000000;
  if (us < 0) us += 1000000;
  char buf[48];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm);
  char out[64];
  std::snprintf(out, sizeof(out), "%s.%06lldZ", buf,
                static_cast<long long>(us));
  return out;
}

std::string FormatRfc3339Nano(TimePoint t) {
  std::tm tm = ToUtc(t);
  auto ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch())
          .count() %
      1000000000;
  if (ns < 0) ns += 1000000000;
  char buf[48];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm);
  std::string out = buf;
  if (ns != 0) {
    char frac[16];
    std::snprintf(frac, sizeof(frac), ".%09lld", static_cast<long long>(ns));
    std::string f = frac;
    while (f.back() == '0') f.pop_back();
    out += f;
  }
  return out + "Z";
}

bool ParseRfc3339(const std::string& s, TimePoint* out) {
  int y, mo, d, h, mi, sec;
  int n = 0;
  if (std::sscanf(s.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%n", &y, &mo, &d, &h, &mi,
                  &sec, &n) != 6)
    return false;
  std::tm tm{};
  tm.tm_year = y - 1900;
  tm.tm_mon = mo - 1;
  tm.tm_mday = d;
  tm.tm_hour = h;
  tm.tm_min = mi;
  tm.tm_sec = sec;
  std::time_t tt = timegm(&tm);
  TimePoint tp = std::chrono::system_clock::from_time_t(tt);
  size_t i = static_cast<size_t>(n);
  if (i < s.size() && s[i] == '.') {
    ++i;
    long long frac = 0;
    int digits = 0;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
      if (digits < 9) {
        frac = frac * 10 + (s[i] - '0');
        ++digits;
      }
      ++i;
    }
    while (digits < 9) {
      frac *= 10;
      ++digits;
    }
    tp += std::chrono::duration_cast<TimePoint::duration>(
        std::chrono::nanoseconds(frac));
  }
  if (i < s.size() && (s[i] == 'Z' || s[i] == 'z')) {
    ++i;
  } else if (i < s.size() && (s[i] == '+' || s[i] == '-')) {
    int oh, om;
    if (std::sscanf(s.c_str() + i + 1, "%2d:%2d", &oh, &om) != 2) return false;
    auto off = std::chrono::hours(oh) + std::chrono::minutes(om);
    tp += (s[i] == '+') ? -off : off;
    i += 6;
  } else {
    return false;
  }
  if (i != s.size()) return false;
  *out = tp;
  return true;
}

// Mirrors apimachinery's duration.HumanDuration.
std::string HumanDuration(std::chrono::seconds d) {
  long long secs = d.count();
  if (secs < -1) return "<invalid>";
  if (secs < 0) return "0s";
  char buf[64];
  if (secs < 60 * 2) {
    std::snprintf(buf, sizeof(buf), "%llds", secs);
    return buf;
  }
  long long minutes = secs / 60;
  if (minutes < 10) {
    long long s = secs % 60;
    if (s == 0)
      std::snprintf(buf, sizeof(buf), "%lldm", minutes);
    else
      std::snprintf(buf, sizeof(buf), "%lldm%llds", minutes, s);
    return buf;
  }
  if (minutes < 60 * 3) {
    std::snprintf(buf, sizeof(buf), "%lldm", minutes);
    return buf;
  }
  long long hours = secs / 3600;
  if (hours < 8) {
    long long m = minutes % 60;
    if (m == 0)
      std::snprintf(buf, sizeof(buf), "%lldh", hours);
    else
      std::snprintf(buf, sizeof(buf), "%lldh%lldm", hours, m);
    return buf;
  }
  if (hours < 48) {
    std::snprintf(buf, sizeof(buf), "%lldh", hours);
    return buf;
  }
  if (hours < 24 * 8) {
    long long h = hours % 24;
    if (h == 0)
      std::snprintf(buf, sizeof(buf), "%lldd", hours / 24);
    else
      std::snprintf(buf, sizeof(buf), "%lldd%lldh", hours / 24, h);
    return buf;
  }
  if (hours < 24 * 365 * 2) {
    std::snprintf(buf, sizeof(buf), "%lldd", hours / 24);
    return buf;
  }
  if (hours < 24 * 365 * 8) {
    long long dy = (hours / 24) % 365;
    if (dy == 0)
      std::snprintf(buf, sizeof(buf), "%lldy", hours / 24 / 365);
    else
      std::snprintf(buf, sizeof(buf), "%lldy%lldd", hours / 24 / 365, dy);
    return buf;
  }
  std::snprintf(buf, sizeof(buf), "%lldy", hours / 24 / 365);
  return buf;
}

}  // namespace kmock
