/**
 * {@code playbooks/preflight.yml} end to end on the namespace test cluster, brought up by
 * {@code playbooks/cluster.yml} with the host-side services ({@code testcluster/services}): a healthy
 * cluster passes, and one planted fault per cluster-level check is found on the node that has it.
 * Takes the machine-wide cluster lock; skipped when not root or when a tool is missing.
 */
package dev.provision.engine.e2e.preflight;
