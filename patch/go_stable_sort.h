// Go's sort.SliceStable (sort/zsortfunc.go: insertion sort on blocks of 20,
// then in-place symmetric merges), reproduced step for step. Strategic merge
// patch orders lists with a comparator that is not a strict weak ordering,
// so the result depends on the exact sequence of comparisons and swaps, not
// only on the comparator: any other stable sort gives other orders.
//
// The comparator sees the current data: less(data, i, j). Callers that
// compare by a precomputed key sort elements that carry it, so a
// comparison costs O(1) (O(n log^2 n) for the sort in all).
//
// Thread safety: pure function templates; safe from any thread.
#ifndef KMOCK_PATCH_GO_STABLE_SORT_H_
#define KMOCK_PATCH_GO_STABLE_SORT_H_

#include <cstddef>
#include <utility>
#include <vector>

namespace kmock::patch {
namespace go_sort_internal {

template <typename T, typename Less>
void InsertionSort(std::vector<T>& data, Less& less, size_t a, size_t b) {
  for (size_t i = a + 1; i < b; ++i) {
    for (size_t j = i; j > a && less(data, j, j - 1); --j) {
      std::swap(data[j], data[j - 1]);
    }
  }
}

template <typename T>
void SwapRange(std::vector<T>& data, size_t a, size_t b, size_t n) {
  for (size_t i = 0; i < n; ++i) std::swap(data[a + i], data[b + i]);
}

template <typename T>
void Rotate(std::vector<T>& data, size_t a, size_t m, size_t b) {
  size_t i = m - a;
  size_t j = b - m;
  while (i != j) {
    if (i > j) {
      SwapRange(data, m - i, m, j);
      i -= j;
    } else {
      SwapRange(data, m - i, m + j - i, i);
      j -= i;
    }
  }
  SwapRange(data, m - i, m, i);
}

template <typename T, typename Less>
void SymMerge(std::vector<T>& data, Less& less, size_t a, size_t m, size_t b) {
  if (m - a == 1) {
    size_t i = m, j = b;
    while (i < j) {
      size_t h = (i + j) >> 1;
      if (less(data, h, a)) {
        i = h + 1;
      } else {
        j = h;
      }
    }
    for (size_t k = a; k + 1 < i; ++k) std::swap(data[k], data[k + 1]);
    return;
  }
  if (b - m == 1) {
    size_t i = a, j = m;
    while (i < j) {
      size_t h = (i + j) >> 1;
      if (!less(data, m, h)) {
        i = h + 1;
      } else {
        j = h;
      }
    }
    for (size_t k = m; k > i; --k) std::swap(data[k], data[k - 1]);
    return;
  }
  size_t mid = (a + b) >> 1;
  size_t n = mid + m;
  size_t start, r;
  if (m > mid) {
    start = n - b;
    r = mid;
  } else {
    start = a;
    r = m;
  }
  size_t p = n - 1;
  while (start < r) {
    size_t c = (start + r) >> 1;
    if (!less(data, p - c, c)) {
      start = c + 1;
    } else {
      r = c;
    }
  }
  size_t end = n - start;
  if (start < m && m < end) Rotate(data, start, m, end);
  if (a < start && start < mid) SymMerge(data, less, a, start, mid);
  if (mid < end && end < b) SymMerge(data, less, mid, end, b);
}

}  // namespace go_sort_internal

// sort.SliceStable(data, less), less(data, i, j) -> bool.
template <typename T, typename Less>
void GoStableSort(std::vector<T>& data, Less less) {
  using go_sort_internal::InsertionSort;
  using go_sort_internal::SymMerge;
  const size_t n = data.size();
  size_t block = 20;
  size_t a = 0, b = block;
  while (b <= n) {
    InsertionSort(data, less, a, b);
    a = b;
    b += block;
  }
  InsertionSort(data, less, a, n);
  while (block < n) {
    a = 0;
    b = 2 * block;
    while (b <= n) {
      SymMerge(data, less, a, a + block, b);
      a = b;
      b += 2 * block;
    }
    size_t m = a + block;
    if (m < n) SymMerge(data, less, a, m, n);
    block *= 2;
  }
}

}  // namespace kmock::patch

#endif  // KMOCK_PATCH_GO_STABLE_SORT_H_
