package dev.provision.modules.text;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A block of lines owned by the tool inside a file otherwise owned by the administrator, delimited
 * by two marker lines, with the byte-for-byte semantics of Ansible's {@code blockinfile} (2.14):
 *
 * <pre>
 * # BEGIN ANSIBLE MANAGED BLOCK
 * ...the block...
 * # END ANSIBLE MANAGED BLOCK
 * </pre>
 *
 * <p>{@link #put} replaces the lines from the begin marker to the end marker (inclusive) when both
 * are present (the last line equal to each, terminator included), else inserts the block at the
 * {@link InsertPosition}; {@link #remove} deletes them. Lines outside the markers keep their bytes,
 * a missing final newline included, except that the line just before an inserted block gains a
 * newline. A multi-line pattern ({@code (?m)}) is searched in the whole text, others line by line.
 * Both operations are idempotent: applying one to its own result returns that result unchanged.
 * Pure and thread-safe.
 *
 * <p>One deviation: removing a block that is not there changes nothing, where Ansible adds a newline
 * to a file without one (and reports a change that removed nothing).
 */
public final class ManagedBlock {

    private ManagedBlock() {
    }

    /**
     * The two marker lines. Build them with {@link #of}; {@link #DEFAULT} is Ansible's
     * {@code # BEGIN ANSIBLE MANAGED BLOCK} / {@code # END ANSIBLE MANAGED BLOCK}.
     */
    public record Markers(String begin, String end) {
        public static final String DEFAULT_TEMPLATE = "# {mark} ANSIBLE MANAGED BLOCK";
        public static final Markers DEFAULT = of(DEFAULT_TEMPLATE, "BEGIN", "END");
        /** The default of provision before it took Ansible's; files it wrote then carry it. */
        public static final String FORMER_DEFAULT_TEMPLATE = "# {mark} MANAGED BLOCK";
        public static final Markers FORMER_DEFAULT = of(FORMER_DEFAULT_TEMPLATE, "BEGIN", "END");

        public Markers {
            requireNonNull(begin, "begin cannot be null");
            requireNonNull(end, "end cannot be null");
            if (begin.equals(end)) {
                throw new IllegalArgumentException("the begin and end markers must differ: " + begin);
            }
            if (begin.contains("\n") || end.contains("\n")) {
                throw new IllegalArgumentException("a marker must be a single line");
            }
        }

        /**
         * Fills {@code {mark}} in the template with the begin and end words.
         *
         * @throws IllegalArgumentException when the template has no {@code {mark}} (both markers
         *     would be the same line) or the words are equal
         */
        public static Markers of(String template, String markBegin, String markEnd) {
            if (!template.contains("{mark}")) {
                throw new IllegalArgumentException("marker '" + template + "' must contain {mark}");
            }
            return new Markers(template.replace("{mark}", markBegin), template.replace("{mark}", markEnd));
        }
    }

    /**
     * Ensures the text holds exactly {@code block} between the markers. An empty block removes the
     * markers, as in Ansible. A final newline in {@code block} is not an extra line.
     */
    public static String put(String text, Markers markers, String block, InsertPosition where) {
        if (block.isEmpty()) {
            return remove(text, markers);
        }
        if (holdsAlready(text, markers, block)) {
            return text;
        }
        List<String> lines = TextLines.splitKeepingEnds(text, true);
        List<String> wanted = new ArrayList<>();
        wanted.add(markers.begin() + "\n");
        wanted.addAll(TextLines.splitKeepingEnds(block.endsWith("\n") ? block : block + "\n", true));
        wanted.add(markers.end() + "\n");
        int at = cut(lines, markers);
        if (at < 0) {
            at = insertionIndex(text, lines, where);
        }
        if (at > 0 && !lines.get(at - 1).endsWith("\n")) {
            lines.set(at - 1, lines.get(at - 1) + "\n");
        }
        lines.addAll(at, wanted);
        String edited = String.join("", lines);
        return edited.equals(text) ? text : edited;
    }

    /**
     * Whether {@link #put} would return the text as it is, found without splitting it into lines:
     * the converged case, on a thousand hosts each with a thousand-line block. Where it says no,
     * {@code put} does the full edit (which may still turn out to change nothing).
     */
    private static boolean holdsAlready(String text, Markers markers, String block) {
        int begin = lastLine(text, markers.begin());
        int end = lastLine(text, markers.end());
        if (begin < 0 || end < begin) {
            return false;
        }
        int inside = begin + markers.begin().length() + 1;
        int blockLength = block.length() + (block.endsWith("\n") ? 0 : 1);
        return end - inside == blockLength
                && text.regionMatches(inside, block, 0, block.length())
                && text.charAt(end - 1) == '\n'
                // a lone carriage return ends a line too: leave it to the line editor (the block is
                // in the text now, so the text's one look covers the block's too)
                && text.indexOf('\r') < 0;
    }

    /** Where the last line equal to {@code line} (with its newline) starts, or -1. */
    private static int lastLine(String text, String line) {
        String wanted = line + "\n";
        for (int at = text.lastIndexOf(wanted); at >= 0; at = at == 0 ? -1 : text.lastIndexOf(wanted, at - 1)) {
            if (at == 0 || text.charAt(at - 1) == '\n') {
                return at;
            }
        }
        return -1;
    }

    /** Removes the markers and everything between them; the text unchanged when they are absent. */
    public static String remove(String text, Markers markers) {
        List<String> lines = TextLines.splitKeepingEnds(text, true);
        return cut(lines, markers) < 0 ? text : String.join("", lines);
    }

    /** Whether both markers are in the text. */
    public static boolean isPresent(String text, Markers markers) {
        if (text.indexOf('\r') < 0) { // lines end at '\n' only: no need to split a thousand-line file
            return lastLine(text, markers.begin()) >= 0 && lastLine(text, markers.end()) >= 0;
        }
        List<String> lines = TextLines.splitKeepingEnds(text, true);
        return lastIndexOf(lines, markers.begin()) >= 0 && lastIndexOf(lines, markers.end()) >= 0;
    }

    /**
     * The text with the marker lines of a block marked {@code from} rewritten as {@code to}, the
     * block's lines and place kept; the text unchanged when {@code from} is not complete in it.
     */
    public static String renameMarkers(String text, Markers from, Markers to) {
        List<String> lines = TextLines.splitKeepingEnds(text, true);
        int begin = lastIndexOf(lines, from.begin());
        int end = lastIndexOf(lines, from.end());
        if (begin < 0 || end < 0) {
            return text;
        }
        lines.set(begin, to.begin() + "\n");
        lines.set(end, to.end() + "\n");
        return String.join("", lines);
    }

    /**
     * Removes the marked lines (inclusive) and returns where they stood, or -1 when either marker
     * is missing. The last occurrence of each marker counts, as in Ansible; a block written with
     * its markers swapped is still found.
     */
    private static int cut(List<String> lines, Markers markers) {
        int begin = lastIndexOf(lines, markers.begin());
        int end = lastIndexOf(lines, markers.end());
        if (begin < 0 || end < 0) {
            return -1;
        }
        int from = Math.min(begin, end);
        lines.subList(from, Math.max(begin, end) + 1).clear();
        return from;
    }

    /** Where a new block goes: Ansible counts a multi-line match's newlines, else finds the last matching line. */
    private static int insertionIndex(String text, List<String> lines, InsertPosition where) {
        return switch (where) {
            case InsertPosition.EndOfFile e -> lines.size();
            case InsertPosition.BeginningOfFile b -> 0;
            case InsertPosition.After a -> {
                int found = find(text, lines, a.pattern(), true);
                yield found < 0 ? lines.size() : found + 1;
            }
            case InsertPosition.Before b -> {
                int found = find(text, lines, b.pattern(), false);
                yield found < 0 ? lines.size() : found;
            }
        };
    }

    private static int find(String text, List<String> lines, Pattern pattern, boolean after) {
        if ((pattern.flags() & Pattern.MULTILINE) != 0) {
            Matcher m = pattern.matcher(text);
            if (!m.find()) {
                return -1;
            }
            return newlines(text, after ? m.end() : m.start());
        }
        int found = -1;
        for (int i = 0; i < lines.size(); i++) {
            if (pattern.matcher(lines.get(i)).find()) {
                found = i;
            }
        }
        return found;
    }

    private static int newlines(String text, int end) {
        int count = 0;
        for (int i = 0; i < end; i++) {
            if (text.charAt(i) == '\n') {
                count++;
            }
        }
        return count;
    }

    private static int lastIndexOf(List<String> lines, String marker) {
        String line = marker + "\n";
        for (int i = lines.size() - 1; i >= 0; i--) {
            if (lines.get(i).equals(line)) {
                return i;
            }
        }
        return -1;
    }
}
