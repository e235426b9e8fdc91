package dev.provision.modules.text;

import com.github.difflib.DiffUtils;
import com.github.difflib.patch.AbstractDelta;
import dev.provision.modules.spi.Diff;
import java.util.ArrayList;
import java.util.List;

/**
 * Draws a {@link Diff} as a unified diff, the way {@code diff -u} and Ansible's {@code --diff} do:
 *
 * <pre>
 * --- before: /etc/hosts
 * +++ after: /etc/hosts
 * &#64;&#64; -1,2 +1,3 &#64;&#64;
 *  127.0.0.1 localhost
 * +10.0.0.2 node2
 * </pre>
 *
 * A line without a final newline is followed by {@code \ No newline at end of file}, so that adding
 * or removing only the last newline still shows. Pure and thread-safe.
 */
public final class UnifiedDiff {
    private static final String NO_NEWLINE = "\\ No newline at end of file";

    private UnifiedDiff() {
    }

    /**
     * @param context unchanged lines shown around each change (3 is what {@code diff -u} uses)
     * @return the diff, each line ending with a newline; the empty string when before equals after
     * @throws IllegalArgumentException when {@code context} is negative
     */
    public static String render(Diff diff, int context) {
        if (context < 0) {
            throw new IllegalArgumentException("context cannot be negative: " + context);
        }
        if (diff.before().equals(diff.after())) {
            return "";
        }
        // Lines keep their terminator, so "x" and "x\n" differ and the marker can be drawn.
        List<String> before = lines(diff.before());
        List<String> after = lines(diff.after());
        List<AbstractDelta<String>> deltas = DiffUtils.diff(before, after).getDeltas();
        StringBuilder out = new StringBuilder();
        out.append("--- before: ").append(diff.label()).append('\n');
        out.append("+++ after: ").append(diff.label()).append('\n');
        int first = 0;
        while (first < deltas.size()) {
            int last = first;
            // Changes closer than two contexts apart share one hunk, as in diff -u.
            while (last + 1 < deltas.size()
                    && deltas.get(last + 1).getSource().getPosition() - sourceEnd(deltas.get(last)) <= 2 * context) {
                last++;
            }
            renderHunk(out, before, deltas.subList(first, last + 1), context);
            first = last + 1;
        }
        return out.toString();
    }

    private static void renderHunk(StringBuilder out, List<String> before, List<AbstractDelta<String>> hunk, int context) {
        AbstractDelta<String> firstDelta = hunk.get(0);
        AbstractDelta<String> lastDelta = hunk.get(hunk.size() - 1);
        int start = Math.max(0, firstDelta.getSource().getPosition() - context);
        int end = Math.min(before.size(), sourceEnd(lastDelta) + context);
        int targetStart = firstDelta.getTarget().getPosition() - (firstDelta.getSource().getPosition() - start);
        int targetEnd = lastDelta.getTarget().getPosition() + lastDelta.getTarget().size() + (end - sourceEnd(lastDelta));
        out.append("@@ -").append(range(start, end - start))
                .append(" +").append(range(targetStart, targetEnd - targetStart)).append(" @@\n");
        int i = start;
        for (AbstractDelta<String> delta : hunk) {
            for (; i < delta.getSource().getPosition(); i++) {
                line(out, ' ', before.get(i));
            }
            delta.getSource().getLines().forEach(l -> line(out, '-', l));
            delta.getTarget().getLines().forEach(l -> line(out, '+', l));
            i = sourceEnd(delta);
        }
        for (; i < end; i++) {
            line(out, ' ', before.get(i));
        }
    }

    /** GNU style: {@code start,count}, the count left out when it is 1, the start 0-based when empty. */
    private static String range(int start, int count) {
        return switch (count) {
            case 0 -> start + ",0";
            case 1 -> String.valueOf(start + 1);
            default -> (start + 1) + "," + count;
        };
    }

    private static void line(StringBuilder out, char prefix, String lineWithTerminator) {
        out.append(prefix);
        if (lineWithTerminator.endsWith("\n")) {
            out.append(lineWithTerminator);
        } else {
            out.append(lineWithTerminator).append('\n').append(NO_NEWLINE).append('\n');
        }
    }

    private static int sourceEnd(AbstractDelta<String> delta) {
        return delta.getSource().getPosition() + delta.getSource().size();
    }

    private static List<String> lines(String text) {
        List<String> lines = new ArrayList<>();
        int from = 0;
        while (from < text.length()) {
            int newline = text.indexOf('\n', from);
            int to = newline < 0 ? text.length() : newline + 1;
            lines.add(text.substring(from, to));
            from = to;
        }
        return lines;
    }
}
