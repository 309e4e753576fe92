#include "sim/process.h"

#include <algorithm>
#include <cctype>

#include "sim/builtins.h"
#include "sim/programs.h"

namespace kmock::sim {
namespace {

using Effect = CommandRun::Effect;

// Instructions one Advance may run before a process that never waits is
// treated as busy: it yields and runs on at a later moment.
constexpr int kBudget = 20000;
constexpr auto kBusyYield = std::chrono::milliseconds(100);

bool IsShellName(const std::string& name) {
  static const char* kShells[] = {"sh", "bash", "ash", "dash"};
  std::string base = name.substr(name.rfind('/') + 1);
  for (const char* s : kShells)
    if (base == s) return true;
  return false;
}

std::string Joined(const std::vector<std::string>& argv) {
  std::string s;
  for (const auto& a : argv) s += (s.empty() ? "" : " ") + a;
  return s;
}

// A tiny evaluator of $((...)): integers, variables, + - * / % and
// comparisons, && || ! and parentheses.
class Arith {
 public:
  Arith(const std::string& text, const std::map<std::string, std::string>& vars)
      : s_(text), vars_(vars) {}
  bool Eval(long long* out) {
    *out = Or();
    Skip();
    return ok_ && i_ == s_.size();
  }

 private:
  void Skip() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_])))
      ++i_;
  }
  bool Eat(const char* op) {
    Skip();
    std::string o(op);
    if (s_.compare(i_, o.size(), o) == 0) {
      // '<' must not take the first half of "<=".
      if (o.size() == 1 && i_ + 1 < s_.size() &&
          (o == "<" || o == ">" || o == "!") && s_[i_ + 1] == '=')
        return false;
      if (o.size() == 1 && (o == "&" || o == "|") && i_ + 1 < s_.size() &&
          s_[i_ + 1] == o[0])
        return false;
      i_ += o.size();
      return true;
    }
    return false;
  }
  long long Or() {
    long long v = And();
    while (Eat("||")) {
      long long r = And();
      v = (v || r);
    }
    return v;
  }
  long long And() {
    long long v = Cmp();
    while (Eat("&&")) {
      long long r = Cmp();
      v = (v && r);
    }
    return v;
  }
  long long Cmp() {
    long long v = Sum();
    while (true) {
      if (Eat("=="))
        v = v == Sum();
      else if (Eat("!="))
        v = v != Sum();
      else if (Eat("<="))
        v = v <= Sum();
      else if (Eat(">="))
        v = v >= Sum();
      else if (Eat("<"))
        v = v < Sum();
      else if (Eat(">"))
        v = v > Sum();
      else
        return v;
    }
  }
  long long Sum() {
    long long v = Prod();
    while (true) {
      if (Eat("+"))
        v += Prod();
      else if (Eat("-"))
        v -= Prod();
      else
        return v;
    }
  }
  long long Prod() {
    long long v = Unary();
    while (true) {
      if (Eat("*")) {
        v *= Unary();
      } else if (Eat("/") || Eat("%")) {
        bool div = s_[i_ - 1] == '/';
        long long r = Unary();
        if (r == 0) {
          ok_ = false;
          return 0;
        }
        v = div ? v / r : v % r;
      } else {
        return v;
      }
    }
  }
  long long Unary() {
    if (++depth_ > 200) {
      ok_ = false;
      return 0;
    }
    long long v;
    if (Eat("-"))
      v = -Unary();
    else if (Eat("+"))
      v = Unary();
    else if (Eat("!"))
      v = !Unary();
    else
      v = Atom();
    --depth_;
    return v;
  }
  long long Atom() {
    Skip();
    if (Eat("(")) {
      long long v = Or();
      if (!Eat(")")) ok_ = false;
      return v;
    }
    if (i_ < s_.size() && s_[i_] == '$') ++i_;
    size_t start = i_;
    if (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_]))) {
      while (i_ < s_.size() && std::isalnum(static_cast<unsigned char>(s_[i_])))
        ++i_;
      return std::strtoll(s_.substr(start, i_ - start).c_str(), nullptr, 0);
    }
    while (i_ < s_.size() &&
           (std::isalnum(static_cast<unsigned char>(s_[i_])) || s_[i_] == '_'))
      ++i_;
    if (start == i_) {
      ok_ = false;
      return 0;
    }
    auto it = vars_.find(s_.substr(start, i_ - start));
    return it == vars_.end() ? 0
                             : std::strtoll(it->second.c_str(), nullptr, 10);
  }

  std::string s_;
  const std::map<std::string, std::string>& vars_;
  size_t i_ = 0;
  bool ok_ = true;
  int depth_ = 0;
};

}  // namespace

