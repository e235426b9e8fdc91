package dev.provision.modules.files;

import dev.provision.modules.spi.FileStat;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The read-only probe behind {@code stat} and the pure parser of what it prints: one round trip
 * that stats a path with GNU {@code stat}, tests access as the task's user, and adds, as asked, a
 * checksum, the {@code file} utility's MIME type, {@code lsattr}'s attributes and, for a link, its
 * target. The path and the options reach the script only as positional parameters.
 *
 * <p>Exit 3 means the path does not exist (ENOENT: as Ansible, any other error, such as "Not a
 * directory" or "Permission denied", fails the task); 1 is a failure with stderr.
 */
final class StatOutput {
    /** {@code sh -c SCRIPT sh PATH FOLLOW ALGORITHM MIME ATTRIBUTES MD5}; the flags are 1 or 0, the algorithm empty for none. */
    static final String SCRIPT = String.join("\n",
            "p=$1 follow=$2 algo=$3 mime=$4 attr=$5 md5=$6",
            "L=",
            "if [ \"$follow\" = 1 ]; then L=-L; fi",
            "if ! s=$(LC_ALL=C stat $L --printf '%f %u %g %s %i %d %h %b %o %t %T %.9X %.9Y %.9Z\\n%U\\n%G\\n' -- \"$p\" 2>&1); then",
            "  case $s in *': No such file or directory') exit 3;; esac",
            "  printf '%s\\n' \"$s\" >&2; exit 1",
            "fi",
            "printf '%s\\n' \"$s\"",
            "a=",
            "for t in r w x; do if [ -$t \"$p\" ]; then a=$a$t; else a=$a-; fi; done",
            "printf 'access %s\\n' \"$a\"",
            "digest() {",
            "  case $1 in md5|sha1|sha224|sha256|sha384|sha512) c=$(\"${1}sum\" -- \"$p\") || exit 1; printf '%s %s\\n' \"$2\" \"${c%% *}\";;",
            "  *) echo \"unknown checksum algorithm $1\" >&2; exit 1;; esac",
            "}",
            "if [ -f \"$p\" ] && { [ \"$follow\" = 1 ] || [ ! -L \"$p\" ]; } && [ -r \"$p\" ]; then",
            "  if [ -n \"$algo\" ]; then digest \"$algo\" checksum; fi",
            "  if [ \"$md5\" = 1 ]; then digest md5 md5; fi",
            "fi",
            "if [ \"$mime\" = 1 ]; then",
            "  if command -v file >/dev/null 2>&1 && m=$(file -b --mime-type --mime-encoding -- \"$p\" 2>/dev/null); then",
            "    printf 'mime %s\\n' \"$m\"; else printf 'mime unknown\\n'; fi",
            "fi",
            "if [ \"$attr\" = 1 ] && command -v lsattr >/dev/null 2>&1 && v=$(lsattr -vd -- \"$p\" 2>/dev/null); then",
            "  printf 'attributes %s\\n' \"$v\"",
            "fi",
            "if [ \"$follow\" != 1 ] && [ -L \"$p\" ]; then",
            "  printf 'source %s\\n' \"$(realpath -m -- \"$p\")\"",
            "  printf 'target '; readlink -- \"$p\"",
            "fi");

    /** lsattr's letters and the names Ansible gives them. */
    static final Map<Character, String> ATTRIBUTE_NAMES = Map.ofEntries(Map.entry('A', "noatime"), Map.entry('a', "append"),
            Map.entry('c', "compressed"), Map.entry('C', "nocow"), Map.entry('d', "nodump"), Map.entry('D', "dirsync"),
            Map.entry('e', "extents"), Map.entry('E', "encrypted"), Map.entry('h', "blocksize"), Map.entry('i', "immutable"),
            Map.entry('I', "indexed"), Map.entry('j', "journalled"), Map.entry('N', "inline"), Map.entry('s', "zero"),
            Map.entry('S', "synchronous"), Map.entry('t', "notail"), Map.entry('T', "blockroot"), Map.entry('u', "undelete"),
            Map.entry('X', "compressedraw"), Map.entry('Z', "compresseddirty"));

    private static final int S_IFMT = 0170000;

    private StatOutput() {
    }

    static List<String> probe(String path, boolean follow, String algorithm, boolean mime, boolean attributes, boolean md5) {
        return List.of("sh", "-c", SCRIPT, "sh", path, flag(follow), algorithm, flag(mime), flag(attributes), flag(md5));
    }

    private static String flag(boolean b) {
        return b ? "1" : "0";
    }

    /**
     * Ansible's {@code stat} return value for a path that exists, from the probe's output.
     *
     * @throws IllegalArgumentException when the output is not the probe's
     */
    static Map<String, Object> parse(String path, String out, boolean mime, boolean attributes) {
        int targetAt = out.indexOf("\ntarget "); // the last line, and the link's target may hold newlines
        String head = targetAt < 0 ? out : out.substring(0, targetAt + 1);
        List<String> lines = head.lines().toList();
        if (lines.size() < 3) {
            throw new IllegalArgumentException("stat printed too little: '" + out.strip() + "'");
        }
        String[] f = lines.get(0).strip().split(" ");
        if (f.length != 14) {
            throw new IllegalArgumentException("stat printed '" + lines.get(0) + "'");
        }
        int mode = Integer.parseInt(f[0], 16);
        Map<String, Object> st = new LinkedHashMap<>();
        st.put("exists", true);
        st.put("path", path);
        st.put("mode", FileStat.octal(mode & 07777));
        int type = mode & S_IFMT;
        st.put("isdir", type == 0040000);
        st.put("ischr", type == 0020000);
        st.put("isblk", type == 0060000);
        st.put("isreg", type == 0100000);
        st.put("isfifo", type == 0010000);
        st.put("islnk", type == 0120000);
        st.put("issock", type == 0140000);
        st.put("uid", Long.parseLong(f[1]));
        st.put("gid", Long.parseLong(f[2]));
        st.put("size", Long.parseLong(f[3]));
        st.put("inode", Long.parseLong(f[4]));
        st.put("dev", Long.parseLong(f[5]));
        st.put("nlink", Long.parseLong(f[6]));
        st.put("atime", Double.parseDouble(f[11]));
        st.put("mtime", Double.parseDouble(f[12]));
        st.put("ctime", Double.parseDouble(f[13]));
        String[] bits = {"xoth", "woth", "roth", "xgrp", "wgrp", "rgrp", "xusr", "wusr", "rusr"};
        for (int i = 0; i < bits.length; i++) {
            st.put(bits[i], (mode & (1 << i)) != 0);
        }
        st.put("isuid", (mode & 04000) != 0);
        st.put("isgid", (mode & 02000) != 0);
        st.put("blocks", Long.parseLong(f[7]));
        st.put("block_size", Long.parseLong(f[8]));
        st.put("device_type", makedev(Long.parseLong(f[9], 16), Long.parseLong(f[10], 16)));
        // stat prints UNKNOWN for an id without a name; Ansible then leaves the key out
        if (!lines.get(1).equals("UNKNOWN")) {
            st.put("pw_name", lines.get(1));
        }
        if (!lines.get(2).equals("UNKNOWN")) {
            st.put("gr_name", lines.get(2));
        }
        if (mime) {
            st.put("mimetype", "unknown");
            st.put("charset", "unknown");
        }
        if (attributes) {
            st.put("attributes", List.of());
            st.put("attr_flags", "");
        }
        for (String line : lines.subList(3, lines.size())) {
            int space = line.indexOf(' ');
            String key = space < 0 ? line : line.substring(0, space);
            String value = space < 0 ? "" : line.substring(space + 1);
            switch (key) {
                case "access" -> {
                    st.put("readable", value.charAt(0) == 'r');
                    st.put("writeable", value.charAt(1) == 'w');
                    st.put("executable", value.charAt(2) == 'x');
                }
                case "checksum" -> st.put("checksum", digest(value));
                case "md5" -> st.put("md5", digest(value));
                case "mime" -> mime(st, value);
                case "attributes" -> attributes(st, value);
                case "source" -> st.put("lnk_source", value);
                default -> throw new IllegalArgumentException("stat printed an unknown line '" + line + "'");
            }
        }
        if (targetAt >= 0) {
            String target = out.substring(targetAt + "\ntarget ".length());
            st.put("lnk_target", target.endsWith("\n") ? target.substring(0, target.length() - 1) : target);
        }
        return st;
    }

    /** sha1sum starts its line with a backslash when the file name needed escaping. */
    private static String digest(String value) {
        return value.startsWith("\\") ? value.substring(1) : value;
    }

    /** {@code text/plain; charset=us-ascii}, as Ansible splits it. */
    private static void mime(Map<String, Object> st, String value) {
        int semicolon = value.indexOf(';');
        if (semicolon < 0) {
            return; // "unknown": the keys keep Ansible's "unknown"
        }
        st.put("mimetype", value.substring(0, semicolon).strip());
        String rest = value.substring(semicolon + 1).strip();
        st.put("charset", rest.startsWith("charset=") ? rest.substring("charset=".length()).strip() : rest);
    }

    /** {@code lsattr -vd}: {@code VERSION FLAGS PATH}. */
    private static void attributes(Map<String, Object> st, String value) {
        String[] f = value.strip().split("\\s+", 3);
        if (f.length < 2) {
            return;
        }
        st.put("version", f[0]);
        String flags = f[1].replace("-", "");
        st.put("attr_flags", flags);
        List<String> names = new ArrayList<>();
        for (char c : flags.toCharArray()) {
            String n = ATTRIBUTE_NAMES.get(c);
            if (n != null) {
                names.add(n);
            }
        }
        st.put("attributes", List.copyOf(names));
    }

    /** glibc's encoding of a device number, which Python's {@code st_rdev} (Ansible's {@code device_type}) shows. */
    static long makedev(long major, long minor) {
        return (minor & 0xff) | ((major & 0xfff) << 8) | ((minor & ~0xffL) << 12) | ((major & ~0xfffL) << 32);
    }
}
