// clang-flags: @TORCH@ -DTORCH_EXTENSION_NAME=swtest
// nvcc-flags: @TORCH@ -DTORCH_EXTENSION_NAME=swtest
// A pybind11 extension (torch/extension.h): data-dependent ops inside AT_DISPATCH_*, an
// equal() check, and a tolist() through Python - each waits for the GPU inside the op.
#include <torch/extension.h>

std::vector<torch::Tensor> split_valid(torch::Tensor values, torch::Tensor valid) {
  std::vector<torch::Tensor> out;
  AT_DISPATCH_FLOATING_TYPES(values.scalar_type(), "split_valid", [&] {
    out.push_back(values.masked_select(valid));  // expect: warning syncwatch-torch-host-sync
    out.push_back(std::get<0>(torch::unique_consecutive(std::get<0>(values.sort()))));  // expect: warning syncwatch-torch-host-sync
  });
  return out;
}

bool same_layout(torch::Tensor a, torch::Tensor b) {
  return a.sizes() == b.sizes() && a.equal(b);  // expect: warning syncwatch-torch-host-sync
}

py::object histogram_list(torch::Tensor x, int64_t bins) {
  auto h = torch::histc(x, bins);
  return py::cast(h).attr("tolist")();  // expect: warning syncwatch-torch-host-sync
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("split_valid", &split_valid);
  m.def("same_layout", &same_layout);
  m.def("histogram_list", &histogram_list);
}
