#include "api/schema.h"

#include <gtest/gtest.h>

#include <string>

namespace kmock::api {

extern const char kEmbeddedSchemaJson[];

namespace {

constexpr char kCore[] = "io.k8s.api.core.v1.";
constexpr char kMeta[] = "io.k8s.apimachinery.pkg.apis.meta.v1.";

const Type& MustFind(const std::string& name) {
  const Type* t = Schema::Builtin().Find(name);
  if (!t) ADD_FAILURE() << "missing type " << name;
  static const Type kEmpty;
  return t ? *t : kEmpty;
}

int ProtoOf(const std::string& type, const std::string& field) {
  const Field* f = MustFind(type).FindField(field);
  return f ? f->proto : -1;
}

// How long the load takes is measured by bench/ (start-up), not here.
TEST(SchemaTest, EmbeddedSchemaLoads) {
  Schema s;
  ASSERT_EQ(s.LoadJson(kEmbeddedSchemaJson), "");
  EXPECT_GT(s.types().size(), 100u);
}

TEST(SchemaTest, EveryKindHasItsGroupVersionKind) {
  struct Kind {
    std::string type, group, version, kind;
  };
  const Kind kinds[] = {
      {"io.k8s.api.core.v1.Pod", "", "v1", "Pod"},
      {"io.k8s.api.core.v1.PodList", "", "v1", "PodList"},
      {"io.k8s.api.core.v1.Node", "", "v1", "Node"},
      {"io.k8s.api.core.v1.NodeList", "", "v1", "NodeList"},
      {"io.k8s.api.core.v1.Namespace", "", "v1", "Namespace"},
      {"io.k8s.api.core.v1.NamespaceList", "", "v1", "NamespaceList"},
      {"io.k8s.api.core.v1.Event", "", "v1", "Event"},
      {"io.k8s.api.core.v1.EventList", "", "v1", "EventList"},
      {"io.k8s.api.core.v1.Binding", "", "v1", "Binding"},
      {"io.k8s.api.events.v1.Event", "events.k8s.io", "v1", "Event"},
      {"io.k8s.api.events.v1.EventList", "events.k8s.io", "v1", "EventList"},
      {"io.k8s.api.coordination.v1.Lease", "coordination.k8s.io", "v1",
       "Lease"},
      {"io.k8s.api.coordination.v1.LeaseList", "coordination.k8s.io", "v1",
       "LeaseList"},
      {"io.k8s.apimachinery.pkg.apis.meta.v1.Status", "", "v1", "Status"},
      {"io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions", "", "v1",
       "DeleteOptions"},
  };
  for (const Kind& k : kinds) {
    const Type& t = MustFind(k.type);
    EXPECT_EQ(t.gvk_group + "/" + t.gvk_version + "/" + t.gvk_kind,
              k.group + "/" + k.version + "/" + k.kind)
        << k.type;
  }
}

TEST(SchemaTest, CopiedPackagesKeepTheirOwnVersionAndNames) {
  const Schema& s = Schema::Builtin();
  const Type* fs = s.Find("io.k8s.api.flowcontrol.v1beta3.FlowSchema");
  ASSERT_NE(fs, nullptr);
  EXPECT_EQ(fs->gvk_version, "v1beta3");
  // References stay within the copied package.
  EXPECT_EQ(fs->FindField("spec")->ref,
            "io.k8s.api.flowcontrol.v1beta3.FlowSchemaSpec");
  const Type* limited = s.Find(
      "io.k8s.api.flowcontrol.v1beta2.LimitedPriorityLevelConfiguration");
  ASSERT_NE(limited, nullptr);
  EXPECT_EQ(limited->FindField("nominalConcurrencyShares"), nullptr);
  ASSERT_NE(limited->FindField("assuredConcurrencyShares"), nullptr);
  EXPECT_EQ(limited->FindField("assuredConcurrencyShares")->proto, 1);
  EXPECT_NE(
      s.Find("io.k8s.api.flowcontrol.v1.LimitedPriorityLevelConfiguration")
          ->FindField("nominalConcurrencyShares"),
      nullptr);
}

TEST(SchemaTest, InstancesAreIndependent) {
  auto a = Schema::LoadBuiltin();
  auto b = Schema::LoadBuiltin();
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_NE(a->get(), b->get());
  EXPECT_EQ((*a)->types().size(), Schema::Builtin().types().size());
  const Type* pod = (*a)->Find("io.k8s.api.core.v1.Pod");
  ASSERT_NE(pod, nullptr);
  EXPECT_EQ((*b)->Find("io.k8s.api.core.v1.Pod")->fields.size(),
            pod->fields.size());
}

TEST(SchemaTest, RequiredPartTypesExist) {
  for (const char* name : {"PodSpec",
                           "Container",
                           "EphemeralContainer",
                           "ContainerPort",
                           "EnvVar",
                           "EnvVarSource",
                           "ConfigMapKeySelector",
                           "SecretKeySelector",
                           "ObjectFieldSelector",
                           "ResourceFieldSelector",
                           "EnvFromSource",
                           "ConfigMapEnvSource",
                           "SecretEnvSource",
                           "ResourceRequirements",
                           "ResourceClaim",
                           "VolumeMount",
                           "VolumeDevice",
                           "Volume",
                           "KeyToPath",
                           "Probe",
                           "ExecAction",
                           "HTTPGetAction",
                           "HTTPHeader",
                           "TCPSocketAction",
                           "GRPCAction",
                           "Lifecycle",
                           "LifecycleHandler",
                           "SecurityContext",
                           "PodSecurityContext",
                           "Capabilities",
                           "SELinuxOptions",
                           "SeccompProfile",
                           "Sysctl",
                           "Toleration",
                           "Affinity",
                           "NodeAffinity",
                           "NodeSelector",
                           "NodeSelectorTerm",
                           "NodeSelectorRequirement",
                           "PreferredSchedulingTerm",
                           "PodAffinity",
                           "PodAntiAffinity",
                           "PodAffinityTerm",
                           "WeightedPodAffinityTerm",
                           "TopologySpreadConstraint",
                           "PodDNSConfig",
                           "PodDNSConfigOption",
                           "HostAlias",
                           "LocalObjectReference",
                           "PodReadinessGate",
                           "PodStatus",
                           "PodCondition",
                           "PodIP",
                           "HostIP",
                           "ContainerStatus",
                           "ContainerState",
                           "ContainerStateWaiting",
                           "ContainerStateRunning",
                           "ContainerStateTerminated",
                           "NodeSpec",
                           "Taint",
                           "NodeStatus",
                           "NodeCondition",
                           "NodeAddress",
                           "NodeSystemInfo",
                           "NodeDaemonEndpoints",
                           "DaemonEndpoint",
                           "ContainerImage",
                           "NamespaceSpec",
                           "NamespaceStatus",
                           "NamespaceCondition",
                           "EventSource",
                           "EventSeries",
                           "ObjectReference"}) {
    MustFind(std::string(kCore) + name);
  }
  for (const char* name :
       {"ObjectMeta", "ListMeta", "OwnerReference", "ManagedFieldsEntry",
        "LabelSelector", "LabelSelectorRequirement", "StatusDetails",
        "StatusCause", "Preconditions", "Time", "MicroTime", "FieldsV1"}) {
    MustFind(std::string(kMeta) + name);
  }
  MustFind("io.k8s.api.events.v1.EventSeries");
  MustFind("io.k8s.api.coordination.v1.LeaseSpec");
}

TEST(SchemaTest, EveryReferenceResolves) {
  for (const auto& [name, t] : Schema::Builtin().types()) {
    for (const Field& f : t.fields) {
      if (!f.ref.empty()) {
        EXPECT_NE(Schema::Builtin().Find(f.ref), nullptr) << name;
      }
      if (!f.items.ref.empty()) {
        EXPECT_NE(Schema::Builtin().Find(f.items.ref), nullptr) << name;
      }
    }
  }
}

TEST(SchemaTest, ProtobufNumbersMatchKubernetes) {
  const std::string meta = std::string(kMeta) + "ObjectMeta";
  EXPECT_EQ(ProtoOf(meta, "name"), 1);
  EXPECT_EQ(ProtoOf(meta, "namespace"), 3);
  EXPECT_EQ(ProtoOf(meta, "labels"), 11);
  EXPECT_EQ(ProtoOf(meta, "managedFields"), 17);
  EXPECT_EQ(ProtoOf(std::string(kCore) + "PodSpec", "containers"), 2);
  EXPECT_EQ(ProtoOf(std::string(kCore) + "PodSpec", "ephemeralContainers"), 34);
  EXPECT_EQ(ProtoOf(std::string(kCore) + "Container", "image"), 2);
  EXPECT_EQ(ProtoOf(std::string(kCore) + "Container", "envFrom"), 19);
  EXPECT_EQ(ProtoOf(std::string(kCore) + "Pod", "status"), 3);
  const Field* by_proto =
      MustFind(std::string(kCore) + "Container").FindFieldByProto(7);
  ASSERT_NE(by_proto, nullptr);
  EXPECT_EQ(by_proto->name, "env");
  EXPECT_EQ(MustFind(std::string(kCore) + "Container").FindFieldByProto(99),
            nullptr);
}

TEST(SchemaTest, PatchAndListMetadata) {
  const Field* c =
      MustFind(std::string(kCore) + "PodSpec").FindField("containers");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->kind, ValueKind::kArray);
  EXPECT_EQ(c->items.kind, ValueKind::kObject);
  EXPECT_EQ(c->items.ref, std::string(kCore) + "Container");
  EXPECT_EQ(c->patch_strategy, "merge");
  EXPECT_EQ(c->patch_merge_key, "name");
  EXPECT_EQ(c->list_type, "map");
  const Field* v =
      MustFind(std::string(kCore) + "PodSpec").FindField("volumes");
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(v->patch_strategy, "merge,retainKeys");
  const Field* p =
      MustFind(std::string(kCore) + "Container").FindField("ports");
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->patch_merge_key, "containerPort");
  EXPECT_EQ(p->list_map_keys,
            (std::vector<std::string>{"containerPort", "protocol"}));
  const Field* o =
      MustFind(std::string(kMeta) + "ObjectMeta").FindField("ownerReferences");
  ASSERT_NE(o, nullptr);
  EXPECT_EQ(o->patch_merge_key, "uid");
  EXPECT_EQ(MustFind(std::string(kCore) + "Container").required,
            std::vector<std::string>{"name"});
}

