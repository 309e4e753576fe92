#include "sim/filesystem.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace kmock::sim {
namespace {

// A volume the kubelet writes: loaded on first look, written anew by
// Reload only once someone looked, and read-only to the container.
TEST(FilesystemTest, ReloadWritesTheLoadersFilesAnewOnceLoaded) {
  auto volume = std::make_shared<Filesystem>();
  std::string color = "blue";
  int loads = 0;
  volume->SetLoader([&] {
    ++loads;
    Filesystem::Files files = {{"/color", color}};
    if (color == "blue") files.emplace_back("/size", "3");
    return files;
  });
  volume->SetReadOnly("/");
  EXPECT_FALSE(volume->Reload());  // nobody looked: nothing to write again
  EXPECT_EQ(loads, 0);

  Filesystem root;
  root.Mount("/etc/config", volume);
  EXPECT_EQ(root.Read("/etc/config/color"), "blue");
  EXPECT_EQ(root.List("/etc/config"),
            (std::vector<std::string>{"color", "size"}));
  EXPECT_FALSE(root.Write("/etc/config/new", "x"));
  EXPECT_EQ(loads, 1);

  color = "red";
  EXPECT_EQ(root.Read("/etc/config/color"), "blue");  // until the kubelet
  EXPECT_TRUE(volume->Reload());
  EXPECT_EQ(loads, 2);
  EXPECT_EQ(root.Read("/etc/config/color"), "red");
  EXPECT_FALSE(root.Read("/etc/config/size"));  // a key that went
  EXPECT_TRUE(root.IsDir("/etc/config"));
}

// A hostPath mount: a directory of another filesystem served at a path,
// shared with every other view of it; a read-only mark of the container's
// filesystem refuses changes there.
TEST(FilesystemTest, MountsServeADirectoryOfAnotherFilesystem) {
  auto node = std::make_shared<Filesystem>();
  ASSERT_TRUE(node->Write("/etc/hostname", "worker-1\n"));
  ASSERT_TRUE(node->MakeDir("/data"));
  Filesystem a, b;
  a.Mount("/host", node, "/etc");
  a.Mount("/data", node, "/data");
  b.Mount("/shared", node, "/data");
  b.SetReadOnly("/shared");
  EXPECT_EQ(a.Read("/host/hostname"), "worker-1\n");
  EXPECT_EQ(a.List("/host"), (std::vector<std::string>{"hostname"}));
  EXPECT_TRUE(a.Write("/data/x", "hi"));
  EXPECT_EQ(node->Read("/data/x"), "hi");
  EXPECT_EQ(b.Read("/shared/x"), "hi");
  EXPECT_FALSE(b.Write("/shared/y", "no"));
  EXPECT_FALSE(b.Remove("/shared/x", false));
  EXPECT_FALSE(b.MakeDir("/shared/d"));
  EXPECT_FALSE(node->Read("/data/y"));
  EXPECT_TRUE(a.Remove("/data/x", false));
  EXPECT_FALSE(b.Read("/shared/x"));
}

}  // namespace
}  // namespace kmock::sim
