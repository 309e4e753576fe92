#include "sim/builtins.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <regex>
#include <sstream>

#include "sim/tar.h"

namespace kmock::sim {
namespace {

using Effect = CommandRun::Effect;

std::string Path(const CommandRun& r, const std::string& p) {
  return Filesystem::Normalize(r.shell->cwd, p);
}

bool IsBusybox(const CommandRun& r) { return r.shell->shell == "busybox"; }

void Fail(CommandRun& r, const std::string& msg, int status = 1) {
  r.err += msg + "\n";
  r.status = status;
}

// "\n", "\t", "\\" and friends, as echo -e and printf read them.
std::string Unescape(const std::string& s, bool* stop = nullptr) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\\' || i + 1 == s.size()) {
      out += s[i];
      continue;
    }
    char c = s[++i];
    switch (c) {
      case 'n':
        out += '\n';
        break;
      case 't':
        out += '\t';
        break;
      case 'r':
        out += '\r';
        break;
      case '\\':
        out += '\\';
        break;
      case 'a':
        out += '\a';
        break;
      case 'e':
        out += '\x1b';
        break;
      case 'c':
        if (stop) *stop = true;
        return out;
      case '0': {
        int v = 0, n = 0;
        while (n < 3 && i + 1 < s.size() && s[i + 1] >= '0' &&
               s[i + 1] <= '7') {
          v = v * 8 + (s[++i] - '0');
          ++n;
        }
        out += static_cast<char>(v);
        break;
      }
      default:
        out += '\\';
        out += c;
    }
  }
  return out;
}

void Echo(CommandRun& r) {
  bool newline = true, escapes = r.shell->shell == "dash";
  size_t i = 1;
  for (; i < r.argv.size(); ++i) {
    const std::string& a = r.argv[i];
    if (a.size() < 2 || a[0] != '-' ||
        a.find_first_not_of("neE", 1) != std::string::npos)
      break;
    for (char c : a.substr(1)) {
      if (c == 'n') newline = false;
      if (c == 'e') escapes = true;
      if (c == 'E') escapes = false;
    }
  }
  std::string out;
  bool stop = false;
  for (size_t k = i; k < r.argv.size() && !stop; ++k) {
    if (k > i) out += ' ';
    out += escapes ? Unescape(r.argv[k], &stop) : r.argv[k];
  }
  if (newline && !stop) out += '\n';
  r.out += out;
}

void Printf(CommandRun& r) {
  if (r.argv.size() < 2) {
    Fail(r, "printf: usage: printf format [arguments]", 2);
    return;
  }
  std::string fmt = r.argv[1];
  size_t arg = 2;
  do {
    bool consumed = false;
    for (size_t i = 0; i < fmt.size(); ++i) {
      char c = fmt[i];
      if (c == '\\') {
        size_t j = i + 1;
        r.out += Unescape(fmt.substr(i, 2));
        i = j;
        continue;
      }
      if (c != '%' || i + 1 == fmt.size()) {
        r.out += c;
        continue;
      }
      size_t j = i + 1;
      std::string spec = "%";
      while (j < fmt.size() &&
             std::string("-+ #0123456789.").find(fmt[j]) != std::string::npos)
        spec += fmt[j++];
      if (j == fmt.size()) break;
      char conv = fmt[j];
      i = j;
      if (conv == '%') {
        r.out += '%';
        continue;
      }
      std::string v = arg < r.argv.size() ? r.argv[arg++] : "";
      consumed = true;
      char buf[256];
      if (conv == 'd' || conv == 'i') {
        std::snprintf(buf, sizeof(buf), (spec + "lld").c_str(),
                      std::atoll(v.c_str()));
      } else if (conv == 'x' || conv == 'X' || conv == 'o' || conv == 'u') {
        std::snprintf(buf, sizeof(buf), (spec + "ll" + conv).c_str(),
                      std::atoll(v.c_str()));
      } else if (conv == 'f' || conv == 'e' || conv == 'g') {
        std::snprintf(buf, sizeof(buf), (spec + conv).c_str(),
                      std::atof(v.c_str()));
      } else if (conv == 'c') {
        std::snprintf(buf, sizeof(buf), "%s", v.substr(0, 1).c_str());
      } else if (conv == 'b') {
        r.out += Unescape(v);
        continue;
      } else {
        std::string s = v.substr(0, 200);
        std::snprintf(buf, sizeof(buf), (spec + "s").c_str(), s.c_str());
      }
      r.out += buf;
    }
    if (!consumed) break;
  } while (arg < r.argv.size());
}

