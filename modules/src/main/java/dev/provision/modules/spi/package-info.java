/**
 * The module contract. A {@link dev.provision.modules.spi.TaskModule} plans; the engine executes.
 *
 * <p>A module gets validated {@link dev.provision.modules.spi.Params} and a read-only
 * {@link dev.provision.modules.spi.TaskContext} and returns a {@link dev.provision.modules.spi.Plan}:
 * an ordered list of {@link dev.provision.modules.spi.Change}s, each carrying plain-data
 * {@link dev.provision.modules.spi.Command}s. Modules never run anything, never see whether the run is a dry run (--check) and
 * never claim "changed": the engine derives it from a non-empty plan that was applied.
 */
package dev.provision.modules.spi;
