package dev.provision.modules.spi;

import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The fact behind {@link HostView#walk}: a read-only {@code find} that lists every path below a
 * directory with what {@code stat} says of it, and the pure parser of its output. Fields are
 * separated by NUL, so that no file name (which may hold blanks, {@code |} or newlines) can be
 * misread. Needs GNU findutils ({@code -printf}).
 */
public final class FileTree {
    private static final int FIELDS = 10;

    private FileTree() {
    }

    /** The probe that lists {@code directory}: symlinks not followed, the directory itself left out. */
    public static List<String> argv(String directory) {
        return List.of("find", "-P", directory, "-mindepth", "1",
                "-printf", "%y\\0%m\\0%u\\0%g\\0%s\\0%D\\0%i\\0%n\\0%P\\0%l\\0");
    }

    /**
     * Parses what {@link #argv} printed into absolute paths (in path order) and their stats.
     *
     * @throws IllegalArgumentException when the output is not such a listing
     */
    public static SortedMap<String, FileStat> parse(String directory, String stdout) {
        SortedMap<String, FileStat> entries = new TreeMap<>();
        if (stdout.isEmpty()) {
            return entries;
        }
        String[] f = stdout.split("\0", -1);
        if (f.length % FIELDS != 1 || !f[f.length - 1].isEmpty()) {
            throw new IllegalArgumentException("not a file listing: " + f.length + " fields");
        }
        String base = directory.endsWith("/") ? directory : directory + "/";
        for (int i = 0; i + FIELDS <= f.length; i += FIELDS) {
            FileStat.Type type = switch (f[i]) {
                case "f" -> FileStat.Type.FILE;
                case "d" -> FileStat.Type.DIRECTORY;
                case "l" -> FileStat.Type.LINK;
                default -> FileStat.Type.OTHER;
            };
            entries.put(base + f[i + 8], new FileStat(type, Integer.parseInt(f[i + 1], 8), f[i + 2], f[i + 3],
                    Long.parseLong(f[i + 4]), type == FileStat.Type.LINK ? f[i + 9] : "",
                    Long.parseLong(f[i + 5]), Long.parseLong(f[i + 6]), Long.parseLong(f[i + 7])));
        }
        return entries;
    }
}
