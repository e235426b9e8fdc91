/**
 * The executor: hosts in parallel (bounded forks), one connection per host for the run, facts read
 * once in one round trip, then per task: conditions, loops, templated arguments, the module's plan,
 * the report, and (unless check mode) the application of the plan's commands. Handlers, serial
 * batches, blocks and failure policy live here too.
 */
package dev.provision.engine.exec;
