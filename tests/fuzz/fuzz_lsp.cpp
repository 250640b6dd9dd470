// syncwatch-lsp's reader (analyzer/lsp/JsonRpc): the bytes an editor writes to the server's
// stdin - framed JSON-RPC messages, one after another - read to the end as the server's
// main loop reads them, each message answered as the server answers (the reply, with the
// message in it, serialized to /dev/null).
#include "../../analyzer/lsp/JsonRpc.h"

#include <cstdint>
#include <cstdio>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *Data, std::size_t Size) {
  if (Size == 0)
    return 0;  // (fmemopen refuses an empty buffer)
  std::FILE *In = ::fmemopen(const_cast<std::uint8_t *>(Data), Size, "r");
  static std::FILE *Null = std::fopen("/dev/null", "w");
  if (!In || !Null)
    return 0;
  syncwatch::lsp::Channel Channel(In, Null);
  // Every read takes at least a line, so the input's end comes; the bound is a backstop.
  for (std::size_t Reads = 0; Reads <= Size; ++Reads) {
    syncwatch::lsp::Incoming M = Channel.read();
    if (M.What == syncwatch::lsp::Incoming::End)
      break;
    if (M.What != syncwatch::lsp::Incoming::Message) {
      Channel.replyError(nullptr, syncwatch::lsp::ParseError, M.Error);
      continue;
    }
    const llvm::json::Object *Msg = M.Body.getAsObject();
    const llvm::json::Value *Id = Msg ? Msg->get("id") : nullptr;
    if (Msg && Msg->getString("method"))
      Channel.reply(Id ? *Id : llvm::json::Value(nullptr), M.Body);
    else
      Channel.replyError(Id ? *Id : llvm::json::Value(nullptr), syncwatch::lsp::InvalidRequest, "no method");
  }
  std::fclose(In);
  return 0;
}
