/**
 * Saved plans: a reviewed dry run written to a file ({@code --save-plan}), shown
 * ({@code --show-plan}) and applied exactly ({@code --apply-plan}) where the hosts did not move
 * since. {@link dev.provision.engine.plan.SavedPlan} is the file; {@link dev.provision.engine.plan.Sources}
 * fingerprints what it was planned from; {@link dev.provision.engine.plan.SavedPlans} writes and
 * shows it and checks it before an apply; {@link dev.provision.engine.plan.PlanApply} verifies it on
 * the hosts and applies it where it holds. The engine's side is two calls: a dry run that records
 * its plans ({@code Executor.record}, into an {@code exec.PlanRecording}) and the apply of such a
 * recording ({@code Executor.applyRecorded}, by {@code exec.PlanApplier}, through the run's own
 * applier). The command line only reads the options and prints.
 */
package dev.provision.engine.plan;
