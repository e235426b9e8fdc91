package dev.provision.modules.files;

import dev.provision.modules.spi.FileStat;
import dev.provision.modules.spi.HostView;
import dev.provision.modules.spi.ModuleException;
import dev.provision.modules.spi.ParamSpec;
import dev.provision.modules.spi.ParamSpec.Type;
import dev.provision.modules.spi.Params;
import dev.provision.modules.spi.Plan;
import dev.provision.modules.spi.ProbeResult;
import dev.provision.modules.spi.TaskContext;
import dev.provision.modules.spi.TaskModule;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code stat}: describes a path and changes nothing; the description is the task's result value
 * {@code stat}, with Ansible's keys, so that {@code register: st} and {@code when: st.stat.exists}
 * work as they do there.
 *
 * <p>Parameters (Ansible's names, aliases and defaults):
 * <ul>
 *   <li>{@code path} (aliases {@code dest}, {@code name}), required, absolute.
 *   <li>{@code follow} (default false): describe what a final symlink points to.
 *   <li>{@code get_checksum} (default true) with {@code checksum_algorithm} (aliases
 *       {@code checksum}, {@code checksum_algo}; {@code sha1} by default, or md5, sha224, sha256,
 *       sha384, sha512): {@code checksum} of a readable regular file. {@code get_md5} (default
 *       false): {@code md5} as well.
 *   <li>{@code get_mime} (aliases {@code mime}, {@code mime_type}, {@code mime-type}; default
 *       true): {@code mimetype} and {@code charset} from the {@code file} utility, {@code unknown}
 *       where the host has none.
 *   <li>{@code get_attributes} (aliases {@code attr}, {@code attributes}; default true):
 *       {@code attributes}, {@code attr_flags} and {@code version} from {@code lsattr}.
 * </ul>
 *
 * <p>The result: {@code {exists: false}} for a missing path; else {@code exists}, {@code path},
 * {@code mode} ({@code "0644"}), {@code isreg}, {@code isdir}, {@code islnk}, {@code ischr},
 * {@code isblk}, {@code isfifo}, {@code issock}, {@code uid}, {@code gid}, {@code pw_name},
 * {@code gr_name}, {@code size}, {@code inode}, {@code dev}, {@code nlink}, {@code blocks},
 * {@code block_size}, {@code device_type}, {@code atime}, {@code mtime}, {@code ctime}, the
 * permission bits ({@code rusr} ... {@code xoth}, {@code isuid}, {@code isgid}), {@code readable},
 * {@code writeable}, {@code executable} (for the task's user), {@code lnk_source} (the resolved
 * path) and {@code lnk_target} (the link's text) for a link, and the optional keys above. One probe
 * (one round trip) reads all of it ({@link StatOutput}).
 *
 * <p>In a dry run, a path that an earlier task of the run would change is described from that
 * forecast: existence, kind, mode, owner and group names, size, link target and checksum; the keys
 * only the host can tell (ids, times, inode, access, MIME type, attributes) are left out, so that a
 * condition on them is an error rather than an answer about the file as it was.
 */
public final class StatModule implements TaskModule {
    private static final List<String> ALGORITHMS = List.of("md5", "sha1", "sha224", "sha256", "sha384", "sha512");
    private static final ParamSpec SPEC = ParamSpec.builder()
            .required("path", Type.STRING, "dest", "name")
            .withDefault("follow", Type.BOOL, false)
            .withDefault("get_checksum", Type.BOOL, true)
            .add(new ParamSpec.Param("checksum_algorithm", Type.STRING, false, Optional.of("sha1"), ALGORITHMS,
                    List.of("checksum", "checksum_algo"), false))
            .withDefault("get_md5", Type.BOOL, false)
            .withDefault("get_mime", Type.BOOL, true, "mime", "mime_type", "mime-type")
            .withDefault("get_attributes", Type.BOOL, true, "attr", "attributes")
            .build();

    public StatModule() {
    }

    @Override
    public String name() {
        return "stat";
    }

    @Override
    public boolean isHostLocal() {
        return true;
    }

    @Override
    public ParamSpec params() {
        return SPEC;
    }

    @Override
    public Plan plan(Params params, TaskContext context) throws ModuleException {
        String path = FilePaths.requireAbsolute("path", params.string("path"));
        boolean follow = params.bool("follow");
        String algorithm = params.bool("get_checksum") ? params.string("checksum_algorithm") : "";
        HostView host = context.host();
        Map<String, Object> stat;
        String forecast = "";
        if (host.changesPending(path)) {
            stat = fromForecast(host, path, follow, algorithm, params.bool("get_md5"));
            forecast = " (forecast: an earlier task of this run changes it)";
        } else {
            ProbeResult r = host.probe(StatOutput.probe(path, follow, algorithm, params.bool("get_mime"), params.bool("get_attributes"),
                    params.bool("get_md5")).toArray(String[]::new));
            if (r.exitCode() == 3) {
                stat = Map.of("exists", false);
            } else if (!r.ok()) {
                throw new ModuleException("cannot stat " + path + ": " + (r.stderr().isBlank() ? "exit " + r.exitCode() : r.stderr().strip()));
            } else {
                try {
                    stat = StatOutput.parse(path, r.stdout(), params.bool("get_mime"), params.bool("get_attributes"));
                } catch (IllegalArgumentException e) {
                    throw new ModuleException("cannot stat " + path + ": " + e.getMessage(), e);
                }
            }
        }
        return Plan.converged(describe(path, stat) + forecast).withResult(Map.of("stat", stat));
    }

    private static Map<String, Object> fromForecast(HostView host, String path, boolean follow, String algorithm, boolean md5)
            throws ModuleException {
        String described = follow ? FilePaths.followLinks(host, path) : path;
        Optional<FileStat> found = host.stat(described);
        if (found.isEmpty()) {
            return Map.of("exists", false);
        }
        FileStat s = found.get();
        Map<String, Object> st = new LinkedHashMap<>();
        st.put("exists", true);
        st.put("path", path);
        st.put("mode", s.octalMode());
        st.put("isdir", s.type() == FileStat.Type.DIRECTORY);
        st.put("isreg", s.type() == FileStat.Type.FILE);
        st.put("islnk", s.type() == FileStat.Type.LINK);
        st.put("size", s.size());
        st.put("pw_name", s.owner());
        st.put("gr_name", s.group());
        if (s.type() == FileStat.Type.LINK) {
            st.put("lnk_target", s.linkTarget());
            st.put("lnk_source", FilePaths.followLinks(host, path));
        }
        if (s.type() == FileStat.Type.FILE && (!algorithm.isEmpty() || md5)) {
            Optional<byte[]> content = host.readFile(described);
            if (content.isPresent()) {
                if (!algorithm.isEmpty()) {
                    st.put("checksum", digest(algorithm, content.get()));
                }
                if (md5) {
                    st.put("md5", digest("md5", content.get()));
                }
            }
        }
        return st;
    }

    static String digest(String algorithm, byte[] content) {
        String name = switch (algorithm) {
            case "md5" -> "MD5";
            case "sha1" -> "SHA-1";
            default -> "SHA-" + algorithm.substring(3);
        };
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance(name).digest(content));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has " + name, e);
        }
    }

    /** The task's one line: what the path is. */
    private static String describe(String path, Map<String, Object> st) {
        if (!Boolean.TRUE.equals(st.get("exists"))) {
            return path + " does not exist";
        }
        String kind = Boolean.TRUE.equals(st.get("isreg")) ? "regular file"
                : Boolean.TRUE.equals(st.get("isdir")) ? "directory"
                : Boolean.TRUE.equals(st.get("islnk")) ? "symlink to " + st.get("lnk_target")
                : Boolean.TRUE.equals(st.get("ischr")) ? "character device"
                : Boolean.TRUE.equals(st.get("isblk")) ? "block device"
                : Boolean.TRUE.equals(st.get("isfifo")) ? "fifo"
                : Boolean.TRUE.equals(st.get("issock")) ? "socket" : "special file";
        String owner = st.getOrDefault("pw_name", st.getOrDefault("uid", "?")) + ":" + st.getOrDefault("gr_name", st.getOrDefault("gid", "?"));
        return path + " is a " + kind + ", mode " + st.get("mode") + ", " + owner + ", " + st.get("size") + " bytes";
    }
}
