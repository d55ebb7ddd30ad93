// tests/native/encoders_lock.cc: csrc/tf/kvec_ops.cc's table of encoders, driven without a TensorFlow
// graph (whose own handling of a large attribute dwarfs the build it wraps), for
// tests/test_hostile_descriptions.py.
//
// Usage: encoders_lock SLOW HEALTHY (two description files). One thread finds the encoder of SLOW (a
// description that takes long to build, accepted or refused); once it has started, another finds
// HEALTHY's. Prints when each was done, in seconds from the moment the healthy one started:
// "slow <s> healthy <s>".
#include <chrono>
#include <fstream>
#include <iostream>
#include <iterator>
#include <thread>

#include "../../csrc/tf/kvec_ops.cc"

static std::string Slurp(const char* path) {
  std::ifstream file(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
}

int main(int argc, char** argv) {
  if (argc != 3) return 2;
  const std::string slow = Slurp(argv[1]), healthy = Slurp(argv[2]);
  using Clock = std::chrono::steady_clock;
  Clock::time_point slow_end;
  std::thread builder([&] {
    std::shared_ptr<kvec::SharedEncoder> found;
    (void)kvec::Encoders::Find(slow, &found);  // accepted or refused: either took its time
    slow_end = Clock::now();
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));  // the slow build under way
  const Clock::time_point start = Clock::now();
  std::shared_ptr<kvec::SharedEncoder> found;
  if (!kvec::Encoders::Find(healthy, &found).ok()) return 4;
  const Clock::time_point healthy_end = Clock::now();
  builder.join();
  std::cout << "slow " << std::chrono::duration<double>(slow_end - start).count() << " healthy "
            << std::chrono::duration<double>(healthy_end - start).count() << std::endl;
  return 0;
}