TEST(SchemaTest, ScalarTypesKeepTheirShape) {
  const Type& q = MustFind("io.k8s.apimachinery.pkg.api.resource.Quantity");
  EXPECT_EQ(q.kind, ValueKind::kString);
  EXPECT_EQ(q.proto_shape, "quantity");
  const Type& ios = MustFind("io.k8s.apimachinery.pkg.util.intstr.IntOrString");
  EXPECT_EQ(ios.format, "int-or-string");
  EXPECT_EQ(ios.proto_shape, "intorstring");
  EXPECT_EQ(MustFind(std::string(kMeta) + "Time").proto_shape, "time");
  EXPECT_EQ(MustFind(std::string(kMeta) + "MicroTime").proto_shape,
            "microtime");
  EXPECT_EQ(MustFind(std::string(kMeta) + "FieldsV1").kind, ValueKind::kAny);
  // A field holding a scalar type has that JSON shape and names the type.
  const Field* t = MustFind(std::string(kMeta) + "ObjectMeta")
                       .FindField("creationTimestamp");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->kind, ValueKind::kString);
  EXPECT_EQ(t->format, "date-time");
  EXPECT_EQ(t->ref, std::string(kMeta) + "Time");
  const Field* limits =
      MustFind(std::string(kCore) + "ResourceRequirements").FindField("limits");
  ASSERT_NE(limits, nullptr);
  EXPECT_EQ(limits->kind, ValueKind::kMap);
  EXPECT_EQ(limits->items.kind, ValueKind::kString);
  EXPECT_EQ(limits->items.ref, "io.k8s.apimachinery.pkg.api.resource.Quantity");
}