struct Process::Impl {
  struct Loop {
    std::vector<std::string> values;
    size_t next = 0;
  };
  struct Frame {
    std::shared_ptr<const Script> script;
    size_t pc = 0;
    std::vector<Loop> loops;
    std::vector<std::string> positional;  // $0 $1 ...
  };
  // Where a command's output goes: the log, a captured string, or a file.
  struct Sink {
    bool capture = false;
    std::string out, err;
  };

  ProcessSpec spec;
  ShellState sh;
  std::vector<Frame> frames;
  int status = 0;
  TimePoint vt{};
  bool started = false;
  bool background_forever = false;
  std::vector<Output>* log = nullptr;
  std::vector<int> ports;
  std::map<int, std::string> protocols;
  int budget = 0;
  int substitution_depth = 0;
  // What the process's standard input holds: the first command that
  // reads it gets it all.
  std::string stdin_data;

  explicit Impl(ProcessSpec s) : spec(std::move(s)) {
    sh.fs = spec.fs;
    sh.hostname = spec.hostname;
    sh.shell = spec.image == nullptr ? "busybox" : spec.image->shell;
    if (sh.shell.empty()) sh.shell = "busybox";
    for (const auto& [k, v] : spec.env) {
      sh.vars[k] = v;
      sh.exported[k] = true;
    }
    sh.processes.push_back({1, Joined(spec.argv)});
    sh.host_processes = spec.host_processes;
    vt = spec.start;
  }

  bool HasShell() const {
    return spec.image == nullptr || !spec.image->shell.empty();
  }

  // Whether the container has a program of that name: a shell, a
  // builtin (with a shell) or one of its image's programs; an image we
  // know nothing of has every program.
  bool HasProgram(const std::string& name) const {
    return spec.image == nullptr || (HasShell() && IsShellName(name)) ||
           (HasShell() && FindBuiltin(name) != nullptr) ||
           FindProgram(spec.image, name) != nullptr;
  }

  void Emit(Sink& sink, int fd, const std::string& text) {
    if (text.empty()) return;
    if (sink.capture) {
      (fd == 2 ? sink.err : sink.out) += text;
      return;
    }
    if (log != nullptr) log->push_back(Output{vt, fd, text});
  }

  // ---- expansion ----

  std::string Var(const std::string& name) {
    const Frame* f = frames.empty() ? nullptr : &frames.back();
    if (name == "?") return std::to_string(status);
    if (name == "$") return "1";
    if (name == "!") return "";
    if (name == "#")
      return std::to_string(
          f && !f->positional.empty() ? f->positional.size() - 1 : 0);
    if (name == "@" || name == "*") {
      std::string s;
      if (f)
        for (size_t i = 1; i < f->positional.size(); ++i)
          s += (i > 1 ? " " : "") + f->positional[i];
      return s;
    }
    if (!name.empty() && std::isdigit(static_cast<unsigned char>(name[0]))) {
      size_t i = std::strtoul(name.c_str(), nullptr, 10);
      return f && i < f->positional.size() ? f->positional[i] : "";
    }
    if (!name.empty() && name[0] == '#')
      return std::to_string(Var(name.substr(1)).size());
    for (const char* op : {":-", ":=", "-", "="}) {
      size_t at = name.find(op);
      if (at == std::string::npos || at == 0) continue;
      std::string base = name.substr(0, at);
      std::string alt = name.substr(at + std::string(op).size());
      auto it = sh.vars.find(base);
      bool colon = op[0] == ':';
      bool unset = it == sh.vars.end() || (colon && it->second.empty());
      if (!unset) return it->second;
      if (op[std::string(op).size() - 1] == '=') sh.vars[base] = alt;
      return alt;
    }
    auto it = sh.vars.find(name);
    return it == sh.vars.end() ? "" : it->second;
  }

