/**
 * Playbooks: YAML to an immutable model ({@link dev.provision.engine.playbook.Playbook},
 * {@link dev.provision.engine.playbook.Play}, {@link dev.provision.engine.playbook.TaskNode}) that keeps
 * the source position of every node. Imports, includes and roles are resolved at load time, and block
 * keywords are pushed down onto the tasks they hold, so the executor sees tasks and blocks only.
 */
package dev.provision.engine.playbook;
