/**
 * Connections to hosts: {@link dev.provision.engine.connection.Connection} (run, put, read),
 * the local and SSH implementations, become (sudo) as a decorator, and the host-key store.
 */
package dev.provision.engine.connection;
