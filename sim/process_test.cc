#include "sim/process.h"

#include <gtest/gtest.h>

#include "sim/programs.h"

namespace kmock::sim {
namespace {

using std::chrono::seconds;

TimePoint T0() { return TimePoint(std::chrono::hours(24 * 365 * 56)); }

struct Harness {
  Filesystem fs;
  std::vector<Output> out;
  std::unique_ptr<Process> p;

  explicit Harness(std::vector<std::string> argv, const std::string& image = "",
                   std::vector<std::pair<std::string, std::string>> env = {}) {
    const ImageProfile* profile =
        image.empty() ? nullptr : ImageCatalog::Builtin().Find(image);
    InstallImageFiles(profile, &fs);
    ProcessSpec spec;
    spec.argv = std::move(argv);
    spec.env = std::move(env);
    spec.hostname = "web-1";
    spec.ip = "10.244.1.5";
    spec.image = profile;
    spec.fs = &fs;
    spec.start = T0();
    p = std::make_unique<Process>(std::move(spec));
  }
  std::string Text(int fd = 0) const {
    std::string s;
    for (const auto& o : out)
      if (fd == 0 || o.fd == fd) s += o.text;
    return s;
  }
  void Run(std::chrono::milliseconds after) { p->Advance(T0() + after, &out); }
};

const char kBusybox[] = "docker.io/library/busybox";

TEST(ProcessTest, EchoAndExit) {
  Harness h({"sh", "-c", "echo hello; echo oops >&2; exit 3"}, kBusybox);
  h.Run(seconds(0));
  EXPECT_EQ(h.p->state(), Process::State::kExited);
  EXPECT_EQ(h.p->exit_code(), 3);
  EXPECT_EQ(h.Text(1), "hello\n");
  EXPECT_EQ(h.Text(2), "oops\n");
}

TEST(ProcessTest, SleepTakesClockTime) {
  Harness h({"sh", "-c", "echo a; sleep 30; echo b"}, kBusybox);
  h.Run(seconds(0));
  EXPECT_EQ(h.p->state(), Process::State::kSleeping);
  EXPECT_EQ(h.p->wake(), T0() + seconds(30));
  EXPECT_EQ(h.Text(), "a\n");
  h.Run(seconds(29));
  EXPECT_EQ(h.Text(), "a\n");
  h.Run(seconds(30));
  EXPECT_EQ(h.p->state(), Process::State::kExited);
  EXPECT_EQ(h.p->exit_code(), 0);
  ASSERT_EQ(h.out.size(), 2u);
  EXPECT_EQ(h.out[1].at, T0() + seconds(30));
}

TEST(ProcessTest, LoopWithCounterAndDate) {
  // The counter pod of the Kubernetes logging documentation.
  Harness h({"/bin/sh", "-c",
             "i=0; while true; do echo \"$i: $(date)\"; i=$((i+1)); sleep 1; "
             "done"},
            kBusybox);
  h.Run(seconds(2));
  EXPECT_EQ(h.p->state(), Process::State::kSleeping);
  std::string text = h.Text();
  EXPECT_NE(text.find("0: "), std::string::npos);
  EXPECT_NE(text.find("2: "), std::string::npos);
  EXPECT_EQ(text.find("3: "), std::string::npos);
  EXPECT_NE(text.find(" UTC "), std::string::npos);
}

TEST(ProcessTest, AndOrIfForAndTest) {
  Harness h({"sh", "-c",
             "false && echo no || echo yes; if [ 3 -gt 2 ]; then echo big; "
             "else echo small; fi; for x in a b c; do printf '%s-' $x; done; "
             "echo; ! true; echo $?"},
            kBusybox);
  h.Run(seconds(0));
  EXPECT_EQ(h.Text(), "yes\nbig\na-b-c-\n1\n");
  EXPECT_EQ(h.p->exit_code(), 0);
}

TEST(ProcessTest, FilesPipesAndRedirection) {
  Harness h({"sh", "-c",
             "mkdir -p /data && echo one > /data/f && echo two >> /data/f; "
             "cat /data/f | wc -l; ls /data; cat /nope 2>/dev/null || echo "
             "missing; echo to-log > /proc/1/fd/1"},
            kBusybox);
  h.Run(seconds(0));
  EXPECT_EQ(h.Text(), "2\nf\nmissing\nto-log\n");
  EXPECT_EQ(*h.fs.Read("/data/f"), "one\ntwo\n");
}

TEST(ProcessTest, EnvironmentAndQuoting) {
  Harness h({"sh", "-c", "echo \"$GREETING, $NAME\" '$NAME' ${MISSING:-dflt}"},
            kBusybox, {{"GREETING", "Hello"}, {"NAME", "kube"}});
  h.Run(seconds(0));
  EXPECT_EQ(h.Text(), "Hello, kube $NAME dflt\n");
}

TEST(ProcessTest, UnknownCommandIs127AndNamesTheShell) {
  Harness h({"sh", "-c", "nosuch; echo $?"}, kBusybox);
  h.Run(seconds(0));
  EXPECT_EQ(h.Text(2), "sh: nosuch: not found\n");
  EXPECT_EQ(h.Text(1), "127\n");
}

TEST(ProcessTest, SyntaxErrorExitsTwo) {
  Harness h({"sh", "-c", "while true; do echo"}, kBusybox);
  h.Run(seconds(0));
  EXPECT_EQ(h.p->exit_code(), 2);
  EXPECT_EQ(h.Text(2),
            "sh: syntax error: unexpected end of file (expecting \"done\")\n");
}

TEST(ProcessTest, MissingProgramIsAStartError) {
  Harness h({"nosuch"}, kBusybox);
  h.Run(seconds(0));
  EXPECT_EQ(h.p->state(), Process::State::kStartError);
  EXPECT_EQ(h.p->exit_code(), 128);
  EXPECT_NE(
      h.p->error().find("exec: \"nosuch\": executable file not found in $PATH"),
      std::string::npos);
}

TEST(ProcessTest, BusyboxWithoutTerminalEndsAtOnce) {
  Harness h(ResolveArgv(ImageCatalog::Builtin().Find(kBusybox), {}, {}),
            kBusybox);
  h.Run(seconds(0));
  EXPECT_EQ(h.p->state(), Process::State::kExited);
  EXPECT_EQ(h.p->exit_code(), 0);
}

TEST(ProcessTest, ShellWithOpenStdinWaitsForInput) {
  // `kubectl run -it --image=busybox -- sh`: stdin stays open.
  Filesystem fs;
  ProcessSpec spec;
  spec.argv = {"sh"};
  spec.image = ImageCatalog::Builtin().Find(kBusybox);
  spec.fs = &fs;
  spec.stdin_open = true;
  Process p(spec);
  std::vector<Output> out;
  p.Advance(T0(), &out);
  EXPECT_EQ(p.state(), Process::State::kBlocked);
}

TEST(ProcessTest, NginxServesUntilStoppedAndPrintsItsStart) {
  const ImageProfile* nginx =
      ImageCatalog::Builtin().Find("docker.io/library/nginx");
  ASSERT_NE(nginx, nullptr);
  Harness h(ResolveArgv(nginx, {}, {}), "docker.io/library/nginx");
  h.Run(seconds(0));
  EXPECT_EQ(h.p->state(), Process::State::kBlocked);
  EXPECT_EQ(h.p->ports(), std::vector<int>{80});
  EXPECT_NE(h.Text(1).find("Configuration complete; ready for start up"),
            std::string::npos);
  EXPECT_NE(h.Text(2).find("[notice] 1#1: nginx/"), std::string::npos);
  // Args replace the image's cmd; the entrypoint stays and stays quiet.
  Harness h2(ResolveArgv(nginx, {}, {"sh", "-c", "echo hi"}),
             "docker.io/library/nginx");
  h2.Run(seconds(0));
  EXPECT_EQ(h2.Text(), "hi\n");
}

TEST(ProcessTest, PostgresNeedsItsPassword) {
  const ImageProfile* pg =
      ImageCatalog::Builtin().Find("docker.io/library/postgres");
  Harness h(ResolveArgv(pg, {}, {}), "docker.io/library/postgres");
  h.Run(seconds(0));
  EXPECT_EQ(h.p->state(), Process::State::kExited);
  EXPECT_EQ(h.p->exit_code(), 1);
  EXPECT_NE(h.Text(2).find("You must specify POSTGRES_PASSWORD"),
            std::string::npos);
  Harness ok(ResolveArgv(pg, {}, {}), "docker.io/library/postgres",
             {{"POSTGRES_PASSWORD", "x"}});
  ok.Run(seconds(0));
  EXPECT_EQ(ok.p->state(), Process::State::kBlocked);
  EXPECT_EQ(ok.p->ports(), std::vector<int>{5432});
}

TEST(ProcessTest, PerlComputesPi) {
  Harness h({"perl", "-Mbignum=bpi", "-wle", "print bpi(2000)"},
            "docker.io/library/perl");
  h.Run(seconds(0));
  EXPECT_EQ(h.p->exit_code(), 0);
  std::string pi = h.Text(1);
  EXPECT_EQ(pi.size(), 2002u);  // "3." + 1999 digits + "\n"
  EXPECT_EQ(pi.substr(0, 52),
            "3.14159265358979323846264338327950288419716939937510");
  EXPECT_EQ(PiDigits(10), "3.141592654");
}

TEST(ProcessTest, BusyLoopYields) {
  Harness h({"sh", "-c", "while true; do :; done"}, kBusybox);
  h.Run(seconds(0));
  EXPECT_EQ(h.p->state(), Process::State::kSleeping);
  EXPECT_GT(h.p->wake(), T0());
}

TEST(ProcessTest, ExecRunsACommandToCompletion) {
  Filesystem fs;
  InstallImageFiles(nullptr, &fs);
  fs.Write("/etc/config/color", "blue");
  ProcessSpec spec;
  spec.argv = {"sleep", "3600"};
  spec.image = ImageCatalog::Builtin().Find(kBusybox);
  spec.fs = &fs;
  auto r = Process::Exec(spec, {"ls", "/etc/config"}, T0());
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out, "color\n");
  r = Process::Exec(spec, {"sh", "-c", "exit 3"}, T0());
  EXPECT_EQ(r.exit_code, 3);
  r = Process::Exec(spec, {"sh", "-c", "cat; exit 2"}, T0(), "typed\n");
  EXPECT_EQ(r.out, "typed\n");
  EXPECT_EQ(r.exit_code, 2);
  r = Process::Exec(spec, {"nosuch"}, T0());
  EXPECT_TRUE(r.not_found);
  r = Process::Exec(spec, {"ps"}, T0());
  EXPECT_NE(r.out.find("    1 root      0:00 sleep 3600"), std::string::npos);
}

TEST(ImageCatalogTest, PullRule) {
  const ImageCatalog& c = ImageCatalog::Builtin();
  EXPECT_EQ(c.CheckPull("nginx").result, PullResult::kOk);
  EXPECT_EQ(c.CheckPull("nginx:1.27").result, PullResult::kOk);
  EXPECT_EQ(c.CheckPull("nginx:1.27.3-alpine").result, PullResult::kOk);
  EXPECT_EQ(c.CheckPull("busybox:1.36").result, PullResult::kOk);
  EXPECT_EQ(c.CheckPull("quay.io/org/app:v9").result, PullResult::kOk);
  EXPECT_EQ(c.CheckPull("mongo:7").result, PullResult::kOk);
  PullCheck missing = c.CheckPull("nginx:doesnotexist");
  EXPECT_EQ(missing.result, PullResult::kNotFound);
  EXPECT_EQ(missing.message,
            "rpc error: code = NotFound desc = failed to pull and unpack image "
            "\"docker.io/library/nginx:doesnotexist\": failed to resolve "
            "reference \"docker.io/library/nginx:doesnotexist\": "
            "docker.io/library/nginx:doesnotexist: not found");
  EXPECT_EQ(c.CheckPull("ngnix").result, PullResult::kAccessDenied);
  PullCheck bad = c.CheckPull("Nginx");
  EXPECT_EQ(bad.result, PullResult::kInvalidName);
  EXPECT_EQ(bad.message,
            "couldn't parse image name \"Nginx\": invalid reference format: "
            "repository name (library/Nginx) must be lowercase");
  EXPECT_EQ(c.CheckPull("nginx::1").result, PullResult::kInvalidName);
}

TEST(ScriptTest, RejectsWhatShRejects) {
  EXPECT_FALSE(ParseScript("if true; then echo").ok());
  EXPECT_FALSE(ParseScript("echo 'open").ok());
  EXPECT_FALSE(ParseScript("; echo").ok());
  EXPECT_FALSE(ParseScript("done").ok());
  EXPECT_TRUE(ParseScript("# only a comment\n").ok());
  EXPECT_TRUE(ParseScript("for i in 1 2\ndo\n echo $i\ndone").ok());
}

}  // namespace
}  // namespace kmock::sim

namespace kmock::sim {
namespace {

TEST(ProcessTest, HostPidShowsTheNodesProcesses) {
  Filesystem fs;
  ProcessSpec spec;
  spec.argv = {"sleep", "3600"};
  spec.image = ImageCatalog::Builtin().Find("docker.io/library/busybox");
  spec.fs = &fs;
  EXPECT_EQ(Process::Exec(spec, {"ps"}, T0()).out,
            "PID   USER     TIME  COMMAND\n"
            "    1 root      0:00 sleep 3600\n"
            "    7 root      0:00 ps\n");
  spec.host_processes = [] {
    return std::vector<std::pair<int64_t, std::string>>{
        {1, "/sbin/init"}, {1288, "nginx -g daemon off;"}};
  };
  EXPECT_EQ(Process::Exec(spec, {"ps"}, T0()).out,
            "PID   USER     TIME  COMMAND\n"
            "    1 root      0:00 /sbin/init\n"
            " 1288 root      0:00 nginx -g daemon off;\n");
}

}  // namespace
}  // namespace kmock::sim
