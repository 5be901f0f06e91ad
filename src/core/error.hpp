// Failures inside the plan layer travel as baracuda::Error exceptions; capi/
// catches every one at the ABI boundary, stores the message for
// baracuda_last_error_message() and returns the status. Nothing is thrown on
// the success path, so run() pays nothing for this.
#pragma once

#include <cstdint>
#include <sstream>
#include <string>
#include <utility>

namespace baracuda {

class Error {
 public:
  Error(int32_t status, std::string message) : status_(status), message_(std::move(message)) {}
  int32_t status() const { return status_; }
  const std::string &message() const { return message_; }

 private:
  int32_t status_;
  std::string message_;
};

template <class... Parts>
std::string cat(const Parts &...parts) {
  std::ostringstream os;
  (os << ... << parts);
  return os.str();
}

template <class... Parts>
[[noreturn]] void fail(int32_t status, const Parts &...parts) {
  throw Error(status, cat(parts...));
}

// Throws the negated CUDA error when code != cudaSuccess (0).
void check_cuda(int code, const char *op, const char *what);

// Throws for a kernel entry point's non-zero return: a status, or a negated
// CUDA error of the launch.
void check_launch(int status, const char *op);

// Thread-local storage behind baracuda_last_error_message().
void set_last_error(const std::string &message);
const char *last_error();

}  // namespace baracuda
