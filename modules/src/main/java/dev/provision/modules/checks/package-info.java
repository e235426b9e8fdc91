/**
 * Pre-flight readiness checks ({@code gpu}, {@code cuda_stack}, {@code nccl_bandwidth}, {@code ib},
 * {@code clock}, {@code limits_check}, {@code storage}, {@code image_consistency},
 * {@code ssh_mesh}): can this node train?
 *
 * <p>Each check module probes the host read-only, hands the output to a pure parser (one per tool:
 * {@code NvidiaSmiCsv}, {@code NvidiaSmiQuery}, {@code NcclTestsOutput}, {@code IbStatus},
 * {@code ChronyTracking}, ...) and returns a converged {@link dev.provision.modules.spi.Plan} whose
 * {@code result} holds the table ({@link CheckReport#CHECKS}: one {@link CheckResult#toMap()} per
 * row), {@code failed: true} when any row failed, and the measured values the engine compares
 * across the fleet. Checks do not throw on a failed verdict: the engine needs the table of a
 * failing host too, and fails the task itself when {@code result.failed} is true. The one check
 * that writes ({@code storage} with {@code write_marker}) says so in its change summary.
 */
package dev.provision.modules.checks;
