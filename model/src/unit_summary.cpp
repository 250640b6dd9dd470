#include "syncwatch/unit_summary.h"

#include "syncwatch/json_value.h"
#include "syncwatch/json_writer.h"

#include <algorithm>
#include <set>
#include <tuple>
#include <sstream>

namespace syncwatch {

// ---- the index ------------------------------------------------------------------------------

void SummaryIndex::add(const UnitSummary &U) {
  for (const ExportedFunction &F : U.Functions) {
    auto [It, New] = Functions.try_emplace(F.Usr, F);
    if (!New && !(It->second == F)) {
      // The same function, summarized twice: identical copies (a header's non-inline
      // definition seen by two units would not link, but #ifdef'd variants do) agree, the
      // rest is not trusted.
      ExportedFunction A = It->second, B = F;
      A.Def = B.Def = {};
      if (!(A == B))
        Clashes.insert(F.Usr);
    }
  }
  for (const ExternalCall &C : U.Calls)
    if (!C.InFlight.empty())
      Callers[C.Usr].push_back(C);
}

const ExportedFunction *SummaryIndex::function(std::string_view Usr) const {
  if (Clashes.find(Usr) != Clashes.end())
    return nullptr;
  auto It = Functions.find(Usr);
  return It == Functions.end() ? nullptr : &It->second;
}

const std::vector<ExternalCall> &SummaryIndex::callersOf(std::string_view Usr) const {
  static const std::vector<ExternalCall> None;
  auto It = Callers.find(Usr);
  return It == Callers.end() ? None : It->second;
}

SummaryIndex SummaryIndex::restrictedTo(const UnitSummary &U) const {
  UnitSummary Slice;
  std::set<std::string> Called;
  for (const ExternalCall &C : U.Calls)
    if (Called.insert(C.Usr).second)
      if (const ExportedFunction *F = function(C.Usr); F && !F->trivial())
        Slice.Functions.push_back(*F);
  for (const ExportedFunction &F : U.Functions)
    for (const ExternalCall &C : callersOf(F.Usr))
      Slice.Calls.push_back(C);
  // Deterministic order: the slice is hashed into the cache key.
  std::sort(Slice.Functions.begin(), Slice.Functions.end(),
            [](const ExportedFunction &A, const ExportedFunction &B) { return A.Usr < B.Usr; });
  std::sort(Slice.Calls.begin(), Slice.Calls.end(), [](const ExternalCall &A, const ExternalCall &B) {
    return std::tie(A.Usr, A.Site.File, A.Site.Line) < std::tie(B.Usr, B.Site.File, B.Site.Line);
  });
  SummaryIndex Out;
  Out.add(Slice);
  return Out;
}

std::string SummaryIndex::text() const {
  if (empty())
    return "";
  UnitSummary Flat;
  for (const auto &[Usr, F] : Functions)
    Flat.Functions.push_back(F);
  for (const auto &[Usr, Calls] : Callers)
    Flat.Calls.insert(Flat.Calls.end(), Calls.begin(), Calls.end());
  return unitSummaryJson(Flat);
}

// ---- JSON -----------------------------------------------------------------------------------

namespace {

const char *leftName(ExportedFunction::Left L) {
  switch (L) {
  case ExportedFunction::Left::None: return "none";
  case ExportedFunction::Left::OnParam: return "param";
  case ExportedFunction::Left::Legacy: return "legacy";
  case ExportedFunction::Left::PerThread: return "per-thread";
  case ExportedFunction::Left::Unknown: return "unknown";
  }
  return "none";
}

bool parseLeft(const std::string &S, ExportedFunction::Left &Out) {
  for (auto L : {ExportedFunction::Left::None, ExportedFunction::Left::OnParam, ExportedFunction::Left::Legacy,
                 ExportedFunction::Left::PerThread, ExportedFunction::Left::Unknown})
    if (S == leftName(L)) {
      Out = L;
      return true;
    }
  return false;
}

void writePlaceFields(JsonWriter &J, const SummaryPlace &P) {
  J.field("file", P.File).field("line", P.Line).field("what", P.What);
}

void writePlace(JsonWriter &J, std::string_view Key, const SummaryPlace &P) {
  J.key(Key).beginObject();
  writePlaceFields(J, P);
  J.endObject();
}

bool readPlace(const JsonValue &V, SummaryPlace &Out) {
  if (!V.isObject() || V["file"].kind() != JsonValue::Kind::String)
    return false;
  Out.File = V["file"].string();
  Out.Line = V["line"].whole<unsigned>(0);
  Out.What = V["what"].kind() == JsonValue::Kind::String ? V["what"].string() : "";
  return true;
}

void writeSummary(JsonWriter &J, const UnitSummary &U) {
  J.beginObject();
  J.key("functions").beginArray();
  for (const ExportedFunction &F : U.Functions) {
    J.beginObject().field("usr", F.Usr).field("name", F.Name);
    writePlace(J, "def", F.Def);
    J.field("leftOn", leftName(F.LeftOn)).field("leftParam", F.LeftParam);
    writePlace(J, "leftBy", F.LeftBy);
    J.field("drainsAll", F.DrainsAll);
    J.key("drainsParams").beginArray();
    for (unsigned P : F.DrainsParams)
      J.value(P);
    J.endArray();
    if (F.Waits)
      writePlace(J, "waits", *F.Waits);
    J.endObject();
  }
  J.endArray();
  J.key("calls").beginArray();
  for (const ExternalCall &C : U.Calls) {
    J.beginObject().field("usr", C.Usr);
    writePlace(J, "site", C.Site);
    J.key("inFlight").beginArray();
    for (const ExternalCall::Work &W : C.InFlight) {
      J.beginObject().field("param", W.Param);
      writePlace(J, "issued", W.Issued);
      if (!W.Via.empty()) {
        J.key("via").beginArray();
        for (const SummaryPlace &P : W.Via) {
          J.beginObject();
          writePlaceFields(J, P);
          J.endObject();
        }
        J.endArray();
      }
      J.endObject();
    }
    J.endArray().endObject();
  }
  J.endArray();
  J.endObject();
}

bool readSummary(const JsonValue &V, UnitSummary &Out, std::string &Error) {
  Out = UnitSummary();
  if (!V.isObject() || V["functions"].kind() != JsonValue::Kind::Array || V["calls"].kind() != JsonValue::Kind::Array) {
    Error = "a unit summary without its functions and calls";
    return false;
  }
  for (const JsonValue &F : V["functions"].array()) {
    ExportedFunction E;
    if (!F.isObject() || F["usr"].kind() != JsonValue::Kind::String || F["name"].kind() != JsonValue::Kind::String ||
        F["leftOn"].kind() != JsonValue::Kind::String || !parseLeft(F["leftOn"].string(), E.LeftOn) ||
        !readPlace(F["def"], E.Def)) {
      Error = "a function summary that is not {usr, name, def, leftOn, ...}";
      return false;
    }
    E.Usr = F["usr"].string();
    E.Name = F["name"].string();
    E.LeftParam = F["leftParam"].whole<int>(-1);
    readPlace(F["leftBy"], E.LeftBy);
    E.DrainsAll = F["drainsAll"].boolean();
    for (const JsonValue &P : F["drainsParams"].array())
      if (P.kind() == JsonValue::Kind::Number)
        E.DrainsParams.push_back(P.whole<unsigned>(0));
    SummaryPlace W;
    if (readPlace(F["waits"], W))
      E.Waits = W;
    if (E.LeftOn == ExportedFunction::Left::OnParam && E.LeftParam < 0) {
      Error = "a function summary that leaves work on a parameter without naming it";
      return false;
    }
    Out.Functions.push_back(std::move(E));
  }
  for (const JsonValue &C : V["calls"].array()) {
    ExternalCall E;
    if (!C.isObject() || C["usr"].kind() != JsonValue::Kind::String || !readPlace(C["site"], E.Site)) {
      Error = "a call summary that is not {usr, site, inFlight}";
      return false;
    }
    E.Usr = C["usr"].string();
    for (const JsonValue &W : C["inFlight"].array()) {
      ExternalCall::Work Work;
      Work.Param = W["param"].whole<int>(-1);
      if (!readPlace(W["issued"], Work.Issued)) {
        Error = "work in flight without the place that issued it";
        return false;
      }
      for (const JsonValue &P : W["via"].array()) {
        SummaryPlace Through;
        if (!readPlace(P, Through)) {
          Error = "work in flight with a call it came through that is not {file, line, what}";
          return false;
        }
        Work.Via.push_back(std::move(Through));
      }
      E.InFlight.push_back(std::move(Work));
    }
    Out.Calls.push_back(std::move(E));
  }
  return true;
}

} // namespace

std::string unitSummaryJson(const UnitSummary &U) {
  std::ostringstream S;
  JsonWriter J(S, /*Pretty=*/false);
  writeSummary(J, U);
  return S.str();
}

bool readUnitSummary(const std::string &Text, UnitSummary &Out, std::string &Error) {
  JsonValue V;
  return JsonValue::parse(Text, V, Error) && readSummary(V, Out, Error);
}

bool readUnitSummaryValue(const JsonValue &V, UnitSummary &Out, std::string &Error) {
  return readSummary(V, Out, Error);
}

std::string summaryFileText(const std::vector<std::pair<std::string, UnitSummary>> &Units) {
  std::ostringstream S;
  {
    JsonWriter J(S);
    J.beginObject().field("version", kSummaryFileVersion).field("tool", "syncwatch-lint");
    J.key("units").beginArray();
    for (const auto &[File, U] : Units) {
      J.beginObject().field("file", File).key("summary");
      writeSummary(J, U);
      J.endObject();
    }
    J.endArray().endObject();
  }
  S << "\n";
  return S.str();
}

bool readSummaryFile(const std::string &Text, std::vector<std::pair<std::string, UnitSummary>> &Out,
                     std::string &Error) {
  JsonValue V;
  if (!JsonValue::parse(Text, V, Error))
    return false;
  if (!V.isObject() || V["version"].whole<int>(0) != kSummaryFileVersion || V["units"].kind() != JsonValue::Kind::Array) {
    Error = "not a syncwatch-lint summary file of version " + std::to_string(kSummaryFileVersion);
    return false;
  }
  Out.clear();
  for (const JsonValue &U : V["units"].array()) {
    UnitSummary S;
    if (U["file"].kind() != JsonValue::Kind::String || !readSummary(U["summary"], S, Error)) {
      if (Error.empty())
        Error = "a unit without its file";
      return false;
    }
    Out.emplace_back(U["file"].string(), std::move(S));
  }
  return true;
}

} // namespace syncwatch
