#include "JsonRpc.h"

#include "syncwatch/json_limits.h"

#include "llvm/Support/raw_ostream.h"

#include <algorithm>

#include <cstdlib>
#include <cstring>

namespace syncwatch::lsp {

Incoming Channel::read() {
  Incoming Result;
  std::optional<std::size_t> Length;
  char Line[1024];
  // Headers, up to the empty line. A header line longer than the buffer is not LSP's.
  for (;;) {
    if (!std::fgets(Line, sizeof Line, In)) {
      Result.What = Incoming::End;
      return Result;
    }
    std::size_t N = std::strlen(Line);
    if (N == sizeof Line - 1 && Line[N - 1] != '\n') {
      Result.What = Incoming::BadFrame;
      Result.Error = "a header line longer than 1 KiB";
      // Skip to the end of that line, then go on reading headers.
      int C;
      while ((C = std::fgetc(In)) != EOF && C != '\n') {
      }
      continue;
    }
    llvm::StringRef L = llvm::StringRef(Line, N).rtrim("\r\n");
    if (L.empty()) {
      if (Length)
        break;
      continue;  // blank lines between messages are tolerated
    }
    if (L.consume_front_insensitive("content-length:")) {
      std::size_t V = 0;
      if (L.trim().getAsInteger(10, V)) {
        Result.What = Incoming::BadFrame;
        Result.Error = "a Content-Length that is not a number";
        return Result;
      }
      Length = V;
    }
  }
  if (*Length > kMaxContent) {
    // The body is read and dropped: left in the stream, it would be read as headers, and
    // the server would never answer again.
    char Skip[1 << 16];
    for (std::size_t Left = *Length; Left;) {
      std::size_t Got = std::fread(Skip, 1, std::min(Left, sizeof Skip), In);
      if (!Got) {
        Result.What = Incoming::End;
        return Result;
      }
      Left -= Got;
    }
    Result.What = Incoming::BadFrame;
    Result.Error = "a message of " + std::to_string(*Length) + " bytes (over 64 MiB)";
    return Result;
  }
  std::string Body(*Length, '\0');
  if (*Length && std::fread(Body.data(), 1, *Length, In) != *Length) {
    Result.What = Incoming::End;
    return Result;
  }
  // llvm::json's parser recurses once per level: 40,000 levels overflowed the stack (a
  // SIGSEGV, before any reply). The CLIs' readers have the same limit.
  if (std::string Why = jsonLimitsError(Body, kMaxJsonDepth, kMaxContent); !Why.empty()) {
    Result.What = Incoming::BadJson;
    Result.Error = Why;
    return Result;
  }
  llvm::Expected<llvm::json::Value> V = llvm::json::parse(Body);
  if (!V) {
    Result.What = Incoming::BadJson;
    Result.Error = llvm::toString(V.takeError());
    return Result;
  }
  Result.What = Incoming::Message;
  Result.Body = std::move(*V);
  return Result;
}

void Channel::send(const llvm::json::Value &Message) {
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  OS << Message;
  OS.flush();
  std::lock_guard<std::mutex> G(WriteLock);
  std::fprintf(Out, "Content-Length: %zu\r\n\r\n", Text.size());
  std::fwrite(Text.data(), 1, Text.size(), Out);
  std::fflush(Out);
}

void Channel::reply(const llvm::json::Value &Id, llvm::json::Value Result) {
  send(llvm::json::Object{{"jsonrpc", "2.0"}, {"id", Id}, {"result", std::move(Result)}});
}

void Channel::replyError(const llvm::json::Value &Id, int Code, const std::string &Message) {
  send(llvm::json::Object{
      {"jsonrpc", "2.0"}, {"id", Id}, {"error", llvm::json::Object{{"code", Code}, {"message", Message}}}});
}

void Channel::notify(llvm::StringRef Method, llvm::json::Value Params) {
  send(llvm::json::Object{{"jsonrpc", "2.0"}, {"method", Method}, {"params", std::move(Params)}});
}

} // namespace syncwatch::lsp
