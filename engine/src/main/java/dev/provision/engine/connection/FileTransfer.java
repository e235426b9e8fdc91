package dev.provision.engine.connection;

import dev.provision.modules.spi.Command;
import dev.provision.modules.text.ShellWords;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * Writing and reading whole files through a connection's exec path: the one implementation of
 * {@link Connection#put} and {@link Connection#read} for every connection, so that local, SSH and
 * become connections behave alike (and a become connection writes files as the become user, because
 * the script runs through its sudo-wrapped exec).
 *
 * <p>Each operation is one command: one round trip. Every value reaches the script as a quoted shell
 * variable assignment; the fixed script body only ever uses {@code "$variables"}, so no path, owner
 * or mode can inject shell.
 *
 * <p>Put writes {@code .provision-PID} beside the target (created by the shell itself, refusing any
 * file or link already there: {@code set -C}; {@code mktemp} where one is; 0600, or its final mode
 * where that exposes nothing: {@link #createdMask}), streams the content into
 * it, checks that it received exactly the bytes that were sent (their SHA-256, which a short input
 * fails too: an input that ended early, because the controller died or the connection dropped, looks like a clean end of file
 * to {@code cat}), sets owner, group and mode, then renames it over the target ({@code mv -T}: atomic
 * on one file system; a reader sees the old or the new content, never a part). The content goes into
 * the claimed temp file without truncating it ({@code 1<>}: it is empty): ext4 writes a truncated
 * file's data out when it is closed (its guard for programs that replace a file by truncating it),
 * which cost a 256 MiB copy 0.1 s on top of the copy's own 0.09 s. A signal (the session
 * hung up) removes the temp file too. Attributes that are not given are
 * kept from the existing target (its mode always; its owner and group where we are allowed to, that
 * is as root or when they are already ours; none given: one {@code cp --attributes-only}); a new file without a mode gets {@code 0666} under the
 * umask, as if a shell had created it (normally {@code 0644}). A validator ({@link Command.PutFile#validate})
 * runs on the finished temp file, as a shell function whose every word is quoted and whose {@code %s}
 * is {@code "$tmp"}; when it refuses, the target stays as it was and its output is the error. A
 * backup is a {@code cp -p} of the target taken just before the rename. On any failure the temp file is removed
 * and the command's error output is reported. Needs GNU coreutils ({@code chmod --reference},
 * {@code mv -T}, {@code sha256sum}), which every target distribution we support has.
 */
final class FileTransfer {
    /** Exit status with which the read script says "no such file"; neither cat nor sh uses it. */
    private static final int MISSING = 3;
    /** Exit status with which the put script says "the validator refused the content" (its {@code exit 4}). */
    private static final int INVALID = 4;

    private static final String PUT_SCRIPT = """
            if [ ! -d "$dir" ]; then echo "directory $dir does not exist" >&2; exit 1; fi
            if [ -d "$target" ]; then echo "$target is a directory" >&2; exit 1; fi
            tmp=$dir/.provision-$$
            if [ -n "$made" ]; then mask=$made; after=
            elif [ -z "$mode" ] && [ ! -e "$target" ]; then mask=$(umask); after=
            else mask=077; after=yes
            fi
            ( umask "$mask"; set -C; : >"$tmp" ) 2>/dev/null || { tmp=$(mktemp "$dir/.provision-XXXXXX") || exit 1; after=yes; }
            fail() { rm -f -- "$tmp"; exit 1; }
            trap fail HUP INT TERM PIPE
            %RECEIVE%            if [ -n "$owner" ] && [ -n "$group" ]; then chown -- "$owner:$group" "$tmp" || fail
            elif [ -z "$owner$group$mode" ] && [ -e "$target" ]; then
              cp --attributes-only --preserve=mode,ownership -- "$target" "$tmp" || fail; after=
            else
              if [ -e "$target" ]; then chown --reference="$target" -- "$tmp" 2>/dev/null || :; fi
              if [ -n "$owner" ]; then chown -- "$owner" "$tmp" || fail; fi
              if [ -n "$group" ]; then chgrp -- "$group" "$tmp" || fail; fi
            fi
            if [ -z "$after" ]; then :
            elif [ -n "$mode" ]; then chmod -- "$mode" "$tmp" || fail
            elif [ -e "$target" ]; then chmod --reference="$target" -- "$tmp" || fail
            else chmod -- "$(printf '%o' $(( 0666 & ~$(umask) )))" "$tmp" || fail
            fi
            if [ -n "$validate" ]; then
              if ! out=$(run_validator 2>&1); then
                rm -f -- "$tmp"; printf '%s\n' "$out" >&2; exit 4
              fi
            fi
            if [ -n "$backup" ] && [ -f "$target" ]; then
              cp -p -- "$target" "$target.$$.$(date +%Y-%m-%d@%H:%M:%S)~" || fail
            fi
            mv -f -T -- "$tmp" "$target" || fail
            """;

    /** {@link #PUT_SCRIPT} around its {@code %RECEIVE%}, split once: a converge joins them per write and host. */
    private static final String PUT_HEAD = PUT_SCRIPT.substring(0, PUT_SCRIPT.indexOf("%RECEIVE%"));
    private static final String PUT_TAIL = PUT_SCRIPT.substring(PUT_SCRIPT.indexOf("%RECEIVE%") + "%RECEIVE%".length());

    // A missing file reads as empty; a file hidden behind a directory we may not search is an error,
    // not "missing" (test -e cannot tell the two apart, so look for the unsearchable ancestor).
    private static final String READ_SCRIPT = """
            if [ -e "$target" ]; then exec cat -- "$target"; fi
            d=$target
            while :; do
              d=${d%/*}
              [ -n "$d" ] || break
              if [ -d "$d" ] && [ ! -x "$d" ]; then echo "permission denied: $d" >&2; exit 1; fi
            done
            exit\s""" + MISSING + "\n";

    /** How the content reaches the temp file: from standard input, checked against the SHA-256 sent. */
    private static final String RECEIVE_STDIN = """
            cat 1<>"$tmp" || fail
            sum=$(sha256sum < "$tmp") || fail
            if [ "${sum%% *}" != "$sha256" ]; then
              echo "content arrived short or damaged (not the $size bytes sent: SHA-256 mismatch); $target left as it was" >&2; fail
            fi
            """;

    /**
     * As {@link #RECEIVE_STDIN}, when more follows the content on the same input ({@link #inOneExchange}):
     * exactly {@code $size} bytes are read.
     */
    private static final String RECEIVE_COUNTED = """
            dd bs=65536 count="$size" iflag=count_bytes,fullblock status=none 1<>"$tmp" || fail
            sum=$(sha256sum < "$tmp") || fail
            if [ "${sum%% *}" != "$sha256" ]; then
              echo "content arrived short or damaged (not the $size bytes sent: SHA-256 mismatch); $target left as it was" >&2; fail
            fi
            """;

    /**
     * The same on the controller itself: a plain copy of the source file ({@code cat}, which copies in
     * the kernel as {@code cp} does, into the claimed temp file), which must be the file the plan saw, unchanged while it was copied: its size,
     * inode and change times the same before and after (a write changes the change time, which no
     * user can set back), and the copy that size. Comparing the copy with the source byte for byte
     * ({@code cmp}) would read both from the page cache the copy has just filled: it proves no more
     * than this and takes longer than the copy itself (256 MiB: 0.14 s against 0.09 s).
     */
    private static final String RECEIVE_COPY = """
            before=$(stat -L -c '%s %i %y %z' -- "$src") || fail
            cat -- "$src" 1<>"$tmp" || fail
            if [ "$(stat -c %s -- "$tmp")" != "$size" ] || [ "$(stat -L -c '%s %i %y %z' -- "$src")" != "$before" ]; then
              echo "$src changed while it was copied (not the $size bytes planned); $target left as it was" >&2; fail
            fi
            """;

    /**
     * As {@link #RECEIVE_STDIN}, when the source's SHA-256 follows its bytes on the same input (the
     * controller hashes while they travel): exactly {@code $size} bytes into the file, then the
     * digest's line, then the file's digest, by OpenSSL where the host has it (it uses the CPU's SHA
     * instructions: 256 MiB in 0.2 s, read back from the page cache) else {@code sha256sum}. Hashing
     * as the bytes arrive ({@code tee} into a digest) cost two more copies of them on the host: 1.7 s
     * for 256 MiB where {@code cat} takes 1.0 and this 1.2 (bench/large-copy's node).
     */
    private static final String RECEIVE_THEN_DIGEST = """
            dd bs=1048576 count="$size" iflag=count_bytes,fullblock status=none 1<>"$tmp" || fail
            if ! IFS= read -r sha256 || [ "$(stat -c %s -- "$tmp")" != "$size" ]; then
              echo "content arrived short (not the $size bytes sent); $target left as it was" >&2; fail
            fi
            sum=$(%SHA256% <"$tmp") || fail
            if [ "${sum%% *}" != "$sha256" ]; then
              echo "content arrived short or damaged (not the $size bytes sent: SHA-256 mismatch); $target left as it was" >&2; fail
            fi
            """.replace("%SHA256%", dev.provision.modules.spi.ControllerFileDigests.HOST_SHA256_OF_STDIN);

    private FileTransfer() {
    }

    static void put(Connection connection, Command.PutFile file) throws ConnectionException {
        ExecResult result = connection.exec(ExecRequest.shell(putScript(connection, file)).withStdin(file.content()));
        putFailure(connection, file, result);
    }

    /**
     * Runs {@code steps} (file writes, as {@link #put} makes them, programs without input, and shell
     * lines of the engine's own, each in a subshell of the exchange's shell) in order in one
     * exchange: a write and the program that applies it ({@code sysctl -w}, {@code systemctl
     * daemon-reload}), or the changes of consecutive tasks, in one round trip. Each
     * write's bytes follow each other on the one input, each read by its exact size and checked by
     * its SHA-256; each step ends with a line framed by an unguessable token on both outputs, so that
     * what each program printed is told apart. The first program that exits non-zero, or the first
     * write that fails, ends the sequence.
     */
    static Steps inOneExchange(Connection connection, List<Command> steps) throws ConnectionException {
        String token = Boundary.random("PROVISION-STEP-");
        StringBuilder script = new StringBuilder(assign("tok", token))
                .append("mark() { printf '%s %s\\n' \"$tok\" \"$1\"; printf '%s %s\\n' \"$tok\" \"$1\" >&2; }\n");
        java.io.ByteArrayOutputStream input = new java.io.ByteArrayOutputStream();
        boolean putDefined = false;
        for (Command step : steps) {
            switch (step) {
                case Command.PutFile file -> {
                    // the write script once, as a function, for the several writes of a loop's items
                    if (!putDefined) {
                        script.append("pv_put() {\n").append(PUT_HEAD).append(RECEIVE_COUNTED).append(PUT_TAIL).append("}\n");
                        putDefined = true;
                    }
                    byte[] content = file.content();
                    script.append(settings(connection, file.path(), file.attributes(), file.validate(), file.backup(),
                            content.length, UploadDigests.of(file.path(), content))).append("pv_put\nmark 0\n");
                    input.writeBytes(content);
                }
                case Command.Exec program when program.stdin().length == 0 -> script.append(ShellWords.join(program.argv()))
                        .append(" </dev/null\nrc=$?; mark \"$rc\"; [ \"$rc\" -eq 0 ] || exit \"$rc\"\n");
                // the engine's own shell lines (a directory made, attributes set): a subshell, no shell started
                case Command.Shell lines -> script.append("(\n").append(lines.script()).append("\n) </dev/null\n")
                        .append("rc=$?; mark \"$rc\"; [ \"$rc\" -eq 0 ] || exit \"$rc\"\n");
                default -> throw new IllegalArgumentException("only writes, programs without input and the engine's shell lines run in one exchange: " + step);
            }
        }
        ExecResult result = connection.exec(ExecRequest.shell(script.toString()).withStdin(input.toByteArray()));
        return split(connection, steps, result, (token + " ").getBytes(StandardCharsets.US_ASCII));
    }

    /** The steps' results, told apart by the marks that end them; the first step without its mark did not finish. */
    private static Steps split(Connection connection, List<Command> steps, ExecResult result, byte[] mark) {
        byte[] out = result.stdout();
        byte[] err = result.stderr();
        int o = 0;
        int e = 0;
        List<Optional<ExecResult>> ran = new ArrayList<>();
        for (Command step : steps) {
            int om = Boundary.indexOf(out, out.length, mark, o);
            int em = Boundary.indexOf(err, err.length, mark, e);
            int oe = om < 0 ? -1 : Boundary.indexOf(out, out.length, new byte[] {'\n'}, om);
            int ee = em < 0 ? -1 : Boundary.indexOf(err, err.length, new byte[] {'\n'}, em);
            if (oe < 0 || ee < 0) {
                // not finished: the script's status and what it printed since the last mark are this step's
                ExecResult unfinished = new ExecResult(result.exitCode(), Arrays.copyOfRange(out, o, out.length),
                        Arrays.copyOfRange(err, e, err.length));
                if (step instanceof Command.PutFile file) {
                    try {
                        putFailure(connection, file, unfinished.exitCode() == 0 ? new ExecResult(1, unfinished.stdout(),
                                unfinished.stderr()) : unfinished);
                    } catch (ConnectionException failure) {
                        return new Steps(ran, Optional.of(failure));
                    }
                }
                ran.add(Optional.of(unfinished));
                return new Steps(ran, Optional.empty());
            }
            int status = Integer.parseInt(new String(out, om + mark.length, oe - om - mark.length, StandardCharsets.US_ASCII));
            if (step instanceof Command.PutFile) {
                ran.add(Optional.empty());
            } else {
                ran.add(Optional.of(new ExecResult(status, Arrays.copyOfRange(out, o, om), Arrays.copyOfRange(err, e, em))));
            }
            o = oe + 1;
            e = ee + 1;
            if (status != 0) {
                break;
            }
        }
        return new Steps(ran, Optional.empty());
    }

    private static String putScript(Connection connection, Command.PutFile file) throws ConnectionException {
        byte[] content = file.content();
        return script(connection, file.path(), file.attributes(), file.validate(), file.backup(), content.length,
                UploadDigests.of(file.path(), content), RECEIVE_STDIN);
    }

    private static String script(Connection connection, String path, Command.Attributes attributes,
                                 java.util.List<String> validate, boolean backup, long size, String sha256, String receive)
            throws ConnectionException {
        return settings(connection, path, attributes, validate, backup, size, sha256) + PUT_HEAD + receive + PUT_TAIL;
    }

    /** What {@link #PUT_SCRIPT} is to write: its variables, and its {@code run_validator}. */
    private static String settings(Connection connection, String path, Command.Attributes attributes,
                                   java.util.List<String> validate, boolean backup, long size, String sha256)
            throws ConnectionException {
        requireAbsolute(connection, path);
        return assign("target", path)
                + assign("validate", validate.isEmpty() ? "" : "yes")
                + assign("backup", backup ? "yes" : "")
                + "run_validator() { " + (validate.isEmpty() ? ":" : validatorLine(validate)) + "; }\n"
                + assign("dir", parentOf(path))
                + assign("mode", attributes.mode().orElse(""))
                + assign("made", createdMask(attributes.mode().orElse("")))
                + assign("owner", attributes.owner().orElse(""))
                + assign("group", attributes.group().orElse(""))
                + assign("size", Long.toString(size))
                + assign("sha256", sha256);
    }

    /**
     * The umask under which the temp file is created with {@code mode} itself, so that no
     * {@code chmod} is needed; empty where it must be created 0600 and given its mode once written.
     * Only a plain octal mode without execute or special bits, whose group and others have the same
     * rights: the content is then no more readable while it is written than once it is in place,
     * whoever the file's group turns out to be.
     */
    static String createdMask(String mode) {
        if (!mode.matches("0?[0246]{3}")) {
            return "";
        }
        String digits = mode.substring(mode.length() - 3);
        if (digits.charAt(1) != digits.charAt(2)) {
            return "";
        }
        return Integer.toOctalString(0777 & ~Integer.parseInt(digits, 8));
    }

    /**
     * Writes a controller file as {@link #put} does, its bytes streamed from the file (never held in
     * memory) and checked on the host against the source's SHA-256 ({@link ControllerFileDigests}).
     */
    static void upload(Connection connection, Command.UploadFile file) throws ConnectionException {
        if (connection.isController()) {
            uploadLocally(connection, file);
            return;
        }
        requireUnchanged(connection, file);
        String sha256;
        try {
            sha256 = dev.provision.modules.spi.ControllerFileDigests.sha256(file.source());
        } catch (dev.provision.modules.spi.ModuleException e) {
            throw new ConnectionException("cannot upload " + file.source() + " to " + connection.hostName() + ": " + e.getMessage());
        }
        String script = script(connection, file.path(), file.attributes(), java.util.List.of(), false, file.size(), sha256, RECEIVE_STDIN);
        ExecResult result = connection.exec(ExecRequest.shell(script).withStdinFile(file.source()));
        if (result.exitCode() != 0) {
            throw new ConnectionException("cannot write " + file.path() + " on " + connection.hostName() + ": " + reason(result));
        }
    }

    /**
     * {@link #upload} through a channel of OpenSSH's client ({@link OpenSshUpload}), the source hashed
     * while its bytes travel.
     *
     * @return false when {@code ssh} could not carry it (nothing was written): write it another way
     */
    static boolean uploadThroughOpenSsh(Connection connection, Command.UploadFile file, OpenSshUpload.Target target)
            throws ConnectionException {
        requireUnchanged(connection, file);
        // a source that cannot be read sends a digest that the host's check refuses
        java.util.concurrent.CompletableFuture<String> sha256 = dev.provision.modules.spi.ControllerFileDigests
                .inBackground(file.source()).exceptionally(e -> "unreadable");
        String script = script(connection, file.path(), file.attributes(), java.util.List.of(), false, file.size(), "",
                RECEIVE_THEN_DIGEST);
        Optional<ExecResult> result = OpenSshUpload.run(target, script, file.source(), sha256, ExecRequest.DEFAULT_TIMEOUT);
        if (result.isEmpty()) {
            return false;
        }
        if (result.get().exitCode() != 0) {
            throw new ConnectionException("cannot write " + file.path() + " on " + connection.hostName() + ": " + reason(result.get()));
        }
        return true;
    }

    /** {@link #upload} on the controller itself: the source is copied, not streamed through a pipe. */
    private static void uploadLocally(Connection connection, Command.UploadFile file) throws ConnectionException {
        requireUnchanged(connection, file);
        String script = assign("src", file.source().toAbsolutePath().toString())
                + script(connection, file.path(), file.attributes(), java.util.List.of(), false, file.size(), "", RECEIVE_COPY);
        ExecResult result = connection.exec(ExecRequest.shell(script));
        if (result.exitCode() != 0) {
            throw new ConnectionException("cannot write " + file.path() + " on " + connection.hostName() + ": " + reason(result));
        }
    }

    /** The source as the plan saw it, or the write is refused: the plan said what it would write. */
    private static void requireUnchanged(Connection connection, Command.UploadFile file) throws ConnectionException {
        try {
            java.nio.file.attribute.BasicFileAttributes now = java.nio.file.Files.readAttributes(file.source(),
                    java.nio.file.attribute.BasicFileAttributes.class);
            if (now.size() != file.size() || now.lastModifiedTime().toMillis() != file.modifiedMillis()) {
                throw new ConnectionException("not writing " + file.path() + " on " + connection.hostName() + ": "
                        + file.source() + " changed since the plan was made (" + file.size() + " bytes then, " + now.size()
                        + " now); run again to plan from what it holds now");
            }
        } catch (java.io.IOException e) {
            throw new ConnectionException("cannot read " + file.source() + " to upload it to " + connection.hostName() + ": "
                    + e.getMessage());
        }
    }

    private static void putFailure(Connection connection, Command.PutFile file, ExecResult result) throws ConnectionException {
        String path = file.path();
        if (result.exitCode() == INVALID) {
            throw new ConnectionException("validation of " + path + " on " + connection.hostName() + " failed ("
                    + String.join(" ", file.validate()) + "), " + path + " left as it was: "
                    + new String(result.stderr(), StandardCharsets.UTF_8).strip());
        }
        if (result.exitCode() != 0) {
            throw new ConnectionException("cannot write " + path + " on " + connection.hostName() + ": "
                    + reason(result));
        }
    }

    static Optional<byte[]> read(Connection connection, String path) throws ConnectionException {
        requireAbsolute(connection, path);
        ExecResult result = connection.exec(ExecRequest.shell(assign("target", path) + READ_SCRIPT));
        return switch (result.exitCode()) {
            case 0 -> Optional.of(result.stdout());
            case MISSING -> Optional.empty();
            default -> throw new ConnectionException("cannot read " + path + " on " + connection.hostName() + ": "
                    + reason(result));
        };
    }

    /** The validator as a shell command: every word quoted, each {@code %s} replaced by the temp file. */
    static String validatorLine(java.util.List<String> argv) {
        StringBuilder line = new StringBuilder();
        for (String word : argv) {
            if (!line.isEmpty()) {
                line.append(' ');
            }
            String[] parts = word.split("%s", -1);
            for (int i = 0; i < parts.length; i++) {
                if (i > 0) {
                    line.append("\"$tmp\"");
                }
                if (!parts[i].isEmpty() || parts.length == 1) {
                    line.append(ShellWords.quote(parts[i]));
                }
            }
        }
        return line.toString();
    }

    private static String assign(String variable, String value) {
        return variable + "=" + ShellWords.quote(value) + "\n";
    }

    private static void requireAbsolute(Connection connection, String path) throws ConnectionException {
        if (!path.startsWith("/")) {
            throw new ConnectionException("path on " + connection.hostName() + " must be absolute: " + path);
        }
    }

    static String parentOf(String path) {
        String trimmed = path.length() > 1 && path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
        int slash = trimmed.lastIndexOf('/');
        return slash <= 0 ? "/" : trimmed.substring(0, slash);
    }

    /** The last non-empty line of the error output (the one that says what went wrong), else the status. */
    static String reason(ExecResult result) {
        String[] lines = new String(result.stderr(), StandardCharsets.UTF_8).strip().split("\n");
        String last = lines[lines.length - 1].strip();
        return last.isEmpty() ? "exit status " + result.exitCode() : last;
    }
}
