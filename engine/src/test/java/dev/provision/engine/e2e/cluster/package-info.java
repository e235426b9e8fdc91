/**
 * End-to-end tests against the namespace test cluster ({@code testcluster/provision-testcluster}):
 * the real {@code ./provision} launcher over real SSH to 8 real {@code sshd} nodes. Each test class
 * is a {@code @ClusterTest}: it gets a cluster of its own, under the machine-wide cluster lock, and is
 * skipped when not root or when sshd or the namespace tools are missing.
 */
package dev.provision.engine.e2e.cluster;