  std::string Substitute(const std::shared_ptr<const Script>& script) {
    if (substitution_depth > 20) return "";
    ++substitution_depth;
    Sink sink;
    sink.capture = true;
    std::vector<Frame> saved;
    saved.swap(frames);
    frames.push_back(Frame{script,
                           0,
                           {},
                           saved.empty() ? std::vector<std::string>{"sh"}
                                         : saved.back().positional});
    RunSync(sink);  // its status is $? afterwards, as in sh
    frames.swap(saved);
    --substitution_depth;
    std::string out = std::move(sink.out);
    while (!out.empty() && out.back() == '\n') out.pop_back();
    if (log != nullptr && !sink.err.empty())
      log->push_back(Output{vt, 2, sink.err});
    return out;
  }

  // The fields a word expands to.
  std::vector<std::string> Expand(const Word& w) {
    std::vector<std::string> fields;
    std::string cur;
    bool have = false;
    // An unquoted expansion splits into fields at blanks.
    auto split_into = [&](const std::string& value) {
      const char* kBlank = " \t\n";
      if (value.empty()) return;
      if (std::string(kBlank).find(value[0]) != std::string::npos && have) {
        fields.push_back(cur);
        cur.clear();
        have = false;
      }
      size_t i = value.find_first_not_of(kBlank);
      bool first = true;
      while (i != std::string::npos) {
        size_t k = value.find_first_of(kBlank, i);
        if (!first) {
          fields.push_back(cur);
          cur.clear();
        }
        cur +=
            value.substr(i, k == std::string::npos ? std::string::npos : k - i);
        have = true;
        first = false;
        i = k == std::string::npos ? k : value.find_first_not_of(kBlank, k);
        if (k != std::string::npos && i == std::string::npos) {
          fields.push_back(cur);
          cur.clear();
          have = false;
        }
      }
    };
    for (const auto& p : w.parts) {
      std::string value;
      switch (p.kind) {
        case WordPart::Kind::kLiteral:
          cur += p.text;
          have = true;
          continue;
        case WordPart::Kind::kVar:
          if (p.text == "@" && p.quoted && !frames.empty()) {
            const auto& pos = frames.back().positional;
            for (size_t i = 1; i < pos.size(); ++i) {
              if (i > 1) {
                fields.push_back(cur);
                cur.clear();
              }
              cur += pos[i];
              have = true;
            }
            continue;
          }
          value = Var(p.text);
          break;
        case WordPart::Kind::kCommand:
          value = p.script ? Substitute(p.script) : "";
          break;
        case WordPart::Kind::kArith: {
          std::string text = p.text;
          long long v = 0;
          if (!Arith(text, sh.vars).Eval(&v)) {
            if (log != nullptr)
              log->push_back(Output{vt, 2, "sh: arithmetic syntax error\n"});
          }
          value = std::to_string(v);
          break;
        }
      }
      if (p.quoted) {
        cur += value;
        have = true;
      } else {
        split_into(value);
      }
    }
    if (have) fields.push_back(cur);
    return fields;
  }

  std::string ExpandOne(const Word& w) {
    std::string s;
    for (const auto& f : Expand(w)) s += (s.empty() ? "" : " ") + f;
    return s;
  }

  // ---- running commands ----

