/*
 * N select/check/destroy cycles over every op with a failure between each
 * step: descriptors the library must reject, arguments check must reject, and
 * a too-small workspace for run. Run under valgrind by scripts/leak-check.sh
 * (no leak may remain); run briefly by meson test, where it checks each status.
 *
 *     leak_cycles [CYCLES]     default 10000; exit 0 when every status was the expected one
 */
#include <stdio.h>
#include <stdlib.h>

#include "valid_problems.h"

static int g_failures;

static void expect(const char *problem, const char *step, baracuda_status_t got, baracuda_status_t want) {
  if (got == want) return;
  if (g_failures++ < 10)
    fprintf(stderr, "%s: %s returned %s (%d), expected %s: %s\n", problem, step, baracuda_status_string(got), got,
            baracuda_status_string(want), baracuda_last_error_message());
}

/* A descriptor select must reject: which flaw depends on the cycle. */
static void select_rejected(const valid_problem_t *p, int cycle, const baracuda_select_options_t *opts) {
  unsigned char grown[sizeof p->desc + 8];
  valid_problem_t bad = *p;
  const baracuda_op_header_t *desc = &bad.desc.header;
  baracuda_status_t want = BARACUDA_STATUS_INVALID_PROBLEM;
  baracuda_plan_t plan = NULL;
  switch (cycle % 4) {
    case 0: bad.desc.header.struct_size = sizeof(baracuda_op_header_t); break;
    case 1: bad.desc.header.op = 1000; break;
    case 2: bad.desc.pad.dtype = BARACUDA_DTYPE_INVALID; break; /* dtype follows the header in every descriptor */
    default:
      memset(grown, 0, sizeof grown);
      memcpy(grown, &p->desc, p->desc.header.struct_size);
      grown[p->desc.header.struct_size + 3] = 1; /* a newer caller's field we cannot honour */
      ((baracuda_op_header_t *)(void *)grown)->struct_size = p->desc.header.struct_size + 8;
      desc = (const baracuda_op_header_t *)(const void *)grown;
      want = BARACUDA_STATUS_UNSUPPORTED;
  }
  expect(p->name, "select of a flawed descriptor", baracuda_plan_select(desc, opts, &plan), want);
  if (plan != NULL && g_failures++ < 10) fprintf(stderr, "%s: a failed select left a plan\n", p->name);
  baracuda_plan_destroy(plan);
}

/* check() must reject each of these corruptions of the valid arguments. */
static void check_rejects(const valid_problem_t *p, baracuda_plan_t plan) {
  baracuda_arg_t args[VALID_PROBLEM_MAX_ARGS];
  const int32_t n = p->num_args;
  memcpy(args, p->args, sizeof args);
  args[0].tensor.shape[0] += 1;
  expect(p->name, "check with a wrong shape", baracuda_plan_check(plan, args, n), BARACUDA_STATUS_INVALID_PROBLEM);
  memcpy(args, p->args, sizeof args);
  args[1].role = args[0].role;
  expect(p->name, "check with a repeated role", baracuda_plan_check(plan, args, n), BARACUDA_STATUS_INVALID_PROBLEM);
  expect(p->name, "check without the first argument", baracuda_plan_check(plan, p->args + 1, n - 1),
         BARACUDA_STATUS_INVALID_PROBLEM);
  expect(p->name, "check with NULL args", baracuda_plan_check(plan, NULL, n), BARACUDA_STATUS_INVALID_PROBLEM);
  memcpy(args, p->args, sizeof args);
  args[0].tensor.capacity = 1;
  expect(p->name, "check with a too-small capacity", baracuda_plan_check(plan, args, n),
         BARACUDA_STATUS_INVALID_PROBLEM);
}

static void cycle_once(const valid_problem_t *p, int cycle, const baracuda_select_options_t *opts) {
  baracuda_plan_t plan = NULL;
  baracuda_plan_info_t info = BARACUDA_PLAN_INFO_INIT;
  size_t workspace = 0;
  select_rejected(p, cycle, opts);
  expect(p->name, "select", baracuda_plan_select(&p->desc.header, opts, &plan), BARACUDA_STATUS_SUCCESS);
  if (plan == NULL) return;
  expect(p->name, "workspace_size", baracuda_plan_workspace_size(plan, &workspace), BARACUDA_STATUS_SUCCESS);
  expect(p->name, "get_info", baracuda_plan_get_info(plan, &info), BARACUDA_STATUS_SUCCESS);
  check_rejects(p, plan);
  expect(p->name, "check", baracuda_plan_check(plan, p->args, p->num_args), BARACUDA_STATUS_SUCCESS);
  /* Refused before any CUDA call, so it runs without a GPU. */
  if (workspace > 0)
    expect(p->name, "run with a too-small workspace",
           baracuda_plan_run(plan, p->args, p->num_args, NULL, workspace - 1, NULL),
           BARACUDA_STATUS_WORKSPACE_TOO_SMALL);
  baracuda_plan_destroy(plan);
}

int main(int argc, char **argv) {
  const long cycles = argc > 1 ? strtol(argv[1], NULL, 10) : 10000;
  baracuda_select_options_t opts = BARACUDA_SELECT_OPTIONS_INIT;
  valid_problem_t p;
  long i;
  int count = 0;
  opts.target_sm = 90;
  while (valid_problem(count, &p)) ++count;
  for (i = 0; i < cycles; ++i) {
    valid_problem((int)(i % count), &p);
    cycle_once(&p, (int)(i / count), &opts);
  }
  printf("%ld cycles over %d problems: %d unexpected statuses\n", cycles, count, g_failures);
  return g_failures == 0 ? 0 : 1;
}