void Sleep(CommandRun& r) {
  if (r.argv.size() < 2) {
    Fail(r, IsBusybox(r) ? "sleep: applet requires arguments"
                         : "sleep: missing operand");
    return;
  }
  std::chrono::milliseconds total{0};
  for (size_t i = 1; i < r.argv.size(); ++i) {
    std::chrono::milliseconds d{0};
    bool forever = false;
    if (!ParseSleep(r.argv[i], &d, &forever)) {
      Fail(r, IsBusybox(r)
                  ? "sleep: invalid number '" + r.argv[i] + "'"
                  : "sleep: invalid time interval '" + r.argv[i] + "'");
      return;
    }
    if (forever) {
      r.effect = Effect::kForever;
      return;
    }
    total += d;
  }
  r.effect = Effect::kSleep;
  r.sleep = total;
}

void Exit(CommandRun& r) {
  r.effect = Effect::kExit;
  if (r.argv.size() > 1) {
    r.status = std::atoi(r.argv[1].c_str()) & 255;
  } else {
    r.status = -1;  // the last status
  }
}

void True(CommandRun& r) { r.status = 0; }
void False(CommandRun& r) { r.status = 1; }

void Env(CommandRun& r) {
  for (const auto& [k, v] : r.shell->vars)
    if (r.shell->exported.count(k)) r.out += k + "=" + v + "\n";
}

void Printenv(CommandRun& r) {
  if (r.argv.size() == 1) return Env(r);
  r.status = 0;
  for (size_t i = 1; i < r.argv.size(); ++i) {
    auto it = r.shell->vars.find(r.argv[i]);
    if (it == r.shell->vars.end() || !r.shell->exported.count(r.argv[i])) {
      r.status = 1;
    } else {
      r.out += it->second + "\n";
    }
  }
}

void Export(CommandRun& r) {
  for (size_t i = 1; i < r.argv.size(); ++i) {
    const std::string& a = r.argv[i];
    if (a == "-p") continue;
    size_t eq = a.find('=');
    std::string name = a.substr(0, eq);
    if (eq != std::string::npos) r.shell->vars[name] = a.substr(eq + 1);
    r.shell->exported[name] = true;
  }
}

void Unset(CommandRun& r) {
  for (size_t i = 1; i < r.argv.size(); ++i) {
    r.shell->vars.erase(r.argv[i]);
    r.shell->exported.erase(r.argv[i]);
  }
}

void Cd(CommandRun& r) {
  std::string to = r.argv.size() > 1 ? r.argv[1] : "/root";
  std::string p = Path(r, to);
  if (!r.shell->fs->IsDir(p)) {
    Fail(r,
         (IsBusybox(r) ? "sh: cd: can't cd to " : "sh: cd: ") + to +
             (IsBusybox(r) ? ": No such file or directory"
                           : ": No such file or directory"),
         IsBusybox(r) ? 2 : 1);
    return;
  }
  r.shell->cwd = p;
}

void Pwd(CommandRun& r) { r.out += r.shell->cwd + "\n"; }

std::string NoSuchFile(const CommandRun& r, const std::string& cmd,
                       const std::string& file) {
  // busybox's file readers say "can't open"; its other applets and GNU
  // coreutils name the file.
  if (IsBusybox(r) &&
      (cmd == "cat" || cmd == "head" || cmd == "tail" || cmd == "wc"))
    return cmd + ": can't open '" + file + "': No such file or directory";
  return cmd + ": " + file + ": No such file or directory";
}

