/**
 * Pre-flight readiness checks ({@code gpu}, {@code gpu_fabric}, {@code gpu_acceptance}, {@code dcgm_diag}, {@code cuda_stack},
 * {@code nccl_bandwidth}, {@code ib}, {@code rdma}, {@code clock}, {@code limits_check},
 * {@code storage}, {@code checkpoint_storage}, {@code toolchain}, {@code image_consistency},
 * {@code ssh_mesh}): can this node train?
 *
 * <p>Each check module probes the host read-only, hands the output to a pure parser (one per tool:
 * {@code NvidiaSmiCsv}, {@code NvidiaSmiQuery}, {@code NcclTestsOutput}, {@code IbStatus},
 * {@code ChronyTracking}, {@code KernelXid}, {@code NvlinkStatus}, {@code DfOutput}, {@code DdOutput}, {@code DcgmDiagOutput}, ...) and returns a converged {@link dev.provision.modules.spi.Plan} whose
 * {@link dev.provision.modules.spi.Plan#checks checks} are the table (one {@link CheckResult} per
 * row; each row's verdict is one of {@link dev.provision.modules.spi.Verdict}'s PASS, WARN, FAIL,
 * UNKNOWN (could not run or judge) and SKIP (does not apply), a WARN or FAIL saying what to do
 * next) and whose {@code result} holds the measured values the engine compares across the fleet.
 * Checks do not throw on a failed verdict: the engine needs the table of a failing host too, and
 * fails the task itself when a row failed. The checks
 * that write ({@code storage} with {@code write_marker}, {@code checkpoint_storage} with
 * {@code write_test}) say so in their change summary ({@code check write: ...}) and leave the
 * reading back to a later task.
 */
package dev.provision.modules.checks;
