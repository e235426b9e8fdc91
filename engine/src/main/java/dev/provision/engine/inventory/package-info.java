/**
 * Inventory: Ansible's YAML inventory (groups, children, host ranges, vars), {@code group_vars/} and
 * {@code host_vars/} directories, comma lists, and host patterns ({@code a:&b:!c}).
 */
package dev.provision.engine.inventory;