void Cat(CommandRun& r) {
  if (r.argv.size() == 1) {
    r.out += r.in;
    return;
  }
  for (size_t i = 1; i < r.argv.size(); ++i) {
    if (r.argv[i] == "-") {
      r.out += r.in;
      continue;
    }
    std::string p = Path(r, r.argv[i]);
    if (r.shell->fs->IsDir(p)) {
      Fail(r, "cat: read error: Is a directory");
      continue;
    }
    auto data = r.shell->fs->Read(p);
    if (!data) {
      Fail(r, NoSuchFile(r, "cat", r.argv[i]));
      continue;
    }
    r.out += *data;
  }
}

void Ls(CommandRun& r) {
  bool all = false, long_form = false;
  std::vector<std::string> paths;
  for (size_t i = 1; i < r.argv.size(); ++i) {
    const std::string& a = r.argv[i];
    if (a.size() > 1 && a[0] == '-') {
      if (a.find('a') != std::string::npos) all = true;
      if (a.find('l') != std::string::npos) long_form = true;
    } else {
      paths.push_back(a);
    }
  }
  if (paths.empty()) paths.push_back(".");
  bool many = paths.size() > 1;
  std::string dirs_out;
  for (const auto& arg : paths) {
    std::string p = Path(r, arg);
    Filesystem* fs = r.shell->fs;
    auto line = [&](const std::string& name, const std::string& full) {
      if (!long_form) return name + "\n";
      bool dir = fs->IsDir(full);
      char buf[128];
      std::snprintf(buf, sizeof(buf), "%s %4d root     root     %10zu ",
                    dir ? "drwxr-xr-x" : "-rw-r--r--", dir ? 2 : 1,
                    dir ? size_t{4096} : fs->Size(full));
      return std::string(buf) + FormatTime(r.shell->now, "%b %e %H:%M") + " " +
             name + "\n";
    };
    if (fs->IsFile(p)) {
      r.out += line(arg, p);
      continue;
    }
    if (!fs->IsDir(p)) {
      Fail(r,
           IsBusybox(r)
               ? "ls: " + arg + ": No such file or directory"
               : "ls: cannot access '" + arg + "': No such file or directory",
           IsBusybox(r) ? 1 : 2);
      continue;
    }
    std::string block = many ? arg + ":\n" : "";
    if (long_form)
      block += "total " + std::to_string(fs->List(p).size() * 4) + "\n";
    if (all) {
      block += line(".", p);
      block += line("..", p);
    }
    for (const auto& name : fs->List(p)) {
      if (!all && name[0] == '.') continue;
      block += line(name, p == "/" ? "/" + name : p + "/" + name);
    }
    dirs_out += (dirs_out.empty() ? "" : "\n") + block;
  }
  r.out += dirs_out;
}

void Date(CommandRun& r) {
  std::string fmt = "%a %b %e %H:%M:%S UTC %Y";
  for (size_t i = 1; i < r.argv.size(); ++i) {
    if (!r.argv[i].empty() && r.argv[i][0] == '+') fmt = r.argv[i].substr(1);
  }
  r.out += FormatTime(r.shell->now, fmt) + "\n";
}

void Hostname(CommandRun& r) { r.out += r.shell->hostname + "\n"; }

void Ps(CommandRun& r) {
  char buf[512];
  const auto& processes =
      r.shell->host_processes ? r.shell->host_processes() : r.shell->processes;
  if (IsBusybox(r)) {
    r.out += "PID   USER     TIME  COMMAND\n";
    for (const auto& [pid, cmd] : processes) {
      std::snprintf(buf, sizeof(buf), "%5lld root      0:00 %s\n",
                    static_cast<long long>(pid), cmd.c_str());
      r.out += buf;
    }
    return;
  }
  r.out += "    PID TTY          TIME CMD\n";
  for (const auto& [pid, cmd] : processes) {
    std::string name = BaseName(cmd.substr(0, cmd.find(' ')));
    std::snprintf(buf, sizeof(buf), "%7lld ?        00:00:00 %s\n",
                  static_cast<long long>(pid), name.c_str());
    r.out += buf;
  }
}

bool ToInt(const std::string& s, long long* out) {
  if (s.empty()) return false;
  char* end = nullptr;
  *out = std::strtoll(s.c_str(), &end, 10);
  return end != nullptr && *end == '\0';
}

