/**
 * Playbooks: YAML to an immutable model ({@link dev.provision.engine.playbook.Playbook},
 * {@link dev.provision.engine.playbook.Play}, {@link dev.provision.engine.playbook.TaskNode}) that keeps
 * the source position of every node. Imports, includes and roles are resolved at load time, and block
 * keywords are pushed down onto the tasks they hold, so the executor sees tasks and blocks only.
 * {@link dev.provision.engine.playbook.PlaybookLoader} is the entry point;
 * {@link dev.provision.engine.playbook.YamlDocument} (positions, duplicate keys, YAML 1.1 scalars) is
 * shared with the inventory loader.
 */
package dev.provision.engine.playbook;
