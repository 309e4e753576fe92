#include "api/kinds/kind_code.h"

#include <map>
#include <string>

#include "api/kinds/access_checks.h"
#include "api/kinds/access_review.h"
#include "api/kinds/batch_checks.h"
#include "api/kinds/claim_ingress_checks.h"
#include "api/kinds/component_status.h"
#include "api/kinds/config_checks.h"
#include "api/kinds/csr.h"
#include "api/kinds/daemonset.h"
#include "api/kinds/deployment.h"
#include "api/kinds/event.h"
#include "api/kinds/flowcontrol.h"
#include "api/kinds/hpa.h"
#include "api/kinds/lease.h"
#include "api/kinds/limit_range.h"
#include "api/kinds/namespace.h"
#include "api/kinds/node.h"
#include "api/kinds/pod.h"
#include "api/kinds/policy_checks.h"
#include "api/kinds/replicaset.h"
#include "api/kinds/replication_controller.h"
#include "api/kinds/service.h"

namespace kmock::api {

namespace {

std::map<std::string, KindCode, std::less<>> Build() {
  std::map<std::string, KindCode, std::less<>> t;
  {
    KindCode& c = t["pod"];
    c.strategy = kinds::PodStrategy();
    c.status_strategy = kinds::PodStatusStrategy();
    c.selectable_fields = kinds::PodSelectableFields();
  }
  {
    KindCode& c = t["node"];
    c.strategy = kinds::NodeStrategy();
    c.status_strategy = kinds::NodeStatusStrategy();
    c.selectable_fields = kinds::NodeSelectableFields();
  }
  {
    KindCode& c = t["namespace"];
    c.strategy = kinds::NamespaceStrategy();
    c.status_strategy = kinds::NamespaceStatusStrategy();
    c.subresource_strategies["finalize"] = kinds::NamespaceFinalizeStrategy();
    c.selectable_fields = kinds::NamespaceSelectableFields();
  }
  {
    KindCode& c = t["service"];
    c.strategy = kinds::ServiceStrategy();
    c.status_strategy = kinds::ServiceStatusStrategy();
    c.selectable_fields = kinds::ServiceSelectableFields();
    c.make_allocator = [](Rng* rng) -> std::unique_ptr<ResourceAllocator> {
      return std::make_unique<kinds::ServiceAllocator>(rng);
    };
  }
  {
    KindCode& c = t["coreEvent"];
    c.strategy = kinds::CoreEventStrategy();
    c.selectable_fields = kinds::CoreEventSelectableFields();
  }
  {
    KindCode& c = t["eventsV1"];
    c.strategy = kinds::EventsV1Strategy();
    c.selectable_fields = kinds::EventsV1SelectableFields();
    c.from_storage = kinds::CoreEventToEventsV1;
    c.to_storage = kinds::EventsV1ToCoreEvent;
  }
  {
    KindCode& c = t["deployment"];
    c.strategy = kinds::DeploymentStrategy();
    c.status_strategy = kinds::DeploymentStatusStrategy();
  }
  {
    KindCode& c = t["daemonSet"];
    c.normalize = kinds::DefaultDaemonSet;
    c.validate = kinds::ValidateDaemonSet;
    c.validate_update = kinds::ValidateDaemonSetUpdate;
    c.prepare_update = kinds::KeepDaemonSetTemplateGeneration;
  }
  {
    KindCode& c = t["replicationController"];
    c.normalize = kinds::DefaultReplicationController;
    c.validate = kinds::ValidateReplicationController;
  }
  {
    KindCode& c = t["replicaSet"];
    c.strategy = kinds::ReplicaSetStrategy();
    c.status_strategy = kinds::ReplicaSetStatusStrategy();
    c.selectable_fields = kinds::ReplicaSetSelectableFields();
  }
  {
    // autoscaling/v1 autoscalers are stored in their v2 form.
    KindCode& c = t["hpaV1"];
    c.from_storage = kinds::HpaV2ToV1;
    c.to_storage = kinds::HpaV1ToV2;
  }
  {
    KindCode& c = t["configMap"];
    c.validate = kinds::ValidateConfigMap;
    c.validate_update = kinds::ValidateConfigMapUpdate;
  }
  {
    KindCode& c = t["secret"];
    c.normalize = kinds::NormalizeSecret;
    c.validate = kinds::ValidateSecret;
    c.validate_update = kinds::ValidateSecretUpdate;
  }
  {
    KindCode& c = t["job"];
    c.normalize = kinds::DefaultJob;
    c.prepare_create = kinds::GenerateJobSelector;
    c.validate = kinds::ValidateJob;
    c.validate_update = kinds::ValidateJobUpdate;
  }
  {
    KindCode& c = t["cronJob"];
    c.normalize = kinds::DefaultCronJob;
    c.validate = kinds::ValidateCronJob;
  }
  t["role"].validate = kinds::ValidateRole;
  t["clusterRole"].validate = kinds::ValidateClusterRole;
  {
    KindCode& c = t["roleBinding"];
    c.validate = kinds::ValidateRoleBinding;
    c.validate_update = kinds::ValidateRoleBindingUpdate;
  }
  {
    KindCode& c = t["clusterRoleBinding"];
    c.validate = kinds::ValidateClusterRoleBinding;
    c.validate_update = kinds::ValidateClusterRoleBindingUpdate;
  }
  {
    KindCode& c = t["certificateSigningRequest"];
    c.validate = kinds::ValidateCertificateSigningRequest;
    c.validate_update = kinds::ValidateCertificateSigningRequestUpdate;
    c.prepare_update = kinds::KeepCertificateSigningRequestSpec;
    c.record_requester = kinds::RecordCertificateSigningRequester;
    c.stamp_update_times = kinds::StampCertificateSigningRequestConditions;
    c.status_strategy = kinds::CertificateSigningRequestStatusStrategy();
    c.subresource_strategies["approval"] =
        kinds::CertificateSigningRequestApprovalStrategy();
  }
  {
    KindCode& c = t["persistentVolumeClaim"];
    c.normalize = kinds::DefaultPendingPhase;
    c.validate = kinds::ValidatePersistentVolumeClaim;
  }
  t["persistentVolume"].normalize = kinds::DefaultPendingPhase;
  t["limitRange"].normalize = kinds::DefaultLimitRange;
  t["ingress"].validate = kinds::ValidateIngress;
  t["podDisruptionBudget"].validate = kinds::ValidatePodDisruptionBudget;
  t["lease"].strategy = kinds::LeaseStrategy();
  t["selfSubjectAccessReview"].virtual_create =
      kinds::CreateSelfSubjectAccessReview;
  t["subjectAccessReview"].virtual_create = kinds::CreateSubjectAccessReview;
  t["localSubjectAccessReview"].virtual_create =
      kinds::CreateLocalSubjectAccessReview;
  t["selfSubjectRulesReview"].virtual_create =
      kinds::CreateSelfSubjectRulesReview;
  t["selfSubjectReview"].virtual_create = kinds::CreateSelfSubjectReview;
  t["componentStatus"].virtual_items = kinds::ComponentStatuses;
  // The metrics API's items come from the kubelets while the server runs
  // (Registry::SetLiveItems); without them the lists are empty.
  t["nodeMetrics"].virtual_items = [] { return std::vector<json>{}; };
  t["podMetrics"].virtual_items = [] { return std::vector<json>{}; };
  t["flowSchema"].table_row_less = kinds::FlowSchemaPrecedenceLess;
  // The versions served before v1 share its stored objects.
  struct OlderVersion {
    const char* api_version;
    const char* flow_schemas;
    const char* priority_levels;
  };
  for (const OlderVersion& v :
       {OlderVersion{"flowcontrol.apiserver.k8s.io/v1beta3",
                     "flowSchemaV1beta3", "priorityLevelV1beta3"},
        OlderVersion{"flowcontrol.apiserver.k8s.io/v1beta2",
                     "flowSchemaV1beta2", "priorityLevelV1beta2"}}) {
    auto from_storage = [api_version =
                             std::string(v.api_version)](const json& stored) {
      return kinds::FlowcontrolFromStorage(stored, api_version);
    };
    KindCode& schemas = t[v.flow_schemas];
    schemas.table_row_less = kinds::FlowSchemaPrecedenceLess;
    schemas.from_storage = from_storage;
    schemas.to_storage = kinds::FlowcontrolToStorage;
    KindCode& levels = t[v.priority_levels];
    levels.from_storage = from_storage;
    levels.to_storage = kinds::FlowcontrolToStorage;
  }
  // v1beta2 also names a limited level's share differently.
  t["priorityLevelV1beta2"].from_storage =
      kinds::PriorityLevelV1beta2FromStorage;
  t["priorityLevelV1beta2"].to_storage = kinds::PriorityLevelV1beta2ToStorage;
  return t;
}

}  // namespace

const KindCode* FindKindCode(std::string_view name) {
  static const auto* table =
      new std::map<std::string, KindCode, std::less<>>(Build());
  auto it = table->find(name);
  return it == table->end() ? nullptr : &it->second;
}

}  // namespace kmock::api
