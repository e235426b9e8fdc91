/** Settings a project keeps outside its playbooks: Ansible's {@code ansible.cfg}, as far as provision honours it. */
package dev.provision.engine.config;