  // Runs one command (argv expanded) into run; may push nothing: nested
  // shells run to completion here.
  void RunCommand(CommandRun& run) {
    run.shell = &sh;
    if (run.argv.empty()) return;
    const std::string& name = run.argv[0];
    if (name == "exec") {
      run.argv.erase(run.argv.begin());
      RunCommand(run);
      if (run.effect == Effect::kNone || run.effect == Effect::kSleep) {
        // exec replaces the shell: it ends when the command does.
        if (run.effect == Effect::kSleep) vt += run.sleep;
        run.sleep = {};
        run.effect = Effect::kExit;
      }
      return;
    }
    if (IsShellName(name) && HasShell()) return RunShell(run);
    if (HasShell()) {
      if (BuiltinFn fn = FindBuiltin(name)) {
        if (name == "wait" || name.ends_with("/wait")) {
          if (background_forever) run.effect = Effect::kForever;
        }
        fn(run);
        return;
      }
    }
    if (const ProgramProfile* prog = FindProgram(spec.image, name)) {
      ProgramContext ctx{spec, sh, *prog, vt};
      RunProgram(ctx, run, [this](CommandRun& next) { RunCommand(next); });
      for (int p : run.ports)
        if (std::find(ports.begin(), ports.end(), p) == ports.end())
          ports.push_back(p);
      protocols.insert(run.protocols.begin(), run.protocols.end());
      return;
    }
    if (spec.image == nullptr) {
      // An image we know nothing of: its programs run until stopped.
      run.effect = Effect::kForever;
      return;
    }
    run.err += NotFoundMessage(sh.shell, name) + "\n";
    run.status = 127;
  }

  // The script a shell command line runs (-c, a file, or stdin) and its
  // positional parameters; false with run's error and status set.
  bool ShellScript(CommandRun& run, std::shared_ptr<const Script>* script,
                   std::vector<std::string>* positional) {
    *positional = {run.argv[0]};
    std::string source;
    bool have_source = false;
    size_t i = 1;
    for (; i < run.argv.size(); ++i) {
      const std::string& a = run.argv[i];
      if (a == "-c" && i + 1 < run.argv.size()) {
        source = run.argv[++i];
        have_source = true;
        ++i;
        break;
      }
      if (a.size() > 1 && a[0] == '-') continue;  // -e, -x, -l ...
      break;
    }
    if (have_source) {
      *positional = {i < run.argv.size() ? run.argv[i++] : run.argv[0]};
    } else if (i < run.argv.size()) {
      auto data = sh.fs->Read(Filesystem::Normalize(sh.cwd, run.argv[i]));
      if (!data) {
        run.err += (sh.shell == "busybox"
                        ? run.argv[0] + ": can't open '" + run.argv[i] +
                              "': No such file or directory"
                        : run.argv[0] + ": " + run.argv[i] +
                              ": No such file or directory") +
                   "\n";
        run.status = sh.shell == "busybox" ? 2 : 127;
        return false;
      }
      source = *data;
      *positional = {run.argv[i++]};
    } else if (spec.stdin_open && run.in.empty() && frames.size() <= 1) {
      run.effect = Effect::kForever;  // an interactive shell waits for input
      return false;
    } else {
      source = run.in;  // no terminal: the script is what stdin holds
    }
    for (; i < run.argv.size(); ++i) positional->push_back(run.argv[i]);
    auto parsed = ParseScript(source);
    if (!parsed.ok()) {
      run.err += (sh.shell == "busybox" ? "sh: "
                  : sh.shell == "bash"  ? "bash: -c: line 1: "
                                        : "sh: 1: ") +
                 parsed.status().message() + "\n";
      run.status = 2;
      return false;
    }
    *script = *parsed;
    return true;
  }

  void RunShell(CommandRun& run) {
    std::shared_ptr<const Script> script;
    std::vector<std::string> positional;
    if (!ShellScript(run, &script, &positional)) return;
    // A script given with -c or as a file reads its stdin through its
    // commands.
    bool script_from_stdin = run.argv.size() == 1;
    if (!script_from_stdin && !run.in.empty()) stdin_data = run.in;
    Sink sink;
    sink.capture = true;
    std::vector<Frame> saved;
    saved.swap(frames);
    frames.push_back(Frame{script, 0, {}, positional});
    int saved_status = status;
    status = 0;
    Effect effect = RunSync(sink);
    frames.swap(saved);
    run.out += sink.out;
    run.err += sink.err;
    run.status = status;
    status = saved_status;
    if (effect == Effect::kForever) run.effect = Effect::kForever;
  }

