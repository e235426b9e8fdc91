package dev.provision.modules.text;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.List;

/**
 * A block of lines owned by the tool inside a file otherwise owned by the administrator, delimited
 * by two marker lines (Ansible's {@code blockinfile}):
 *
 * <pre>
 * # BEGIN MANAGED BLOCK
 * ...the block...
 * # END MANAGED BLOCK
 * </pre>
 *
 * <p>{@link #put} replaces the lines from the begin marker to the end marker (inclusive) when both
 * are present, else inserts the block at the {@link InsertPosition}; {@link #remove} deletes them.
 * Lines outside the markers are never touched. Both operations are idempotent: applying one to its
 * own result returns that result unchanged. When nothing changes, the input is returned as it was.
 * Pure and thread-safe.
 */
public final class ManagedBlock {

    private ManagedBlock() {
    }

    /**
     * The two marker lines. Build them with {@link #of}; {@link #DEFAULT} is
     * {@code # BEGIN MANAGED BLOCK} / {@code # END MANAGED BLOCK}.
     */
    public record Markers(String begin, String end) {
        public static final String DEFAULT_TEMPLATE = "# {mark} MANAGED BLOCK";
        public static final Markers DEFAULT = of(DEFAULT_TEMPLATE, "BEGIN", "END");

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
        List<String> lines = new ArrayList<>(TextLines.of(text).lines);
        List<String> wanted = new ArrayList<>();
        wanted.add(markers.begin());
        wanted.addAll(TextLines.split(block));
        wanted.add(markers.end());
        int at = cut(lines, markers);
        if (at < 0) {
            at = where.indexIn(lines, false);
        }
        lines.addAll(at, wanted);
        return TextLines.render(text, lines);
    }

    /** Removes the markers and everything between them; the text unchanged when they are absent. */
    public static String remove(String text, Markers markers) {
        List<String> lines = new ArrayList<>(TextLines.of(text).lines);
        cut(lines, markers);
        return TextLines.render(text, lines);
    }

    /** Whether both markers are in the text. */
    public static boolean isPresent(String text, Markers markers) {
        List<String> lines = TextLines.of(text).lines;
        return lastIndexOf(lines, markers.begin()) >= 0 && lastIndexOf(lines, markers.end()) >= 0;
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

    private static int lastIndexOf(List<String> lines, String marker) {
        for (int i = lines.size() - 1; i >= 0; i--) {
            if (lines.get(i).stripTrailing().equals(marker)) {
                return i;
            }
        }
        return -1;
    }
}
