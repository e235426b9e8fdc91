/**
 * Connections to hosts: {@link dev.provision.engine.connection.Connection} (run, put, read), the
 * {@link dev.provision.engine.connection.LocalConnection} and
 * {@link dev.provision.engine.connection.SshConnection} (sshj) implementations, become (sudo) as the
 * {@link dev.provision.engine.connection.BecomeConnection} decorator, the host-key store
 * ({@link dev.provision.engine.connection.KnownHostsStore}) and
 * {@link dev.provision.engine.connection.SshConnectionFactory}, which opens the right one from a
 * host's variables. Files are written and read by one shell script for every connection
 * ({@code FileTransfer}): one round trip each, atomic rename. Of sshj, one class is the engine's
 * own: its transport's reader thread ({@code net.schmizz.sshj.transport.Reader}, 16 KB of buffer
 * per connection instead of 256 KB), and its sockets are the engine's ({@code SshSockets}: read
 * through a buffer, reached directly).
 */
package dev.provision.engine.connection;