// test's expression over args[from, to).
int TestExpr(CommandRun& r, const std::vector<std::string>& a, size_t from,
             size_t to) {
  size_t n = to - from;
  if (n == 0) return 1;
  if (a[from] == "!") return TestExpr(r, a, from + 1, to) == 0 ? 1 : 0;
  for (size_t i = from + 1; i + 1 < to; ++i) {
    if (a[i] == "-a")
      return TestExpr(r, a, from, i) == 0 && TestExpr(r, a, i + 1, to) == 0 ? 0
                                                                            : 1;
    if (a[i] == "-o")
      return TestExpr(r, a, from, i) == 0 || TestExpr(r, a, i + 1, to) == 0 ? 0
                                                                            : 1;
  }
  if (n == 1) return a[from].empty() ? 1 : 0;
  if (n == 2) {
    const std::string& op = a[from];
    const std::string& v = a[from + 1];
    std::string p = Path(r, v);
    Filesystem* fs = r.shell->fs;
    if (op == "-z") return v.empty() ? 0 : 1;
    if (op == "-n") return v.empty() ? 1 : 0;
    if (op == "-e") return fs->Exists(p) ? 0 : 1;
    if (op == "-f") return fs->IsFile(p) ? 0 : 1;
    if (op == "-d") return fs->IsDir(p) ? 0 : 1;
    if (op == "-s") return fs->Size(p) > 0 ? 0 : 1;
    if (op == "-r" || op == "-w" || op == "-x") return fs->Exists(p) ? 0 : 1;
    return 2;
  }
  if (n == 3) {
    const std::string& x = a[from];
    const std::string& op = a[from + 1];
    const std::string& y = a[from + 2];
    if (op == "=" || op == "==") return x == y ? 0 : 1;
    if (op == "!=") return x != y ? 0 : 1;
    long long xi = 0, yi = 0;
    if (op.size() == 3 && op[0] == '-') {
      if (!ToInt(x, &xi) || !ToInt(y, &yi)) {
        Fail(r, "sh: " + (ToInt(x, &xi) ? y : x) + ": bad number", 2);
        return 2;
      }
      if (op == "-eq") return xi == yi ? 0 : 1;
      if (op == "-ne") return xi != yi ? 0 : 1;
      if (op == "-lt") return xi < yi ? 0 : 1;
      if (op == "-le") return xi <= yi ? 0 : 1;
      if (op == "-gt") return xi > yi ? 0 : 1;
      if (op == "-ge") return xi >= yi ? 0 : 1;
    }
  }
  return 2;
}

void Test(CommandRun& r) {
  std::vector<std::string> a = r.argv;
  if (BaseName(a[0]) == "[") {
    if (a.back() != "]") {
      Fail(r, "sh: missing ]", 2);
      return;
    }
    a.pop_back();
  }
  r.status = TestExpr(r, a, 1, a.size());
}

void Mkdir(CommandRun& r) {
  bool parents = false;
  for (size_t i = 1; i < r.argv.size(); ++i) {
    if (r.argv[i] == "-p") {
      parents = true;
      continue;
    }
    std::string p = Path(r, r.argv[i]);
    if (r.shell->fs->Exists(p) && !parents) {
      Fail(r, "mkdir: can't create directory '" + r.argv[i] + "': File exists");
      continue;
    }
    if (!r.shell->fs->MakeDir(p))
      Fail(r, "mkdir: can't create directory '" + r.argv[i] +
                  "': Read-only file system");
  }
}

void Touch(CommandRun& r) {
  for (size_t i = 1; i < r.argv.size(); ++i) {
    std::string p = Path(r, r.argv[i]);
    if (r.shell->fs->Exists(p)) continue;
    if (!r.shell->fs->Write(p, ""))
      Fail(r, "touch: " + r.argv[i] + ": Read-only file system");
  }
}

