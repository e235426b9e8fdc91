package dev.provision.engine.exec;

import dev.provision.engine.connection.ExecResult;
import dev.provision.modules.spi.FileStat;
import dev.provision.modules.spi.ModuleException;
import dev.provision.modules.text.ShellWords;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * The host view's read of one path ({@code HostView.stat}) as a fact: the script that asks, and a
 * pure parser of its answer. In one round trip the script says the path's stat line, and with it
 * what a module nearly always asks next: a small regular file's content (after a {@code CONTENT}
 * line), or where the task's other hosts had larger files in common, its SHA-256 (a {@code DIGEST}
 * line); for a missing path, its parent's stat line ({@code PARENT}) or that the parent is missing
 * too ({@code NO PARENT}), exit 3. {@link ConnectionHostView} keeps what the answer says;
 * {@code StatProbeTest} holds captured answers.
 */
final class StatProbe {
    /** A regular file at most this large comes with its stat. */
    static final int CONTENT_WITH_STAT_MAX = 256 * 1024;
    /** One path's stat line, as {@link #parseStat} reads it (the size last: the script compares it as ${l##*|}). */
    private static final String STAT = "stat -c '%F|%a|%U|%G|%d|%i|%h|%s'";
    private static final byte[] CONTENT_MARKER = "\nCONTENT\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] DIGEST_MARKER = "\nDIGEST ".getBytes(StandardCharsets.US_ASCII);
    private static final int DIGEST_LENGTH = 64;
    private static final String PARENT = "PARENT ";
    private static final String NO_PARENT = "NO PARENT";

    private StatProbe() {
    }

    /**
     * What the answer said of the path.
     *
     * @param stat the path's stat; empty when it does not exist
     * @param content a regular file's content, whole (its size is the stat's); empty when it did not come along
     * @param digest a regular file's SHA-256 (hex) in place of its content; empty when it did not come along
     * @param parent for a missing path: its parent's stat (empty: missing too); empty when not said
     */
    record Answer(Optional<FileStat> stat, Optional<byte[]> content, Optional<String> digest, Optional<Optional<FileStat>> parent) {
    }

    /** The script for {@code path}; with {@code digest}, a file of at least {@code digestFrom} bytes sends its SHA-256 instead. */
    static String script(String path, boolean digest, long digestFrom) {
        // the path once, as $p: the script is quoted, encrypted and sent per host, and a long path repeated was most of it
        String send = "printf 'CONTENT\\n'; cat -- \"$p\" || true;";
        if (digest) {
            send = "if [ \"${l##*|}\" -ge " + digestFrom + " ] && d=$(sha256sum -- \"$p\""
                    + " 2>/dev/null); then printf 'DIGEST %." + DIGEST_LENGTH + "s\\n' \"$d\"; else " + send + " fi;";
        }
        return "p=" + ShellWords.quote(path) + "; if [ -e \"$p\" ] || [ -L \"$p\" ]; then l=$(" + STAT + " -- \"$p\""
                + ") || exit 1; printf '%s\\n' \"$l\"; if [ -L \"$p\" ]; then readlink -- \"$p\" || true;"
                + " elif [ \"${l%%|*}\" = 'regular file' ] && [ \"${l##*|}\" -le " + CONTENT_WITH_STAT_MAX
                + " ] && [ -r \"$p\" ]; then " + send + " fi; else " + parentStat(path) + " exit 3; fi";
    }

    /**
     * What a missing path's parent is, said in the same round trip: a module that finds its target
     * missing nearly always asks about the directory it would create it in next (copy, template,
     * lineinfile's create, file's directory), and one exchange is cheaper than two.
     */
    private static String parentStat(String path) {
        Optional<String> parent = parentOf(path);
        if (parent.isEmpty()) {
            return "";
        }
        return "q=" + ShellWords.quote(parent.get()) + "; if [ -e \"$q\" ] || [ -L \"$q\" ]; then l=$(" + STAT + " -- \"$q\""
                + ") && printf '" + PARENT + "%s\n' \"$l\" && { [ ! -L \"$q\" ] || readlink -- \"$q\" || true; };"
                + " else echo '" + NO_PARENT + "'; fi;";
    }

