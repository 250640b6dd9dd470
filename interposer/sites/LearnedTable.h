// A fixed-size hash table that the fast path reads without a lock while the slow path
// (a site's first occurrences) fills it: return address -> frame size, code object ->
// user or not, site key -> site id. Entries are never removed; a full table answers
// "unknown", which sends those calls down the slow path (correct, only slower). Its slots
// are constant-initialized atomics, so a table can be a global of a preloaded library
// (nothing to construct or destroy at load or exit).
#pragma once

#include <atomic>
#include <cstdint>

namespace syncwatch::runtime {

template <unsigned LogCapacity> class LearnedTable {
public:
  static constexpr std::uint32_t Capacity = 1u << LogCapacity;

  // Key 0 is never stored.
  bool find(std::uint64_t Key, std::uint64_t &Value) const {
    for (std::uint32_t I = slotOf(Key), Probes = 0; Probes < kMaxProbes; I = (I + 1) & (Capacity - 1), ++Probes) {
      std::uint64_t K = Slots[I].Key.load(std::memory_order_acquire);
      if (K == Key) {
        Value = Slots[I].Value.load(std::memory_order_relaxed);
        return true;
      }
      if (K == 0)
        return false;
    }
    return false;
  }

  // Callers serialize inserts (one lock for the slow path). An existing key's value is
  // replaced. False when there is no room within the probe limit.
  bool insert(std::uint64_t Key, std::uint64_t Value) {
    if (Key == 0)
      return false;
    for (std::uint32_t I = slotOf(Key), Probes = 0; Probes < kMaxProbes; I = (I + 1) & (Capacity - 1), ++Probes) {
      std::uint64_t K = Slots[I].Key.load(std::memory_order_relaxed);
      if (K == Key) {
        Slots[I].Value.store(Value, std::memory_order_relaxed);
        return true;
      }
      if (K == 0) {
        if (Used >= Capacity - Capacity / 4)
          return false;  // keep probes short
        Slots[I].Value.store(Value, std::memory_order_relaxed);
        Slots[I].Key.store(Key, std::memory_order_release);
        ++Used;
        return true;
      }
    }
    return false;
  }

  std::uint32_t size() const { return Used; }

private:
  static constexpr std::uint32_t kMaxProbes = 32;
  static std::uint32_t slotOf(std::uint64_t Key) {
    Key ^= Key >> 33;
    Key *= 0xff51afd7ed558ccdull;
    Key ^= Key >> 33;
    return static_cast<std::uint32_t>(Key) & (Capacity - 1);
  }
  struct Slot {
    std::atomic<std::uint64_t> Key{0};
    std::atomic<std::uint64_t> Value{0};
  };
  Slot Slots[Capacity];
  std::uint32_t Used = 0;
};

// Mixes one more word into a running 64-bit key (FNV-style, then a final avalanche).
inline std::uint64_t mixKey(std::uint64_t H, std::uint64_t V) {
  H ^= V + 0x9e3779b97f4a7c15ull + (H << 6) + (H >> 2);
  return H * 0x100000001b3ull;
}

} // namespace syncwatch::runtime
