#include "KnownSummaries.h"

namespace syncwatch {

void KnownSummaries::add(const UnitSummary &U) {
  std::lock_guard<std::mutex> Lock(M);
  Index.add(U);
}

std::optional<KnownSlice> KnownSummaries::sliceFor(const UnitSummary &U) const {
  std::lock_guard<std::mutex> Lock(M);
  if (Index.empty())
    return std::nullopt;
  KnownSlice S{Index.restrictedTo(U), {}};
  S.Text = S.Index.text();
  if (S.Text.empty())
    return std::nullopt;
  return S;
}

} // namespace syncwatch
