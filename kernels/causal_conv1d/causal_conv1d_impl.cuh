// Causal conv1d entry points, one instantiation per element type T and
// weight type Wt (the .cu files; Wt is T, or f32 beside 16-bit T): each pass launches the kernel conv1d_heuristics.h chooses for the
// run's layout (staged: conv1d_time_tiles.cuh, conv1d_row_groups.cuh, conv1d_channel_tiles.cuh;
// the backward's register tiles: conv1d_register_tiles.cuh;
// element-wise: conv1d_elementwise.cuh), then the side kernels
// (conv1d_side_kernels.cuh); the update (conv1d_update.cuh; one token over dense
// channels: conv1d_update_vectors.cuh; a circular state of short rows:
// conv1d_update_circular.cuh).
#pragma once

#include "causal_conv1d/conv1d_channel_box.cuh"
#include "causal_conv1d/conv1d_channel_tiles.cuh"
#include "causal_conv1d/conv1d_direct.cuh"
#include "causal_conv1d/conv1d_elementwise.cuh"
#include "causal_conv1d/conv1d_register_tiles.cuh"
#include "causal_conv1d/conv1d_row_groups.cuh"
#include "causal_conv1d/conv1d_side_kernels.cuh"
#include "causal_conv1d/conv1d_time_tiles.cuh"
#include "causal_conv1d/conv1d_update.cuh"
#include "causal_conv1d/conv1d_update_circular.cuh"
#include "causal_conv1d/conv1d_update_vectors.cuh"
#include "common/overlap_launch.cuh"

