#include "sim/tar.h"

#include <gtest/gtest.h>

namespace kmock::sim {
namespace {

TEST(TarTest, RoundTripsFilesDirectoriesAndLongNames) {
  std::string deep(120, 'd');
  std::string longest(230, 'n');  // no '/' to split at: a GNU long name
  std::vector<TarEntry> in = {{"etc", true, ""},
                              {"etc/hosts", false, "127.0.0.1 localhost\n"},
                              {deep + "/file", false, std::string(1000, 'x')},
                              {longest, false, "z"}};
  std::string a = WriteTar(in);
  EXPECT_EQ(a.size() % 512, 0u);
  auto out = ReadTar(a);
  ASSERT_TRUE(out.ok()) << out.status().message();
  ASSERT_EQ(out->size(), in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    EXPECT_EQ((*out)[i].name, in[i].name);
    EXPECT_EQ((*out)[i].dir, in[i].dir);
    EXPECT_EQ((*out)[i].data, in[i].data);
  }
  EXPECT_FALSE(ReadTar("not a tar archive").ok());
  std::string corrupt = a;
  corrupt[10] ^= 1;  // the checksum no longer matches
  EXPECT_FALSE(ReadTar(corrupt).ok());
}

struct Shell {
  Filesystem fs;
  ShellState sh;
  Shell() { sh.fs = &fs; }
  CommandRun Run(std::vector<std::string> argv, std::string in = "") {
    CommandRun r;
    r.argv = std::move(argv);
    r.in = std::move(in);
    r.shell = &sh;
    TarCommand(r);
    return r;
  }
};

TEST(TarTest, CommandCreatesAndExtractsAsKubectlCpRunsIt) {
  Shell from;
  from.fs.Write("/data/a.txt", "alpha");
  from.fs.Write("/data/sub/b.txt", "beta");
  CommandRun c = from.Run({"tar", "cf", "-", "/data"});
  EXPECT_EQ(c.status, 0);
  EXPECT_EQ(c.err, "tar: removing leading '/' from member names\n");
  Shell to;
  CommandRun x = to.Run({"tar", "--no-same-permissions", "--no-same-owner",
                         "-xmf", "-", "-C", "/tmp"},
                        c.out);
  EXPECT_EQ(x.status, 0) << x.err;
  EXPECT_EQ(to.fs.Read("/tmp/data/a.txt").value_or(""), "alpha");
  EXPECT_EQ(to.fs.Read("/tmp/data/sub/b.txt").value_or(""), "beta");
  CommandRun t = to.Run({"tar", "tf", "-"}, c.out);
  EXPECT_EQ(t.out, "data/\ndata/a.txt\ndata/sub/\ndata/sub/b.txt\n");
  CommandRun missing = from.Run({"tar", "cf", "-", "/nope"});
  EXPECT_EQ(missing.status, 1);
  EXPECT_EQ(missing.err, "tar: /nope: No such file or directory\n");
}

}  // namespace
}  // namespace kmock::sim