void Rm(CommandRun& r) {
  bool recursive = false, force = false;
  for (size_t i = 1; i < r.argv.size(); ++i) {
    const std::string& a = r.argv[i];
    if (a.size() > 1 && a[0] == '-') {
      if (a.find_first_of("rR") != std::string::npos) recursive = true;
      if (a.find('f') != std::string::npos) force = true;
      continue;
    }
    std::string p = Path(r, a);
    if (!r.shell->fs->Exists(p)) {
      if (!force)
        Fail(r, "rm: can't remove '" + a + "': No such file or directory");
      continue;
    }
    if (r.shell->fs->IsDir(p) && !recursive) {
      Fail(r, "rm: '" + a + "' is a directory");
      continue;
    }
    if (!r.shell->fs->Remove(p, recursive))
      Fail(r, "rm: can't remove '" + a + "': Read-only file system");
  }
}

// The text of the files named in argv[from...], or stdin without any.
bool ReadInputs(CommandRun& r, const std::string& cmd,
                const std::vector<std::string>& files, std::string* out) {
  if (files.empty()) {
    *out = r.in;
    return true;
  }
  for (const auto& f : files) {
    auto data = r.shell->fs->Read(Path(r, f));
    if (!data) {
      Fail(r, NoSuchFile(r, cmd, f));
      return false;
    }
    *out += *data;
  }
  return true;
}

std::vector<std::string> Lines(const std::string& s) {
  std::vector<std::string> lines;
  size_t i = 0;
  while (i < s.size()) {
    size_t j = s.find('\n', i);
    if (j == std::string::npos) j = s.size() - 1;
    lines.push_back(s.substr(i, j - i + 1));
    i = j + 1;
  }
  return lines;
}

void HeadTail(CommandRun& r) {
  bool head = BaseName(r.argv[0]) == "head";
  long long n = 10;
  std::vector<std::string> files;
  for (size_t i = 1; i < r.argv.size(); ++i) {
    const std::string& a = r.argv[i];
    if (a == "-n" && i + 1 < r.argv.size()) {
      n = std::atoll(r.argv[++i].c_str());
    } else if (a == "-f" || a == "-F") {
      if (!head) r.effect = Effect::kForever;
    } else if (a.size() > 1 && a[0] == '-') {
      n = std::atoll(a.c_str() + (a[1] == 'n' ? 2 : 1));
    } else {
      files.push_back(a);
    }
  }
  std::string text;
  if (!ReadInputs(r, head ? "head" : "tail", files, &text)) return;
  std::vector<std::string> lines = Lines(text);
  size_t count = static_cast<size_t>(std::max(0LL, n));
  size_t from = head ? 0 : (lines.size() > count ? lines.size() - count : 0);
  size_t to = head ? std::min(count, lines.size()) : lines.size();
  for (size_t i = from; i < to; ++i) r.out += lines[i];
}

void Wc(CommandRun& r) {
  bool l = false, w = false, c = false;
  std::vector<std::string> files;
  for (size_t i = 1; i < r.argv.size(); ++i) {
    const std::string& a = r.argv[i];
    if (a.size() > 1 && a[0] == '-') {
      l |= a.find('l') != std::string::npos;
      w |= a.find('w') != std::string::npos;
      c |= a.find_first_of("cm") != std::string::npos;
    } else {
      files.push_back(a);
    }
  }
  std::string text;
  if (!ReadInputs(r, "wc", files, &text)) return;
  long long lines = std::count(text.begin(), text.end(), '\n');
  long long words = 0;
  std::istringstream in(text);
  for (std::string x; in >> x;) ++words;
  if (!l && !w && !c) l = w = c = true;
  std::string out;
  auto add = [&](long long v) {
    char buf[32];
    std::snprintf(buf, sizeof(buf),
                  files.empty() && (l + w + c) == 1 ? "%lld" : "%7lld", v);
    out += (out.empty() ? "" : " ") + std::string(buf);
  };
  if (l) add(lines);
  if (w) add(words);
  if (c) add(static_cast<long long>(text.size()));
  if (!files.empty()) out += " " + files[0];
  r.out += out + "\n";
}

