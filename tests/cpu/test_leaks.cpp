// 10^5 select/destroy cycles leave the heap as it was.
#include <malloc.h>

#include "cpu_helpers.hpp"
#include "reference/harness.hpp"

TEST_CASE("select and destroy leak nothing over 100000 cycles", "[abi][leak]") {
  baracuda_pad_desc_t pad = baracuda::check::pad_desc(BARACUDA_OP_PAD_BACKWARD, BARACUDA_DTYPE_F16,
                                                      BARACUDA_PAD_CIRCULAR, {3, 8}, {1, 2}, {2, 3});
  baracuda_write_slice_desc_t slice = baracuda::check::slice_desc(BARACUDA_DTYPE_U4, {4, 9}, {1, 1}, {3, 8});
  const baracuda_select_options_t o = options_for(90);
  auto cycle = [&](int n) {
    for (int i = 0; i < n; ++i) {
      baracuda_plan_t plan = nullptr;
      REQUIRE(baracuda_plan_select(i % 2 ? &pad.header : &slice.header, &o, &plan) == BARACUDA_STATUS_SUCCESS);
      baracuda_plan_destroy(plan);
    }
  };
  cycle(1000);  // thread-locals and first-use allocations settle
  const size_t before = mallinfo2().uordblks;
  cycle(100000);
  const size_t after = mallinfo2().uordblks;
  CHECK(after <= before + 4096);
}
