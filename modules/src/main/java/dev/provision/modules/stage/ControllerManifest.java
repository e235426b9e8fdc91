package dev.provision.modules.stage;

import dev.provision.modules.spi.ModuleException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The listing of a directory on the controller ({@code src_on: controller}), made here by the rules
 * of {@code manifest.sh}, line for line the same text: per regular file {@code -} (no hash: no file's
 * data is read here), size, octal mode bits, mtime in whole seconds and the path, sorted by the path's
 * bytes; refused for what a manifest cannot carry (symlinks and special files, names with a tab,
 * newline or backslash, a top-level {@code .provision-stage}). The hashes are made by the first node
 * of the chain from the bytes the controller's tar streams to it: the controller reads the set once,
 * to send it, and spends no CPU on hashing (one controller serves many clusters' runs).
 */
final class ControllerManifest {
    private static final int NAMED = 3;

    private ControllerManifest() {
    }

    /** One file as the walk found it. */
    private record Found(String path, long size, String mode, long mtime) {
    }

    static Manifest of(Path src) throws ModuleException {
        if (!Files.isDirectory(src, LinkOption.NOFOLLOW_LINKS)) {
            throw new ModuleException(src + " is not a directory on the controller");
        }
        if (Files.exists(src.resolve(StageModule.STAGE_DIR), LinkOption.NOFOLLOW_LINKS)) {
            throw new ModuleException(src + "/" + StageModule.STAGE_DIR + " is the name the nodes keep their records under");
        }
        List<Found> files = new ArrayList<>();
        List<String> odd = new ArrayList<>();
        List<String> oddNames = new ArrayList<>();
        try {
            Files.walkFileTree(src, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
                    if (!dir.equals(src)) {
                        checkName(dir);
                    }
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                    checkName(file);
                    if (!attrs.isRegularFile()) {
                        odd.add("./" + relative(file));
                        return FileVisitResult.CONTINUE;
                    }
                    Map<String, Object> unix = Files.readAttributes(file, "unix:mode,lastModifiedTime", LinkOption.NOFOLLOW_LINKS);
                    String mode = Integer.toOctalString(((Integer) unix.get("mode")) & 07777);
                    long mtime = ((FileTime) unix.get("lastModifiedTime")).to(TimeUnit.SECONDS);
                    files.add(new Found(relative(file), attrs.size(), mode, mtime));
                    return FileVisitResult.CONTINUE;
                }

                private void checkName(Path p) {
                    String name = p.getFileName().toString();
                    if (name.contains("\t") || name.contains("\n") || name.contains("\\")) {
                        oddNames.add("./" + relative(p));
                    }
                }

                private String relative(Path p) {
                    return src.relativize(p).toString();
                }
            });
        } catch (IOException e) {
            throw new ModuleException("cannot read " + src + " on the controller: " + e.getMessage(), e);
        }
        if (!odd.isEmpty()) {
            throw new ModuleException("neither a regular file nor a directory (not staged): " + named(odd));
        }
        if (!oddNames.isEmpty()) {
            throw new ModuleException("names with a tab, newline or backslash (not staged): " + named(oddNames));
        }
        files.sort(Comparator.comparing((Found f) -> (f.path() + "\t").getBytes(StandardCharsets.UTF_8), Arrays::compareUnsigned));
        StringBuilder text = new StringBuilder();
        for (Found f : files) {
            text.append(Manifest.UNHASHED).append('\t').append(f.size()).append('\t').append(f.mode()).append('\t').append(f.mtime())
                    .append('\t').append(f.path()).append('\n');
        }
        return Manifest.parse(text.toString());
    }

    private static String named(List<String> paths) {
        return String.join(" ", paths.subList(0, Math.min(NAMED, paths.size())));
    }
}
