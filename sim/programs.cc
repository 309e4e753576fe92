#include "sim/programs.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <regex>

namespace kmock::sim {
namespace {

using Effect = CommandRun::Effect;

// {time:FORMAT}, {hostname}, {version}, {ip} in a profile's text.
std::string Fill(const ProgramContext& ctx, const std::string& text) {
  std::string out, time_key, time_text;
  out.reserve(text.size() + 64);
  size_t i = 0;
  while (i < text.size()) {
    size_t open = text.find('{', i);
    if (open == std::string::npos) {
      out += text.substr(i);
      break;
    }
    size_t close = text.find('}', open);
    if (close == std::string::npos) {
      out += text.substr(i);
      break;
    }
    out += text.substr(i, open - i);
    std::string key = text.substr(open + 1, close - open - 1);
    if (key.rfind("time:", 0) == 0) {
      // Start-up lines repeat one format (nginx's eight): format it once.
      if (key != time_key) {
        time_key = key;
        time_text = FormatTime(ctx.now, key.substr(5));
      }
      out += time_text;
    } else if (key == "hostname") {
      out += ctx.spec.hostname;
    } else if (key == "ip") {
      out += ctx.spec.ip;
    } else if (key == "version") {
      out += ctx.spec.image != nullptr ? ctx.spec.image->version : "";
    } else {
      out += text.substr(open, close - open + 1);
    }
    i = close + 1;
  }
  return out;
}

bool EnvSet(const ShellState& sh, const std::string& name) {
  auto it = sh.vars.find(name);
  return it != sh.vars.end() && !it->second.empty();
}

// print('...') / console.log("...") of string literals, in order.
std::string PrintedLiterals(const std::string& code, const std::string& fn) {
  std::regex re(fn + "\\(\\s*(['\"])((?:(?!\\1).)*)\\1\\s*\\)");
  std::string out;
  for (std::sregex_iterator it(code.begin(), code.end(), re), end; it != end;
       ++it)
    out += (*it)[2].str() + "\n";
  return out;
}

void RunInterpreter(const ProgramContext& ctx, CommandRun& run) {
  const std::string& lang = ctx.program.interpreter;
  const auto& a = run.argv;
  for (size_t i = 1; i < a.size(); ++i) {
    if ((a[i] == "-c" && lang == "python") ||
        ((a[i] == "-e" || a[i] == "-p" || a[i] == "--eval") &&
         lang == "node")) {
      if (i + 1 < a.size())
        run.out += PrintedLiterals(
            a[i + 1], lang == "python" ? "print" : "console\\.log");
      return;
    }
    if (a[i] == "-m" && lang == "python" && i + 1 < a.size()) {
      if (a[i + 1] == "http.server") {
        int port = i + 2 < a.size() ? std::atoi(a[i + 2].c_str()) : 8000;
        if (port <= 0) port = 8000;
        std::string p = std::to_string(port);
        run.out += "Serving HTTP on 0.0.0.0 port " + p +
                   " (http://0.0.0.0:" + p + "/) ...\n";
        run.ports.push_back(port);
        run.protocols[port] = "http-files";
        run.effect = Effect::kForever;
        return;
      }
      run.err += "/usr/local/bin/python: No module named " + a[i + 1] + "\n";
      run.status = 1;
      return;
    }
    if (!a[i].empty() && a[i][0] == '-') continue;
    std::string path = Filesystem::Normalize(ctx.sh.cwd, a[i]);
    if (!ctx.sh.fs->IsFile(path)) {
      if (lang == "python") {
        run.err += BaseName(a[0]) + ": can't open file '" + path +
                   "': [Errno 2] No such file or directory\n";
        run.status = 2;
      } else {
        run.err +=
            "node:internal/modules/cjs/loader:1386\n  throw err;\n  ^\n\n"
            "Error: Cannot find module '" +
            path +
            "'\n"
            "    at Function._resolveFilename "
            "(node:internal/modules/cjs/loader:1383:15)\n"
            "    at node:internal/main/run_main_module:36:49 {\n"
            "  code: 'MODULE_NOT_FOUND',\n  requireStack: []\n}\n\n"
            "Node.js v" +
            (ctx.spec.image ? ctx.spec.image->version : "") + "\n";
        run.status = 1;
      }
      return;
    }
    // A program file of the user's: it runs until stopped.
    run.effect = Effect::kForever;
    return;
  }
  // No program and no terminal: the interpreter reads stdin and ends.
  run.out +=
      PrintedLiterals(run.in, lang == "python" ? "print" : "console\\.log");
}

std::string FlagValue(const std::vector<std::string>& argv,
                      const std::string& flag, const std::string& dflt) {
  for (size_t i = 0; i < argv.size(); ++i) {
    if (argv[i].rfind(flag + "=", 0) == 0)
      return argv[i].substr(flag.size() + 1);
    if (argv[i] == flag && i + 1 < argv.size()) return argv[i + 1];
  }
  return dflt;
}

void RunAgnhost(CommandRun& run) {
  std::string verb = run.argv.size() > 1 ? run.argv[1] : "";
  auto serve = [&](int port, const char* protocol = "") {
    run.ports.push_back(port);
    if (*protocol) run.protocols[port] = protocol;
    run.effect = Effect::kForever;
  };
  if (verb == "pause") {
    run.out += "Paused\n";
    run.effect = Effect::kForever;
  } else if (verb == "netexec") {
    int http = std::atoi(FlagValue(run.argv, "--http-port", "8080").c_str());
    int udp = std::atoi(FlagValue(run.argv, "--udp-port", "8081").c_str());
    run.err += "Started HTTP server on port " + std::to_string(http) + "\n";
    run.err += "Started UDP server on port  " + std::to_string(udp) + "\n";
    serve(http, "agnhost-netexec");
  } else if (verb == "serve-hostname") {
    serve(std::atoi(FlagValue(run.argv, "--port", "9376").c_str()),
          "agnhost-hostname");
  } else if (verb == "liveness") {
    run.err += "Started HTTP server on port 8080\n";
    serve(8080);
  } else if (verb == "test-webserver") {
    serve(std::atoi(FlagValue(run.argv, "--port", "80").c_str()),
          "agnhost-netexec");
  } else if (verb == "porter") {
    run.effect = Effect::kForever;
  } else if (verb == "fake-gitserver") {
    serve(8000);
  } else if (verb == "dns-suffix" || verb == "dns-server-list" ||
             verb == "etc-hosts") {
    run.status = 0;
  } else {
    run.err += "Error: unknown command \"" + verb +
               "\" for \"agnhost\"\n"
               "Run 'agnhost --help' for usage.\n";
    run.status = 1;
  }
}

// A fixed-point number: limbs[0] the integer part, then base-1e9 fractions.
using Fixed = std::vector<uint64_t>;
constexpr uint64_t kBase = 1000000000;

void DivSmall(Fixed& x, uint64_t d) {
  uint64_t rem = 0;
  for (auto& limb : x) {
    uint64_t cur = rem * kBase + limb;
    limb = cur / d;
    rem = cur % d;
  }
}

void AddTo(Fixed& x, const Fixed& y, bool subtract) {
  int64_t carry = 0;
  for (size_t i = x.size(); i-- > 0;) {
    int64_t v =
        static_cast<int64_t>(x[i]) +
        (subtract ? -static_cast<int64_t>(y[i]) : static_cast<int64_t>(y[i])) +
        carry;
    carry = 0;
    if (v < 0) {
      v += kBase;
      carry = -1;
    } else if (v >= static_cast<int64_t>(kBase) && i > 0) {
      v -= kBase;
      carry = 1;
    }
    x[i] = static_cast<uint64_t>(v);
  }
}

void MulSmall(Fixed& x, uint64_t m) {
  uint64_t carry = 0;
  for (size_t i = x.size(); i-- > 0;) {
    uint64_t v = x[i] * m + carry;
    x[i] = i > 0 ? v % kBase : v;
    carry = v / kBase;
  }
}

bool IsZero(const Fixed& x) {
  for (auto v : x)
    if (v) return false;
  return true;
}

// atan(1/n) by its series.
Fixed AtanInv(uint64_t n, size_t limbs) {
  Fixed sum(limbs, 0), power(limbs, 0);
  power[0] = 1;
  DivSmall(power, n);
  for (uint64_t k = 0; !IsZero(power); ++k) {
    Fixed term = power;
    DivSmall(term, 2 * k + 1);
    AddTo(sum, term, k % 2 == 1);
    DivSmall(power, n * n);
  }
  return sum;
}

}  // namespace

std::string PiDigits(int digits) {
  if (digits < 1) digits = 1;
  if (digits > 100000) digits = 100000;
  size_t limbs = static_cast<size_t>(digits) / 9 + 4;
  Fixed a = AtanInv(5, limbs);
  Fixed b = AtanInv(239, limbs);
  MulSmall(a, 4);
  AddTo(a, b, true);
  MulSmall(a, 4);
  std::string all = std::to_string(a[0]);
  for (size_t i = 1; i < a.size(); ++i) {
    char buf[16];
    std::snprintf(buf, sizeof(buf), "%09llu",
                  static_cast<unsigned long long>(a[i]));
    all += buf;
  }
  // all = "31415926..." with the integer digit first; round to `digits`.
  std::string d = all.substr(0, digits);
  if (all[digits] >= '5') {
    int i = digits - 1;
    while (i >= 0 && d[i] == '9') d[i--] = '0';
    if (i >= 0) ++d[i];
  }
  if (digits == 1) return d;
  return d.substr(0, 1) + "." + d.substr(1);
}

const ProgramProfile* FindProgram(const ImageProfile* image,
                                  const std::string& name) {
  if (image == nullptr) return nullptr;
  auto it = image->programs.find(name);
  if (it != image->programs.end()) return &it->second;
  std::string base = BaseName(name);
  for (const auto& [key, prog] : image->programs)
    if (BaseName(key) == base) return &prog;
  return nullptr;
}

void RunProgram(const ProgramContext& ctx, CommandRun& run,
                const std::function<void(CommandRun&)>& run_command) {
  const ProgramProfile& prog = ctx.program;
  if (prog.exec) {
    std::vector<std::string> rest(run.argv.begin() + 1, run.argv.end());
    bool own = !rest.empty() &&
               FindProgram(ctx.spec.image, rest[0]) != nullptr &&
               FindProgram(ctx.spec.image, rest[0]) != &prog;
    if (own) {
      bool env_ok = prog.require_env.empty();
      for (const auto& e : prog.require_env)
        env_ok = env_ok || EnvSet(ctx.sh, e);
      run.out += Fill(ctx, prog.stdout_text);
      run.err += Fill(ctx, prog.stderr_text);
      if (!env_ok) {
        run.err += Fill(ctx, prog.missing_env);
        run.status = 1;
        return;
      }
    }
    if (rest.empty()) return;
    CommandRun next;
    next.argv = std::move(rest);
    next.in = run.in;
    next.shell = run.shell;
    run_command(next);
    run.out += next.out;
    run.err += next.err;
    run.status = next.status;
    run.effect = next.effect;
    run.sleep = next.sleep;
    run.ports.insert(run.ports.end(), next.ports.begin(), next.ports.end());
    run.protocols.insert(next.protocols.begin(), next.protocols.end());
    return;
  }
  if (prog.pi) {
    std::smatch m;
    std::string joined;
    for (const auto& a : run.argv) joined += a + " ";
    static const std::regex kBpi("bpi\\(\\s*([0-9]+)\\s*\\)");
    if (std::regex_search(joined, m, kBpi)) {
      run.out += PiDigits(std::atoi(m[1].str().c_str())) + "\n";
    } else {
      run.out += PrintedLiterals(joined, "print ?");
    }
    return;
  }
  if (!prog.interpreter.empty()) return RunInterpreter(ctx, run);
  if (prog.agnhost) return RunAgnhost(run);
  run.out += Fill(ctx, prog.stdout_text);
  run.err += Fill(ctx, prog.stderr_text);
  run.ports.insert(run.ports.end(), prog.ports.begin(), prog.ports.end());
  if (!prog.protocol.empty())
    for (int p : prog.ports) run.protocols[p] = prog.protocol;
  if (prog.exit_code) {
    run.status = *prog.exit_code;
  } else {
    run.effect = Effect::kForever;
  }
}

int64_t MemoryNeedBytes(const ImageProfile* image,
                        const std::vector<std::string>& argv) {
  int64_t need = image != nullptr ? int64_t{image->memory_mib} << 20 : 0;
  for (size_t i = 0; i + 1 < argv.size(); ++i) {
    if (argv[i] != "--vm-bytes") continue;
    const std::string& v = argv[i + 1];
    char* end = nullptr;
    double n = std::strtod(v.c_str(), &end);
    int64_t unit = 1;
    switch (end != nullptr ? *end : '\0') {
      case 'K':
      case 'k':
        unit = int64_t{1} << 10;
        break;
      case 'M':
      case 'm':
        unit = int64_t{1} << 20;
        break;
      case 'G':
      case 'g':
        unit = int64_t{1} << 30;
        break;
      default:
        break;
    }
    need = std::max(need, static_cast<int64_t>(n * static_cast<double>(unit)));
  }
  return need;
}

}  // namespace kmock::sim
