package dev.provision.modules.files;

import static java.util.Objects.requireNonNull;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.zip.GZIPInputStream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/**
 * What an archive holds, for {@code unarchive}: member paths (relative, normalised: no leading
 * {@code ./} or {@code /}, no trailing {@code /}) with their kind and, where known, size. Read on
 * the controller from a tar (plain or gzip: the JDK has no bzip2 nor xz decoder) or a zip with a
 * small reader of its own, or parsed from what {@code tar -tf} or {@code unzip -Z1} print on the
 * host (names only: kinds from a trailing {@code /}, sizes unknown).
 *
 * <p>A member with a {@code ..} component is refused: tar would skip it and unzip could write
 * outside {@code dest}.
 */
final class ArchiveMembers {
    /** The archive formats, by the suffix of the file name. */
    enum Format {
        TAR("tar", List.of()), TAR_GZ("tar.gz", List.of("-z")), TAR_BZ2("tar.bz2", List.of("-j")),
        TAR_XZ("tar.xz", List.of("-J")), ZIP("zip", List.of());

        final String word;
        /** The tar option that names the compression. */
        final List<String> tarFlags;

        Format(String word, List<String> tarFlags) {
            this.word = word;
            this.tarFlags = tarFlags;
        }

        /** The format a file name says, or empty when its suffix is none of them. */
        static Optional<Format> of(String fileName) {
            String n = fileName.toLowerCase(Locale.ROOT);
            if (n.endsWith(".tar.gz") || n.endsWith(".tgz")) {
                return Optional.of(TAR_GZ);
            }
            if (n.endsWith(".tar.bz2") || n.endsWith(".tbz2") || n.endsWith(".tbz")) {
                return Optional.of(TAR_BZ2);
            }
            if (n.endsWith(".tar.xz") || n.endsWith(".txz")) {
                return Optional.of(TAR_XZ);
            }
            if (n.endsWith(".tar")) {
                return Optional.of(TAR);
            }
            if (n.endsWith(".zip")) {
                return Optional.of(ZIP);
            }
            return Optional.empty();
        }

        /** Whether this machine's JDK reads it (bzip2 and xz need a library we do not have). */
        boolean readableHere() {
            return this == TAR || this == TAR_GZ || this == ZIP;
        }
    }

    enum Kind { FILE, DIRECTORY, LINK, ANY }

    /**
     * One member.
     *
     * @param size bytes of a regular file; -1 when unknown or not a file
     */
    record Member(String path, Kind kind, long size) {
        Member {
            requireNonNull(path, "path cannot be null");
            requireNonNull(kind, "kind cannot be null");
        }

        /** The first component: what the archive puts directly into dest. */
        String top() {
            int slash = path.indexOf('/');
            return slash < 0 ? path : path.substring(0, slash);
        }
    }

    private ArchiveMembers() {
    }

    /** Reads the members of a controller file (tar, tar.gz or zip). */
    static List<Member> read(Path archive, Format format) throws IOException {
        if (format == Format.ZIP) {
            return zip(archive);
        }
        try (InputStream raw = new BufferedInputStream(Files.newInputStream(archive), 1 << 16)) {
            InputStream in = format == Format.TAR_GZ ? new GZIPInputStream(raw, 1 << 16) : raw;
            return tar(in);
        }
    }

    private static List<Member> zip(Path archive) throws IOException {
        Map<String, Member> members = new LinkedHashMap<>();
        try (ZipFile zip = new ZipFile(archive.toFile())) {
            for (Enumeration<? extends ZipEntry> e = zip.entries(); e.hasMoreElements(); ) {
                ZipEntry entry = e.nextElement();
                add(members, entry.getName(), entry.isDirectory() ? Kind.DIRECTORY : Kind.FILE,
                        entry.isDirectory() ? -1 : entry.getSize());
            }
        }
        return List.copyOf(members.values());
    }

    /**
     * A tar stream (ustar, GNU and pax): 512-byte headers, each followed by its data rounded up to
     * 512 bytes; GNU long names ({@code L}) and pax {@code path} records name the next member.
     */
    static List<Member> tar(InputStream in) throws IOException {
        Map<String, Member> members = new LinkedHashMap<>();
        byte[] header = new byte[512];
        String longName = null;
        while (readBlock(in, header)) {
            if (isZero(header)) {
                break;
            }
            long size = number(header, 124, 12);
            char type = (char) header[156];
            if (type == 'L' || type == 'x') {
                byte[] data = readData(in, size);
                String name = type == 'L' ? cString(data, 0, data.length) : paxPath(data);
                if (name != null) {
                    longName = name;
                }
                continue;
            }
            skip(in, padded(size));
            if (type == 'g' || type == 'K') {
                continue;
            }
            String name = longName != null ? longName : ustarName(header);
            longName = null;
            Kind kind = switch (type) {
                case '0', '\0', '7' -> Kind.FILE;
                case '5' -> Kind.DIRECTORY;
                case '2' -> Kind.LINK;
                default -> Kind.ANY; // a hard link, a device: its existence is what we compare
            };
            add(members, name, kind, kind == Kind.FILE ? size : -1);
        }
        return List.copyOf(members.values());
    }

