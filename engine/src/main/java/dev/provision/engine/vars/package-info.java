/**
 * Variable scopes and their precedence, lowest first:
 * <ol>
 *   <li>role defaults ({@code roles/X/defaults/main.yml})</li>
 *   <li>inventory: group vars (all &lt; parent &lt; child), then host vars</li>
 *   <li>play: {@code vars_files}, then {@code vars:}</li>
 *   <li>task: role vars and role parameters, block vars, the task's own {@code vars:}, loop variable</li>
 *   <li>host facts set during the run: {@code register} and {@code set_fact}</li>
 *   <li>extra vars ({@code -e}), which always win</li>
 * </ol>
 * Gathered facts live apart under {@code facts} so they never shadow a user variable. Magic variables:
 * {@code inventory_hostname}, {@code group_names}, {@code groups}, {@code hostvars}, {@code play_hosts},
 * {@code check_mode}.
 */
package dev.provision.engine.vars;
