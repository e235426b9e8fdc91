/** The command line: {@code provision [OPTIONS] PLAYBOOK}, with exit codes defined once in {@link dev.provision.engine.cli.ExitCode}. */
package dev.provision.engine.cli;
