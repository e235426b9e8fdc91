package dev.provision.modules.system;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * One-line apt sources ({@code sources.list} and {@code sources.list.d/*.list}) read and written the
 * way Ansible 2.14's {@code apt_repository} reads and writes them, so that a file provision writes
 * is byte for byte the file Ansible writes. Pure functions; thread-safe.
 *
 * <p>A line is stripped; a leading {@code #} makes it disabled; a later {@code #} starts a comment;
 * what is left is a source when its first word is {@code deb} or {@code deb-src}, its blanks
 * collapsed to one space. A file Ansible rewrites is written back line by line as
 * {@code [# ]SOURCE[ # COMMENT]}: so comments gain a space after {@code #} and indentation is lost,
 * in the whole file that changes (and only there).
 */
final class AptSources {
    private static final List<String> TYPES = List.of("deb", "deb-src");
    private static final Pattern OPTIONS = Pattern.compile("\\[[^\\]]+\\]");
    /** Python's {@code \w} is Unicode-aware for str patterns. */
    private static final Pattern SCHEME = Pattern.compile("\\w+://", Pattern.UNICODE_CHARACTER_CLASS);
    private static final Pattern BLANKS = Pattern.compile("\\s+", Pattern.UNICODE_CHARACTER_CLASS);

    private AptSources() {
    }

    /** One line as Ansible parses it: {@code source} is the normalised entry (or the stripped text of another line). */
    record Line(boolean valid, boolean enabled, String source, String comment) {
        Line {
            requireNonNull(source, "source cannot be null");
            requireNonNull(comment, "comment cannot be null");
        }

        Line enable() {
            return new Line(valid, true, source, comment);
        }

        /** The line as Ansible writes it back, with its newline. */
        String render() {
            return (enabled ? "" : "# ") + source + (comment.isEmpty() ? "" : " # " + comment) + "\n";
        }
    }

    /** Parses one line (Ansible's {@code SourcesList._parse}). */
    static Line parse(String text) {
        boolean enabled = true;
        String comment = "";
        String line = text.strip();
        if (line.startsWith("#")) {
            enabled = false;
            line = line.substring(1);
        }
        int hash = line.indexOf('#');
        if (hash > 0) {
            comment = line.substring(hash + 1).strip();
            line = line.substring(0, hash);
        }
        String source = line.strip();
        boolean valid = false;
        if (!source.isEmpty()) {
            String[] words = BLANKS.split(source);
            if (TYPES.contains(words[0])) {
                valid = true;
                source = String.join(" ", words);
            }
        }
        return new Line(valid, enabled, source, comment);
    }

    /**
     * The source a {@code repo} argument names, normalised; empty when it is not an enabled
     * {@code deb}/{@code deb-src} line (Ansible's "Invalid repository string").
     */
    static Optional<String> repo(String repo) {
        Line line = parse(repo);
        return line.valid() && line.enabled() ? Optional.of(line.source()) : Optional.empty();
    }

    /** A file's lines as Ansible reads them (Python's universal newlines; a last line without newline counts). */
    static List<Line> parseFile(String content) {
        String text = content.replace("\r\n", "\n").replace('\r', '\n');
        if (text.isEmpty()) {
            return List.of();
        }
        if (text.endsWith("\n")) {
            text = text.substring(0, text.length() - 1);
        }
        List<Line> lines = new ArrayList<>();
        for (String l : text.split("\n", -1)) {
            lines.add(parse(l));
        }
        return lines;
    }

    /** The file as Ansible writes it back. */
    static String render(List<Line> lines) {
        StringBuilder sb = new StringBuilder();
        lines.forEach(l -> sb.append(l.render()));
        return sb.toString();
    }

    /**
     * The file name, without {@code .list}, that Ansible 2.14 derives from a source
     * ({@code SourcesList._suggest_filename}): options in brackets and {@code scheme://} dropped,
     * then the first word that is not {@code deb}/{@code deb-src}, less a {@code user:password@},
     * with every run of characters other than ASCII letters and digits made one {@code _} (none at
     * either end). Empty when nothing is left.
     */
    static String suggestedName(String source) {
        String line = OPTIONS.matcher(source).replaceAll("");
        line = SCHEME.matcher(line).replaceAll("");
        List<String> parts = Arrays.stream(BLANKS.split(line.strip())).filter(p -> !p.isEmpty() && !TYPES.contains(p)).toList();
        if (parts.isEmpty()) {
            return "";
        }
        String first = parts.getFirst();
        int at = first.indexOf('@');
        if (at >= 0) {
            first = first.substring(at + 1);
        }
        return String.join("_", Arrays.stream(first.replaceAll("[^a-zA-Z0-9]", " ").strip().split(" +"))
                .filter(p -> !p.isEmpty()).toList());
    }
}
