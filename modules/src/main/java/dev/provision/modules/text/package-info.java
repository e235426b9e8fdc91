/** Shared pure text helpers for modules: shell words, managed blocks, key=value files, unified diffs. */
package dev.provision.modules.text;
