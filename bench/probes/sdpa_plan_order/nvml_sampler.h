// The GPU's SM clock, power draw, temperature and clock-event reasons,
// sampled every millisecond by a thread (NVML, opened with dlopen: the
// driver ships it, no header needed), summarized over a timing's window, so
// that two timings of one process can be told apart by the clock they ran at.
#pragma once

#include <dlfcn.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <thread>
#include <vector>

class NvmlSampler {
 public:
  struct Sample {
    double t;  // seconds since the sampler started
    unsigned mhz, mw, temp;
    unsigned long long reasons;
  };
  struct Summary {
    double mhz = 0, watts = 0, min_mhz = 0;
    unsigned temp = 0;
    unsigned long long reasons = 0;  // OR over the window
    int n = 0;
  };

  NvmlSampler() {
    lib_ = dlopen("libnvidia-ml.so.1", RTLD_NOW);
    if (!lib_) return;
    auto sym = [&](const char *n) { return dlsym(lib_, n); };
    auto init = reinterpret_cast<int (*)()>(sym("nvmlInit_v2"));
    auto handle = reinterpret_cast<int (*)(unsigned, void **)>(sym("nvmlDeviceGetHandleByIndex_v2"));
    clock_ = reinterpret_cast<int (*)(void *, int, unsigned *)>(sym("nvmlDeviceGetClockInfo"));
    power_ = reinterpret_cast<int (*)(void *, unsigned *)>(sym("nvmlDeviceGetPowerUsage"));
    temp_ = reinterpret_cast<int (*)(void *, int, unsigned *)>(sym("nvmlDeviceGetTemperature"));
    reasons_ = reinterpret_cast<int (*)(void *, unsigned long long *)>(sym("nvmlDeviceGetCurrentClocksEventReasons"));
    if (!reasons_)
      reasons_ = reinterpret_cast<int (*)(void *, unsigned long long *)>(sym("nvmlDeviceGetCurrentClocksThrottleReasons"));
    if (!init || !handle || !clock_ || init() != 0 || handle(0, &dev_) != 0) return;
    start_ = std::chrono::steady_clock::now();
    running_ = true;
    thread_ = std::thread([this] { loop(); });
  }
  ~NvmlSampler() {
    running_ = false;
    if (thread_.joinable()) thread_.join();
  }
  bool active() const { return running_; }
  double now() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count(); }

  Summary over(double t0, double t1) {
    std::lock_guard<std::mutex> g(mutex_);
    Summary s;
    s.min_mhz = 1e9;
    for (const Sample &x : samples_)
      if (x.t >= t0 && x.t <= t1) {
        s.mhz += x.mhz, s.watts += x.mw * 1e-3, s.temp = std::max(s.temp, x.temp), s.reasons |= x.reasons;
        s.min_mhz = std::min(s.min_mhz, double(x.mhz));
        ++s.n;
      }
    if (s.n) s.mhz /= s.n, s.watts /= s.n;
    else s.min_mhz = 0;
    return s;
  }
  // "1980 MHz (min 1755) 690 W 61 C reasons 0x4"
  static void print(const Summary &s, char *buf, size_t n) {
    std::snprintf(buf, n, "%4.0f MHz (min %4.0f) %3.0f W %2u C rsn 0x%llx n%d", s.mhz, s.min_mhz, s.watts, s.temp,
                  s.reasons, s.n);
  }

 private:
  void loop() {
    while (running_) {
      Sample x{now(), 0, 0, 0, 0};
      clock_(dev_, 1 /* NVML_CLOCK_SM */, &x.mhz);
      if (power_) power_(dev_, &x.mw);
      if (temp_) temp_(dev_, 0 /* NVML_TEMPERATURE_GPU */, &x.temp);
      if (reasons_) reasons_(dev_, &x.reasons);
      x.reasons &= ~1ull;  // GpuIdle says nothing about a slowdown
      {
        std::lock_guard<std::mutex> g(mutex_);
        samples_.push_back(x);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }
  void *lib_ = nullptr, *dev_ = nullptr;
  int (*clock_)(void *, int, unsigned *) = nullptr;
  int (*power_)(void *, unsigned *) = nullptr;
  int (*temp_)(void *, int, unsigned *) = nullptr;
  int (*reasons_)(void *, unsigned long long *) = nullptr;
  std::chrono::steady_clock::time_point start_;
  std::atomic<bool> running_{false};
  std::thread thread_;
  std::mutex mutex_;
  std::vector<Sample> samples_;
};
