// A test in Thrust's own style (thrust/testing/pair.cu), linted the way CCCL's own build
// compiles it: Thrust as the project's headers (-I <cuda>/include/cccl, and
// -D_CCCL_NO_SYSTEM_HEADER to drop their system-header pragma), so findings in Thrust's
// headers are reported like the project's own. thrust::pair is cuda::std::pair in CCCL 3:
// host_vector<thrust::pair<...>>'s constructors build their base with
// std::allocator<cuda::std::pair<...>>, host memory, no GPU work (field class 5).
#include <thrust/device_vector.h>
#include <thrust/host_vector.h>
#include <thrust/pair.h>
#include <thrust/sort.h>

#include <cstdio>

using KeyIndex = thrust::pair<int, int>;

int main() {
  const int n = 1000;
  thrust::host_vector<KeyIndex> keys(n);
  thrust::host_vector<KeyIndex> expected(n, KeyIndex(0, n - 1));
  for (int i = 0; i < n; ++i)
    keys[i] = KeyIndex(n - 1 - i, i);
  thrust::device_vector<KeyIndex> d_keys = keys;
  thrust::sort(d_keys.begin(), d_keys.end());
  thrust::host_vector<KeyIndex> sorted = d_keys;
  bool ok = sorted[0] == expected[0];
  std::printf("%s\n", ok ? "sorted" : "wrong order");
  return ok ? 0 : 1;
}