  // The container's first frame. A shell's script (also behind an
  // entrypoint that only passes its arguments on) becomes the frame
  // itself, so its sleeps can stop and resume; anything else runs as one
  // command. Returns true when the program waits for good at once (a
  // shell waiting for input on an open stdin).
  bool StartFrames(std::vector<std::string> argv, Sink& sink) {
    while (true) {
      const ProgramProfile* prog = FindProgram(spec.image, argv[0]);
      if (prog != nullptr && prog->exec && argv.size() > 1 &&
          FindProgram(spec.image, argv[1]) == nullptr) {
        argv.erase(argv.begin());  // the entrypoint execs its arguments
        continue;
      }
      break;
    }
    if (IsShellName(argv[0]) && HasShell()) {
      CommandRun run;
      run.argv = argv;
      std::shared_ptr<const Script> script;
      std::vector<std::string> positional;
      if (!ShellScript(run, &script, &positional)) {
        Emit(sink, 2, run.err);
        status = run.status;
        return run.effect == Effect::kForever;
      }
      frames.push_back(Frame{script, 0, {}, positional});
      return false;
    }
    frames.push_back(Frame{CommandScript(argv), 0, {}, {argv[0]}});
    return false;
  }

  struct Dest {
    enum Kind { kLog, kCapture, kFile, kNull } kind = kLog;
    int fd = 1;  // kLog/kCapture: the stream
    std::string path;
    bool append = false;
  };

  void Deliver(const Dest& d, const std::string& text, Sink& sink,
               CommandRun& run) {
    if (text.empty()) return;
    switch (d.kind) {
      case Dest::kLog:
        Emit(sink, d.fd, text);
        break;
      case Dest::kCapture:
        break;  // the pipe: handled by the caller
      case Dest::kFile:
        if (!sh.fs->Write(d.path, text, true)) {
          Emit(sink, 2,
               "sh: can't create " + d.path + ": Read-only file system\n");
          run.status = run.status == 0 ? 1 : run.status;
        }
        break;
      case Dest::kNull:
        break;
    }
  }

  Dest FileDest(const std::string& target) {
    Dest d;
    if (target == "/dev/null") {
      d.kind = Dest::kNull;
    } else if (target == "/dev/stdout" || target == "/proc/1/fd/1" ||
               target == "/proc/self/fd/1") {
      d.kind = Dest::kLog;
      d.fd = 1;
    } else if (target == "/dev/stderr" || target == "/proc/1/fd/2" ||
               target == "/proc/self/fd/2") {
      d.kind = Dest::kLog;
      d.fd = 2;
    } else {
      d.kind = Dest::kFile;
      d.path = Filesystem::Normalize(sh.cwd, target);
    }
    return d;
  }

