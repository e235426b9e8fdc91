/**
 * Saved plans: a reviewed dry run written to a file ({@code --save-plan}), shown
 * ({@code --show-plan}) and applied exactly ({@code --apply-plan}) where the hosts did not move
 * since. {@link dev.provision.engine.plan.SavedPlan} is the file; {@link dev.provision.engine.plan.Sources}
 * fingerprints what it was planned from.
 */
package dev.provision.engine.plan;
