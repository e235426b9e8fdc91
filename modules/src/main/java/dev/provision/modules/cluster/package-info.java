/**
 * Modules that make several hosts one cluster: {@code hosts} (every node's name in
 * {@code /etc/hosts}, from the inventory), {@code authorized_key} and {@code ssh_known_hosts} (SSH
 * between nodes with strict host keys), and {@code image} (the same container image on every
 * node). Whole-file writes go through {@link dev.provision.modules.files.FileContentPlanner}; key
 * lines are read by {@code PublicKey}.
 */
package dev.provision.modules.cluster;