  // Runs a pipeline; returns its effect.
  Effect RunPipeline(const Instr& in, Sink& sink) {
    std::string piped;
    Effect effect = Effect::kNone;
    for (size_t k = 0; k < in.pipeline.size(); ++k) {
      const Command& cmd = in.pipeline[k];
      bool last = k + 1 == in.pipeline.size();
      CommandRun run;
      run.in = std::move(piped);
      piped.clear();
      if (k == 0 && !stdin_data.empty())
        run.in = std::move(stdin_data), stdin_data.clear();
      for (const auto& w : cmd.words)
        for (auto& f : Expand(w)) run.argv.push_back(std::move(f));
      std::vector<std::pair<std::string, std::string>> assigns;
      for (const auto& [name, value] : cmd.assigns)
        assigns.emplace_back(name, ExpandOne(value));
      Dest d1, d2;
      d1.fd = 1;
      d2.fd = 2;
      if (!last) d1.kind = Dest::kCapture;
      bool redirect_failed = false;
      for (const auto& r : cmd.redirects) {
        Dest* d = r.fd == 2 ? &d2 : &d1;
        if (r.op == Redirect::Op::kDup) {
          if (r.fd == 1 || r.fd == 2) *d = r.dup_to == 2 ? d2 : d1;
          if (r.fd == 2 && r.dup_to == 1 && d1.kind == Dest::kCapture) d2 = d1;
          continue;
        }
        std::string target = ExpandOne(r.target);
        if (r.op == Redirect::Op::kRead) {
          auto data = sh.fs->Read(Filesystem::Normalize(sh.cwd, target));
          if (!data) {
            Emit(
                sink, 2,
                "sh: can't open '" + target + "': No such file or directory\n");
            redirect_failed = true;
            break;
          }
          run.in = *data;
          continue;
        }
        if (r.fd != 1 && r.fd != 2) continue;
        *d = FileDest(target);
        if (d->kind == Dest::kFile) {
          if (sh.fs->IsDir(d->path) ||
              (r.op == Redirect::Op::kWrite
                   ? !sh.fs->Write(d->path, "")
                   : !sh.fs->Write(d->path, "", true))) {
            Emit(sink, 2,
                 "sh: can't create " + target + ": " +
                     (sh.fs->IsDir(d->path) ? "Is a directory"
                                            : "Read-only file system") +
                     "\n");
            redirect_failed = true;
            break;
          }
        }
      }
      if (redirect_failed) {
        status = 1;
        continue;
      }
      if (run.argv.empty()) {
        for (auto& [name, value] : assigns) sh.vars[name] = value;
        status = 0;
        continue;
      }
      // VAR=x cmd: the variables for this command only.
      std::map<std::string, std::string> saved_vars;
      std::map<std::string, bool> saved_exported;
      if (!assigns.empty()) {
        saved_vars = sh.vars;
        saved_exported = sh.exported;
        for (auto& [name, value] : assigns) {
          sh.vars[name] = value;
          sh.exported[name] = true;
        }
      }
      sh.now = vt;
      RunCommand(run);
      if (!assigns.empty()) {
        sh.vars = std::move(saved_vars);
        sh.exported = std::move(saved_exported);
      }
      if (d1.kind == Dest::kCapture) {
        piped = run.out;
        if (d2.kind == Dest::kCapture)
          piped += run.err;
        else
          Deliver(d2, run.err, sink, run);
      } else {
        Deliver(d1, run.out, sink, run);
        Deliver(d2, run.err, sink, run);
      }
      int st = run.status;
      if (run.effect == Effect::kExit && st < 0) st = status;
      status = st;
      if (in.background) {
        if (run.effect == Effect::kForever) background_forever = true;
        continue;
      }
      if (run.effect == Effect::kSleep) {
        vt += run.sleep;
      } else if (run.effect != Effect::kNone) {
        effect = run.effect;
      }
    }
    if (in.background) status = 0;
    return effect;
  }

