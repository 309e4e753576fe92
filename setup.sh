#!/usr/bin/env bash
# One entry point for a fresh Debian machine:
#   ./setup.sh serve [kubemock serve flags...]  install what is missing, build (Release), start the server
#   ./setup.sh test                             install what is missing, build, run every test
#   ./setup.sh build                            install what is missing and build
set -euo pipefail
cd "$(dirname "$0")"

PACKAGES=(cmake g++ make pkg-config libcpp-httplib-dev libssl-dev nlohmann-json3-dev
          librocksdb-dev liblz4-dev zlib1g-dev libjemalloc-dev libsimdjson-dev libgtest-dev libgmock-dev libyaml-cpp-dev python3 python3-kubernetes
          openssl ca-certificates)
BUILD_DIR=${KUBEMOCK_BUILD_DIR:-build}

install_missing() {
  local missing=()
  for p in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    echo "setup: installing ${missing[*]}" >&2
    local sudo=""
    [ "$(id -u)" -eq 0 ] || sudo=sudo
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >&2
  fi
}

build() {
  cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release ${CMAKE_ARGS:-} >/dev/null
  cmake --build "$BUILD_DIR" -j"$(nproc)"
}

cmd=${1:-serve}
shift || true
case "$cmd" in
  serve)
    install_missing
    build
    exec "$BUILD_DIR/kubemock" serve "$@"
    ;;
  test)
    install_missing
    CMAKE_ARGS="${CMAKE_ARGS:-} -DKMOCK_WERROR=ON" build
    cd "$BUILD_DIR"
    ctest --output-on-failure -j"$(nproc)" "$@"
    ;;
  build)
    install_missing
    build
    ;;
  bench)
    # ./setup.sh bench [--quick] [bench/run flags]: the benchmark table
    # (bench/README.md); installs nginx and etcd for the baselines.
    install_missing
    build
    exec bench/run --build-dir "$BUILD_DIR" "$@"
    ;;
  fuzz)
    # ./setup.sh fuzz [--runs N | --time SECONDS] [target...]: the libFuzzer
    # targets under ASan + UBSan on their seed corpora (tests/fuzz/run).
    PACKAGES+=(clang libclang-rt-14-dev)
    install_missing
    exec tests/fuzz/run "$@"
    ;;
  lint)
    # ./setup.sh lint: every C++ source and header is in Google style
    # (.clang-format); prints each line that is not and fails. CI runs it.
    PACKAGES=(clang-format git)
    install_missing
    git ls-files -z '*.cc' '*.h' | xargs -0 clang-format --dry-run -Werror
    echo "setup: every C++ file is formatted" >&2
    ;;
  sanitize)
    # ./setup.sh sanitize [address|thread|all] [ctest args...]: every unit
    # and end-to-end test under ASan + UBSan and under TSan
    # (tests/sanitize/run).
    PACKAGES+=(clang libclang-rt-14-dev)
    install_missing
    exec tests/sanitize/run "$@"
    ;;
  *)
    echo "usage: $0 serve [flags] | test | build | bench [--quick] | fuzz | sanitize | lint" >&2
    exit 2
    ;;
esac