TEST(SchemaTest, InlineFieldsAreFlattenedAndKeepTheirProtoMessage) {
  const Type& sel = MustFind(std::string(kCore) + "ConfigMapKeySelector");
  const Field* name = sel.FindField("name");
  ASSERT_NE(name, nullptr);
  EXPECT_EQ(name->proto, 0);  // lives in the embedded message
  const Field* embedded = sel.FindFieldByProto(1);
  ASSERT_NE(embedded, nullptr);
  EXPECT_EQ(embedded->name, "");
  EXPECT_EQ(embedded->ref, std::string(kCore) + "LocalObjectReference");
  EXPECT_EQ(sel.FindField("key")->proto, 2);

  const Type& eph = MustFind(std::string(kCore) + "EphemeralContainer");
  ASSERT_NE(eph.FindField("image"), nullptr);
  EXPECT_EQ(eph.FindField("targetContainerName")->proto, 2);
  EXPECT_EQ(eph.FindFieldByProto(1)->ref,
            std::string(kCore) + "EphemeralContainerCommon");
  EXPECT_EQ(eph.required, std::vector<std::string>{"name"});

  const Type& probe = MustFind(std::string(kCore) + "Probe");
  ASSERT_NE(probe.FindField("httpGet"), nullptr);
  EXPECT_EQ(probe.FindField("periodSeconds")->proto, 4);
  const Type& vol = MustFind(std::string(kCore) + "Volume");
  ASSERT_NE(vol.FindField("configMap"), nullptr);
  EXPECT_EQ(vol.FindField(""), nullptr);
}

TEST(SchemaTest, LoadJsonReportsBrokenData) {
  Schema s;
  EXPECT_NE(s.LoadJson("not json"), "");
  EXPECT_NE(s.LoadJson(R"({"types":[{"name":"a.T","fields":[
      {"name":"x","kind":"object","ref":"a.Missing"}]}]})"),
            "");
  EXPECT_NE(s.LoadJson(R"({"types":[{"name":"a.T","fields":[
      {"name":"x","proto":1},{"name":"x","proto":2}]}]})"),
            "");
  EXPECT_NE(s.LoadJson(R"({"types":[{"name":"a.T","fields":[
      {"name":"x","proto":1},{"name":"y","proto":1}]}]})"),
            "");
  EXPECT_EQ(s.LoadJson(R"({"types":[{"name":"a.T","fields":[
      {"name":"x","proto":1,"kind":"integer","format":"int32"}]}]})"),
            "");
  ASSERT_NE(s.Find("a.T"), nullptr);
  EXPECT_EQ(s.Find("a.T")->FindField("x")->kind, ValueKind::kInteger);
}

}  // namespace
}  // namespace kmock::api
