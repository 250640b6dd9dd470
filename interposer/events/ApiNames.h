// API and kernel names as events keep them: a string_view that outlives every record.
#pragma once

#include <string_view>

namespace syncwatch::runtime {

// A stable view of an API name: the catalogue's own string, or an interned copy.
std::string_view internApiName(std::string_view Name);

// A stable view of a kernel's name: one copy per distinct name, never freed (a program has
// a bounded set of kernels; its records, millions, each hold a view).
std::string_view internKernelName(std::string_view Name);

} // namespace syncwatch::runtime
