// The attention probes' problem description from one case row: sizes,
// scale, mask, window, ALiBi and softcap (the tensors' pointers and strides
// stay with each probe, which lays its buffers out its own way).
#pragma once

#include <cmath>

#include "sdpa/sdpa_problem.h"

template <class Case>
void set_problem_shape(baracuda::kernels::SdpaProblem &p, const Case &c) {
  p.batch = c.B;
  p.heads_q = c.Hq;
  p.heads_kv = c.Hkv;
  p.queries = c.Q;
  p.keys = c.K;
  p.head_dim = c.D;
  p.head_dim_v = c.Dv;
  p.scale = 1.0 / std::sqrt(double(c.D));
  p.softcap = c.softcap;
  p.causal = c.causal;
  p.bottom_right = c.bottom_right;
  p.window_left = c.wl;
  p.window_right = c.wr;
  p.alibi = c.alibi;
}
