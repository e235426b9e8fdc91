/**
 * End-to-end tests against the namespace test cluster ({@code testcluster/provision-testcluster}):
 * the real {@code ./provision} launcher over real SSH to 8 real {@code sshd} nodes. Each test class
 * takes the machine-wide cluster lock, starts its own cluster and stops it; they are skipped when not
 * root or when sshd or the namespace tools are missing.
 */
package dev.provision.engine.e2e.cluster;
