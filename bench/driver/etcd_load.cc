#include "driver/etcd_load.h"

#include "driver/request_template.h"

namespace kmock::bench {

std::string EtcdPutBody(std::string_view key, std::string_view value) {
  return "{\"key\":\"" + Base64(key) + "\",\"value\":\"" + Base64(value) +
         "\"}";
}

}  // namespace kmock::bench
