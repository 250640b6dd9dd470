// Preload test program: C++ iostreams used from a static constructor and from a thread,
// and (with an argument) exit() called from that thread while main still runs.
#include <cstdlib>
#include <iostream>
#include <string>
#include <thread>

namespace {
struct Banner {
  Banner() { std::cout << "static constructor runs" << std::endl; }
  ~Banner() { std::cout << "static destructor runs" << std::endl; }
} TheBanner;
} // namespace

int main(int argc, char **argv) {
  bool ExitFromThread = argc > 1 && std::string(argv[1]) == "exit-from-thread";
  std::thread T([&] {
    std::cout << "thread says hello" << std::endl;
    std::cerr << "thread writes to cerr" << std::endl;
    if (ExitFromThread)
      std::exit(9);
  });
  T.join();
  std::cout << "main done" << std::endl;
  return 6;
}