void Grep(CommandRun& r) {
  bool invert = false, icase = false, count = false, quiet = false;
  std::string pattern;
  bool have_pattern = false;
  std::vector<std::string> files;
  for (size_t i = 1; i < r.argv.size(); ++i) {
    const std::string& a = r.argv[i];
    if (a.size() > 1 && a[0] == '-' && !have_pattern) {
      invert |= a.find('v') != std::string::npos;
      icase |= a.find('i') != std::string::npos;
      count |= a.find('c') != std::string::npos;
      quiet |= a.find('q') != std::string::npos;
    } else if (!have_pattern) {
      pattern = a;
      have_pattern = true;
    } else {
      files.push_back(a);
    }
  }
  if (!have_pattern) {
    Fail(r, "Usage: grep [-ivcq] PATTERN [FILE]...", 2);
    return;
  }
  std::string text;
  if (!ReadInputs(r, "grep", files, &text)) {
    r.status = 2;
    return;
  }
  std::regex re;
  try {
    re = std::regex(pattern, icase ? std::regex::basic | std::regex::icase
                                   : std::regex::basic);
  } catch (const std::regex_error&) {
    Fail(r, "grep: bad regex '" + pattern + "'", 2);
    return;
  }
  long long matched = 0;
  for (const auto& line : Lines(text)) {
    std::string body =
        line.back() == '\n' ? line.substr(0, line.size() - 1) : line;
    bool m = std::regex_search(body, re) != invert;
    if (!m) continue;
    ++matched;
    if (!count && !quiet) r.out += body + "\n";
  }
  if (count) r.out += std::to_string(matched) + "\n";
  r.status = matched > 0 ? 0 : 1;
}

void Seq(CommandRun& r) {
  long long first = 1, step = 1, last = 0;
  std::vector<long long> v;
  for (size_t i = 1; i < r.argv.size(); ++i)
    v.push_back(std::atoll(r.argv[i].c_str()));
  if (v.size() == 1) last = v[0];
  if (v.size() == 2) first = v[0], last = v[1];
  if (v.size() >= 3) first = v[0], step = v[1], last = v[2];
  if (step == 0) return;
  for (long long x = first, n = 0;
       (step > 0 ? x <= last : x >= last) && n < 100000; x += step, ++n)
    r.out += std::to_string(x) + "\n";
}

void Tee(CommandRun& r) {
  bool append = false;
  for (size_t i = 1; i < r.argv.size(); ++i) {
    if (r.argv[i] == "-a") {
      append = true;
      continue;
    }
    if (!r.shell->fs->Write(Path(r, r.argv[i]), r.in, append))
      Fail(r, "tee: " + r.argv[i] + ": Read-only file system");
  }
  r.out += r.in;
}

void Uname(CommandRun& r) {
  bool all = r.argv.size() > 1 && r.argv[1] == "-a";
  r.out += all ? "Linux " + r.shell->hostname +
                     " 6.1.0-27-cloud-amd64 #1 SMP PREEMPT_DYNAMIC Debian "
                     "6.1.115-1 (2024-11-01) x86_64 GNU/Linux\n"
               : "Linux\n";
}

void Id(CommandRun& r) {
  r.out += "uid=0(root) gid=0(root) groups=0(root),10(wheel)\n";
}
void Whoami(CommandRun& r) { r.out += "root\n"; }
void Nproc(CommandRun& r) { r.out += "2\n"; }

void BasenameCmd(CommandRun& r) {
  if (r.argv.size() < 2) return Fail(r, "basename: missing operand");
  std::string b = BaseName(r.argv[1]);
  if (r.argv.size() > 2 && b.size() > r.argv[2].size() &&
      b.compare(b.size() - r.argv[2].size(), std::string::npos, r.argv[2]) == 0)
    b = b.substr(0, b.size() - r.argv[2].size());
  r.out += b + "\n";
}

void Dirname(CommandRun& r) {
  if (r.argv.size() < 2) return Fail(r, "dirname: missing operand");
  std::string p = r.argv[1];
  size_t slash = p.rfind('/');
  r.out += (slash == std::string::npos ? "."
            : slash == 0               ? "/"
                                       : p.substr(0, slash)) +
           "\n";
}

void Noop(CommandRun& r) { r.status = 0; }

void Wait(CommandRun& r) { r.status = 0; }  // the shell handles a blocking wait

