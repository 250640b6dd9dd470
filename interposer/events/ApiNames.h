// API names as events keep them: a string_view that outlives every record.
#pragma once

#include <string_view>

namespace syncwatch::runtime {

// A stable view of an API name: the catalogue's own string, or an interned copy.
std::string_view internApiName(std::string_view Name);

} // namespace syncwatch::runtime