namespace baracuda::kernels::conv1d {

inline int launch_error() { return -static_cast<int>(cudaGetLastError()); }

inline dim3 grid_of(const Conv1dLaunch &l) {
  return dim3(static_cast<unsigned>(l.grid_x), static_cast<unsigned>(l.grid_y), static_cast<unsigned>(l.grid_z));
}

// fn(std::true_type) where silu, else fn(std::false_type): the staged
// kernels take the activation as a template argument.
template <class Fn>
void with_silu(bool silu, Fn &&fn) {
  if (silu) {
    fn(std::true_type{});
  } else {
    fn(std::false_type{});
  }
}

// fn(std::true_type) where p has packed sequences (SEQ_IDX), else
// fn(std::false_type): the channel tiles mask their windows only then.
template <class Fn>
void with_seq(const Conv1dProblem &p, Fn &&fn) {
  if (p.seq_idx.data) {
    fn(std::true_type{});
  } else {
    fn(std::false_type{});
  }
}

// The channels' FastDivisor for the forward's split of rows r < B*C into
// (b, c); the zero one (a division) where B*C passes 2^31 - 1 (never for
// the time tiles: choose_conv1d_launch).
inline FastDivisor rows_divisor(const Conv1dProblem &p) {
  return p.batch * p.channels < (int64_t{1} << 31) ? fast_divisor(p.channels) : FastDivisor{};
}

inline unsigned blocks_for(int64_t threads) { return static_cast<unsigned>((threads + kThreads - 1) / kThreads); }

// The forward's main kernel as `launch` (conv1d_heuristics.h) says; f64 takes
// the element-wise kernels alone. (SiLU and SEQ_IDX stay template arguments:
// as run-time flags they cost the time tiles 0.4-3% with SiLU, the channel
// tiles and the register-fed rows 3.5-8% at B 1, the channel tiles 15-29%
// everywhere with SEQ_IDX: session 20, bench/NOTES.md.) The time tiles, and
// the direct rows where launch.overlap says, start overlapping the kernel
// before them on the stream (and the channel box: its small problems gained
// 1.2x in session 21's probe): they wait for its end before their first access
// to memory, so that their launch, not their work, overlaps its last blocks
// (conv1d_traits.h, kDirectRowsOverlapMaxBlocks).
template <class T, class Wt, int W>
int forward_launch(const Conv1dProblem &p, const Conv1dLaunch &launch, cudaStream_t stream) {
  const dim3 grid = grid_of(launch);
  if constexpr (sizeof(T) <= 4) {
    if (launch.kernel == Conv1dKernel::StagedTimeTiles) {
      int rc = 0;
      Conv1dProblem problem = p;
      FastDivisor channels_div = rows_divisor(p);
      void *args[] = {&problem, &channels_div};
      with_silu(p.silu, [&](auto silu) {
        rc = launch_overlapping_args(reinterpret_cast<const void *>(forward_time_tiles_kernel<T, W, silu, Wt>), grid,
                                     dim3(kThreads), stream, args);
      });
      return rc;
    }
    if (launch.kernel == Conv1dKernel::StagedChannelTiles) {
      with_silu(p.silu, [&](auto silu) {
        with_seq(p, [&](auto seq) {
          forward_channel_tiles_kernel<T, W, silu, seq, Wt>
              <<<grid, kThreads, 0, stream>>>(p, static_cast<int>(launch.chunk));
        });
      });
      return launch_error();
    }
    if (launch.kernel == Conv1dKernel::StagedChannelBox) {
      if constexpr (W <= Conv1dTraits::kChannelBoxMaxWidth) {
        int rc = 0;
        Conv1dProblem problem = p;
        int group_shift = launch.box_group_shift;
        void *args[] = {&problem, &group_shift};
        with_silu(p.silu, [&](auto silu) {
          const void *kernel =
              launch.box_steps == Conv1dTraits::kChannelBoxStepsFew
                  ? reinterpret_cast<const void *>(
                        forward_channel_box_kernel<T, W, silu, Wt, Conv1dTraits::kChannelBoxStepsFew>)
                  : reinterpret_cast<const void *>(
                        forward_channel_box_kernel<T, W, silu, Wt, Conv1dTraits::kChannelBoxSteps>);
          rc = launch_overlapping_args(kernel, grid, dim3(kThreads), stream, args);
        });
        return rc;
      } else {
        return 3;  // (the heuristics choose it for widths up to kChannelBoxMaxWidth only)
      }
    }
    if (launch.kernel == Conv1dKernel::DirectRows) {
      const int shift = __builtin_ctzll(static_cast<unsigned long long>(p.length / kTimeVec<T>));
      int rc = 0;
      with_silu(p.silu, [&](auto silu) {
        const auto kernel = forward_direct_rows_kernel<T, W, silu, Wt, Conv1dTraits::direct_rows_steps(sizeof(T))>;
        if (launch.overlap) {
          Conv1dProblem problem = p;
          int shift_arg = shift, overlap = 1;
          FastDivisor channels_div = rows_divisor(p);
          void *args[] = {&problem, &shift_arg, &overlap, &channels_div};
          rc = launch_overlapping_args(reinterpret_cast<const void *>(kernel), grid, dim3(kThreads), stream, args);
        } else {
          kernel<<<grid, kThreads, 0, stream>>>(p, shift, 0, rows_divisor(p));
          rc = launch_error();
        }
      });
      return rc;
    }
  }
  if (launch.kernel == Conv1dKernel::WalkTime) {
    forward_tvec_kernel<T, W, Wt><<<grid, kThreads, 0, stream>>>(p);
  } else {
    forward_walk_kernel<T, W, Wt><<<grid, kThreads, 0, stream>>>(p);
  }
  return launch_error();
}

template <class T, class Wt, int W>
int forward_width(const Conv1dProblem &p, cudaStream_t stream) {
  if (p.batch * p.channels * p.length > 0)
    if (const int rc = forward_launch<T, Wt, W>(p, choose_conv1d_launch(Conv1dPass::Forward, sizeof(T), p), stream))
      return rc;
  if (p.final_states.data && p.batch * p.channels > 0) {
    row_ends_kernel<T, W, Wt><<<blocks_for(p.batch * p.channels), kThreads, 0, stream>>>(p);
    return launch_error();
  }
  return 0;
}

// The backward's main kernel and the reduction of its dw/db partial sums,
// as `launch` says (partial_slots 0: none written, the reduction gives zeros;
// sums_direct: the kernel's partials null, its sums DW and DB, a run-time
// flag). The staged and register kernels serve 2- and 4-byte x (f64, with no
// speed target, takes the walks: fewer kernels to build).
template <class T, class Wt, int W>
int backward_launch(const Conv1dProblem &p, const Conv1dLaunch &launch, Acc<T> *partials, cudaStream_t stream) {
  if (launch.grid_x * launch.grid_y > 0) {
    const dim3 grid = grid_of(launch);
    Acc<T> *slots = launch.sums_direct ? nullptr : partials;
    bool launched = true;
    if (launch.kernel == Conv1dKernel::WalkTime) {
      backward_tvec_kernel<T, W, Wt><<<grid, kThreads, 0, stream>>>(p, partials);
    } else if (launch.kernel == Conv1dKernel::WalkChannels) {
      backward_walk_kernel<T, W, Wt><<<grid, kThreads, 0, stream>>>(p, partials);
    } else if constexpr (sizeof(T) <= 4) {
      // SiLU as a template argument (run-time flags cost these issue-bound kernels 5-40%, session 20)
      with_silu(p.silu, [&](auto silu) {
        using Silu = decltype(silu);
        if (launch.kernel == Conv1dKernel::StagedTimeTiles) {
          backward_time_tiles_kernel<T, W, Wt, Silu><<<grid, kThreads, 0, stream>>>(p, slots);
        } else if (launch.kernel == Conv1dKernel::StagedRowGroups) {
          backward_row_groups_kernel<T, W, Wt, Silu><<<grid, kThreads, 0, stream>>>(p, slots);
        } else if (launch.kernel == Conv1dKernel::StagedChannelTiles) {
          with_seq(p, [&](auto seq) {
            backward_channel_tiles_kernel<T, W, seq, Wt, Silu>
                <<<grid, kThreads, 0, stream>>>(p, partials, static_cast<int>(launch.chunk));
          });
        } else if constexpr (kHaloVecs<T, W> == 1) {
          constexpr bool pairs = Conv1dTraits::register_tile_pairs(sizeof(T), W, Silu::value);
          if (launch.kernel == Conv1dKernel::RegisterTimeTiles && launch.tiles_per_block == 2) {
            if constexpr (pairs)
              backward_register_tile_pairs_kernel<T, W, Wt, Silu><<<grid, kThreads, 0, stream>>>(p, slots);
            else
              launched = false;
          } else if (launch.kernel == Conv1dKernel::RegisterTimeTiles) {
            backward_register_tiles_kernel<T, W, Wt, Silu><<<grid, kThreads, 0, stream>>>(p, slots);
          } else if (launch.kernel == Conv1dKernel::RegisterRows) {
            if constexpr (Conv1dTraits::register_warp_rows(sizeof(T)))
              backward_register_rows_kernel<T, W, Wt, Silu><<<grid, kThreads, 0, stream>>>(p, slots);
            else
              launched = false;
          } else {
            launched = false;
          }
        } else {
          launched = false;
        }
      });
    } else {
      launched = false;
    }
    if (!launched) return 3;  // (a kernel the heuristics never choose for this type and width)
    if (const int rc = launch_error()) return rc;
  }
  if ((p.dweight.data || p.dbias.data) && p.channels > 0 && !launch.sums_direct)
    return launch_overlapping(reduce_partials_kernel<T, W, Wt>, blocks_for(p.channels * (W + 1)), kThreads, stream, p,
                              static_cast<const Acc<T> *>(partials), launch.partial_slots);
  return 0;
}

template <class T, class Wt, int W>
int backward_width(const Conv1dProblem &p, Acc<T> *partials, cudaStream_t stream) {
  Conv1dLaunch none{Conv1dKernel::StagedTimeTiles, 0, 0};  // nothing to walk
  const bool work = p.batch * p.channels * p.length > 0;
  if (const int rc = backward_launch<T, Wt, W>(
          p, work ? choose_conv1d_launch(Conv1dPass::Backward, sizeof(T), p) : none, partials, stream))
    return rc;
  if ((p.dinitial.data || p.dfinal.data) && p.batch * p.channels > 0) {
    row_ends_kernel<T, W, Wt><<<blocks_for(p.batch * p.channels), kThreads, 0, stream>>>(p);
    return launch_error();
  }
  return 0;
}

template <class T, class Wt, int W>
int update_width(const Conv1dProblem &p, cudaStream_t stream) {
  if (p.batch * p.channels == 0) return 0;
  const Conv1dLaunch launch = choose_conv1d_launch(Conv1dPass::Update, sizeof(T), p);
  const dim3 grid = grid_of(launch);
  if constexpr (sizeof(T) <= 4 && W <= Conv1dTraits::kUpdateVectorMaxWidth) {
    if (launch.kernel == Conv1dKernel::UpdateVectors) {
      const auto vectors = [&](auto bytes, auto tokens) {
        update_vectors_kernel<T, W, Wt, decltype(bytes)::value, decltype(tokens)::value>
            <<<grid, kUpdateThreads, 0, stream>>>(p);
        return launch_error();
      };
      using One = std::integral_constant<int, 1>;
      if (launch.vector_bytes == 16) return vectors(std::integral_constant<int, 16>{}, One{});
      const std::integral_constant<int, 8> bytes{};  // steps of several tokens: 8-byte vectors (update_vectors_fit)
      if (p.length == 2) return vectors(bytes, std::integral_constant<int, 2>{});
      if (p.length == 4) return vectors(bytes, std::integral_constant<int, 4>{});
      return vectors(bytes, One{});
    }
  }
  // (f64 takes update_kernel with 64-bit offsets alone: conv1d_update_choice.h)
  if constexpr (sizeof(T) <= 4) {
    if (launch.kernel == Conv1dKernel::UpdateCircularRows) {
      const auto rows = [&](auto bytes) {
        constexpr int kBytes = decltype(bytes)::value;
        if (p.state_indices.data)
          update_circular_rows_kernel<T, W, Wt, kBytes, true><<<grid, kUpdateThreads, 0, stream>>>(p);
        else
          update_circular_rows_kernel<T, W, Wt, kBytes, false><<<grid, kUpdateThreads, 0, stream>>>(p);
        return launch_error();
      };
      constexpr int kMin = Conv1dUpdateCircularTraits::kMinRowBytes;  // 16, 32 or 64 bytes
      if (launch.vector_bytes == kMin) return rows(std::integral_constant<int, kMin>{});
      if (launch.vector_bytes == 2 * kMin) return rows(std::integral_constant<int, 2 * kMin>{});
      return rows(std::integral_constant<int, 4 * kMin>{});
    }
    if (launch.offsets32) {
      update_kernel<T, W, Wt, int32_t><<<grid, kUpdateThreads, 0, stream>>>(p);
      return launch_error();
    }
  }
  update_kernel<T, W, Wt, int64_t><<<grid, kUpdateThreads, 0, stream>>>(p);
  return launch_error();
}

// fn(std::integral_constant<int, W>) for the widths served, 2 to 8 (the plan
// rejects others first): one instantiation per width, so that every window,
// tap and partial sum stays in registers.
template <int W = kMinWidth, class Fn>
int with_width(int width, Fn &&fn) {
  if constexpr (W > kMaxWidth) {
    return 3;
  } else {
    return width == W ? fn(std::integral_constant<int, W>{}) : with_width<W + 1>(width, fn);
  }
}

template <class T, class Wt>
int forward(const Conv1dProblem &p, cudaStream_t stream) {
  if (!conv1d_grid_fits(p)) return 3;
  return with_width(p.width, [&](auto w) { return forward_width<T, Wt, decltype(w)::value>(p, stream); });
}

template <class T, class Wt>
int backward(const Conv1dProblem &p, void *workspace, size_t workspace_bytes, cudaStream_t stream) {
  if (!conv1d_grid_fits(p)) return 3;
  if (workspace_bytes < causal_conv1d_backward_workspace(p.batch, p.channels, p.length, p.width, sizeof(T) == 8))
    return 4;
  auto *partials = static_cast<Acc<T> *>(workspace);
  return with_width(p.width, [&](auto w) { return backward_width<T, Wt, decltype(w)::value>(p, partials, stream); });
}

template <class T, class Wt>
int update(const Conv1dProblem &p, cudaStream_t stream) {
  if (!conv1d_grid_fits(p) || p.batch / conv1d_heuristics::kMaxGridY >= conv1d_heuristics::kMaxGridY) return 3;
  return with_width(p.width, [&](auto w) { return update_width<T, Wt, decltype(w)::value>(p, stream); });
}

}  // namespace baracuda::kernels::conv1d

// NAME's entries for x of TYPE and weights of WEIGHT_TYPE.
#define BARACUDA_CAUSAL_CONV1D_ENTRIES(NAME, TYPE, WEIGHT_TYPE)                      \
  const baracuda::kernels::Conv1dEntries baracuda::kernels::NAME = {                 \
      baracuda::kernels::conv1d::forward<TYPE, WEIGHT_TYPE>,                          \
      baracuda::kernels::conv1d::backward<TYPE, WEIGHT_TYPE>,                         \
      baracuda::kernels::conv1d::update<TYPE, WEIGHT_TYPE>}
