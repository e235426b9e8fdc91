/**
 * Modules that run what the user wrote: {@code command} (an argument vector, never a shell) and
 * {@code shell} (a script for {@code /bin/sh}). Both plan one change on every run unless
 * {@code creates} / {@code removes} say the work is done; whether it "changed" is the engine's (and
 * {@code changed_when}'s) to decide.
 */
package dev.provision.modules.commands;