void Yes(CommandRun& r) {
  std::string line = (r.argv.size() > 1 ? r.argv[1] : "y") + "\n";
  for (int i = 0; i < 1000; ++i) r.out += line;
}

void Sort(CommandRun& r) {
  std::vector<std::string> files(r.argv.begin() + 1, r.argv.end());
  files.erase(std::remove_if(files.begin(), files.end(),
                             [](const std::string& f) {
                               return !f.empty() && f[0] == '-';
                             }),
              files.end());
  std::string text;
  if (!ReadInputs(r, "sort", files, &text)) return;
  std::vector<std::string> lines = Lines(text);
  for (auto& l : lines)
    if (l.back() != '\n') l += '\n';
  std::sort(lines.begin(), lines.end());
  for (const auto& l : lines) r.out += l;
}

struct Entry {
  const char* name;
  BuiltinFn fn;
};

constexpr Entry kBuiltins[] = {
    {"echo", Echo},
    {"printf", Printf},
    {"sleep", Sleep},
    {"exit", Exit},
    {"true", True},
    {"false", False},
    {":", True},
    {"env", Env},
    {"printenv", Printenv},
    {"export", Export},
    {"unset", Unset},
    {"cd", Cd},
    {"pwd", Pwd},
    {"cat", Cat},
    {"ls", Ls},
    {"date", Date},
    {"hostname", Hostname},
    {"ps", Ps},
    {"test", Test},
    {"[", Test},
    {"mkdir", Mkdir},
    {"touch", Touch},
    {"rm", Rm},
    {"head", HeadTail},
    {"tail", HeadTail},
    {"wc", Wc},
    {"grep", Grep},
    {"seq", Seq},
    {"tee", Tee},
    {"uname", Uname},
    {"id", Id},
    {"whoami", Whoami},
    {"nproc", Nproc},
    {"basename", BasenameCmd},
    {"dirname", Dirname},
    {"trap", Noop},
    {"set", Noop},
    {"wait", Wait},
    {"sync", Noop},
    {"yes", Yes},
    {"sort", Sort},
    {"tar", TarCommand},
};

}  // namespace

std::string BaseName(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

BuiltinFn FindBuiltin(const std::string& name) {
  std::string base = BaseName(name);
  for (const auto& e : kBuiltins)
    if (base == e.name) return e.fn;
  return nullptr;
}

std::string NotFoundMessage(const std::string& shell, const std::string& cmd) {
  if (shell == "bash") return "bash: line 1: " + cmd + ": command not found";
  if (shell == "dash") return "sh: 1: " + cmd + ": not found";
  return "sh: " + cmd + ": not found";
}

bool ParseSleep(const std::string& arg, std::chrono::milliseconds* out,
                bool* forever) {
  *forever = false;
  if (arg == "infinity" || arg == "inf") {
    *forever = true;
    return true;
  }
  if (arg.empty()) return false;
  double mult = 1000;
  std::string num = arg;
  switch (arg.back()) {
    case 's':
      num.pop_back();
      break;
    case 'm':
      mult = 60e3;
      num.pop_back();
      break;
    case 'h':
      mult = 3600e3;
      num.pop_back();
      break;
    case 'd':
      mult = 86400e3;
      num.pop_back();
      break;
    default:
      break;
  }
  if (num.empty() ||
      num.find_first_not_of("0123456789.") != std::string::npos ||
      std::count(num.begin(), num.end(), '.') > 1 || num == ".")
    return false;
  double v = std::atof(num.c_str()) * mult;
  if (v > 1e15) {
    *forever = true;
    return true;
  }
  *out = std::chrono::milliseconds(static_cast<int64_t>(std::llround(v)));
  return true;
}

std::string FormatTime(TimePoint t, const std::string& format) {
  std::time_t tt = std::chrono::system_clock::to_time_t(t);
  std::tm tm{};
  gmtime_r(&tt, &tm);
  char buf[512];
  size_t n = std::strftime(buf, sizeof(buf), format.c_str(), &tm);
  return std::string(buf, n);
}

}  // namespace kmock::sim
