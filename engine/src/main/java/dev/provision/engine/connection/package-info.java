/**
 * Connections to hosts: {@link dev.provision.engine.connection.Connection} (run, put, read), the
 * {@link dev.provision.engine.connection.LocalConnection} and
 * {@link dev.provision.engine.connection.SshConnection} (sshj) implementations, become (sudo) as the
 * {@link dev.provision.engine.connection.BecomeConnection} decorator, the host-key store
 * ({@link dev.provision.engine.connection.KnownHostsStore}) and
 * {@link dev.provision.engine.connection.SshConnectionFactory}, which opens the right one from a
 * host's variables. Files are written and read by one shell script for every connection
 * ({@code FileTransfer}): one round trip each, atomic rename.
 */
package dev.provision.engine.connection;
