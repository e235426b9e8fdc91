package dev.provision.modules.text;

import java.util.ArrayList;
import java.util.List;

/**
 * A text as an editable list of lines (without terminators) plus whether it ended with a newline.
 * The editors work on lines and then {@link #render} the result.
 */
final class TextLines {
    final List<String> lines;
    final boolean endsWithNewline;

    private TextLines(List<String> lines, boolean endsWithNewline) {
        this.lines = lines;
        this.endsWithNewline = endsWithNewline;
    }

    static TextLines of(String text) {
        List<String> lines = new ArrayList<>();
        int from = 0;
        while (from < text.length()) {
            int newline = text.indexOf('\n', from);
            if (newline < 0) {
                lines.add(text.substring(from));
                break;
            }
            lines.add(text.substring(from, newline));
            from = newline + 1;
        }
        return new TextLines(lines, text.endsWith("\n"));
    }

    /**
     * The lines with their terminators, as Python reads them: split after each {@code \n} (a file's
     * {@code readlines}), and with {@code carriageReturns} also after a lone {@code \r}
     * ({@code bytes.splitlines(True)}). Joining the result gives the text back.
     */
    static List<String> splitKeepingEnds(String text, boolean carriageReturns) {
        List<String> lines = new ArrayList<>();
        int from = 0;
        if (!carriageReturns || text.indexOf('\r') < 0) {
            // The common case, by indexOf: every host's copy of a thousand-line file is split per task.
            for (int newline; (newline = text.indexOf('\n', from)) >= 0; from = newline + 1) {
                lines.add(text.substring(from, newline + 1));
            }
            if (from < text.length()) {
                lines.add(text.substring(from));
            }
            return lines;
        }
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            boolean end = c == '\n'
                    || carriageReturns && c == '\r' && (i + 1 == text.length() || text.charAt(i + 1) != '\n');
            if (end) {
                lines.add(text.substring(from, i + 1));
                from = i + 1;
            }
        }
        if (from < text.length()) {
            lines.add(text.substring(from));
        }
        return lines;
    }

    /** The line without its trailing {@code \r} and {@code \n} characters (Python's {@code rstrip('\r\n')}). */
    static String withoutTerminators(String line) {
        int end = line.length();
        while (end > 0 && (line.charAt(end - 1) == '\n' || line.charAt(end - 1) == '\r')) {
            end--;
        }
        return line.substring(0, end);
    }

    /** The lines of a block of text; a final newline does not make an extra empty line. */
    static List<String> split(String text) {
        return TextLines.of(text).lines;
    }

    /**
     * The edited text. When the lines did not change, the original text is returned unchanged (a
     * missing final newline included), so that an edit which changes nothing is a no-op. Otherwise
     * every line ends with a newline, as the line-editing tools of Ansible leave a file.
     */
    static String render(String original, List<String> edited) {
        if (edited.equals(TextLines.of(original).lines)) {
            return original;
        }
        StringBuilder sb = new StringBuilder();
        for (String line : edited) {
            sb.append(line).append('\n');
        }
        return sb.toString();
    }

    /** The line without a trailing carriage return, for comparisons that ignore CRLF endings. */
    static String withoutCarriageReturn(String line) {
        return line.endsWith("\r") ? line.substring(0, line.length() - 1) : line;
    }
}
