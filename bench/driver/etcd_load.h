// Puts to etcd through its HTTP/JSON gateway (etcd 3.4 serves it on the
// client port: POST /v3/kv/put with {"key": base64, "value": base64}), the
// baseline of kubemock's durable creates. Plain HTTP on loopback: the etcd
// the benchmark starts listens without TLS. Pure functions; safe from any
// thread.
#ifndef KMOCK_BENCH_DRIVER_ETCD_LOAD_H_
#define KMOCK_BENCH_DRIVER_ETCD_LOAD_H_

#include <string>
#include <string_view>

namespace kmock::bench {

inline constexpr std::string_view kEtcdPutPath = "/v3/kv/put";

// The JSON body of one put of value under key.
std::string EtcdPutBody(std::string_view key, std::string_view value);

}  // namespace kmock::bench

#endif  // KMOCK_BENCH_DRIVER_ETCD_LOAD_H_