  // Executes instructions of the current frames until they end, one blocks
  // for good, or (resumable) the process's time passes `limit`.
  enum class Stop { kDone, kForever, kExit, kLater, kBusy };
  Stop Run(Sink& sink, const TimePoint* limit) {
    while (!frames.empty()) {
      if (limit != nullptr && vt > *limit) return Stop::kLater;
      if (++budget > kBudget) return Stop::kBusy;
      Frame& f = frames.back();
      if (f.pc >= f.script->code.size()) {
        frames.pop_back();
        continue;
      }
      const Instr& in = f.script->code[f.pc++];
      switch (in.op) {
        case Op::kPipeline: {
          Effect e = RunPipeline(in, sink);
          if (e == Effect::kForever) return Stop::kForever;
          if (e == Effect::kExit) {
            frames.clear();
            return Stop::kExit;
          }
          break;
        }
        case Op::kJump:
          f.pc = in.target;
          break;
        case Op::kJumpIfFailed:
          if (status != 0) f.pc = in.target;
          break;
        case Op::kJumpIfSucceeded:
          if (status == 0) f.pc = in.target;
          break;
        case Op::kNot:
          status = status == 0 ? 1 : 0;
          break;
        case Op::kSetStatus:
          status = in.value;
          break;
        case Op::kForBegin: {
          Loop loop;
          for (const auto& w : in.words)
            for (auto& v : Expand(w)) loop.values.push_back(std::move(v));
          f.loops.push_back(std::move(loop));
          break;
        }
        case Op::kForNext: {
          if (f.loops.empty()) {
            f.pc = in.target;
            break;
          }
          Loop& loop = f.loops.back();
          if (loop.next >= loop.values.size()) {
            f.loops.pop_back();
            f.pc = in.target;
            status = 0;
            break;
          }
          sh.vars[in.var] = loop.values[loop.next++];
          break;
        }
      }
    }
    return Stop::kDone;
  }

  // Runs the current frames to their end (a nested shell, a substitution).
  Effect RunSync(Sink& sink) {
    int saved_budget = budget;
    budget = 0;
    Stop s = Run(sink, nullptr);
    budget = saved_budget;
    if (s == Stop::kForever) return Effect::kForever;
    return Effect::kNone;
  }
};

std::vector<std::string> ResolveArgv(const ImageProfile* image,
                                     const std::vector<std::string>& command,
                                     const std::vector<std::string>& args) {
  std::vector<std::string> argv;
  if (!command.empty()) {
    argv = command;
    argv.insert(argv.end(), args.begin(), args.end());
    return argv;
  }
  if (image != nullptr) argv = image->entrypoint;
  if (!args.empty()) {
    argv.insert(argv.end(), args.begin(), args.end());
  } else if (image != nullptr) {
    argv.insert(argv.end(), image->cmd.begin(), image->cmd.end());
  }
  return argv;
}

Filesystem::Files ImageFiles(const ImageProfile* image) {
  Filesystem::Files out;
  for (const char* dir : {"/bin/", "/dev/", "/home/", "/proc/", "/root/",
                          "/sys/", "/tmp/", "/usr/", "/var/"})
    out.emplace_back(dir, "");
  out.emplace_back("/etc/passwd",
                   "root:x:0:0:root:/root:/bin/sh\n"
                   "daemon:x:1:1:daemon:/usr/sbin:/bin/false\n"
                   "nobody:x:65534:65534:nobody:/home:/bin/false\n");
  out.emplace_back("/etc/group", "root:x:0:\nnobody:x:65534:\n");
  if (image != nullptr)
    for (const auto& [path, content] : image->files)
      out.emplace_back(path, content);
  return out;
}

void InstallImageFiles(const ImageProfile* image, Filesystem* fs) {
  for (auto& [path, content] : ImageFiles(image)) {
    if (path.back() == '/') {
      fs->MakeDir(path.substr(0, path.size() - 1));
    } else {
      fs->Write(path, content);
    }
  }
}

Process::Process(ProcessSpec spec)
    : impl_(std::make_unique<Impl>(std::move(spec))) {}

Process::~Process() = default;

