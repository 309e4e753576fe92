#include "common/clock.h"

#include <cstdio>
#include <ctime>

namespace kmock {

namespace {

// The civil time of t in UTC, written as "YYYY-MM-DDTHH:MM:SS" (19
// characters) into out, and the nanoseconds past that second. Plain
// arithmetic: timestamps are written for every status, event and log line,
// where gmtime_r and strftime cost ten times as much.
long long WriteSeconds(TimePoint t, char* out) {
  using namespace std::chrono;
  const long long ns_total =
      duration_cast<nanoseconds>(t.time_since_epoch()).count();
  long long secs = ns_total / 1000000000;
  long long ns = ns_total % 1000000000;
  if (ns < 0) {
    ns += 1000000000;
    --secs;
  }
  long long days = secs / 86400;
  long long rem = secs % 86400;
  if (rem < 0) {
    rem += 86400;
    --days;
  }
  const year_month_day ymd{sys_days{std::chrono::days{days}}};
  int year = static_cast<int>(ymd.year());
  if (year < 0 || year > 9999) year = year < 0 ? 0 : 9999;  // RFC 3339's range
  const unsigned fields[] = {
      static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()),
      static_cast<unsigned>(rem / 3600), static_cast<unsigned>(rem / 60 % 60),
      static_cast<unsigned>(rem % 60)};
  out[0] = static_cast<char>('0' + year / 1000);
  out[1] = static_cast<char>('0' + year / 100 % 10);
  out[2] = static_cast<char>('0' + year / 10 % 10);
  out[3] = static_cast<char>('0' + year % 10);
  const char separators[] = {'-', '-', 'T', ':', ':'};
  for (int i = 0; i < 5; ++i) {
    out[4 + 3 * i] = separators[i];
    out[5 + 3 * i] = static_cast<char>('0' + fields[i] / 10);
    out[6 + 3 * i] = static_cast<char>('0' + fields[i] % 10);
  }
  return ns;
}

// Appends `digits` decimal digits of v (zero-padded) to out.
void AppendDigits(long long v, int digits, std::string* out) {
  char buf[16];
  for (int i = digits - 1; i >= 0; --i) {
    buf[i] = static_cast<char>('0' + v % 10);
    v /= 10;
  }
  out->append(buf, static_cast<size_t>(digits));
}

}  // namespace

std::string FormatRfc3339(TimePoint t) {
  char buf[20];
  WriteSeconds(t, buf);
  buf[19] = 'Z';
  return std::string(buf, 20);
}

std::string FormatRfc3339Micro(TimePoint t) {
  char buf[19];
  long long ns = WriteSeconds(t, buf);
  std::string out(buf, 19);
  out.push_back('.');
  AppendDigits(ns / 1000, 6, &out);
  out.push_back('Z');
  return out;
}

std::string FormatRfc3339Nano(TimePoint t) {
  char buf[19];
  long long ns = WriteSeconds(t, buf);
  std::string out(buf, 19);
  if (ns != 0) {
    int digits = 9;
    while (ns % 10 == 0) {
      ns /= 10;
      --digits;
    }
    out.push_back('.');
    AppendDigits(ns, digits, &out);
  }
  out.push_back('Z');
  return out;
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