    /** The directory an absolute path is in; empty for {@code /} and for relative paths. */
    static Optional<String> parentOf(String path) {
        int slash = path.lastIndexOf('/');
        if (!path.startsWith("/") || path.equals("/") || path.endsWith("/") || path.contains("/./") || path.contains("/../")) {
            return Optional.empty();
        }
        return Optional.of(slash == 0 ? "/" : path.substring(0, slash));
    }

    /** What the script's answer {@code r} says of {@code path}. */
    static Answer parse(String path, ExecResult r) throws ModuleException {
        if (r.exitCode() == 3) {
            Optional<Optional<FileStat>> parent = Optional.empty();
            String said = r.stdoutText();
            if (parentOf(path).isPresent() && said.startsWith(PARENT)) {
                parent = Optional.of(Optional.of(parseStat(said.substring(PARENT.length()))));
            } else if (parentOf(path).isPresent() && said.startsWith(NO_PARENT)) {
                parent = Optional.of(Optional.empty());
            }
            return new Answer(Optional.empty(), Optional.empty(), Optional.empty(), parent);
        }
        if (r.exitCode() != 0) {
            throw new ModuleException("cannot stat " + path + ": " + r.stderrText().strip());
        }
        byte[] out = r.stdout();
        int marker = marker(out, CONTENT_MARKER);
        int digest = marker < 0 ? marker(out, DIGEST_MARKER) : -1;
        int statEnd = marker >= 0 ? marker : digest >= 0 ? digest : out.length;
        FileStat stat = parseStat(new String(out, 0, statEnd, StandardCharsets.UTF_8));
        Optional<byte[]> content = Optional.empty();
        Optional<String> sha256 = Optional.empty();
        if (stat.type() == FileStat.Type.FILE && marker >= 0) {
            byte[] sent = Arrays.copyOfRange(out, marker + CONTENT_MARKER.length, out.length);
            if (sent.length == stat.size()) { // else it changed meanwhile: a later readFile reads it afresh
                content = Optional.of(sent);
            }
        } else if (stat.type() == FileStat.Type.FILE && digest >= 0) {
            int from = digest + DIGEST_MARKER.length;
            sha256 = Optional.of(new String(out, from, Math.min(DIGEST_LENGTH, out.length - from), StandardCharsets.US_ASCII));
        } else if (stat.type() == FileStat.Type.FILE && stat.size() == 0) {
            content = Optional.of(new byte[0]);
        }
        return new Answer(Optional.of(stat), content, sha256, Optional.empty());
    }

    /** Where the marker's line starts (at the end of the first line), or -1. */
    private static int marker(byte[] out, byte[] marker) {
        int lineEnd = 0;
        while (lineEnd < out.length && out[lineEnd] != '\n') {
            lineEnd++;
        }
        if (out.length - lineEnd < marker.length) {
            return -1;
        }
        for (int i = 0; i < marker.length; i++) {
            if (out[lineEnd + i] != marker[i]) {
                return -1;
            }
        }
        return lineEnd;
    }

    static FileStat parseStat(String out) {
        List<String> lines = out.lines().toList();
        String[] f = lines.get(0).split("\\|", -1);
        FileStat.Type type = switch (f[0]) {
            case "regular file", "regular empty file" -> FileStat.Type.FILE;
            case "directory" -> FileStat.Type.DIRECTORY;
            case "symbolic link" -> FileStat.Type.LINK;
            default -> FileStat.Type.OTHER;
        };
        String target = type == FileStat.Type.LINK && lines.size() > 1 ? lines.get(1) : "";
        if (f.length >= 8) { // the size last: the script compares it as ${l##*|}
            return new FileStat(type, Integer.parseInt(f[1], 8), f[2], f[3], Long.parseLong(f[7]), target,
                    Long.parseLong(f[4]), Long.parseLong(f[5]), Long.parseLong(f[6]));
        }
        return new FileStat(type, Integer.parseInt(f[1], 8), f[2], f[3], Long.parseLong(f[4]), target);
    }
}
