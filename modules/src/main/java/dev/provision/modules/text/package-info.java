/**
 * Shared pure text helpers for modules: shell words ({@code ShellWords}), managed blocks
 * ({@code ManagedBlock}), single-line edits ({@code LineEdit}), {@code key = value} files
 * ({@code KeyValueFile}), unified diffs ({@code UnifiedDiff}), and the Python-style regular
 * expressions and insert positions that playbooks use ({@code PythonRegex}, {@code InsertPosition}),
 * and the SHA-256 of contents ({@code Sha256}).
 * Nothing here touches a host; every editor returns its input unchanged when nothing changes.
 */
package dev.provision.modules.text;
