/**
 * Modules that steer the run and change nothing on a host: {@code assert}, {@code fail},
 * {@code debug} and {@code set_fact}. They always return a converged plan (or fail); what they
 * produce travels in the plan's {@code result} and {@code facts}.
 */
package dev.provision.modules.control;