    /**
     * Parses {@code tar -tf} or {@code unzip -Z1} output: one name a line, a directory ending in
     * {@code /}; other members' kinds and sizes are unknown.
     */
    static List<Member> listing(String stdout) {
        Map<String, Member> members = new LinkedHashMap<>();
        for (String line : stdout.split("\n")) {
            if (!line.isEmpty()) {
                add(members, line, line.endsWith("/") ? Kind.DIRECTORY : Kind.ANY, -1);
            }
        }
        return List.copyOf(members.values());
    }

    private static void add(Map<String, Member> members, String written, Kind kind, long size) {
        String path = written;
        while (path.startsWith("/") || path.startsWith("./")) {
            path = path.startsWith("/") ? path.substring(1) : path.substring(2);
        }
        while (path.endsWith("/")) {
            path = path.substring(0, path.length() - 1);
        }
        if (path.isEmpty() || path.equals(".")) {
            return;
        }
        for (String part : path.split("/")) {
            if (part.equals("..")) {
                throw new IllegalArgumentException("member " + written + " points outside dest ('..')");
            }
        }
        members.put(path, new Member(path, kind, size)); // a later member of the same name replaces it, as extraction does
    }

    private static String ustarName(byte[] h) {
        String name = cString(h, 0, 100);
        boolean ustar = new String(h, 257, 5, StandardCharsets.US_ASCII).equals("ustar");
        String prefix = ustar ? cString(h, 345, 155) : "";
        return prefix.isEmpty() ? name : prefix + "/" + name;
    }

    /** The {@code path} record of a pax header ({@code "LEN path=VALUE\n"} records), or null. */
    private static String paxPath(byte[] data) {
        int i = 0;
        while (i < data.length) {
            int space = indexOf(data, (byte) ' ', i);
            if (space < 0) {
                break;
            }
            int length;
            try {
                length = Integer.parseInt(new String(data, i, space - i, StandardCharsets.US_ASCII));
            } catch (NumberFormatException e) {
                break;
            }
            if (length <= 0 || i + length > data.length) {
                break;
            }
            String record = new String(data, space + 1, i + length - space - 2, StandardCharsets.UTF_8);
            if (record.startsWith("path=")) {
                return record.substring(5);
            }
            i += length;
        }
        return null;
    }

    private static int indexOf(byte[] data, byte b, int from) {
        for (int i = from; i < data.length; i++) {
            if (data[i] == b) {
                return i;
            }
        }
        return -1;
    }

    /** An octal field, or GNU's base-256 one (high bit set) for large sizes. */
    private static long number(byte[] h, int offset, int length) throws IOException {
        if ((h[offset] & 0x80) != 0) {
            long v = h[offset] & 0x7f;
            for (int i = 1; i < length; i++) {
                v = (v << 8) | (h[offset + i] & 0xff);
            }
            return v;
        }
        String s = cString(h, offset, length).strip();
        if (s.isEmpty()) {
            return 0;
        }
        try {
            return Long.parseLong(s, 8);
        } catch (NumberFormatException e) {
            throw new IOException("not a tar archive (bad size field '" + s + "')");
        }
    }

    private static String cString(byte[] b, int offset, int length) {
        int end = offset;
        while (end < offset + length && b[end] != 0) {
            end++;
        }
        return new String(b, offset, end - offset, StandardCharsets.UTF_8);
    }

    private static boolean isZero(byte[] block) {
        for (byte b : block) {
            if (b != 0) {
                return false;
            }
        }
        return true;
    }

    private static long padded(long size) {
        return (size + 511) / 512 * 512;
    }

    /** Reads a whole block; false at a clean end of the stream, an error within a block. */
    private static boolean readBlock(InputStream in, byte[] block) throws IOException {
        int n = in.readNBytes(block, 0, block.length);
        if (n == 0) {
            return false;
        }
        if (n < block.length) {
            throw new IOException("not a tar archive (truncated header)");
        }
        return true;
    }

    private static byte[] readData(InputStream in, long size) throws IOException {
        if (size > 1 << 20) {
            throw new IOException("a tar extended header of " + size + " bytes");
        }
        byte[] data = in.readNBytes((int) size);
        if (data.length != size) {
            throw new IOException("not a tar archive (truncated)");
        }
        skip(in, padded(size) - size);
        return data;
    }

    private static void skip(InputStream in, long n) throws IOException {
        in.skipNBytes(n);
    }

    /** The members that a change must (re)write: paths in the listing order. */
    static List<String> paths(List<Member> members) {
        List<String> paths = new ArrayList<>();
        members.forEach(m -> paths.add(m.path()));
        return paths;
    }
}
