// JSON-RPC 2.0 over a byte stream, framed as the Language Server Protocol frames it:
// "Content-Length: N\r\n\r\n" then N bytes of JSON. One reader (the server's main loop),
// writers from any thread (the analysis worker publishes diagnostics): writes are whole
// messages under a lock.
#pragma once

#include "llvm/Support/JSON.h"

#include <cstdio>
#include <mutex>
#include <optional>
#include <string>

namespace syncwatch::lsp {

// One framed message read from In, or why none could be: EOF, or a frame that is not one
// (no Content-Length, a length over the limit). A body that is not JSON is a message of its
// own (the caller answers it with a parse error and goes on).
struct Incoming {
  enum Kind { Message, BadJson, BadFrame, End } What = End;
  llvm::json::Value Body = nullptr;
  std::string Error;
};

class Channel {
public:
  Channel(std::FILE *In, std::FILE *Out) : In(In), Out(Out) {}
  Incoming read();
  void send(const llvm::json::Value &Message);
  void reply(const llvm::json::Value &Id, llvm::json::Value Result);
  void replyError(const llvm::json::Value &Id, int Code, const std::string &Message);
  void notify(llvm::StringRef Method, llvm::json::Value Params);

  // Frames larger than this are refused (a client would not send 64 MiB of source).
  static constexpr std::size_t kMaxContent = 64u << 20;

private:
  std::FILE *In, *Out;
  std::mutex WriteLock;
};

// JSON-RPC's error codes.
enum ErrorCode {
  ParseError = -32700,
  InvalidRequest = -32600,
  MethodNotFound = -32601,
  InvalidParams = -32602,
  ServerNotInitialized = -32002,
  RequestFailed = -32803,
};

} // namespace syncwatch::lsp
