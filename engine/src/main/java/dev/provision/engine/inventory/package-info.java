/**
 * Inventory: Ansible's YAML and INI inventories (groups, children, host ranges, vars), directory
 * sources, {@code group_vars/} and {@code host_vars/} directories, comma lists, host-name checks, and
 * host patterns ({@code a:&b:!c}).
 */
package dev.provision.engine.inventory;
