#include "core/candidates.hpp"

#include "core/error.hpp"

namespace baracuda {

namespace {
// cuBLAS, cuDNN and their kind; the CUDA runtime's copies are not a library choice.
bool vendor_backend(int32_t backend) {
  return backend != BARACUDA_BACKEND_BESPOKE && backend != BARACUDA_BACKEND_CUDA_RUNTIME;
}
}  // namespace

WhyNot excluded_by_flags(const CandidateTraits &traits, const SelectContext &ctx) {
  if ((ctx.flags & BARACUDA_SELECT_BESPOKE_ONLY) && vendor_backend(traits.backend))
    return std::string("a vendor library, excluded by BARACUDA_SELECT_BESPOKE_ONLY");
  if ((ctx.flags & BARACUDA_SELECT_DETERMINISTIC) && !traits.deterministic)
    return std::string("not deterministic, excluded by BARACUDA_SELECT_DETERMINISTIC");
  return serves();
}

WhyNot excluded_by_force(const CandidateTraits &traits, const SelectContext &ctx, bool names_in_list) {
  if (names_in_list && !ctx.forces(traits.name))
    return cat("BARACUDA_FORCE_CANDIDATE names ", ctx.forced_candidate);
  return serves();
}

WhyNot workspace_unservable(int128 bytes) {
  if (within_extent_range(bytes)) return serves();
  return cat("its workspace would be ", to_decimal(bytes), " bytes, over 2^62");
}

void stamp_plan_info(baracuda_plan_info_t &info, const OpDef &op, baracuda_dtype_t dtype, const SelectContext &ctx,
                     const CandidateTraits &traits, size_t workspace_bytes) {
  info.op = op.id;
  info.dtype = dtype;
  info.target_sm = ctx.target_sm;
  info.backend = traits.backend;
  info.deterministic = traits.deterministic;
  info.bit_stable = traits.bit_stable;
  info.workspace_bytes = workspace_bytes;
}

void fail_no_candidate(const OpDef &op, const SelectContext &ctx, const Rejections &rejected) {
  std::string reasons;
  for (const auto &[name, why] : rejected) reasons += cat(reasons.empty() ? "" : "; ", name, ": ", why);
  fail(BARACUDA_STATUS_UNSUPPORTED, op.name, ": no implementation serves this problem on sm ", ctx.target_sm, " (",
       reasons, ")");
}

}  // namespace baracuda
