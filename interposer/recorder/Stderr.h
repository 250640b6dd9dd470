// Everything libsyncwatch.so says goes through here, straight to file descriptor 2.
//
// Why not std::cerr: the library runs inside other people's processes, from a load-time
// constructor, atexit handlers and signal paths. With GCC 12's libstdc++ (Debian 12, Ubuntu
// 22.04, RHEL 8/9) std::cerr is constructed by the ios_base::Init objects of whichever
// translation units include <iostream>, in static-initialization order - not when
// libstdc++ loads - and using it before then crashes the host process (seen: every preloaded
// process exited 139). write(2) depends on no library's static state.
#pragma once

#include <string_view>

namespace syncwatch::runtime {

// Writes all of Text to stderr (retries short writes and EINTR; gives up silently when
// stderr is closed). Async-signal-safe.
void writeStderr(std::string_view Text);

} // namespace syncwatch::runtime
