// The generic status-subresource strategy: what a status write keeps of the
// writer's object and what comes back from the stored one.
#include <gtest/gtest.h>

#include "api/resource.h"

namespace kmock::api {
namespace {

json Stored() {
  return json::parse(R"({
    "apiVersion": "v1", "kind": "Thing",
    "metadata": {"name": "a", "namespace": "default", "uid": "u1",
                 "resourceVersion": "7", "generation": 2,
                 "labels": {"app": "a"}, "finalizers": ["f"],
                 "managedFields": [{"manager": "m"}]},
    "spec": {"replicas": 3, "template": {"image": "nginx"}},
    "extra": {"kept": true},
    "status": {"phase": "Pending"}})");
}

TEST(StatusStrategyTest, TakesStatusAndWritableMetadataOnly) {
  const Strategy main;
  const StatusStrategy status(&main);
  const json old = Stored();
  json obj = old;
  obj["spec"]["replicas"] = 9;        // not the writer's to change
  obj["spec"]["paused"] = true;       // nor to add
  obj.erase("extra");                 // nor to drop
  obj["sneaky"] = 1;                  // nor a new top-level member
  obj["metadata"]["generation"] = 5;  // nor other metadata
  obj["metadata"].erase("finalizers");
  obj["metadata"]["ownerReferences"] = json::array();
  obj["metadata"]["labels"] = {{"app", "b"}};  // labels are
  obj["metadata"]["annotations"] = {{"k", "v"}};
  obj["metadata"]["resourceVersion"] = "6";
  obj["status"] = {{"phase", "Running"}};
  status.PrepareForUpdate(obj, old);

  json want = old;
  want["metadata"]["labels"] = {{"app", "b"}};
  want["metadata"]["annotations"] = {{"k", "v"}};
  want["metadata"]["resourceVersion"] = "6";
  want["status"] = {{"phase", "Running"}};
  EXPECT_EQ(obj, want) << obj.dump(1);
}

TEST(StatusStrategyTest, WriterWithoutStatusOrMetadata) {
  const Strategy main;
  const StatusStrategy status(&main);
  const json old = Stored();

  // Dropped status stays dropped; labels the writer removed are removed.
  json obj = old;
  obj.erase("status");
  obj["metadata"].erase("labels");
  obj["metadata"].erase("managedFields");
  status.PrepareForUpdate(obj, old);
  json want = old;
  want.erase("status");
  want["metadata"].erase("labels");
  want["metadata"].erase("managedFields");
  EXPECT_EQ(obj, want) << obj.dump(1);

  // No metadata at all: the stored metadata as it is.
  obj = {{"status", {{"phase", "Failed"}}}};
  status.PrepareForUpdate(obj, old);
  want = old;
  want["status"] = {{"phase", "Failed"}};
  EXPECT_EQ(obj, want) << obj.dump(1);

  // Not an object: the stored object without its status.
  obj = json::array();
  status.PrepareForUpdate(obj, old);
  want = old;
  want.erase("status");
  EXPECT_EQ(obj, want) << obj.dump(1);
}

}  // namespace
}  // namespace kmock::api
