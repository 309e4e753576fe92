#include "sim/container.h"

#include <algorithm>

#include "sim/builtins.h"
#include "sim/programs.h"

namespace kmock::sim {

Container::Container(ProcessSpec spec, std::function<Filesystem::Files()> files,
                     const MountList& mounts,
                     const std::vector<std::string>& read_only)
    : spec_(std::move(spec)) {
  fs_.SetLoader([image = spec_.image, files = std::move(files)] {
    Filesystem::Files all = ImageFiles(image);
    if (files)
      for (auto& f : files()) all.push_back(std::move(f));
    return all;
  });
  for (const auto& m : mounts) fs_.Mount(m.path, m.fs, m.root);
  for (const auto& path : read_only) fs_.SetReadOnly(path);
  spec_.fs = &fs_;
  process_ = std::make_unique<Process>(spec_);
}

void Container::Append(const Output& o) {
  size_t i = 0;
  int fd = o.fd == 2 ? 2 : 1;
  while (i < o.text.size()) {
    size_t nl = o.text.find('\n', i);
    size_t end = nl == std::string::npos ? o.text.size() : nl + 1;
    std::string piece = o.text.substr(i, end - i);
    i = end;
    bool continues = open_line_[fd] && !log_.empty();
    LogLine* line = nullptr;
    if (continues) {
      for (auto it = log_.rbegin(); it != log_.rend(); ++it) {
        if (it->fd == fd) {
          line = &*it;
          break;
        }
      }
    }
    if (line != nullptr) {
      line->text += piece;
    } else {
      log_.push_back(LogLine{o.at, fd, piece});
    }
    bytes_ += piece.size();
    open_line_[fd] = piece.empty() || piece.back() != '\n';
  }
  while (bytes_ > kMaxLogBytes && log_.size() > 1) {
    bytes_ -= log_.front().text.size();
    log_.pop_front();
    ++first_;
  }
}

void Container::Advance(TimePoint now) {
  std::lock_guard<std::mutex> l(mu_);
  std::vector<Output> out;
  process_->Advance(now, &out);
  for (const auto& o : out) Append(o);
}

Process::State Container::state() const {
  std::lock_guard<std::mutex> l(mu_);
  return process_->state();
}

TimePoint Container::wake() const {
  std::lock_guard<std::mutex> l(mu_);
  return process_->wake();
}

int Container::exit_code() const {
  std::lock_guard<std::mutex> l(mu_);
  return process_->exit_code();
}

TimePoint Container::exited_at() const {
  std::lock_guard<std::mutex> l(mu_);
  return process_->exited_at();
}

std::string Container::error() const {
  std::lock_guard<std::mutex> l(mu_);
  return process_->error();
}

std::vector<int> Container::ports() const {
  std::lock_guard<std::mutex> l(mu_);
  return process_->ports();
}

ContainerLog Container::Log(uint64_t from) const {
  std::lock_guard<std::mutex> l(mu_);
  ContainerLog out;
  out.first = std::max(from, first_);
  size_t skip = static_cast<size_t>(out.first - first_);
  for (size_t i = skip; i < log_.size(); ++i) out.lines.push_back(log_[i]);
  return out;
}

uint64_t Container::LogEnd() const {
  std::lock_guard<std::mutex> l(mu_);
  return first_ + log_.size();
}

std::unique_ptr<Process::Shell> Container::OpenShell() const {
  std::lock_guard<std::mutex> l(mu_);
  return std::make_unique<Process::Shell>(spec_);
}

std::string Container::RunShellLine(Process::Shell& shell,
                                    const std::string& line, TimePoint now) {
  std::lock_guard<std::mutex> l(mu_);  // the container's files are shared
  return shell.Line(line, now);
}

Process::ExecResult Container::Exec(const std::vector<std::string>& argv,
                                    TimePoint now,
                                    const std::string& stdin_data) {
  std::lock_guard<std::mutex> l(mu_);
  return Process::Exec(spec_, argv, now, stdin_data);
}

std::unique_ptr<PortConnection> Container::Connect(
    const std::shared_ptr<Container>& c, int port, const std::string& peer) {
  std::lock_guard<std::mutex> l(c->mu_);
  Process::State st = c->process_->state();
  if (st == Process::State::kExited || st == Process::State::kStartError)
    return nullptr;
  const std::vector<int>& ports = c->process_->ports();
  if (std::find(ports.begin(), ports.end(), port) == ports.end())
    return nullptr;
  ServerInfo info;
  info.protocol = c->process_->protocol(port);
  info.port = port;
  info.version = c->spec_.image != nullptr ? c->spec_.image->version : "";
  info.hostname = c->spec_.hostname;
  info.fs = &c->fs_;
  info.peer = peer;
  return std::make_unique<PortConnection>(c, Accept(info));
}

std::string PortConnection::Send(std::string_view data, TimePoint now) {
  std::vector<Output> log;
  std::string answer = server_->Receive(data, now, &log);
  if (!answer.empty() || !log.empty()) {
    std::lock_guard<std::mutex> l(container_->mu_);
    for (const auto& o : log) container_->Append(o);
    if (!answer.empty()) {
      container_->served_.push_back(now);
      if (container_->served_.size() > 4096) container_->served_.pop_front();
    }
  }
  return answer;
}

int64_t Container::MemoryNeed() const {
  std::lock_guard<std::mutex> l(mu_);
  return MemoryNeedBytes(spec_.image, spec_.argv);
}

size_t Container::RequestsSince(TimePoint t) const {
  std::lock_guard<std::mutex> l(mu_);
  size_t n = 0;
  for (auto it = served_.rbegin(); it != served_.rend() && *it >= t; ++it) ++n;
  return n;
}

bool PortConnection::closed() const { return server_->closed(); }

bool Container::ReadsTerminal() const {
  std::lock_guard<std::mutex> l(mu_);
  return spec_.stdin_open && IsBareShell(spec_.argv) &&
         process_->state() == Process::State::kBlocked;
}

std::string Container::TerminalPrompt() {
  std::lock_guard<std::mutex> l(mu_);
  if (!terminal_) terminal_ = std::make_unique<Process::Shell>(spec_);
  return terminal_->Prompt();
}

std::string Container::TypeLine(const std::string& line, TimePoint now) {
  std::function<void()> notify;
  std::string out;
  {
    std::lock_guard<std::mutex> l(mu_);
    if (process_->state() != Process::State::kBlocked) return "";
    if (!terminal_) terminal_ = std::make_unique<Process::Shell>(spec_);
    std::string prompt = terminal_->Prompt();
    out = terminal_->Line(line, now);
    Append(Output{now, 1, prompt + line + "\n" + out});
    if (terminal_->exited()) {
      process_->End(terminal_->exit_code(), now);
      notify = exit_listener_;
    }
  }
  if (notify) notify();
  return out;
}

void Container::SetExitListener(std::function<void()> listener) {
  std::lock_guard<std::mutex> l(mu_);
  exit_listener_ = std::move(listener);
}

void Container::Stop(int exit_code, TimePoint now) {
  std::lock_guard<std::mutex> l(mu_);
  process_->End(exit_code, now);
}

std::string Container::command() const {
  std::string out;
  for (const auto& a : spec_.argv) out += (out.empty() ? "" : " ") + a;
  return out;
}

}  // namespace kmock::sim