void Process::Advance(TimePoint now, std::vector<Output>* out) {
  if (state_ == State::kExited || state_ == State::kStartError ||
      state_ == State::kBlocked)
    return;
  Impl& p = *impl_;
  p.log = out;
  p.budget = 0;
  Impl::Sink sink;
  if (!p.started) {
    p.started = true;
    const std::vector<std::string>& argv = p.spec.argv;
    if (argv.empty()) {
      state_ = State::kStartError;
      exit_code_ = 128;
      error_ =
          "failed to create containerd task: failed to create shim task: "
          "OCI runtime create failed: runc create failed: unable to start "
          "container process: error during container init: no command "
          "specified: unknown";
      return;
    }
    if (!p.HasProgram(argv[0])) {
      state_ = State::kStartError;
      exit_code_ = 128;
      error_ =
          "failed to create containerd task: failed to create shim task: "
          "OCI runtime create failed: runc create failed: unable to start "
          "container process: error during container init: exec: \"" +
          argv[0] + "\": executable file not found in $PATH: unknown";
      return;
    }
    if (p.StartFrames(argv, sink)) {
      state_ = State::kBlocked;
      return;
    }
  }
  Impl::Stop s = p.Run(sink, &now);
  ports_ = p.ports;
  protocols_ = p.protocols;
  switch (s) {
    case Impl::Stop::kLater:
      state_ = State::kSleeping;
      wake_ = p.vt;
      break;
    case Impl::Stop::kBusy:
      state_ = State::kSleeping;
      if (p.vt < now) p.vt = now;
      p.vt += kBusyYield;
      wake_ = p.vt;
      break;
    case Impl::Stop::kForever:
      state_ = State::kBlocked;
      break;
    case Impl::Stop::kDone:
    case Impl::Stop::kExit:
      if (p.background_forever && s == Impl::Stop::kDone) {
        state_ = State::kBlocked;
        break;
      }
      state_ = State::kExited;
      exit_code_ = p.status;
      exited_at_ = p.vt;
      break;
  }
  p.log = nullptr;
}

bool IsBareShell(const std::vector<std::string>& argv) {
  if (argv.size() != 1 && !(argv.size() == 2 && argv[1] == "-i")) return false;
  std::string base = BaseName(argv[0]);
  return base == "sh" || base == "bash" || base == "ash" || base == "dash";
}

Process::ExecResult Process::Exec(const ProcessSpec& spec,
                                  const std::vector<std::string>& argv,
                                  TimePoint now,
                                  const std::string& stdin_data) {
  ExecResult r;
  ProcessSpec s = spec;
  s.start = now;
  Impl p(std::move(s));
  p.sh.processes.push_back({spec.pid + 6, Joined(argv)});
  if (argv.empty() || !p.HasProgram(argv[0])) {
    r.not_found = true;
    r.exit_code = 127;
    return r;
  }
  Impl::Sink sink;
  sink.capture = true;
  p.frames.push_back(Impl::Frame{CommandScript(argv), 0, {}, {argv[0]}});
  p.stdin_data = stdin_data;
  p.RunSync(sink);
  r.exit_code = p.status;
  r.out = std::move(sink.out);
  r.err = std::move(sink.err);
  return r;
}

Process::Shell::Shell(const ProcessSpec& spec)
    : impl_(std::make_unique<Impl>(spec)) {
  impl_->sh.processes.push_back({spec.pid + 6, "sh"});
}

Process::Shell::~Shell() = default;

std::string Process::Shell::Prompt() const {
  const std::string& cwd = impl_->sh.cwd;
  if (impl_->sh.shell == "bash")
    return "root@" + impl_->sh.hostname + ":" + cwd + "# ";
  if (impl_->sh.shell == "dash") return "# ";
  return cwd + " # ";
}

std::string Process::Shell::Line(const std::string& line, TimePoint now) {
  Impl& p = *impl_;
  if (exited_) return "";
  auto script = ParseScript(line);
  if (!script.ok()) {
    p.status = 2;
    return (p.sh.shell == "busybox" ? "sh: "
            : p.sh.shell == "bash"  ? "bash: "
                                    : "sh: 1: ") +
           script.status().message() + "\n";
  }
  if (p.vt < now) p.vt = now;
  Impl::Sink sink;
  sink.capture = true;
  std::vector<std::string> positional = {"sh"};
  p.frames.push_back(Impl::Frame{*script, 0, {}, positional});
  p.budget = 0;
  Impl::Stop s = p.Run(sink, nullptr);
  p.frames.clear();
  if (s == Impl::Stop::kExit) {
    exited_ = true;
    exit_code_ = p.status;
  }
  // Interleaving is lost in the simulation; a terminal shows both streams.
  return sink.out + sink.err;
}

}  // namespace kmock::sim
