/**
 * Modules that manage files: {@code file}, {@code copy}, {@code template}, {@code lineinfile},
 * {@code blockinfile} and {@code replace}; {@code tempfile}, a new temporary file by the host's
 * {@code mktemp}; and {@code stat}, which only describes a path (its probe and parser are
 * {@code StatOutput}); {@code get_url}, a download by the host's curl, and {@code unarchive}, an
 * archive extracted by the host's tar or unzip (its members listed by {@code ArchiveMembers}). Every module that changes a file's content plans one
 * {@link dev.provision.modules.spi.Command.PutFile} of the whole new content (the engine writes it
 * atomically) with a before/after diff labelled with the path; the shared planning lives in
 * {@code FileContentPlanner}, the attribute handling in {@code FileAttributes}.
 */
package dev.provision.modules.files;
