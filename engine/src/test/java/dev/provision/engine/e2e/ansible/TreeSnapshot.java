package dev.provision.engine.e2e.ansible;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * What a case directory holds, as comparable text: every path (sorted, relative) with its kind,
 * permission bits and content or link target, control characters made visible; a file with more
 * than one name says which listed path it shares its inode with ({@code =name}), and a path whose
 * owner or group is not the case directory's says whose it is. Backup files carry a process id and
 * a time in their names; those parts are masked.
 */
final class TreeSnapshot {
    private static final Pattern BACKUP = Pattern.compile("\\.\\d+\\.\\d{4}-\\d\\d-\\d\\d@\\d\\d:\\d\\d:\\d\\d~$");

    private TreeSnapshot() {
    }

    static String of(Path dir) throws IOException {
        if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
            return "<absent>\n";
        }
        StringBuilder sb = new StringBuilder();
        String owners = owners(dir);
        java.util.Map<Object, String> firstNameOfInode = new java.util.HashMap<>();
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.filter(p -> !p.equals(dir)).sorted().toList()) {
                String name = BACKUP.matcher(dir.relativize(p).toString()).replaceAll(".PID.TIME~");
                sb.append(name).append(' ');
                if (Files.isSymbolicLink(p)) {
                    // An absolute target into the case directory reads the same for both tools.
                    sb.append("link -> ").append(Files.readSymbolicLink(p).toString().replace(dir + "/", "@/"));
                } else {
                    sb.append(Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS) ? "dir " : "file ").append(mode(p));
                    if (Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)) {
                        sb.append(' ').append(visible(Files.readString(p, StandardCharsets.ISO_8859_1)));
                        if ((Integer) Files.getAttribute(p, "unix:nlink", LinkOption.NOFOLLOW_LINKS) > 1) {
                            String first = firstNameOfInode.putIfAbsent(Files.getAttribute(p, "unix:ino", LinkOption.NOFOLLOW_LINKS), name);
                            if (first != null) {
                                sb.append(" =").append(first);
                            }
                        }
                    }
                }
                if (!owners(p).equals(owners)) {
                    sb.append(' ').append(owners(p));
                }
                sb.append('\n');
            }
        }
        return sb.toString();
    }

    private static String owners(Path p) throws IOException {
        return Files.getOwner(p, LinkOption.NOFOLLOW_LINKS).getName() + ":"
                + Files.readAttributes(p, java.nio.file.attribute.PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS).group().getName();
    }

    private static String mode(Path p) throws IOException {
        Set<PosixFilePermission> perms = Files.getPosixFilePermissions(p, LinkOption.NOFOLLOW_LINKS);
        int bits = 0;
        for (PosixFilePermission perm : perms) {
            bits |= 0400 >> perm.ordinal();
        }
        return String.format("%04o", bits);
    }

    private static String visible(String content) {
        StringBuilder sb = new StringBuilder("\"");
        for (char c : content.toCharArray()) {
            switch (c) {
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                default -> sb.append(c < 0x20 ? String.format("\\x%02x", (int) c) : String.valueOf(c));
            }
        }
        return sb.append('"').toString();
    }
}
