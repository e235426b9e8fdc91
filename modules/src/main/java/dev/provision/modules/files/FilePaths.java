package dev.provision.modules.files;

import dev.provision.modules.spi.FileStat;
import dev.provision.modules.spi.HostView;
import dev.provision.modules.spi.ModuleException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** Path arithmetic on the host's (POSIX) paths, which are strings, not this machine's Paths. */
final class FilePaths {
    private FilePaths() {
    }

    /** Commands carry absolute paths; a relative one would depend on the engine's working directory. */
    static String requireAbsolute(String param, String path) throws ModuleException {
        if (!path.startsWith("/")) {
            throw new ModuleException(param + " must be an absolute path, got '" + path + "'");
        }
        return path;
    }

    /** The directory holding {@code path} ({@code /} for a top-level entry). */
    static String parent(String path) {
        String trimmed = stripTrailingSlashes(path);
        int slash = trimmed.lastIndexOf('/');
        return slash <= 0 ? "/" : trimmed.substring(0, slash);
    }

    static String basename(String path) {
        String trimmed = stripTrailingSlashes(path);
        return trimmed.substring(trimmed.lastIndexOf('/') + 1);
    }

    /** A symlink's target as an absolute path (relative targets count from the link's directory). */
    static String resolveLink(String linkPath, String target) {
        return target.startsWith("/") ? target : parent(linkPath) + (parent(linkPath).equals("/") ? "" : "/") + target;
    }

    /** Stats a path, following a final symlink once (enough for the links admins make). */
    static Optional<FileStat> statFollowing(HostView host, String path) throws ModuleException {
        Optional<FileStat> stat = host.stat(path);
        if (stat.isPresent() && stat.get().type() == FileStat.Type.LINK) {
            return host.stat(resolveLink(path, stat.get().linkTarget()));
        }
        return stat;
    }

    /**
     * The path that a write through {@code path} lands on: final symlinks followed (up to 40, as the
     * kernel does), so that an editor changes the file a link points to and keeps the link (Ansible's
     * {@code os.path.realpath} before its rename). The path itself when it is no link or missing.
     */
    static String followLinks(HostView host, String path) throws ModuleException {
        String current = path;
        for (int hops = 0; hops < 40; hops++) {
            Optional<FileStat> stat = host.stat(current);
            if (stat.isEmpty() || stat.get().type() != FileStat.Type.LINK) {
                return current;
            }
            current = resolveLink(current, stat.get().linkTarget());
        }
        throw new ModuleException(path + ": too many levels of symbolic links");
    }

    /** The directories from the top down that {@code mkdir -p dir} would create; empty when it exists. */
    static List<String> missingDirectories(HostView host, String dir) throws ModuleException {
        List<String> missing = new ArrayList<>();
        for (String d = stripTrailingSlashes(dir); statFollowing(host, d).isEmpty(); d = parent(d)) {
            missing.addFirst(d);
            if (d.equals("/")) {
                break;
            }
        }
        return missing;
    }

    /** Fails unless the directory that would hold a new {@code path} exists, as Ansible does. */
    static void requireParentDirectory(HostView host, String path) throws ModuleException {
        String parent = parent(path);
        Optional<FileStat> stat = statFollowing(host, parent);
        if (stat.isEmpty()) {
            throw new ModuleException("Destination directory " + parent + " does not exist");
        }
        if (stat.get().type() != FileStat.Type.DIRECTORY) {
            throw new ModuleException("Destination " + parent + " is not a directory");
        }
    }

    /** What a path is, in words for messages and state diffs. */
    static String kind(FileStat stat) {
        return switch (stat.type()) {
            case FILE -> "file";
            case DIRECTORY -> "directory";
            case LINK -> "link";
            case OTHER -> "special file";
        };
    }

    static String stripTrailingSlashes(String path) {
        String p = path;
        while (p.length() > 1 && p.endsWith("/")) {
            p = p.substring(0, p.length() - 1);
        }
        return p;
    }
}
